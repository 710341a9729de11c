"""The pre-commit hooks of `.pre-commit-hooks.yaml`, run by pre-commit itself.

A temporary copy of this repository (the working tree, uncommitted files included) is committed
as the hook repository; a second temporary git repository plays the user's project, configured
with the README's `.pre-commit-config.yaml` snippet pointed at that copy. pre-commit clones the
copy and pip-installs it into the hook environment once per test session.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pre_commit.clientlib import load_manifest

from support import LEGACY_EVALUATE, ROOT, readme_block

MANIFEST = ROOT / ".pre-commit-hooks.yaml"

LEGACY = LEGACY_EVALUATE  # GL101 and GL103, both with safe fixes
# The same code as the one code cell of a notebook.
LEGACY_NOTEBOOK = json.dumps(
    {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": LEGACY}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2}
)

# A training loop that never resets gradients: GL201, whose fix is unsafe (not applied by default).
NO_ZERO_GRAD = """\
def train(model, loader, criterion, optimizer):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""


def git_environment() -> dict[str, str]:
    """The environment for git and pre-commit: no user or system git configuration, a fixed
    identity, nothing inherited from an enclosing git hook or pre-commit run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="gradlint tests",
        GIT_AUTHOR_EMAIL="tests@gradlint.invalid",
        GIT_COMMITTER_NAME="gradlint tests",
        GIT_COMMITTER_EMAIL="tests@gradlint.invalid",
        NO_COLOR="1",
    )
    return env


def git(*args: str, cwd: Path) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=git_environment(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def copy_working_tree(destination: Path) -> None:
    """The files git would commit from the working tree (tracked or untracked, not ignored)."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if not source.is_file():  # deleted in the working tree, not yet from the index
            continue
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


@pytest.fixture(scope="session")
def hook_repository(tmp_path_factory) -> tuple[Path, str]:
    """(path, commit) of a one-commit git repository holding the current working tree."""
    repository = tmp_path_factory.mktemp("hook-repository")
    copy_working_tree(repository)
    git("init", "-q", cwd=repository)
    git("add", "-A", cwd=repository)
    git("commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "hook repository", cwd=repository)
    return repository, git("rev-parse", "HEAD", cwd=repository).strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    """One PRE_COMMIT_HOME for the session, so the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def readme_config(hook_repository: tuple[Path, str]) -> dict:
    """The README's `.pre-commit-config.yaml`, pointed at the temporary hook repository."""
    config = yaml.safe_load(readme_block("### pre-commit"))
    (entry,) = config["repos"]
    assert entry["repo"] == "https://github.com/gradlint/gradlint"
    entry["repo"], entry["rev"] = str(hook_repository[0]), hook_repository[1]
    return config


def make_project(path: Path, config: dict, files: dict[str, str]) -> Path:
    path.mkdir()
    git("init", "-q", cwd=path)
    (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    git("add", "-A", cwd=path)
    return path


def pre_commit(project: Path, home: Path, *args: str) -> tuple[int, str]:
    env = {**git_environment(), "PRE_COMMIT_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout + done.stderr


HOOK_LINE = re.compile(r"^(?P<name>\S[^\n]*?)\.{2,}(?:\(no files to check\))?(?P<status>Passed|Failed|Skipped)$", re.MULTILINE)


def hook_results(output: str) -> dict[str, tuple[str, str]]:
    """{hook name: (status, the text pre-commit printed for it)}."""
    matches = list(HOOK_LINE.finditer(output))
    assert matches, output
    results = {}
    for match, following in zip(matches, matches[1:] + [None]):
        body = output[match.end() : following.start() if following else len(output)]
        results[match.group("name")] = (match.group("status"), body)
    return results


def test_manifest_is_valid_and_matches_the_readme():
    hooks = {hook["id"]: hook for hook in load_manifest(str(MANIFEST))}  # pre-commit's own schema
    assert set(hooks) == {"gradlint", "gradlint-fix"}
    assert hooks["gradlint"]["entry"] == "gradlint check --force-exclude"
    assert hooks["gradlint-fix"]["entry"] == "gradlint fix --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is False
        assert hook["pass_filenames"] is True
        assert hook["args"] == []
    config = yaml.safe_load(readme_block("### pre-commit"))
    assert [hook["id"] for hook in config["repos"][0]["hooks"]] == ["gradlint", "gradlint-fix"]


def test_readme_config_checks_then_fixes(hook_repository, pre_commit_home, tmp_path):
    files = {"evaluate.py": LEGACY, "evaluate.ipynb": LEGACY_NOTEBOOK}
    project = make_project(tmp_path / "project", readme_config(hook_repository), files)

    # What `gradlint fix` itself makes of the file.
    reference = tmp_path / "reference" / "evaluate.py"
    reference.parent.mkdir()
    reference.write_text(LEGACY, encoding="utf-8")
    fixed = subprocess.run(
        [sys.executable, "-m", "gradlint", "fix", "--no-cache", reference.name],
        cwd=reference.parent,
        capture_output=True,
        timeout=120,
    )
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    expected = reference.read_text(encoding="utf-8")
    assert "Variable" not in expected and "return loss.item()" in expected and "batch.detach()" in expected

    code, output = pre_commit(project, pre_commit_home, "--all-files")
    assert code == 1, output
    results = hook_results(output)
    status, text = results["gradlint"]
    assert status == "Failed", output
    assert "- exit code: 1" in text
    assert "evaluate.py:6:9: GL101" in text
    assert "evaluate.py:8:12: GL103" in text
    assert "evaluate.ipynb:cell 1:6:9: GL101" in text  # notebooks are passed to the hooks too
    status, text = results["gradlint-fix"]
    assert status == "Failed", output
    assert "- files were modified by this hook" in text
    assert "- exit code:" not in text  # nothing left after the safe fixes
    assert "Fixed 4 errors, 0 remaining." in text
    assert (project / "evaluate.py").read_text(encoding="utf-8") == expected
    assert json.loads((project / "evaluate.ipynb").read_text(encoding="utf-8"))["cells"][0]["source"] == expected

    git("add", "-A", cwd=project)
    code, output = pre_commit(project, pre_commit_home, "--all-files")
    assert code == 0, output
    assert {name: status for name, (status, _) in hook_results(output).items()} == {
        "gradlint": "Passed",
        "gradlint-fix": "Passed",
    }
    assert (project / "evaluate.py").read_text(encoding="utf-8") == expected


def test_remaining_findings_and_appended_args(hook_repository, pre_commit_home, tmp_path):
    config = readme_config(hook_repository)
    files = {
        "train.py": NO_ZERO_GRAD,
        "notes.txt": "Variable(x)\n",
        "generated/legacy.py": "from torch.autograd import Variable\nx = Variable(t)\n",
        "pyproject.toml": '[tool.gradlint]\nextend-exclude = ["generated/"]\n',  # --force-exclude: skipped
    }
    project = make_project(tmp_path / "project", config, files)

    # gradlint-fix fails on a finding without a safe fix, and writes nothing.
    code, output = pre_commit(project, pre_commit_home, "gradlint-fix", "--all-files")
    assert code == 1, output
    status, text = hook_results(output)["gradlint-fix"]
    assert status == "Failed", output
    assert "- exit code: 1" in text
    assert "train.py:2:5: GL201" in text
    assert "files were modified" not in text
    assert "notes.txt" not in output  # only Python files are passed
    assert "generated" not in output and "GL101" not in output  # excluded by [tool.gradlint]
    assert (project / "train.py").read_text(encoding="utf-8") == NO_ZERO_GRAD

    # `args:` are appended: --exit-zero makes gradlint-fix a pure fixer, --select narrows the check.
    hooks = {hook["id"]: hook for hook in config["repos"][0]["hooks"]}
    hooks["gradlint-fix"]["args"] = ["--exit-zero"]
    hooks["gradlint"]["args"] = ["--select", "GL1"]
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    git("add", "-A", cwd=project)
    code, output = pre_commit(project, pre_commit_home, "--all-files", "--verbose")
    assert code == 0, output
    results = hook_results(output)
    assert {name: status for name, (status, _) in results.items()} == {"gradlint": "Passed", "gradlint-fix": "Passed"}
    assert "train.py:2:5: GL201" in results["gradlint-fix"][1]  # still reported, exit code 0
    assert "GL201" not in results["gradlint"][1]
