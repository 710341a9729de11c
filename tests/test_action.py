"""The composite GitHub Action in `action.yml`, run locally the way the runner runs it.

Each step's `${{ ... }}` expressions are substituted as the runner does (inputs from the test or
their defaults), the script is run with the runner's bash command line, with the runner's
environment variables, in a workspace directory. The action path is a temporary copy of the
working tree, so installing it writes nothing into this repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gradlint import __version__

from support import LEGACY_EVALUATE, ROOT, readme_block

ACTION = ROOT / "action.yml"

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
RUNNER_CONTEXTS = {"github.action_path", "github.workspace", "runner.temp", "runner.os"}
STEP_OUTPUT = re.compile(r"steps\.([\w-]+)\.outputs\.([\w-]+)")

LEGACY = LEGACY_EVALUATE  # GL101 and GL103, both with safe fixes

CLEAN = """\
def train(model, loader, criterion, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""


def load_action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def step_texts(step: dict) -> list[str]:
    """Every string of a step in which the runner evaluates expressions."""
    texts = [str(step.get("run", "")), str(step.get("if", ""))]
    for key in ("env", "with"):
        texts.extend(str(value) for value in (step.get(key) or {}).values())
    return texts


def copy_working_tree(destination: Path) -> None:
    """The files git would commit from the working tree (tracked or untracked, not ignored)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)


class Runner:
    """A GitHub runner reduced to what a composite action with bash steps sees."""

    def __init__(self, root: Path) -> None:
        self.action_path = root / "actions" / "gradlint"
        copy_working_tree(self.action_path)
        self.temp = root / "runner-temp"
        self.temp.mkdir()
        # The job's Python, as `python3` first on the PATH: a fresh virtual environment of the
        # interpreter running the tests.
        self.python_environment = root / "job-python"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(self.python_environment)], check=True, timeout=120)
        self.bin = self.python_environment / ("Scripts" if os.name == "nt" else "bin")

    def run(
        self, workspace: Path, inputs: dict[str, str] | None = None, github: dict[str, str] | None = None
    ) -> list[subprocess.CompletedProcess]:
        """Run every `run` step of the action in `workspace`; a failing step ends the run. A step
        that uses another action (the cache) is left out: here the cache is the runner's temporary
        directory, kept from one run to the next."""
        action = load_action()
        declared = action.get("inputs") or {}
        assert set(inputs or {}) <= set(declared)
        values = {name: str(spec.get("default", "")) for name, spec in declared.items()}
        values.update(inputs or {})
        context = {
            "github.action_path": str(self.action_path),
            "github.workspace": str(workspace),
            "runner.temp": str(self.temp),
            "runner.os": "Linux",
            **{f"inputs.{name}": value for name, value in values.items()},
        }

        def expand(text: str) -> str:
            return EXPRESSION.sub(lambda match: context[match.group(1)], text)

        output = self.temp / "github-output"

        inherited = ("GITHUB_", "RUNNER_", "VIRTUAL_ENV")
        environment = {key: value for key, value in os.environ.items() if not key.startswith(inherited)}
        environment.update(
            PATH=f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}",
            CI="true",
            GITHUB_ACTIONS="true",
            GITHUB_ACTION_PATH=str(self.action_path),
            GITHUB_WORKSPACE=str(workspace),
            GITHUB_OUTPUT=str(output),
            GITHUB_SERVER_URL="https://github.com",
            GITHUB_ACTION_REPOSITORY="gradlint/gradlint",
            RUNNER_TEMP=str(self.temp),
            RUNNER_OS="Linux",
            NO_COLOR="1",
        )
        environment.update(github or {})
        results = []
        for index, step in enumerate(action["runs"]["steps"]):
            if "uses" in step:
                continue
            output.write_text("", encoding="utf-8")
            script = self.temp / f"step-{index}.sh"
            script.write_text(expand(step["run"]), encoding="utf-8")
            step_environment = {name: expand(str(value)) for name, value in (step.get("env") or {}).items()}
            result = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],  # the runner's `shell: bash`
                cwd=workspace,
                env={**environment, **step_environment},
                capture_output=True,
                text=True,
                timeout=600,
            )
            results.append(result)
            if result.returncode != 0:
                break
            for line in output.read_text(encoding="utf-8").splitlines():
                name, _, value = line.partition("=")
                context[f"steps.{step.get('id')}.outputs.{name}"] = value
        return results


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> Runner:
    return Runner(tmp_path_factory.mktemp("runner"))


def workspace_with(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_action_structure():
    action = load_action()
    assert action["name"] == "gradlint"
    assert action["description"]
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    assert "args" in inputs and inputs["args"]["default"] == "."
    for spec in inputs.values():
        assert spec["description"]
    steps = action["runs"]["steps"]
    assert steps
    earlier_ids = set()
    for step in steps:
        assert step["name"]
        if "uses" not in step:
            assert step["shell"] == "bash"  # a composite `run` step must name its shell
            assert "run" in step
        for text in step_texts(step):
            for expression in EXPRESSION.findall(text):
                if expression.startswith("inputs."):
                    assert expression.removeprefix("inputs.") in inputs, expression
                elif output := STEP_OUTPUT.fullmatch(expression):
                    assert output.group(1) in earlier_ids, expression  # an output of a step before
                else:
                    assert expression in RUNNER_CONTEXTS, expression
        earlier_ids.add(step.get("id"))
    assert re.search(r"/gradlint\"? check --output-format github ", steps[-1]["run"])


def test_version_input_defaults_to_this_release():
    assert load_action()["inputs"]["version"]["default"] == f"v{__version__}"


def test_the_cache_is_keyed_by_version_and_holds_pips_cache():
    steps = load_action()["runs"]["steps"]
    (cache,) = [step for step in steps if "uses" in step]
    assert cache["uses"].startswith("actions/cache@")
    assert "${{ inputs.version }}" in cache["with"]["key"]
    (install,) = [step for step in steps if step["name"] == "Install gradlint"]
    assert steps.index(cache) < steps.index(install)
    assert install["env"]["PIP_CACHE_DIR"] == cache["with"]["path"]  # pip's cache is the one kept


def test_readme_workflow_uses_declared_inputs():
    workflow = yaml.safe_load(readme_block("### GitHub Actions"))
    steps = workflow["jobs"]["gradlint"]["steps"]
    (step,) = [step for step in steps if str(step.get("uses", "")).startswith("gradlint/gradlint@")]
    inputs = load_action()["inputs"]
    assert set(step.get("with") or {}) <= set(inputs)
    for name, spec in inputs.items():
        if spec.get("required") and "default" not in spec:
            assert name in (step.get("with") or {})


def test_readme_workflow_annotates_findings(runner, tmp_path):
    """The README's workflow step (`with: args: src/`) on a workspace with legacy code."""
    workflow = yaml.safe_load(readme_block("### GitHub Actions"))
    (step,) = [step for step in workflow["jobs"]["gradlint"]["steps"] if "gradlint/gradlint@" in str(step.get("uses"))]
    workspace = workspace_with(tmp_path, {"src/evaluate.py": LEGACY, "src/train.py": CLEAN, "other/evaluate.py": LEGACY})
    results = runner.run(workspace, {name: str(value) for name, value in step["with"].items()})
    assert [result.returncode for result in results] == [0, 0, 1], [result.stderr for result in results]
    assert re.search(rf"^Successfully installed .*\bgradlint-{re.escape(__version__)}\b", results[1].stdout, re.MULTILINE)
    output = results[-1].stdout
    annotations = [line for line in output.splitlines() if line.startswith("::")]
    assert len(annotations) == 2, output
    # Each with its rule's severity: `Variable(t)` still runs, `loss.data[0]` raises.
    assert re.match(r"::warning title=gradlint \(GL101\),file=src/evaluate\.py,line=6,col=9,[^:]*::GL101 ", annotations[0]), annotations[0]
    assert re.match(r"::error title=gradlint \(GL103\),file=src/evaluate\.py,line=8,col=12,[^:]*::GL103 ", annotations[1]), annotations[1]
    assert "other/" not in output  # only the paths given in `args`
    # gradlint lives in the action's own environment, not in the job's Python.
    job_python = subprocess.run([str(runner.bin / "python3"), "-c", "import gradlint"], cwd=workspace, capture_output=True, timeout=60)
    assert job_python.returncode != 0


def test_default_args_on_clean_code(runner, tmp_path):
    results = runner.run(workspace_with(tmp_path, {"train.py": CLEAN, "pkg/model.pyi": "def f() -> int: ...\n"}))
    assert [result.returncode for result in results] == [0, 0, 0], [result.stderr for result in results]
    assert "::" not in results[-1].stdout


def test_options_in_args_and_error_exit(runner, tmp_path):
    workspace = workspace_with(tmp_path, {"src/evaluate.py": LEGACY})
    results = runner.run(workspace, {"args": "--select GL103  src/"})  # options too, any whitespace
    assert [result.returncode for result in results] == [0, 0, 1]
    assert [line.split(",")[0] for line in results[-1].stdout.splitlines()] == ["::error title=gradlint (GL103)"]

    results = runner.run(workspace, {"args": "--exit-zero src/"})
    assert [result.returncode for result in results] == [0, 0, 0]
    assert [line.split(" ")[0] for line in results[-1].stdout.splitlines()] == ["::warning", "::error"]

    results = runner.run(workspace, {"args": "src/*.py"})  # never glob-expanded: no such path
    assert [result.returncode for result in results] == [0, 0, 2]
    assert "gradlint: error: src/*.py: no such file or directory" in results[-1].stderr


@pytest.mark.parametrize(
    "args, option",
    [
        ("--output-format json src/", "--output-format"),
        ("src/ --output-format=sarif", "--output-format"),
        ("-o report.txt src/", "--output-file"),
        ("--output-file=report.txt src/", "--output-file"),
    ],
)
def test_args_that_would_replace_the_annotations_are_refused(runner, tmp_path, args, option):
    results = runner.run(workspace_with(tmp_path, {"src/evaluate.py": LEGACY}), {"args": args})
    assert [result.returncode for result in results] == [2]  # before anything is installed
    (annotation,) = results[0].stdout.splitlines()
    assert annotation.startswith(f"::error title=gradlint action::`args` must not set {option}: ")
    assert f"gradlint action: error: `args` must not set {option}" in results[0].stderr


@pytest.mark.parametrize("version", ["0.2.0", "main", "v0.2.0; echo x", ""])
def test_a_version_that_is_no_release_tag_is_refused(runner, tmp_path, version):
    results = runner.run(workspace_with(tmp_path, {"train.py": CLEAN}), {"version": version})
    assert [result.returncode for result in results] == [2]
    assert "`version` must be a release tag such as v0.2.0" in results[0].stdout


def test_the_release_wheel_is_built_once_and_then_taken_from_the_cache(runner, tmp_path):
    tag = f"v{__version__}"
    wheels = runner.temp / "gradlint-pip-cache" / "gradlint-wheels" / tag
    shutil.rmtree(wheels, ignore_errors=True)
    first = runner.run(workspace_with(tmp_path, {"train.py": CLEAN}))
    assert [result.returncode for result in first] == [0, 0, 0], [result.stderr for result in first]
    assert f"gradlint {tag}: building its wheel from {runner.action_path}" in first[1].stdout
    assert [path.name for path in wheels.iterdir()] == [f"torch_gradlint-{__version__}-py3-none-any.whl"]
    again = runner.run(workspace_with(tmp_path, {"train.py": CLEAN}))
    assert [result.returncode for result in again] == [0, 0, 0], [result.stderr for result in again]
    assert f"gradlint {tag}: the cached wheel" in again[1].stdout
    assert "building" not in again[1].stdout


def test_another_version_is_built_from_its_tag_in_the_actions_repository(runner, tmp_path):
    """A release other than the ref's comes from its tag, in the repository the action comes from
    (here a local one, by its `file:` URL)."""
    repository = tmp_path / "actions-repository"
    copy_working_tree(repository)
    init = repository / "gradlint" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8").replace(f'"{__version__}"', '"9.9.9"'), encoding="utf-8")
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "9.9.9"],
        ["tag", "v9.9.9"],
    ):
        subprocess.run(["git", *command], cwd=repository, check=True, capture_output=True, timeout=120)
    github = {"GITHUB_SERVER_URL": tmp_path.as_uri(), "GITHUB_ACTION_REPOSITORY": repository.name}
    results = runner.run(workspace_with(tmp_path / "workspace", {"train.py": CLEAN}), {"version": "v9.9.9"}, github)
    assert [result.returncode for result in results] == [0, 0, 0], [result.stderr for result in results]
    assert f"building its wheel from git+{tmp_path.as_uri()}/actions-repository@v9.9.9" in results[1].stdout
    assert re.search(r"^Successfully installed .*\btorch-gradlint-9\.9\.9\b", results[1].stdout, re.MULTILINE), results[1].stdout
