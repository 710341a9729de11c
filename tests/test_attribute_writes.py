"""Which attributes the code of a run may write (analysis/attribute_writes.py, through the project
index): what a project callable writes on a command-line namespace handed to it, the attributes
only a class's own methods store, and the int answers GL507 reads from them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradlint.analysis.project import ProjectIndex
from gradlint.config import Settings
from gradlint.runner import check_paths
from support import write

MAIN = """\
import argparse
import torch
from model import RN

parser = argparse.ArgumentParser()
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--lr', type=float, default=0.1)
args = parser.parse_args()
args.cuda = False
model = RN(args)
bs = args.batch_size
label = torch.LongTensor(bs)
"""
MODEL = """\
import torch.nn as nn


class Basic(nn.Module):
    def __init__(self, args, name):
        super(Basic, self).__init__()
        self.name = name


class RN(Basic):
    def __init__(self, args):
        super(RN, self).__init__(args, 'RN')
        self.coord = args.batch_size
        if args.cuda:
            print(args)
"""
TRAINER = """\
import torch


class Trainer:
    def __init__(self, G):
        self.G = G
        self.batch_size = 100

    def train(self):
        label = torch.FloatTensor(self.batch_size)
        return label
"""
RUNNER = """\
from trainer import Trainer


def weights_init(m):
    return m.__class__.__name__


trainer = Trainer(None)
trainer.train()
"""


def index_of(root: Path, files: dict[str, str]) -> ProjectIndex:
    for file, text in files.items():
        write(root / file, text)
    return ProjectIndex([(str(path), path.read_bytes()) for path in sorted(root.rglob("*.py"))], [str(root)])


def gl507(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    for file, text in files.items():
        write(root / file, text)
    summary = check_paths([root], Settings(root=root, select=("GL507",)), use_cache=False, jobs=1)
    assert summary.errors == []
    return sorted((Path(f.path).name, f.location.row, f.fix.applicability.value if f.fix else "") for f in summary.findings)


# -- what a project callable writes on a namespace handed to it ----------------------------------------


def test_a_callable_that_only_reads_the_namespace_writes_nothing(tmp_path):
    index = index_of(tmp_path, {"main.py": MAIN, "model.py": MODEL})
    assert index.argument_writes(str(tmp_path / "main.py")) == {"RN(0)": frozenset()}


@pytest.mark.parametrize(
    "old, new, expected",
    [
        # an attribute written, in the callable or in the base class its `super().__init__` runs
        ("        self.coord = args.batch_size\n", "        args.batch_size = [1]\n", {"RN(0)": frozenset({"batch_size"})}),
        ("        self.name = name\n", "        self.name = name\n        args.lr += 1\n", {"RN(0)": frozenset({"lr"})}),
        # the object kept, returned, handed to outside code or asked to run one of its methods
        ("        self.coord = args.batch_size\n", "        self.args = args\n", {}),
        ("        self.coord = args.batch_size\n", "        wandb.config.update(args)\n", {}),
        ("        self.coord = args.batch_size\n", "        args.update(x=1)\n", {}),
        ("        self.coord = args.batch_size\n", "        vars(args)['batch_size'] = [1]\n", {}),
        ("        self.coord = args.batch_size\n", "        args.__dict__['batch_size'] = [1]\n", {}),
        ("        self.coord = args.batch_size\n", "        fill = lambda: args\n", {}),
        # the parameter rebound, the base an outside class
        ("        self.coord = args.batch_size\n", "        args = None\n", {}),
        ("class RN(Basic):", "class RN(Outside):", {}),
    ],
)
def test_look_alikes_of_a_reading_callable(tmp_path, old, new, expected):
    assert old in MODEL
    index = index_of(tmp_path, {"main.py": MAIN, "model.py": MODEL.replace(old, new)})
    assert index.argument_writes(str(tmp_path / "main.py")) == expected


def test_a_namespace_handed_on_to_a_project_function_that_writes_it(tmp_path):
    model = MODEL + "\n\ndef configure(options):\n    options.batch_size = 'auto'\n"
    model = model.replace("        self.coord = args.batch_size\n", "        configure(args)\n")
    index = index_of(tmp_path, {"main.py": MAIN, "model.py": model})
    assert index.argument_writes(str(tmp_path / "main.py")) == {"RN(0)": frozenset({"batch_size"})}


def test_gl507_reads_an_int_option_of_a_namespace_only_read_by_the_model(tmp_path):
    assert gl507(tmp_path, {"main.py": MAIN, "model.py": MODEL}) == [("main.py", 12, "safe")]


@pytest.mark.parametrize(
    "old, new",
    [
        ("        self.coord = args.batch_size\n", "        args.batch_size = [64]\n"),
        ("        self.coord = args.batch_size\n", "        self.args = args\n"),
    ],
)
def test_gl507_leaves_an_option_a_callee_may_write_unsafe(tmp_path, old, new):
    assert gl507(tmp_path, {"main.py": MAIN, "model.py": MODEL.replace(old, new)}) == [("main.py", 12, "")]


def test_a_run_of_the_script_alone_does_not_know_the_callee(tmp_path):
    for file, text in {"main.py": MAIN, "model.py": MODEL}.items():
        write(tmp_path / file, text)
    summary = check_paths([tmp_path / "main.py"], Settings(root=tmp_path, select=("GL507",)), use_cache=False, jobs=1)
    assert [(f.location.row, f.fix) for f in summary.findings] == [(12, None)]


# -- attributes only a class's own methods store --------------------------------------------------------


def test_an_attribute_only_the_class_stores_is_sealed(tmp_path):
    index = index_of(tmp_path, {"trainer.py": TRAINER, "main.py": RUNNER})
    assert index.sealed_attributes(str(tmp_path / "trainer.py")) == frozenset({"Trainer.batch_size"})


@pytest.mark.parametrize(
    "file, old, new",
    [
        # stored by another file, or on something else
        ("main.py", "trainer.train()", "trainer.batch_size = [1]"),
        ("main.py", "trainer.train()", "loader.batch_size = 4"),
        ("main.py", "trainer.train()", "setattr(trainer, name, [1])"),
        ("main.py", "trainer.train()", "trainer.__dict__.update(config)"),
        ("main.py", "trainer.train()", "trainer.__class__ = Other"),
        # a subclass, an alias, the class reached through its module, a class body binding the name
        ("main.py", "trainer.train()", "class Mine(Trainer):\n    pass"),
        ("main.py", "from trainer import Trainer", "from trainer import Trainer as T\nfrom trainer import Trainer"),
        ("main.py", "trainer.train()", "import trainer as t\nt.Trainer(None)"),
        ("main.py", "trainer.train()", "class Config:\n    batch_size = [1]"),
        # stored otherwise in the class: augmented, unpacked, outside a plain method
        ("trainer.py", "        return label\n", "        self.batch_size += 1\n        return label\n"),
        ("trainer.py", "        self.batch_size = 100\n", "        self.batch_size, self.k = 100, 1\n"),
        (
            "trainer.py",
            "    def train(self):\n",
            "    @staticmethod\n    def make(self):\n        self.batch_size = 1\n\n    def train(self):\n",
        ),
        # a base class, a class attribute access of its own
        ("trainer.py", "class Trainer:", "class Trainer(Base):"),
        ("trainer.py", "    def train(self):\n", "    def __getattribute__(self, name):\n        return [1]\n\n    def train(self):\n"),
    ],
)
def test_look_alikes_of_a_sealed_attribute(tmp_path, file, old, new):
    files = {"trainer.py": TRAINER, "main.py": RUNNER}
    assert old in files[file]
    files[file] = files[file].replace(old, new)
    index = index_of(tmp_path, files)
    assert "Trainer.batch_size" not in index.sealed_attributes(str(tmp_path / "trainer.py"))


def test_only_the_files_connected_by_imports_can_reach_the_objects(tmp_path):
    other = "class Config:\n    def __init__(self):\n        self.batch_size = [1]\n"
    index = index_of(tmp_path, {"trainer.py": TRAINER, "main.py": RUNNER, "other/train.py": other})
    assert index.sealed_attributes(str(tmp_path / "trainer.py")) == frozenset({"Trainer.batch_size"})
    # a module the script imports is connected, whoever imports whom
    runner = RUNNER.replace("from trainer import Trainer", "from trainer import Trainer\nimport tune")
    tune = "def tune(t):\n    t.batch_size = [1]\n"
    index = index_of(tmp_path, {"trainer.py": TRAINER, "main.py": runner, "tune.py": tune})
    assert index.sealed_attributes(str(tmp_path / "trainer.py")) == frozenset()


def test_a_module_imported_by_name_at_run_time_connects_every_file(tmp_path):
    other = "import importlib\nclass Config:\n    def __init__(self):\n        self.batch_size = [1]\n"
    index = index_of(tmp_path, {"trainer.py": TRAINER, "main.py": RUNNER, "other/train.py": other})
    assert index.sealed_attributes(str(tmp_path / "trainer.py")) == frozenset()


def test_gl507_reads_a_sealed_attribute_assigned_only_ints(tmp_path):
    assert gl507(tmp_path, {"trainer.py": TRAINER, "main.py": RUNNER}) == [("trainer.py", 10, "safe")]


@pytest.mark.parametrize(
    "old, new",
    [
        # also assigned a list (the attribute is sealed, but one of its values is not an int)
        ("        return label\n", "        self.batch_size = [100]\n        return label\n"),
        # assigned a parameter, which a caller may give any value
        ("        self.batch_size = 100\n", "        self.batch_size = G\n"),
    ],
)
def test_gl507_leaves_a_sealed_attribute_with_another_value_unsafe(tmp_path, old, new):
    assert gl507(tmp_path, {"trainer.py": TRAINER.replace(old, new), "main.py": RUNNER}) == [("trainer.py", 10, "")]


def test_gl507_leaves_an_attribute_another_file_stores_unsafe(tmp_path):
    runner = RUNNER.replace("trainer.train()", "trainer.batch_size = [100]\ntrainer.train()")
    assert gl507(tmp_path, {"trainer.py": TRAINER, "main.py": runner}) == [("trainer.py", 10, "")]
