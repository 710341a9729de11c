"""A legacy project split in files (`model.py` imports `Variable`, `train.py` does `from model
import *`), run through the installed command line: the names a star import brings are checked
and migrated, the migrated project runs with the same numbers, and no fix removes an import
that a file of the project still uses (in the run, outside it, or through stdin)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import write

MODEL = """\
import torch
import torch.nn as nn
from torch.autograd import Variable


class RNN(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super(RNN, self).__init__()
        self.n_hidden = n_hidden
        self.i2h = nn.Linear(n_in + n_hidden, n_hidden)
        self.h2o = nn.Linear(n_hidden, n_out)

    def forward(self, x, h):
        combined = torch.cat((x, h), 1)
        h = torch.tanh(self.i2h(combined))
        return self.h2o(h), h

    def init_hidden(self, batch):
        return Variable(torch.zeros(batch, self.n_hidden))
"""

TRAIN = """\
import torch
from model import *

torch.manual_seed(0)
net = RNN(3, 5, 2)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
criterion = torch.nn.MSELoss()
data = torch.randn(4, 6, 3)
target = torch.randn(4, 2)


def repackage_hidden(h):
    if isinstance(h, Variable):
        return Variable(h.data)
    return tuple(repackage_hidden(v) for v in h)


h = net.init_hidden(4)
for epoch in range(3):
    h = repackage_hidden(h)
    optimizer.zero_grad()
    for t in range(6):
        x = Variable(data[:, t])
        out, h = net(x, h)
    loss = criterion(out, Variable(target))
    loss.backward()
    optimizer.step()
    print(repr(loss.item()), repr(sum(p.sum().item() for p in net.parameters())))
"""

IMPORT = "from torch.autograd import Variable\n"


def gradlint(*args: str, cwd: Path, input: bytes | None = None) -> subprocess.CompletedProcess:
    """The installed `gradlint` command (the module when the script is not on the path)."""
    script = shutil.which("gradlint", path=os.path.dirname(sys.executable)) or shutil.which("gradlint")
    command = [script] if script else [sys.executable, "-m", "gradlint"]
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([*command, *args], cwd=cwd, input=input, capture_output=True, env=env, timeout=120)


# Runs each (folder, script) of a request as `python script` from that folder would, and answers
# with what each printed, or with the traceback of an exception (a NameError fails the test). One
# interpreter serves the whole module, so torch is imported once; each script's modules are
# dropped after it runs, so no script sees another's.
_RUNNER = """
import contextlib, io, json, os, runpy, sys, traceback
for request in sys.stdin:
    outputs = []
    try:
        for folder, script in json.loads(request):
            os.chdir(folder)
            sys.path.insert(0, folder)
            printed = io.StringIO()
            try:
                with contextlib.redirect_stdout(printed):
                    runpy.run_path(script, run_name="__main__")
            finally:
                sys.path.remove(folder)
                for name, module in list(sys.modules.items()):
                    if (getattr(module, "__file__", None) or "").startswith(folder + os.sep):
                        del sys.modules[name]
            outputs.append(printed.getvalue())
        answer = {"outputs": outputs}
    except BaseException:
        answer = {"error": traceback.format_exc()}
    print(json.dumps(answer), flush=True)
"""


@pytest.fixture(scope="module")
def torch_runner():
    """The interpreter that runs the snapshots under torch (see _RUNNER)."""
    process = subprocess.Popen([sys.executable, "-c", _RUNNER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    yield process
    process.stdin.close()
    process.wait(timeout=60)


class Runs:
    """Scripts to run under torch once the test has taken its snapshots: each `snapshot` copies
    the project as it is now, so that every stage runs at the end."""

    def __init__(self, tmp_path: Path, runner: subprocess.Popen) -> None:
        self.base = tmp_path.with_name(tmp_path.name + "-runs")  # outside the folder the test fixes
        self.pending: list[tuple[str, str]] = []
        self.runner = runner

    def snapshot(self, folder: Path, script: str) -> None:
        copy = self.base / str(len(self.pending))
        shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("__pycache__", ".gradlint_cache"))
        self.pending.append((str(copy), script))

    def outputs(self) -> list[str]:
        self.runner.stdin.write(json.dumps(self.pending) + "\n")
        self.runner.stdin.flush()
        answer = json.loads(self.runner.stdout.readline())
        assert "error" not in answer, answer["error"]
        return answer["outputs"]


def split_project(root: Path, model: str = MODEL, train: str = TRAIN) -> Path:
    write(root / "pyproject.toml", '[tool.gradlint]\nextend-select = ["GL303"]\n')  # `.data` reads are off by default
    write(root / "proj" / "model.py", model)
    write(root / "proj" / "train.py", train)
    return root / "proj"


def line_of(text: str, fragment: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), 1) if fragment in line)


def findings(root: Path, *paths: str) -> list[tuple[str, str, int]]:
    done = gradlint("check", "--no-cache", "--output-format", "json", *paths, cwd=root)
    return sorted((Path(f["filename"]).name, f["code"], f["location"]["row"]) for f in json.loads(done.stdout))


def test_names_from_a_star_import_of_a_local_module_are_checked_like_direct_imports(tmp_path):
    split_project(tmp_path)
    assert findings(tmp_path, "proj") == [
        ("model.py", "GL101", line_of(MODEL, "return Variable(")),
        ("train.py", "GL101", line_of(TRAIN, "return Variable(h.data)")),
        ("train.py", "GL101", line_of(TRAIN, "x = Variable(")),
        ("train.py", "GL101", line_of(TRAIN, "Variable(target)")),
        ("train.py", "GL104", line_of(TRAIN, "isinstance(h, Variable)")),
        ("train.py", "GL303", line_of(TRAIN, "return Variable(h.data)")),  # `h` is a tensor in that branch
    ]


def test_migrating_the_whole_project_removes_every_variable_and_keeps_the_numbers(tmp_path, torch_runner):
    project, runs = split_project(tmp_path), Runs(tmp_path, torch_runner)
    runs.snapshot(project, "train.py")
    done = gradlint("fix", "--migrate", "proj/", cwd=tmp_path)
    assert done.returncode == 0 and b"warning" not in done.stderr
    model, train = (project / "model.py").read_text(), (project / "train.py").read_text()
    assert "Variable" not in model + train
    assert "from model import *" in train and "isinstance(h, torch.Tensor)" in train
    runs.snapshot(project, "train.py")
    assert findings(tmp_path, "proj") == []
    again = gradlint("fix", "--migrate", "proj/", cwd=tmp_path)
    assert again.returncode == 0 and (project / "model.py").read_text() == model and (project / "train.py").read_text() == train
    legacy, migrated = runs.outputs()
    assert migrated == legacy and len(legacy.splitlines()) == 3


def test_fixing_the_model_alone_keeps_the_import_the_training_script_still_needs(tmp_path, torch_runner):
    project, runs = split_project(tmp_path), Runs(tmp_path, torch_runner)
    runs.snapshot(project, "train.py")
    done = gradlint("fix", "--migrate", "proj/model.py", cwd=tmp_path)
    assert done.returncode == 0
    warnings = [line for line in done.stderr.decode().splitlines() if "warning" in line]
    assert warnings == [
        "gradlint: warning: proj/model.py: kept the unused import of `Variable`: train.py uses it through this file and is not in this run"
    ]
    model = (project / "model.py").read_text()
    assert IMPORT in model and "Variable(" not in model
    assert (project / "train.py").read_text() == TRAIN
    runs.snapshot(project, "train.py")
    legacy, model_only = runs.outputs()
    assert legacy == model_only


def test_fixing_the_model_from_stdin_keeps_the_import_a_sibling_on_disk_needs(tmp_path):
    project = split_project(tmp_path)
    done = gradlint("fix", "--migrate", "-", "--stdin-filename", "proj/model.py", cwd=tmp_path, input=MODEL.encode())
    assert done.returncode == 0
    assert IMPORT in done.stdout.decode() and "Variable(" not in done.stdout.decode()
    assert b"kept the unused import of `Variable`: train.py uses it" in done.stderr
    alone = gradlint("fix", "--migrate", "-", cwd=tmp_path, input=MODEL.encode())
    assert "Variable" not in alone.stdout.decode()  # no file name: no project to keep anything for
    assert (project / "model.py").read_text() == MODEL


def test_the_language_server_fix_all_keeps_the_import_and_says_why(tmp_path):
    from gradlint.config import Settings
    from gradlint.server import _fixed

    project = split_project(tmp_path)
    notes = []
    fixed = _fixed(MODEL, str(project / "model.py"), Settings(root=tmp_path), notes.append)
    assert IMPORT in fixed and "Variable(" not in fixed
    assert notes == ["kept the unused import of `Variable`: train.py uses it through this file and is not in this run"]


def test_a_use_the_run_cannot_rewrite_keeps_the_import(tmp_path, torch_runner):
    train = TRAIN + "print(Variable.__name__)\n"
    project, runs = split_project(tmp_path, train=train), Runs(tmp_path, torch_runner)
    done = gradlint("fix", "--migrate", "proj/", cwd=tmp_path)
    assert b"warning" not in done.stderr  # train.py is in the run: its own finding tells what is left
    assert IMPORT in (project / "model.py").read_text()
    runs.snapshot(project, "train.py")
    assert runs.outputs()[0].splitlines()[-1] == "Variable"


def test_star_import_cycles(tmp_path, torch_runner):
    project, runs = tmp_path / "cycle", Runs(tmp_path, torch_runner)
    write(project / "a.py", "from b import *\nfrom torch.autograd import Variable\nimport torch\n\ny = Variable(torch.ones(1))\n")
    write(project / "b.py", "from a import *\n\n\ndef grow(t):\n    return Variable(t) + 1\n")
    write(project / "main.py", "import torch\nfrom b import *\n\nprint(grow(torch.ones(2)).tolist())\n")
    assert findings(project, ".") == [("a.py", "GL101", 5), ("b.py", "GL101", 5)]
    assert gradlint("fix", "--migrate", "b.py", cwd=project).returncode == 0
    assert IMPORT in (project / "a.py").read_text()
    runs.snapshot(project, "main.py")
    assert gradlint("fix", "--migrate", ".", cwd=project).returncode == 0
    assert "Variable" not in (project / "a.py").read_text() + (project / "b.py").read_text()
    runs.snapshot(project, "main.py")

    other = tmp_path / "used"
    write(other / "a.py", "from b import *\nfrom torch.autograd import Variable\nimport torch\n\ny = Variable(torch.ones(1))\n")
    write(other / "b.py", "from a import *\n\n\ndef kind():\n    return Variable.__name__\n")
    write(other / "main.py", "from b import *\n\nprint(kind())\n")
    assert gradlint("fix", "--migrate", ".", cwd=other).returncode == 0
    assert IMPORT in (other / "a.py").read_text()
    runs.snapshot(other, "main.py")
    assert runs.outputs() == ["[2.0, 2.0]\n", "[2.0, 2.0]\n", "Variable\n"]


def test_dunder_all_decides_what_a_star_import_needs(tmp_path, torch_runner):
    runs = Runs(tmp_path, torch_runner)
    listed = MODEL.replace("import torch\n", "import torch\n\n__all__ = ['RNN', 'Variable']\n", 1)
    project = split_project(tmp_path / "listed", model=listed, train="from model import *\n\nprint(type(RNN(3, 5, 2)).__name__)\n")
    gradlint("fix", "--migrate", "proj/", cwd=tmp_path / "listed")
    assert IMPORT in (project / "model.py").read_text()  # `from model import *` fails without it
    runs.snapshot(project, "train.py")

    hidden = MODEL.replace("import torch\n", "import torch\n\n__all__ = ['RNN']\n", 1)
    train = "from torch.autograd import Variable\nfrom model import *\n\nprint(Variable.__name__, RNN.__name__)\n"
    project = split_project(tmp_path / "hidden", model=hidden, train=train)
    done = gradlint("fix", "--migrate", "proj/model.py", cwd=tmp_path / "hidden")
    assert b"warning" not in done.stderr
    assert "Variable" not in (project / "model.py").read_text()  # the star import never brought it
    runs.snapshot(project, "train.py")
    assert runs.outputs() == ["RNN\n", "Variable RNN\n"]


def test_package_re_exports(tmp_path, torch_runner):
    project, runs = tmp_path / "app", Runs(tmp_path, torch_runner)
    write(project / "pkg" / "__init__.py", "from .model import *\n")
    write(project / "pkg" / "model.py", MODEL)
    write(project / "run.py", "import torch\nfrom pkg import *\n\nprint(Variable(torch.ones(1)).tolist())\n")
    assert findings(project, ".") == [("model.py", "GL101", line_of(MODEL, "return Variable(")), ("run.py", "GL101", 4)]
    done = gradlint("fix", "--migrate", "pkg/", cwd=project)  # run.py, outside the package, is not in the run
    assert b"kept the unused import of `Variable`: ../run.py uses it through this file and is not in this run" in done.stderr
    assert IMPORT in (project / "pkg" / "model.py").read_text()
    runs.snapshot(project, "run.py")
    assert gradlint("fix", "--migrate", ".", cwd=project).returncode == 0
    assert "Variable" not in (project / "run.py").read_text()
    runs.snapshot(project, "run.py")
    assert runs.outputs() == ["[1.0]\n", "[1.0]\n"]


def test_an_init_module_keeps_its_imports_when_the_run_is_not_the_whole_project(tmp_path):
    init = "import torch\nfrom torch.autograd import Variable\n\n\ndef ones():\n    return Variable(torch.ones(1))\n"
    write(tmp_path / "pkg" / "__init__.py", init)
    write(tmp_path / "pkg" / "data.py", "import os\n")
    done = gradlint("fix", "--migrate", "pkg/__init__.py", cwd=tmp_path)
    assert b"kept the unused import of `Variable`: a package's `__init__.py` may re-export it" in done.stderr
    assert IMPORT in (tmp_path / "pkg" / "__init__.py").read_text()
    write(tmp_path / "pkg" / "__init__.py", init)
    assert gradlint("fix", "--migrate", "pkg/", cwd=tmp_path).returncode == 0
    assert "Variable" not in (tmp_path / "pkg" / "__init__.py").read_text()


def test_a_module_too_large_to_read_is_unknown_and_keeps_its_import(tmp_path, torch_runner):
    model = MODEL + 'VOCABULARY = """' + "word " * 14000 + '"""\n'
    assert len(model.encode()) > 64 * 1024
    train = "import torch\nfrom model import *\n\nprint(Variable(torch.ones(1)).tolist())\n"
    project, runs = split_project(tmp_path, model=model, train=train), Runs(tmp_path, torch_runner)
    assert findings(tmp_path, "proj") == [("model.py", "GL101", line_of(MODEL, "return Variable("))]
    assert gradlint("fix", "--migrate", "proj/", cwd=tmp_path).returncode == 0
    assert IMPORT in (project / "model.py").read_text()
    runs.snapshot(project, "train.py")
    assert runs.outputs() == ["[1.0]\n"]


def test_the_outcome_does_not_depend_on_the_order_files_are_fixed_in(tmp_path):
    outcomes = []
    for jobs in ("1", "2"):
        for unfixable in (True, False):
            project = tmp_path / f"jobs{jobs}-{unfixable}"
            write(project / "model.py", MODEL)
            for index in range(12):
                uses = "x = Variable(torch.ones(1))\n" + ("print(Variable)\n" if unfixable and index == 7 else "")
                write(project / f"train{index:02d}.py", "import torch\nfrom model import *\n\n" + uses)
            assert gradlint("fix", "--migrate", "-j", jobs, ".", cwd=project).returncode == 0
            outcomes.append((IMPORT in (project / "model.py").read_text(), (project / "train05.py").read_text()))
    assert outcomes[:2] == outcomes[2:]
    assert [kept for kept, _ in outcomes] == [True, False, True, False]


def test_editing_the_model_changes_the_cached_findings_of_the_training_script(tmp_path):
    project = split_project(tmp_path)
    first = gradlint("check", "--output-format", "json", "proj", cwd=tmp_path)
    assert {Path(f["filename"]).name for f in json.loads(first.stdout)} == {"model.py", "train.py"}
    (project / "model.py").write_text(MODEL.replace("import torch\n", "import torch\n\n__all__ = ['RNN']\n", 1))
    second = gradlint("check", "--output-format", "json", "proj", cwd=tmp_path)
    assert {Path(f["filename"]).name for f in json.loads(second.stdout)} == {"model.py"}


def test_checking_the_training_script_alone_sees_what_the_star_import_brings(tmp_path):
    split_project(tmp_path)
    train = [
        ("train.py", "GL101", line_of(TRAIN, "return Variable(h.data)")),
        ("train.py", "GL101", line_of(TRAIN, "x = Variable(")),
        ("train.py", "GL101", line_of(TRAIN, "Variable(target)")),
        ("train.py", "GL104", line_of(TRAIN, "isinstance(h, Variable)")),
        ("train.py", "GL303", line_of(TRAIN, "return Variable(h.data)")),
    ]
    assert findings(tmp_path, "proj/train.py") == train
    done = gradlint("check", "--output-format", "json", "-", "--stdin-filename", "proj/train.py", cwd=tmp_path, input=TRAIN.encode())
    assert sorted((f["code"], f["location"]["row"]) for f in json.loads(done.stdout)) == [(code, row) for _, code, row in train]
    alone = gradlint("check", "--output-format", "json", "-", cwd=tmp_path, input=TRAIN.encode())
    assert json.loads(alone.stdout) == []  # no file name: no modules next to it


def test_fixing_the_training_script_alone_migrates_it_and_leaves_the_model_working(tmp_path, torch_runner):
    project, runs = split_project(tmp_path), Runs(tmp_path, torch_runner)
    runs.snapshot(project, "train.py")
    done = gradlint("fix", "--migrate", "proj/train.py", cwd=tmp_path)
    assert done.returncode == 0 and b"warning" not in done.stderr
    train = (project / "train.py").read_text()
    assert "Variable" not in train and "from model import *" in train and "isinstance(h, torch.Tensor)" in train
    assert (project / "model.py").read_text() == MODEL
    runs.snapshot(project, "train.py")
    piped = gradlint("fix", "--migrate", "-", "--stdin-filename", "proj/train.py", cwd=tmp_path, input=TRAIN.encode())
    assert piped.returncode == 0 and piped.stdout.decode() == train
    legacy, migrated = runs.outputs()
    assert migrated == legacy and len(legacy.splitlines()) == 3


def test_an_import_kept_for_a_script_goes_once_that_script_is_migrated(tmp_path, torch_runner):
    project, runs = split_project(tmp_path), Runs(tmp_path, torch_runner)
    assert b"kept the unused import of `Variable`" in gradlint("fix", "--migrate", "proj/model.py", cwd=tmp_path).stderr
    assert IMPORT in (project / "model.py").read_text()
    assert gradlint("fix", "--migrate", "proj/train.py", cwd=tmp_path).returncode == 0
    assert "Variable" not in (project / "train.py").read_text() and IMPORT in (project / "model.py").read_text()
    done = gradlint("fix", "--migrate", "proj/", cwd=tmp_path)
    assert done.returncode == 0 and b"warning" not in done.stderr
    assert "Variable" not in (project / "model.py").read_text()
    assert b"Fixed 0 errors, 0 remaining (1 file rewritten to remove imports earlier fixes left unused)." in done.stdout
    runs.snapshot(project, "train.py")
    assert len(runs.outputs()[0].splitlines()) == 3


def test_the_language_server_sees_and_fixes_what_the_star_import_brings_into_a_buffer(tmp_path):
    from gradlint.config import Settings
    from gradlint.server import _fixed, _lint

    project = split_project(tmp_path)
    buffer = TRAIN.replace("for epoch in range(3)", "for epoch in range(2)")  # edited, not saved
    assert sorted(f.code for f in _lint(buffer, str(project / "train.py"), Settings(root=tmp_path, extend_select=("GL303",))).findings) == [
        "GL101"
    ] * 3 + [
        "GL104",
        "GL303",
    ]
    fixed = _fixed(buffer, str(project / "train.py"), Settings(root=tmp_path))
    assert "Variable" not in fixed and "range(2)" in fixed and (project / "model.py").read_text() == MODEL


def test_the_flake8_plugin_sees_what_the_star_import_brings(tmp_path):
    split_project(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "GL", "--format", "%(row)d:%(code)s", "proj/train.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    rows = [
        line_of(TRAIN, fragment) for fragment in ("isinstance(h, Variable)", "return Variable(h.data)", "x = Variable(", "Variable(target)")
    ]
    expected = [f"{rows[0]}:GL104", f"{rows[1]}:GL101", f"{rows[1]}:GL303"] + [f"{row}:GL101" for row in rows[2:]]
    assert done.stdout.split() == expected


def test_editing_a_module_outside_the_run_changes_the_cached_findings_of_the_script(tmp_path):
    project = split_project(tmp_path)

    def cached_codes() -> list[str]:
        done = gradlint("check", "--output-format", "json", "proj/train.py", cwd=tmp_path)
        return sorted(f["code"] for f in json.loads(done.stdout))

    assert cached_codes() == ["GL101", "GL101", "GL101", "GL104", "GL303"]
    assert cached_codes() == ["GL101", "GL101", "GL101", "GL104", "GL303"]
    (project / "model.py").write_text(MODEL.replace("import torch\n", "import torch\n\n__all__ = ['RNN']\n", 1))
    assert cached_codes() == []
    (project / "model.py").write_text(MODEL)
    assert cached_codes() == ["GL101", "GL101", "GL101", "GL104", "GL303"]
