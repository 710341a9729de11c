"""The project index: names a file brings in from the other files of the same run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gradlint.analysis.project import ProjectIndex
from gradlint.config import Settings
from gradlint.runner import RunProject, check_paths, check_stdin, fix_paths
from support import write

MODEL = "import torch\nfrom torch.autograd import Variable\n\n\ndef make(t):\n    return Variable(t)\n"
TRAIN = "from model import *\n\nx = Variable(t)\n"


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        write(root / name, text)
    return root


def codes_by_file(root: Path, paths=None, **options) -> dict[str, list[str]]:
    summary = check_paths([root] if paths is None else paths, Settings(root=root), use_cache=False, jobs=1, **options)
    found: dict[str, list[str]] = {}
    for finding in summary.findings:
        found.setdefault(Path(finding.path).relative_to(root).as_posix(), []).append(f"{finding.code}:{finding.location.row}")
    assert summary.errors == []
    return found


def facts(root: Path, name: str, *, for_fix: bool = False):
    sources = [(str(path), path.read_bytes()) for path in sorted(root.rglob("*.py"))]
    return ProjectIndex(sources, [str(root)]).facts_for(str(root / name), for_fix=for_fix)


def test_variable_through_a_local_star_import_is_found_in_a_project_run(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    assert codes_by_file(tmp_path) == {"model.py": ["GL101:6"], "train.py": ["GL101:3"]}


def test_a_single_file_run_and_stdin_read_the_local_modules_they_import_from_disk(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    assert codes_by_file(tmp_path, [tmp_path / "train.py"]) == {"train.py": ["GL101:3"]}
    assert [f.code for f in check_stdin(TRAIN.encode(), str(tmp_path / "train.py"), Settings(root=tmp_path)).findings] == ["GL101"]
    assert check_stdin(TRAIN.encode(), "-", Settings(root=tmp_path)).findings == []


def test_modules_outside_the_run_are_read_only_when_imported_and_transitively(tmp_path):
    project(
        tmp_path,
        {
            "layers.py": "from torch.autograd import Variable\n",
            "model.py": "from layers import *\n",
            "train.py": "from model import *\nimport os\n\nx = Variable(t)\n",
            "unrelated.py": "from torch.autograd import Variable\n",
            "big.py": "from torch.autograd import Variable\n" + "#" * (3 * 1024 * 1024) + "\n",
            "other.py": "from big import *\nx = Variable(t)\n",
        },
    )
    read = []

    def read_outside(path):
        read.append(os.path.basename(path))
        return Path(path).read_bytes() if os.path.isfile(path) and os.path.getsize(path) < 1024 * 1024 else None

    train = str(tmp_path / "train.py")
    index = ProjectIndex([(train, (tmp_path / "train.py").read_bytes())], [str(tmp_path)], read_outside=read_outside)
    assert index.facts_for(train).names["model.Variable"] == "torch.autograd.Variable"
    assert {"model.py", "layers.py"} <= set(read) and not {"unrelated.py", "big.py", "other.py"} & set(read)
    assert sorted(os.path.basename(path) for path in index.modules_outside_run()) == ["layers.py", "model.py"]
    assert codes_by_file(tmp_path, [tmp_path / "train.py", tmp_path / "other.py"]) == {
        "train.py": ["GL101:4"]
    }  # big.py: over the size limit


def test_a_cycle_of_star_imports_outside_the_run_terminates(tmp_path):
    project(
        tmp_path,
        {
            "a.py": "from b import *\nfrom torch.autograd import Variable\n",
            "b.py": "from a import *\n",
            "train.py": "from b import *\nx = Variable(t)\n",
        },
    )
    assert codes_by_file(tmp_path, [tmp_path / "train.py"]) == {"train.py": ["GL101:2"]}


def test_explicit_imports_and_module_attributes_of_a_local_module(tmp_path):
    project(
        tmp_path,
        {
            "model.py": "from torch.autograd import Variable as V\nimport torch.autograd as ag\n",
            "a.py": "from model import V\nx = V(t)\n",
            "b.py": "import model\nx = model.V(t)\ny = model.ag.Variable(t)\n",
            "c.py": "import model as m\nx = m.V(t)\n",
        },
    )
    assert codes_by_file(tmp_path) == {"a.py": ["GL101:2"], "b.py": ["GL101:2", "GL101:3"], "c.py": ["GL101:2"]}


def test_local_definitions_are_not_outside_names(tmp_path):
    project(
        tmp_path,
        {
            "model.py": "from torch.autograd import Variable\n\n\ndef Variable(t):\n    return t\n",
            "train.py": TRAIN,
        },
    )
    assert codes_by_file(tmp_path) == {}
    assert facts(tmp_path, "train.py").names == {}


def test_transitive_star_chains(tmp_path):
    project(
        tmp_path,
        {
            "base.py": "from torch.autograd import Variable\n",
            "middle.py": "from base import *\n",
            "top.py": "from middle import *\n",
            "train.py": "from top import *\nx = Variable(t)\n",
            "legacy.py": "from torch.autograd import *\n",
            "old.py": "from legacy import *\nx = Variable(t)\n",
        },
    )
    assert codes_by_file(tmp_path) == {"train.py": ["GL101:2"], "old.py": ["GL101:2"]}


def test_star_import_cycles_terminate(tmp_path):
    project(
        tmp_path,
        {
            "a.py": "from b import *\nfrom torch.autograd import Variable\n",
            "b.py": "from a import *\n",
            "train.py": "from b import *\nx = Variable(t)\ny = Unknown(t)\n",
        },
    )
    assert codes_by_file(tmp_path) == {"train.py": ["GL101:2"]}


def test_dunder_all_limits_what_a_star_import_brings(tmp_path):
    project(
        tmp_path,
        {
            "hidden.py": "from torch.autograd import Variable\n__all__ = ['Net']\nclass Net: ...\n",
            "listed.py": "from torch.autograd import Variable\n__all__ = ('Variable',)\n",
            "private.py": "from torch.autograd import Variable as _Variable\n",
            "a.py": "from hidden import *\nx = Variable(t)\n",
            "b.py": "from listed import *\nx = Variable(t)\n",
            "c.py": "from private import *\nx = _Variable(t)\n",
        },
    )
    assert codes_by_file(tmp_path) == {"b.py": ["GL101:2"]}


def test_a_dynamic_dunder_all_falls_back_to_the_public_names(tmp_path):
    project(
        tmp_path,
        {
            "model.py": "from torch.autograd import Variable\n__all__ = [n for n in dir() if n]\n",
            "train.py": TRAIN,
        },
    )
    assert codes_by_file(tmp_path) == {"train.py": ["GL101:3"]}


def test_a_package_star_import_of_a_sibling_module(tmp_path):
    project(
        tmp_path,
        {
            "pkg/__init__.py": "from .model import *\n",
            "pkg/model.py": "from torch.autograd import Variable\n",
            "pkg/train.py": "from .model import *\nx = Variable(t)\n",
            "pkg/explicit.py": "from .model import Variable\nx = Variable(t)\n",
            "pkg/sub/deep.py": "from ..model import Variable\nx = Variable(t)\n",
            "run.py": "from pkg import *\nx = Variable(t)\n",
        },
    )
    assert codes_by_file(tmp_path) == {
        "pkg/explicit.py": ["GL101:2"],
        "pkg/sub/deep.py": ["GL101:2"],
        "pkg/train.py": ["GL101:2"],
        "run.py": ["GL101:2"],
    }


def test_a_second_star_import_that_may_bring_the_name_keeps_it_unresolved(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": "from model import *\nfrom sympy import *\nx = Variable(t)\n"})
    assert codes_by_file(tmp_path) == {"model.py": ["GL101:6"]}


def test_a_star_import_that_cannot_bring_the_name_no_longer_hides_it(tmp_path):
    project(
        tmp_path,
        {"nets.py": "import torch\nclass Net: ...\n", "train.py": "from nets import *\nfrom torch.autograd import *\nx = Variable(t)\n"},
    )
    assert codes_by_file(tmp_path) == {"train.py": ["GL101:3"]}


def test_torch_sources_as_a_project_keep_their_public_spellings(tmp_path):
    project(
        tmp_path,
        {
            "torch/__init__.py": "from torch.autograd import Variable\n",
            "torch/autograd/__init__.py": "from .variable import Variable\n",
            "torch/autograd/variable.py": "class Variable: ...\n",
            "torch/nn/x.py": "from torch.autograd import Variable\nfrom ..autograd import Variable as V\nx = Variable(t)\ny = V(t)\n",
        },
    )
    assert codes_by_file(tmp_path) == {"torch/nn/x.py": ["GL101:3"]}
    assert facts(tmp_path, "torch/nn/x.py") is None


def test_files_without_imports_are_not_read(tmp_path):
    index = ProjectIndex([(str(tmp_path / "a.py"), b"x = 1\n"), (str(tmp_path / "b.py"), b"from a import x\n")], [str(tmp_path)])
    assert index.facts_for(str(tmp_path / "b.py")) is None
    assert str(tmp_path / "a.py") not in index._modules


def test_import_statements_are_found_in_every_layout(tmp_path):
    project(
        tmp_path,
        {
            "model.py": "from torch.autograd import Variable, \\\n    grad\n",
            "train.py": (
                '"""Docs: from here import nothing."""\n'
                "import os; from model import (  # names\n    grad,\n    Variable,  # legacy\n)\n"
                "def f():\n    x = Variable(t)\n"
            ),
        },
    )
    assert codes_by_file(tmp_path) == {"train.py": ["GL101:7"]}


def test_editing_an_imported_module_invalidates_the_importers_cached_result(tmp_path):
    project(tmp_path, {"model.py": "import torch\nclass Variable: ...\n", "train.py": TRAIN})
    settings = Settings(root=tmp_path)
    assert check_paths([tmp_path], settings, jobs=1).findings == []
    write(tmp_path / "model.py", MODEL)
    assert [(Path(f.path).name, f.code) for f in check_paths([tmp_path], settings, jobs=1).findings] == [
        ("model.py", "GL101"),
        ("train.py", "GL101"),
    ]
    write(tmp_path / "model.py", "import torch\nclass Variable: ...\n")
    assert check_paths([tmp_path], settings, jobs=1).findings == []


def test_pool_and_single_process_give_the_same_project_findings(tmp_path):
    files = {"model.py": MODEL}
    for index in range(24):
        files[f"train{index:02d}.py"] = TRAIN if index % 2 else "import model\ny = model.Variable(t)\n"
    project(tmp_path, files)
    single = check_paths([tmp_path], Settings(root=tmp_path), use_cache=False, jobs=1)
    pooled = check_paths([tmp_path], Settings(root=tmp_path), use_cache=False, jobs=2)
    assert len(single.findings) == 25 and single.findings == pooled.findings


def fixed(root: Path, name: str) -> str:
    return (root / name).read_text(encoding="utf-8")


def test_an_import_another_file_star_imports_goes_when_that_file_is_migrated_too(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    summary = fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert summary.errors == [] and summary.warnings == [] and summary.fixed == 2
    assert fixed(tmp_path, "model.py") == "import torch\n\n\ndef make(t):\n    return t.detach()\n"
    assert fixed(tmp_path, "train.py") == "from model import *\n\nx = t.detach()\n"


def test_the_fixer_keeps_an_import_another_file_star_imports_and_still_uses(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": TRAIN + "print(Variable)\n"})
    summary = fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert summary.errors == [] and summary.warnings == [] and summary.fixed == 2
    assert fixed(tmp_path, "model.py") == MODEL.replace("Variable(t)", "t.detach()")


def test_the_fixer_keeps_an_import_another_file_imports_by_name_or_attribute_and_still_uses(tmp_path):
    project(
        tmp_path,
        {
            "model.py": MODEL,
            "a.py": "from model import Variable\nx = Variable(t)\nprint(Variable)\n",
            "b/model.py": MODEL,
            "b/c.py": "import model\nx = model.Variable(t)\nprint(model.Variable)\n",
        },
    )
    fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert fixed(tmp_path, "model.py") == MODEL.replace("Variable(t)", "t.detach()")
    assert fixed(tmp_path, "b/model.py") == MODEL.replace("Variable(t)", "t.detach()")
    assert fixed(tmp_path, "a.py") == "from model import Variable\nx = t.detach()\nprint(Variable)\n"


def test_imports_of_a_name_through_another_file_go_when_every_use_is_migrated(tmp_path):
    project(
        tmp_path,
        {
            "model.py": MODEL,
            "a.py": "from model import Variable, make\nx = Variable(make(t))\n",
            "b/model.py": MODEL,
            "b/c.py": "import model\nx = model.Variable(t)\n",
        },
    )
    fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert fixed(tmp_path, "a.py") == "from model import make\nx = make(t).detach()\n"
    assert fixed(tmp_path, "model.py") == fixed(tmp_path, "b/model.py") == "import torch\n\n\ndef make(t):\n    return t.detach()\n"
    assert fixed(tmp_path, "b/c.py") == "import model\nx = t.detach()\n"


def test_the_fixer_removes_an_import_no_other_file_uses(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": "import model\nnet = model.make(t)\n"})
    fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert fixed(tmp_path, "model.py") == "import torch\n\n\ndef make(t):\n    return t.detach()\n"


def test_facts_are_small_and_only_for_files_that_use_other_files(tmp_path):
    project(tmp_path, {"model.py": MODEL, "train.py": TRAIN, "other.py": "import os\nprint(os.sep)\n"})
    assert facts(tmp_path, "other.py") is None and facts(tmp_path, "model.py") is None
    assert facts(tmp_path, "model.py", for_fix=True).reimported == {"Variable"}  # the only name train.py spells
    train = facts(tmp_path, "train.py")
    assert train.names == {"model.Variable": "torch.autograd.Variable", "model.torch": "torch"}
    assert json.dumps(sorted(train.stars["model"].names)) == '["Variable", "make", "torch"]'
    assert train.key() == facts(tmp_path, "train.py").key() != facts(tmp_path, "model.py", for_fix=True).key()
    assert os.path.isabs(str(tmp_path))


def test_an_unchanged_cached_run_does_not_build_the_index(tmp_path, monkeypatch):
    import gradlint.runner

    project(tmp_path, {"model.py": MODEL, "train.py": TRAIN})
    settings = Settings(root=tmp_path)
    first = check_paths([tmp_path], settings, jobs=1).findings

    def refuse(*args, **kwargs):
        raise AssertionError("the project index was rebuilt")

    monkeypatch.setattr(gradlint.runner, "ProjectIndex", refuse)
    assert check_paths([tmp_path], settings, jobs=1).findings == first and len(first) == 2
    write(tmp_path / "other.py", "import os\n")
    with pytest.raises(AssertionError, match="rebuilt"):
        check_paths([tmp_path], settings, jobs=1)


def test_a_cached_run_over_part_of_a_project_rebuilds_the_index_only_when_a_module_it_imports_changed(tmp_path, monkeypatch):
    import gradlint.runner

    project(tmp_path, {"layers.py": "from torch.autograd import Variable\n", "model.py": "from layers import *\n", "train.py": TRAIN})
    settings = Settings(root=tmp_path)
    assert [f.code for f in check_paths([tmp_path / "train.py"], settings, jobs=1).findings] == ["GL101"]
    real = gradlint.runner.ProjectIndex
    built = []
    monkeypatch.setattr(gradlint.runner, "ProjectIndex", lambda *args, **kwargs: built.append(1) or real(*args, **kwargs))
    assert [f.code for f in check_paths([tmp_path / "train.py"], settings, jobs=1).findings] == ["GL101"] and built == []
    write(tmp_path / "layers.py", "class Variable: ...\n")  # two imports away, outside the run
    assert check_paths([tmp_path / "train.py"], settings, jobs=1).findings == [] and built == [1]


def test_a_chain_of_re_exports_deeper_than_the_stack_degrades_to_single_file(tmp_path):
    files = {f"m{index}.py": f"from m{index + 1} import Variable\n" for index in range(600)}
    files["m600.py"] = "from torch.autograd import Variable\n"
    files["train.py"] = "from m0 import Variable\nx = Variable(t)\n"
    project(tmp_path, files)
    sources = [(str(path), path.read_bytes()) for path in sorted(tmp_path.glob("*.py"))]
    index = ProjectIndex(sources, [str(tmp_path)])
    assert index.facts_for(str(tmp_path / "train.py")) is None
    assert index.facts_for(str(tmp_path / "m599.py")).names == {"m600.Variable": "torch.autograd.Variable"}


def users(root: Path, name: str, removed=None) -> dict[str, list[str]]:
    sources = [(str(path), path.read_bytes()) for path in sorted(root.rglob("*.py"))]
    found = ProjectIndex(sources, [str(root)], removed={str(root / key): names for key, names in (removed or {}).items()}).users_of(
        str(root / name)
    )
    return {used: sorted(Path(path).relative_to(root).as_posix() for path in importers) for used, importers in found.items()}


def test_a_star_import_uses_the_names_its_importer_spells_and_those_dunder_all_needs(tmp_path):
    project(
        tmp_path,
        {
            "model.py": "import torch\nfrom torch.autograd import Variable, grad\nimport numpy as np\n",
            "listed.py": "from torch.autograd import Variable, grad\n__all__ = ['grad']\n",
            "train.py": "from model import *\nfrom listed import *\nx = Variable(torch.ones(1))\n",
            "chain.py": "from train import *\nprint(np.pi)\n",
        },
    )
    assert users(tmp_path, "model.py") == {"Variable": ["train.py"], "torch": ["train.py"], "np": ["chain.py"]}
    assert users(tmp_path, "listed.py") == {"grad": ["chain.py", "train.py"]}  # every star import on the way needs it


def test_module_attributes_are_uses_however_the_module_is_imported(tmp_path):
    project(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/model.py": "from torch.autograd import Variable, grad\nimport torch\n",
            "pkg/sibling.py": "from . import model\nx = model.Variable\n",
            "a.py": "import pkg.model\ny = pkg.model.grad\n",
            "b.py": "import pkg.model as m\nz = m.torch\n",
        },
    )
    assert users(tmp_path, "pkg/model.py") == {"Variable": ["pkg/sibling.py"], "grad": ["a.py"], "torch": ["b.py"]}


def test_names_a_fix_removed_still_count_as_imported_when_looking_for_their_users(tmp_path):
    project(tmp_path, {"model.py": "import torch\n", "train.py": TRAIN, "other.py": "from model import Variable\n"})
    assert users(tmp_path, "model.py") == {"Variable": ["other.py"]}
    assert users(tmp_path, "model.py", {"model.py": {"Variable"}}) == {"Variable": ["other.py", "train.py"]}


def test_the_clean_up_keeps_what_dunder_all_lists(tmp_path):
    source = "from torch.autograd import Variable\n__all__ = ['Variable', 'make']\n\n\ndef make(t):\n    return Variable(t)\n"
    project(tmp_path, {"model.py": source})
    fix_paths([tmp_path], Settings(root=tmp_path), diff=False, jobs=1)
    assert fixed(tmp_path, "model.py") == source.replace("Variable(t)", "t.detach()")


def test_functions_other_files_mention_are_known_only_when_the_run_holds_every_importer(tmp_path):
    helpers = "def get_batch(source, i):\n    return source[i]\n\n\nasync def fetch():\n    pass\n\n\ndef unused():\n    pass\n"
    files = {
        "helpers.py": helpers,
        "data.py": "from helpers import *\n",  # re-exports everything to whoever imports it
        "train.py": "import data\n\nbatch = data.get_batch(t, 0)\n",
        "other.py": "import os\n\nfetch = 1\n",  # mentions `fetch` but imports nothing local
        "loader.py": 'import helpers\n\nfunction = getattr(helpers, "unused")\n',
    }
    project(tmp_path, files)
    sources = [(str(path), path.read_bytes()) for path in sorted(tmp_path.rglob("*.py"))]
    index = ProjectIndex(sources, [str(tmp_path)])
    assert index.functions_mentioned_elsewhere(str(tmp_path / "helpers.py")) == {"get_batch", "unused"}
    assert index.functions_mentioned_elsewhere(str(tmp_path / "train.py")) == frozenset()

    whole = RunProject([(Path(p), raw) for p, raw in sources], [], [tmp_path], Settings(root=tmp_path))
    assert whole.facts_for(tmp_path / "helpers.py").called_elsewhere == {"get_batch", "unused"}
    assert whole.facts_for(tmp_path / "other.py").called_elsewhere == frozenset()
    alone = RunProject([(tmp_path / "helpers.py", helpers.encode())], [], [tmp_path / "helpers.py"], Settings(root=tmp_path))
    facts_alone = alone.facts_for(tmp_path / "helpers.py")
    assert facts_alone is None or facts_alone.called_elsewhere is None  # who imports it is unknown


def test_what_may_reach_a_files_methods_from_the_other_files_of_the_run(tmp_path):
    trainer = (
        "class Trainer:\n"
        "    def sample(self, noise):\n        return noise\n\n"
        "    def step(self, x):\n        return x\n\n"
        "    def train(self, noise):\n        return self.sample(noise), self.step(noise)\n\n\n"
        "class Buffer:\n    def push(self, x):\n        return x\n"
    )
    files = {
        "trainer.py": trainer,
        "main.py": "from trainer import Trainer\n\nTrainer().train(t)\n",
        "hooks.py": 'def hook(obj):\n    return getattr(obj, "step")\n',  # a name in a string
        "replay.py": "import trainer\n\n\nclass Replay(trainer.Buffer):\n    pass\n",
    }
    project(tmp_path, files)
    sources = [(str(path), path.read_bytes()) for path in sorted(tmp_path.rglob("*.py"))]
    index = ProjectIndex(sources, [str(tmp_path)])
    assert index.methods_reached_elsewhere(str(tmp_path / "trainer.py")) == {"train", "step", "Buffer"}
    assert index.methods_reached_elsewhere(str(tmp_path / "main.py")) == frozenset()  # no methods

    # A read by a computed name may be any method; not one on an imported module.
    dispatch = "import torch.nn as nn\n\n\ndef layer(kind):\n    return getattr(nn, kind)(3)\n"
    write(tmp_path / "layers.py", dispatch)
    sources = [(str(path), path.read_bytes()) for path in sorted(tmp_path.rglob("*.py"))]
    assert "*" not in ProjectIndex(sources, [str(tmp_path)]).methods_reached_elsewhere(str(tmp_path / "trainer.py"))
    write(tmp_path / "layers.py", 'def run(trainer, phase):\n    return getattr(trainer, "train_" + phase)()\n')
    sources = [(str(path), path.read_bytes()) for path in sorted(tmp_path.rglob("*.py"))]
    assert "*" in ProjectIndex(sources, [str(tmp_path)]).methods_reached_elsewhere(str(tmp_path / "trainer.py"))

    whole = RunProject([(Path(p), raw) for p, raw in sources], [], [tmp_path], Settings(root=tmp_path))
    assert "sample" not in whole.facts_for(tmp_path / "trainer.py").reached_elsewhere
    alone = RunProject([(tmp_path / "trainer.py", trainer.encode())], [], [tmp_path / "trainer.py"], Settings(root=tmp_path))
    facts_alone = alone.facts_for(tmp_path / "trainer.py")
    assert facts_alone is None or facts_alone.reached_elsewhere is None  # who calls them is unknown


@pytest.mark.parametrize(
    ("source", "computed"),
    [
        ('x = getattr(args, "lr", 0.1)\n', False),
        ("x = getattr(nn, kind)(3)\n", False),  # `nn` is only imported
        ("x = getattr(nn, kind)(3)\nnn = make()\n", True),
        ("x = getattr(self, 'train_' + phase)()\n", True),
        ("x = getattr(self, name)\n", True),
        ('f = attrgetter("a", "b")\n', False),
        ("f = methodcaller(name, 1)\n", True),
        ("members = inspect.getmembers(obj)\n", True),
    ],
)
def test_reads_by_a_computed_attribute_name(source, computed):
    from gradlint.analysis.project import reads_computed_attributes

    assert reads_computed_attributes(source.encode(), frozenset({"nn"})) is computed


CORPUS = (
    "import torch\n\n\n"
    "class Corpus(object):\n"
    "    def __init__(self, path):\n"
    "        self.train = self.tokenize(path)\n"
    "        self.ids = torch.LongTensor(3)\n"
    "        self.scale = torch.FloatTensor(3)\n"
    "        self.words = self.read(path)\n\n"
    "    def tokenize(self, path):\n"
    "        ids = torch.LongTensor(10)\n"
    "        for i in range(10):\n"
    "            ids[i] = i\n"
    "        return ids\n\n"
    "    def read(self, path):\n"
    "        words = torch.LongTensor(10)\n"
    "        for words in path:\n"
    "            pass\n"
    "        return words\n"
)


def integer_attributes_of(tmp_path, files: dict[str, str], importer: str = "main.py") -> frozenset[str]:
    project(tmp_path, files)
    sources = [(str(path), path.read_bytes()) for path in sorted(tmp_path.rglob("*.py"))]
    return ProjectIndex(sources, [str(tmp_path)]).integer_attributes(str(tmp_path / importer))


def test_attributes_of_another_files_class_that_only_hold_integer_tensors(tmp_path):
    main = "import data\n\ncorpus = data.Corpus('x')\n"
    assert integer_attributes_of(tmp_path, {"data.py": CORPUS, "main.py": main}) == {"data.Corpus.train", "data.Corpus.ids"}
    # `from data import Corpus` spells the class alone.
    main = "from data import Corpus\n\ncorpus = Corpus('x')\n"
    assert integer_attributes_of(tmp_path, {"main.py": main}) == {"Corpus.train", "Corpus.ids"}


@pytest.mark.parametrize(
    ("change", "files"),
    [
        (lambda corpus: corpus, {"other.py": "def load(c, h):\n    c.train = h\n"}),  # written in another file
        (lambda corpus: corpus, {"other.py": "def load(c, h):\n    setattr(c, name, h)\n"}),
        (lambda corpus: corpus.replace("class Corpus(object):", "class Corpus(Base):"), {}),  # a base may write it
        (lambda corpus: corpus + "\n\nclass Other(object):\n    def f(self, x):\n        x.train = 1\n", {}),
        (lambda corpus: corpus.replace("class Corpus(object):\n", "class Corpus(object):\n    train = None\n"), {}),
    ],
    ids=["another file writes it", "setattr elsewhere", "a base class", "another class writes it", "a class attribute"],
)
def test_an_integer_attribute_another_write_may_change_is_not_one(tmp_path, change, files):
    main = "import data\n\ncorpus = data.Corpus('x')\n"
    assert "data.Corpus.train" not in integer_attributes_of(tmp_path, {"data.py": change(CORPUS), "main.py": main, **files})


MODULES = """\
import torch.nn as nn
from torch.nn import Module
from layers import Block


class Encoder(nn.Module):
    pass


class Decoder(Encoder):
    pass


class Head(Module):
    pass


class Deep(Block):
    pass


class Plain(object):
    pass


class Mixed(Plain):
    pass
"""


def module_classes(root: Path, name: str) -> frozenset[str]:
    sources = [(str(path), path.read_bytes()) for path in sorted(root.rglob("*.py"))]
    return ProjectIndex(sources, [str(root)]).module_classes(str(root / name))


def test_the_module_classes_a_file_imports_from_the_project(tmp_path):
    project(
        tmp_path,
        {
            "layers.py": "from torch import nn\n\n\nclass Block(nn.Module):\n    pass\n",
            "nets.py": MODULES,
            "train.py": "import nets as n\nfrom nets import Encoder, Plain as P, Deep\nimport torchvision\n",
            "alone.py": "import torch\n",
        },
    )
    found = module_classes(tmp_path, "train.py")
    assert found == {"nets.Encoder", "nets.Decoder", "nets.Head", "nets.Deep"}
    assert module_classes(tmp_path, "alone.py") == frozenset()


def test_a_method_of_another_file_s_module_held_on_self_returns_a_tensor(tmp_path):
    """yunjey's `Solver`: `self.g12 = G12()` of `model.py`, and `to_data` is only given its
    outputs and batches: the `.data` read gets a safe fix."""
    project(
        tmp_path,
        {
            "model.py": "import torch.nn as nn\n\n\nclass G12(nn.Module):\n    def forward(self, x):\n        return x * 2\n",
            "solver.py": (
                "import torch\nfrom model import G12\n\n\nclass Solver(object):\n"
                "    def __init__(self, loader):\n        self.loader = loader\n        self.g12 = None\n\n"
                "    def build(self):\n        self.g12 = G12()\n\n"
                "    def to_data(self, x):\n        return x.data.numpy()\n\n"
                "    def sample(self):\n        batches = iter(self.loader)\n        fixed = batches.next()[0]\n"
                "        return self.to_data(fixed), self.to_data(self.g12(fixed))\n"
            ),
            "main.py": "from solver import Solver\n\nSolver([]).sample()\n",
        },
    )
    summary = check_paths([tmp_path], Settings(root=tmp_path, select=("GL303",)), use_cache=False, jobs=1)
    (finding,) = summary.findings
    assert finding.fix is not None and finding.fix.applicability.value == "safe"
    # Without the project module class, the output of `self.g12` is of unknown kind.
    (tmp_path / "model.py").write_text("class G12(object):\n    def __call__(self, x):\n        return x\n")
    summary = check_paths([tmp_path], Settings(root=tmp_path, select=("GL303",)), use_cache=False, jobs=1)
    assert all(finding.fix is None or finding.fix.applicability.value == "unsafe" for finding in summary.findings)
