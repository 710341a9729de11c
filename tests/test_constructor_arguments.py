"""What the run's constructions pass to the constructor parameters a class keeps on `self`
(analysis/constructor_arguments.py, through the project index), and the rules that read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gradlint.analysis.project import ProjectIndex
from gradlint.config import Settings
from gradlint.model.project import PassedValue
from gradlint.runner import check_paths
from support import write

MODEL = """\
import torch.nn as nn


class D(nn.Module):
    def __init__(self):
        super(D, self).__init__()
        self.main = nn.Sequential(nn.Conv2d(8, 1, 1), nn.Sigmoid())

    def forward(self, x):
        output = self.main(x).view(-1, 1)
        return output
"""
TRAINER = """\
import torch
import torch.nn as nn
from torch.autograd import Variable


class Trainer:
    def __init__(self, D, loader):
        self.D = D
        self.loader = loader

    def train(self):
        criterion = nn.BCELoss()
        label = Variable(torch.FloatTensor(100))
        for x, _ in self.loader:
            bs = x.size(0)
            label.data.resize_(bs)
            label.data.fill_(1)
            loss = criterion(self.D(x), label)
        batch = iter(self.loader).next()
"""
LOADERS = """\
import torch


def get_loader(dataset):
    train = torch.utils.data.DataLoader(dataset, batch_size=4)
    test = torch.utils.data.DataLoader(dataset, batch_size=8)
    return train, test
"""
MAIN = """\
from model import *
from trainer import Trainer
from loaders import get_loader

d = D()
d.cuda()
train_loader, test_loader = get_loader([1, 2, 3])
trainer = Trainer(d, train_loader)
trainer.train()
"""
FILES = {"model.py": MODEL, "trainer.py": TRAINER, "loaders.py": LOADERS, "main.py": MAIN}
PASSED = {
    "Trainer.D": PassedValue(output_shape=(None, 1)),
    "Trainer.loader": PassedValue(made_by="torch.utils.data.DataLoader"),
}


def passed(root: Path, files: dict[str, str], name: str = "trainer.py") -> dict[str, PassedValue]:
    for file, text in files.items():
        write(root / file, text)
    sources = [(str(path), path.read_bytes()) for path in sorted(root.rglob("*.py"))]
    return ProjectIndex(sources, [str(root)]).passed_arguments(str(root / name))


def test_a_module_and_a_loader_passed_from_another_file_are_known(tmp_path):
    assert passed(tmp_path, FILES) == PASSED


@pytest.mark.parametrize(
    "file, old, new, known",
    [
        # two constructions passing different things
        ("main.py", "trainer.train()", "Trainer(None, [1, 2])", ()),
        # the class reached other than by a call of its name
        ("main.py", "trainer.train()", "class Mine(Trainer):\n    pass", ()),
        ("main.py", "from trainer import Trainer", "import trainer\nfrom trainer import Trainer\ntrainer.Trainer(d, train_loader)", ()),
        ("main.py", "trainer.train()", "make = Trainer", ()),
        # the argument bound in a way not written here
        ("main.py", "d = D()", "d = D()\nfor d in [D(), D()]:\n    pass", ("Trainer.loader",)),
        ("main.py", "d = D()", "d = D()\nd += 1", ("Trainer.loader",)),
        ("main.py", "train_loader, test_loader =", "train_loader, (test_loader, x) =", ("Trainer.D",)),
        # the attribute or the parameter assigned again
        ("trainer.py", "        self.loader = loader\n", "        self.loader = loader\n        loader = None\n", ("Trainer.D",)),
        (
            "trainer.py",
            "    def train(self):\n",
            "    def swap(self):\n        self.D = None\n\n    def train(self):\n",
            ("Trainer.loader",),
        ),
    ],
)
def test_look_alikes_leave_the_arguments_unknown(tmp_path, file, old, new, known):
    files = dict(FILES)
    assert old in files[file]
    files[file] = files[file].replace(old, new)
    assert passed(tmp_path, files) == {name: PASSED[name] for name in known}


@pytest.mark.parametrize(
    "file, old, new",
    [
        ("model.py", "view(-1, 1)", "view(-1, self.k)"),  # a size known at run time only
        ("model.py", "view(-1, 1)", "view(-1, -1)"),
        ("model.py", "        return output", "        if x is None:\n            return x\n        return output"),
        ("model.py", "class D(nn.Module)", "class D(Base)"),  # a module class of unknown base
        ("model.py", "import torch.nn as nn", "import torch.nn as nn\nfrom mylib import Module"),
    ],
)
def test_a_module_whose_output_shape_depends_on_more_than_its_class_is_not_described(tmp_path, file, old, new):
    files = dict(FILES)
    files[file] = files[file].replace(old, new)
    if "mylib" in new:
        files[file] = files[file].replace("class D(nn.Module)", "class D(Module)")
    assert passed(tmp_path, files) == {"Trainer.loader": PASSED["Trainer.loader"]}


def test_a_loader_from_a_function_with_two_returns_is_not_described(tmp_path):
    files = dict(FILES, **{"loaders.py": LOADERS.replace("    train = ", "    if not dataset:\n        return None, None\n    train = ")})
    assert passed(tmp_path, files) == {"Trainer.D": PASSED["Trainer.D"]}


def test_files_that_pass_nothing_kept_are_not_parsed(tmp_path):
    write(tmp_path / "train.py", "import torch\nclass A:\n    def __init__(self, n):\n        self.n = n\n")
    index = ProjectIndex([(str(tmp_path / "train.py"), (tmp_path / "train.py").read_bytes())], [str(tmp_path)])
    assert index.passed_arguments(str(tmp_path / "train.py")) == {}
    assert index._trees == {}  # noqa: SLF001 - the cheap path is the point of the test


def findings(root: Path, paths=None) -> list[tuple[str, str, int, str]]:
    summary = check_paths([root] if paths is None else paths, Settings(root=root, select=("GL513", "GL516")), use_cache=False, jobs=1)
    assert summary.errors == []
    return sorted(
        (Path(f.path).name, f.code, f.location.row, f.fix.applicability.value if f.fix is not None else "") for f in summary.findings
    )


def test_a_project_run_finds_the_target_shape_and_makes_next_safe(tmp_path):
    for file, text in FILES.items():
        write(tmp_path / file, text)
    assert findings(tmp_path) == [("trainer.py", "GL513", 18, "safe"), ("trainer.py", "GL516", 19, "safe")]


def test_a_run_of_the_class_file_alone_does_not_know_what_is_passed(tmp_path):
    for file, text in FILES.items():
        write(tmp_path / file, text)
    assert findings(tmp_path, [tmp_path / "trainer.py"]) == [("trainer.py", "GL516", 19, "unsafe")]


@pytest.mark.parametrize("old, new", [("self.D(", "self.D ("), ("self.D(", "self . D(\n            ")])
def test_a_call_spelled_with_spaces_or_a_line_break_is_read_as_a_call(tmp_path, old, new):
    """Only the attributes the text calls or iterates are followed: a call spelled with spaces is one."""
    files = dict(FILES)
    assert old in files["trainer.py"]
    files["trainer.py"] = files["trainer.py"].replace(old, new)
    assert passed(tmp_path, files) == PASSED
