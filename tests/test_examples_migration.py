"""The bundled 0.3-era projects in examples/legacy, migrated and run end to end under torch 2.13.

Every project is a script (or, for text_classifier/, a model.py and a train.py that star-imports
it) with a `main(steps)` that trains on synthetic data and returns one number per step, lower is
better (a loss; episode lengths for REINFORCE; a distance to the data for the DCGAN).

The reference numbers are those of the original code: it runs under `legacy_shim`, which gives
back the few 0.3 meanings torch 2.13 rejects or ignores (`[0]` of a one-element value is its
number, nothing computed from a volatile value builds a graph, every tensor type "is" a Variable,
old-style Functions are callable, a 0-dim class target has shape (1,)) and nothing else. Each
project declares which of them its original needs.

Copies of the tree are migrated through the installed command line, the whole tree in one run (so
model.py and train.py are fixed together), and fixed a second time:

* the complete migration, `gradlint fix --migrate --unsafe-fixes`, must give projects that run on
  plain torch 2.13, train, reproduce the reference numbers bit for bit, hold none of the 0.3
  constructs (counted by `legacy_constructs`, an AST scan that does not use gradlint), build no
  graph where the original was volatile, warn only about deprecated APIs outside the migration,
  never `.detach()` a value that has no history (recorded at run time), and leave nothing for
  `gradlint check`;
* the safe migration, `gradlint fix --migrate`, must not change a number: its result, run under
  the same shim as the original, reproduces the reference bit for bit; what it leaves is what
  needs `--unsafe-fixes` or a person, and `gradlint check` and the fix summary report all of it;
* a second `fix` changes no byte.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import io
import json
import math
import os
import re
import runpy
import shutil
import subprocess
import sys
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
import torch

from gradlint.config import LEGACY_STYLE_CODES
from gradlint.rules import ALL_MIGRATIONS, presets
from legacy_constructs import legacy_api_constructs, legacy_constructs
from legacy_script_runs import recorded_detaches
from legacy_shim import LegacyUse, legacy_semantics, project_stack
from support import ROOT

pytestmark = pytest.mark.usefixtures("one_torch_thread")

EXAMPLES = ROOT / "examples" / "legacy"
MIGRATION_CODES = frozenset(presets()[ALL_MIGRATIONS])
COMPLETE, SAFE = "--migrate --unsafe-fixes", "--migrate"


@dataclass(frozen=True)
class Project:
    name: str
    script: str  # the file with `main(steps)`, relative to examples/legacy
    steps: int
    shows: frozenset[str]  # constructs of `legacy_constructs` the original holds
    needs: frozenset[str] = frozenset()  # the `legacy_shim` pieces its original relies on
    # Warnings of deprecated APIs outside the migration, which may stay after it (message patterns).
    warns: tuple[str, ...] = ()
    # What the complete migration leaves to a person, still reported by `check`: constructs of
    # `legacy_constructs` and `.detach()` sites (line in the migrated script) that only ever get
    # values without history but where dropping the call could not be proven exact.
    left: frozenset[str] = frozenset()

    @property
    def folder(self) -> Path:
        """The project's own directory below examples/legacy ("." for a single script)."""
        return Path(self.script).parent

    def files(self, root: Path) -> list[Path]:
        if self.folder == Path("."):
            return [root / self.script]
        return sorted((root / self.folder).rglob("*.py"))


SCALAR = frozenset({"scalar index"})
VOLATILE = SCALAR | {"volatile"}
PROJECTS = (
    Project(
        "char_rnn",
        "char_rnn.py",
        25,
        frozenset({".data[0]"}),
        SCALAR | {"0-dim target"},
    ),
    Project(
        "custom_function",
        "custom_function.py",
        25,
        frozenset({"old-style Function", "old-style Function instance call"}),
        SCALAR | {"old-style Function"},
    ),
    Project(
        "dcgan",
        "dcgan.py",
        25,
        frozenset({"legacy tensor type check", "Variable(...) call"}),
        SCALAR,
    ),
    Project(
        "gan",
        "gan.py",
        25,
        frozenset({"volatile= argument", ".data[0]"}),
        VOLATILE,
    ),
    Project("manual_sgd", "manual_sgd.py", 25, frozenset({"Variable(...) call", ".data[0]"}), SCALAR),
    Project("mnist_classifier", "mnist_classifier.py", 25, frozenset({"volatile= argument", ".data[0]"}), VOLATILE),
    Project(
        "regression",
        "regression.py",
        25,
        frozenset({"volatile= argument", "isinstance(x, Variable)"}),
        VOLATILE,
    ),
    Project(
        "reinforce",
        "reinforce.py",
        25,
        frozenset({".data[0]"}),
        SCALAR,
    ),
    Project("rnn_sequence", "rnn_sequence.py", 25, frozenset({"isinstance(x, Variable)", ".data[0]"}), SCALAR),
    Project("seq2seq", "seq2seq.py", 25, frozenset({"Variable(...) call", ".data[0]"}), SCALAR),
    Project(
        "text_classifier",
        "text_classifier/train.py",
        25,
        frozenset({"Variable import", "Variable(...) call", "volatile= argument"}),
        VOLATILE,
    ),
    Project("time_sequence", "time_sequence.py", 4, frozenset({".numpy()[0]"}), frozenset({"scalar numpy"})),
    Project(
        "vae",
        "vae.py",
        25,
        frozenset({"volatile= argument", ".data[0]"}),
        VOLATILE,
    ),
    Project(
        "word_language_model",
        "word_language_model.py",
        25,
        frozenset({"type(x) == Variable", "[0] of a running sum", "volatile= argument"}),
        VOLATILE | {"Variable type"},
    ),
)
BY_NAME = {project.name: project for project in PROJECTS}
NAMES = tuple(BY_NAME)


# ---------------------------------------------------------------------------------------------
# Running a project in this process.


@dataclass
class Outcome:
    values: list | None
    error: str | None
    output: str
    warnings: list[str]
    legacy: LegacyUse = field(default_factory=LegacyUse)
    # `.detach()` call sites in the project's files: (path, line) -> [calls, calls on a value with history]
    detaches: dict[tuple[str, int], list[int]] = field(default_factory=dict)
    # Project call stacks ((file, line), ... outermost first) of the operations that built a graph.
    graph_stacks: set = field(default_factory=set)


class GraphRecorder(torch.overrides.TorchFunctionMode):
    """Records the project call stack of every operation whose result joins a graph."""

    def __init__(self, root: Path, stacks: set):
        super().__init__()
        self.root = str(root.resolve())
        self.stacks = stacks

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        outputs = result if isinstance(result, (list, tuple)) else (result,)
        if any(isinstance(output, torch.Tensor) and output.grad_fn is not None for output in outputs):
            self.stacks.add(project_stack(self.root, sys._getframe(1)))
        return result


def run_project(root: Path, project: Project, *, legacy: bool, steps: int | None = None) -> Outcome:
    """`main(steps)` of a copy of the project under `root`, with 0.3 semantics if `legacy`."""
    script = root / project.script
    home = str(script.parent)
    outcome = Outcome(None, None, "", [])
    stdout = io.StringIO()
    sys.path.insert(0, home)
    try:
        with contextlib.ExitStack() as stack:
            if legacy:
                outcome.legacy = stack.enter_context(legacy_semantics(root))
            else:
                stack.enter_context(GraphRecorder(root, outcome.graph_stacks))
            stack.enter_context(recorded_detaches(root, outcome.detaches))
            caught = stack.enter_context(warnings.catch_warnings(record=True))
            warnings.simplefilter("always")
            stack.enter_context(contextlib.redirect_stdout(stdout))
            try:
                outcome.values = runpy.run_path(str(script), run_name="example")["main"](steps or project.steps)
            except Exception:
                outcome.error = traceback.format_exc()
            outcome.warnings = [f"{w.category.__name__}: {w.message}" for w in caught]
    finally:
        sys.path.remove(home)
        for name, module in list(sys.modules.items()):  # the project's own modules (model.py)
            if getattr(module, "__file__", None) and module.__file__.startswith(home):
                del sys.modules[name]
    outcome.output = stdout.getvalue()
    return outcome


def original_lines(original: str, migrated: str) -> dict[int, int]:
    """Line numbers of the migrated text mapped to the original's, aligning the stripped lines
    (a fix re-indents the lines it wraps in `with torch.no_grad():`)."""
    old = [line.strip() for line in original.splitlines()]
    new = [line.strip() for line in migrated.splitlines()]
    mapping = {}
    for _tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        for j in range(j1, j2):
            mapping[j + 1] = i1 + min(j - j1, max(i2 - i1 - 1, 0)) + 1
    return mapping


def bits(values) -> list[str]:
    """The exact values, comparable across Python and numpy number types."""
    return [float(value).hex() for value in values]


def trains(values) -> bool:
    first, last = sum(values[:5]) / 5, sum(values[-5:]) / 5
    return last < 0.9 * first


def assert_ran(outcome: Outcome, what: str) -> None:
    if outcome.error is not None:
        pytest.fail(f"{what} failed:\n{outcome.error}", pytrace=False)


# ---------------------------------------------------------------------------------------------
# The command line, on copies of the tree.


def gradlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The installed command line, as a user runs it (like conftest's `run_script`)."""
    return subprocess.run(
        [sys.executable, "-m", "gradlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=120,
    )


def findings_by_file(stdout: str, root: Path) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = {}
    for finding in json.loads(stdout):
        relative = Path(finding["filename"]).resolve().relative_to(root.resolve()).as_posix()
        grouped.setdefault(relative, []).append(finding)
    return grouped


def reported_rows(migration: "Migration", path: Path) -> set[int]:
    file = path.relative_to(migration.root).as_posix()
    return {f["location"]["row"] for f in migration.findings.get(file, []) if f["code"] in MIGRATION_CODES}


def summary_counts(stdout: str) -> Counter:
    """The fix summary's rows of what is left: `    3  GL102  volatile-flag ...`."""
    return Counter({code: int(count) for count, code in re.findall(r"^\s*(\d+)\s+(GL\d{3})\s", stdout, re.MULTILINE)})


@dataclass
class Migration:
    root: Path
    first: subprocess.CompletedProcess
    second: subprocess.CompletedProcess
    after_first: dict[str, bytes]
    findings: dict[str, list[dict]]  # `gradlint check` (every rule) afterwards, by file


def source_files(root: Path) -> dict[str, Path]:
    return {path.relative_to(root).as_posix(): path for path in sorted(root.rglob("*.py"))}


@pytest.fixture(scope="module")
def originals(tmp_path_factory) -> Path:
    """An untouched copy (running from it leaves no bytecode in the repository)."""
    root = tmp_path_factory.mktemp("original") / "legacy"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> dict[str, Migration]:
    migrations = {}
    for preset in (COMPLETE, SAFE):
        root = tmp_path_factory.mktemp(preset.replace("--", "").replace(" ", "_")) / "legacy"
        shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns("__pycache__"))
        first = gradlint("fix", "--no-cache", *preset.split(), ".", cwd=root)
        after_first = {name: path.read_bytes() for name, path in source_files(root).items()}
        second = gradlint("fix", "--no-cache", *preset.split(), ".", cwd=root)
        every_rule = ("--extend-select", ",".join(sorted(LEGACY_STYLE_CODES)))  # the legacy-style ones are off by default
        check = gradlint("check", "--no-cache", *every_rule, "--output-format", "json", ".", cwd=root)
        assert check.returncode in (0, 1), check.stderr
        migrations[preset] = Migration(root, first, second, after_first, findings_by_file(check.stdout, root))
    return migrations


@pytest.fixture(scope="module")
def runs(originals, migrated) -> dict[tuple[str, str], Outcome]:
    """Every project: the original and the safe migration under 0.3 semantics, the complete
    migration on plain torch 2.13."""
    # Warm up what torch sets up on first use (the first optimizer step), outside the timed runs.
    parameter = torch.nn.Parameter(torch.ones(1))
    torch.optim.Adam([parameter]).step()
    results = {}
    for project in PROJECTS:
        results["original", project.name] = run_project(originals, project, legacy=True)
        results[SAFE, project.name] = run_project(migrated[SAFE].root, project, legacy=True)
        results[COMPLETE, project.name] = run_project(migrated[COMPLETE].root, project, legacy=False)
    return results


@pytest.fixture(scope="module")
def original_findings() -> dict[str, list[dict]]:
    result = gradlint("check", "--no-cache", "--output-format", "json", ".", cwd=EXAMPLES)
    assert result.returncode == 1, result.stderr
    return findings_by_file(result.stdout, EXAMPLES)


# ---------------------------------------------------------------------------------------------
# The originals.


def test_every_file_belongs_to_one_of_at_least_twelve_projects():
    assert len(PROJECTS) >= 12
    owned = [path.relative_to(EXAMPLES).as_posix() for project in PROJECTS for path in project.files(EXAMPLES)]
    assert sorted(owned) == sorted(source_files(EXAMPLES))


def test_the_originals_hold_every_kind_of_construct_the_scan_knows():
    kinds = {
        construct.kind for path in source_files(EXAMPLES).values() for construct in legacy_constructs(path.read_text(encoding="utf-8"))
    }
    assert kinds == {
        "Variable import",
        "Variable(...) call",
        "volatile= argument",
        "isinstance(x, Variable)",
        "type(x) == Variable",
        "legacy tensor type check",
        ".data[0]",
        ".numpy()[0]",
        "[0] of a running sum",
        "old-style Function",
        "old-style Function instance call",
    }


@pytest.mark.parametrize("name", NAMES)
def test_original_holds_its_legacy_constructs(name):
    project = BY_NAME[name]
    kinds = {construct.kind for path in project.files(EXAMPLES) for construct in legacy_constructs(path.read_text(encoding="utf-8"))}
    assert project.shows <= kinds


def test_the_split_project_takes_its_names_from_a_star_import():
    train = (EXAMPLES / "text_classifier" / "train.py").read_text(encoding="utf-8")
    tree = ast.parse(train)
    assert any(isinstance(node, ast.ImportFrom) and node.module == "model" and node.names[0].name == "*" for node in tree.body)
    defined = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    imported = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    assert {"Variable", "nn", "torch", "LSTMClassifier"} <= used - defined - imported


@pytest.mark.parametrize("name", NAMES)
def test_original_fails_on_torch_2_13(name, originals):
    """What the migration is for: none of the originals survives three steps as it is."""
    outcome = run_project(originals, BY_NAME[name], legacy=False, steps=3)
    assert outcome.error is not None


@pytest.mark.parametrize("name", NAMES)
def test_original_trains_with_the_legacy_semantics_it_declares(name, runs):
    project = BY_NAME[name]
    reference = runs["original", name]
    assert_ran(reference, "the original under legacy_shim")
    assert len(reference.values) >= 10 and all(math.isfinite(value) for value in reference.values)
    assert trains(reference.values), reference.values
    assert set(reference.legacy.counts) == project.needs
    assert bool(reference.legacy.volatile_stacks) == ("volatile" in project.needs)


def test_every_piece_of_the_legacy_shim_is_needed(runs):
    used = set().union(*(runs["original", name].legacy.counts for name in NAMES))
    assert used == {"scalar index", "scalar numpy", "volatile", "Variable type", "old-style Function", "0-dim target"}


def test_check_on_the_originals_reports_migration_findings_only_and_gl102_at_every_volatile(original_findings):
    assert set(original_findings) == set(source_files(EXAMPLES))
    for name, findings in original_findings.items():
        assert {f["code"] for f in findings} <= MIGRATION_CODES, name
        lines = (EXAMPLES / name).read_text(encoding="utf-8").splitlines()
        volatile_rows = {row for row, line in enumerate(lines, 1) if "volatile=" in line}
        assert {f["location"]["row"] for f in findings if f["code"] == "GL102"} == volatile_rows, name


def test_readme_first_command_lists_the_findings():
    """README's quick start ends with `gradlint check examples/`."""
    text = gradlint("check", "--no-cache", "examples/", cwd=ROOT)
    as_json = gradlint("check", "--no-cache", "--output-format", "json", "examples/", cwd=ROOT)
    assert text.returncode == 1 and as_json.returncode == 1, text.stderr
    findings = json.loads(as_json.stdout)
    assert findings and all(f["code"] in MIGRATION_CODES for f in findings)
    listed = [line for line in text.stdout.splitlines() if re.match(r"examples[\\/]legacy[\\/][\w\\/]+\.py:\d+:\d+: GL", line)]
    assert len(listed) == len(findings)
    assert any(line.startswith(f"Found {len(findings)} errors (severity: ") for line in text.stdout.splitlines())


# ---------------------------------------------------------------------------------------------
# The shim itself: each piece acts on the project's code only, and everything is restored.


def test_legacy_shim_acts_on_the_project_code_only_and_is_undone(tmp_path):
    module = tmp_path / "legacy.py"
    module.write_text("def first(x):\n    return x[0]\n", encoding="utf-8")
    first = runpy.run_path(str(module))["first"]
    loss = torch.tensor(0.25)
    with legacy_semantics(tmp_path) as use:
        assert first(loss) == 0.25 and type(first(loss)) is float
        assert type(first(torch.tensor([3]))) is int
        assert isinstance(first(torch.tensor([1.0, 2.0])), torch.Tensor)  # a real vector
        assert isinstance(first(torch.tensor([1.0], requires_grad=True)), torch.Tensor)  # a Variable
        assert isinstance(torch.tensor([1.0])[0], torch.Tensor)  # code outside the project
        assert torch.tensor(0.5).numpy().shape == ()
        assert type(torch.ones(1)) == torch.autograd.Variable  # noqa: E721 (the 0.3 idiom under test)
    assert use.counts == Counter({"scalar index": 3, "Variable type": 1})
    with pytest.raises(IndexError):
        first(loss)
    assert type(torch.ones(1)) != torch.autograd.Variable  # noqa: E721
    assert "__getitem__" not in vars(torch.Tensor) and "__eq__" not in vars(type(torch.autograd.Variable))


def test_legacy_shim_runs_an_old_style_function_with_the_gradient_it_defines(tmp_path):
    module = tmp_path / "square.py"
    module.write_text(
        "import torch\n\n\n"
        "class Square(torch.autograd.Function):\n"
        "    def forward(self, x):\n"
        "        self.save_for_backward(x)\n"
        "        return x * x\n\n"
        "    def backward(self, grad):\n"
        "        x, = self.saved_tensors\n"
        "        return 2 * x * grad if self.needs_input_grad[0] else None\n",
        encoding="utf-8",
    )
    square = runpy.run_path(str(module))["Square"]
    x = torch.tensor([1.5, -2.0], dtype=torch.float64, requires_grad=True)
    with legacy_semantics(tmp_path), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # instantiating an old-style Function
        assert torch.autograd.gradcheck(lambda t: square()(t), (x,))
        square()(x).sum().backward()
    assert x.grad.tolist() == [3.0, -4.0]
    with pytest.raises(RuntimeError, match="Legacy autograd function"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        square()(x)


def test_legacy_shim_gives_a_zero_dim_class_target_its_legacy_shape():
    criterion = torch.nn.CrossEntropyLoss()
    scores, targets = torch.randn(1, 5), torch.tensor([4, 2])
    with pytest.raises(ValueError):
        criterion(scores, targets[0])
    with legacy_semantics(ROOT / "examples") as use:
        assert torch.equal(criterion(scores, targets[0]), criterion(scores, targets[0:1]))
    assert use.counts == Counter({"0-dim target": 1})


def test_legacy_shim_concatenates_zero_dim_losses_as_one_element_tensors():
    losses = [torch.tensor(0.125), torch.tensor(1.5)]
    with pytest.raises(RuntimeError, match="zero-dimensional tensor"):
        torch.cat(losses)
    with legacy_semantics(ROOT / "examples") as use:
        assert torch.equal(torch.cat(losses), torch.tensor([0.125, 1.5]))
        assert torch.equal(torch.cat([torch.ones(2), torch.zeros(1)]), torch.tensor([1.0, 1.0, 0.0]))
    assert use.counts == Counter({"0-dim cat": 1})
    with pytest.raises(RuntimeError, match="zero-dimensional tensor"):
        torch.cat(losses)


def test_legacy_shim_gives_the_data_loader_iterator_its_python_2_next():
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.arange(4.0)), batch_size=2)
    with pytest.raises(AttributeError, match="no attribute 'next'"):
        iter(loader).next()
    with legacy_semantics(ROOT / "examples") as use:
        batches = iter(loader)
        assert torch.equal(batches.next()[0], torch.tensor([0.0, 1.0]))
        assert torch.equal(batches.next()[0], torch.tensor([2.0, 3.0]))
        with pytest.raises(StopIteration):
            batches.next()
        with pytest.raises(AttributeError, match="no attribute 'next'"):
            iter([1, 2]).next()  # builtin iterators had none in Python 3 either
    assert use.counts == Counter({"DataLoader next": 3})
    with pytest.raises(AttributeError, match="no attribute 'next'"):
        iter(loader).next()


# ---------------------------------------------------------------------------------------------
# The complete migration: `fix --migrate --unsafe-fixes`.


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_runs_on_torch_2_13(name, runs):
    assert_ran(runs[COMPLETE, name], "the completely migrated project")


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_trains_and_returns_plain_numbers(name, runs):
    migrated = runs[COMPLETE, name]
    assert_ran(migrated, "the completely migrated project")
    assert all(type(value) in (int, float) for value in migrated.values), {type(value) for value in migrated.values}
    assert trains(migrated.values), migrated.values


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_reproduces_the_legacy_numbers_bitwise(name, runs):
    assert_ran(runs[COMPLETE, name], "the completely migrated project")
    assert bits(runs[COMPLETE, name].values) == bits(runs["original", name].values)


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_leaves_only_what_is_left_to_a_person(name, migrated):
    root = migrated[COMPLETE].root
    left = {c.kind for path in BY_NAME[name].files(root) for c in legacy_constructs(path.read_text(encoding="utf-8"))}
    assert left == BY_NAME[name].left


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_detaches_only_values_with_history(name, runs):
    """A `.detach()` site that never received a value with history (no graph behind it, not a
    leaf requiring grad) during the run is one no person would write: the migration should have
    used the value itself. Sites that get both (`repackage_hidden` on the first, fresh state and
    on later states) are fine."""
    migrated = runs[COMPLETE, name]
    assert_ran(migrated, "the completely migrated project")
    needless = {line for (file, line), (calls, with_history) in migrated.detaches.items() if not with_history}
    assert not needless, f"`.detach()` on values without history at lines {sorted(needless)}"


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_builds_no_graph_where_the_original_was_volatile(name, runs, originals, migrated):
    """`volatile=True` keeps its intent: no operation that ran volatile in the original (same
    call stack, lines mapped back to the original's) joins a graph after the migration."""
    migrated_run = runs[COMPLETE, name]
    assert_ran(migrated_run, "the completely migrated project")
    root = migrated[COMPLETE].root
    mappings = {
        file: original_lines((originals / file).read_text(encoding="utf-8"), (root / file).read_text(encoding="utf-8"))
        for file in {file for stack in migrated_run.graph_stacks for file, _ in stack}
    }
    graph_stacks = {tuple((file, mappings[file][line]) for file, line in stack) for stack in migrated_run.graph_stacks}
    volatile_stacks = runs["original", name].legacy.volatile_stacks
    if "volatile= argument" in BY_NAME[name].left:
        assert volatile_stacks & graph_stacks  # what the person still has to do, visibly
    else:
        assert sorted(volatile_stacks & graph_stacks) == []


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_warns_only_about_apis_outside_the_migration(name, runs):
    project = BY_NAME[name]
    migrated = runs[COMPLETE, name]
    assert_ran(migrated, "the completely migrated project")
    allowed = project.warns + (("volatile was removed",) if "volatile= argument" in project.left else ())
    unexpected = [text for text in migrated.warnings if not any(re.search(pattern, text) for pattern in allowed)]
    assert unexpected == []


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_leaves_nothing_unreported(name, migrated):
    """`check` after the complete migration reports exactly the constructs left to a person."""
    migration = migrated[COMPLETE]
    for path in BY_NAME[name].files(migration.root):
        file = path.relative_to(migration.root).as_posix()
        reported = {f["location"]["row"] for f in migration.findings.get(file, [])}
        constructs = {c.line for c in legacy_constructs(path.read_text(encoding="utf-8")) if c.kind != "Variable import"}
        assert reported == constructs, file


def test_the_originals_use_apis_removed_or_renamed_since_0_3():
    kinds = {
        c.kind for project in PROJECTS for path in project.files(EXAMPLES) for c in legacy_api_constructs(path.read_text(encoding="utf-8"))
    }
    expected = {"legacy tensor constructor", ".type(legacy tensor type)", "size_average= / reduce=", "number-first add/sub overload"}
    assert expected <= kinds, kinds


@pytest.mark.parametrize("name", NAMES)
def test_complete_migration_leaves_no_api_removed_or_renamed_since_0_3(name, migrated):
    root = migrated[COMPLETE].root
    left = {
        path.relative_to(root).as_posix(): legacy_api_constructs(path.read_text(encoding="utf-8")) for path in BY_NAME[name].files(root)
    }
    assert {file: constructs for file, constructs in left.items() if constructs} == {}


def test_complete_migration_summary_counts_what_is_left(migrated):
    migration = migrated[COMPLETE]
    left = Counter(f["code"] for findings in migration.findings.values() for f in findings)
    assert migration.first.returncode == (1 if left else 0), migration.first.stdout + migration.first.stderr
    assert summary_counts(migration.first.stdout) == left
    assert all("need" in line and "a person" in line for line in migration.first.stdout.splitlines() if re.match(r"\s+\d+\s+GL", line))


# ---------------------------------------------------------------------------------------------
# The safe migration: `fix --migrate`.


@pytest.mark.parametrize("name", NAMES)
def test_safe_migration_keeps_the_legacy_numbers_bitwise(name, runs):
    """Safe fixes are exact: what they leave still needs 0.3 semantics, and under them the
    migrated project computes exactly what the original did."""
    migrated = runs[SAFE, name]
    assert_ran(migrated, "the safely migrated project under legacy_shim")
    assert bits(migrated.values) == bits(runs["original", name].values)


@pytest.mark.parametrize("name", NAMES)
def test_check_after_the_safe_migration_reports_every_construct_left(name, migrated):
    migration = migrated[SAFE]
    unreported = []
    # An import is not a finding of its own: it goes with the last reported call it serves, in
    # its own file or in one that star-imports it.
    import_in_use = any(
        "Variable" in c.kind and c.line in reported_rows(migration, path)
        for path in BY_NAME[name].files(migration.root)
        for c in legacy_constructs(path.read_text(encoding="utf-8"))
    )
    for path in BY_NAME[name].files(migration.root):
        file = path.relative_to(migration.root).as_posix()
        constructs = legacy_constructs(path.read_text(encoding="utf-8"))
        rows = reported_rows(migration, path)
        unreported += [
            f"{file}:{c.line}: {c.kind}" for c in constructs if c.line not in rows and not (c.kind == "Variable import" and import_in_use)
        ]
    assert unreported == []


def test_safe_migration_summary_counts_what_check_reports(migrated):
    migration = migrated[SAFE]
    left = Counter(f["code"] for findings in migration.findings.values() for f in findings if f["code"] in MIGRATION_CODES)
    assert re.search(rf"^Fixed [1-9]\d* errors, {sum(left.values())} remaining[.:]$", migration.first.stdout, re.MULTILINE), (
        migration.first.stdout
    )
    assert summary_counts(migration.first.stdout) == left


# ---------------------------------------------------------------------------------------------
# Both migrations.


@pytest.mark.parametrize("preset", (COMPLETE, SAFE))
@pytest.mark.parametrize("name", NAMES)
def test_a_second_fix_changes_nothing(name, preset, migrated):
    migration = migrated[preset]
    assert re.search(r"^Fixed 0 errors", migration.second.stdout, re.MULTILINE), migration.second.stdout
    for path in BY_NAME[name].files(migration.root):
        file = path.relative_to(migration.root).as_posix()
        ast.parse(migration.after_first[file])
        assert path.read_bytes() == migration.after_first[file], file


def test_numbers_returned_by_a_run_are_compared_exactly():
    """`bits` tells apart values that differ in the last place, whatever their number type."""
    assert bits([np.float32(0.1)]) != bits([0.1])
    assert bits([np.float64(0.1), 3]) == bits([0.1, 3.0])
