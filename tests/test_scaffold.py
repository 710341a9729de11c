"""Adding a rule touches exactly one rule module, one fixture folder and generated files: the
scaffold is run on a copy of the project and every change it makes is listed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint.scaffold import NewRule, ScaffoldError, create
from support import ROOT

COPIED = ("gradlint", "rules", "fixtures", "README.md", "pyproject.toml")


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def project(tmp_path) -> Path:
    """A copy of the project's sources under git, committed, so that `git status` lists what changes."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, copy / name)
    _git(copy, "init", "-q")
    _git(copy, "add", "-A")
    _git(copy, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    return copy


def _run(copy: Path, *args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run([sys.executable, *args], cwd=copy, env=environment, capture_output=True, text=True)


def test_scaffold_adds_one_module_one_fixture_folder_and_generated_files(project):
    completed = _run(project, "-m", "gradlint.scaffold", "GL799", "sample-mistake")
    assert completed.returncode == 0, completed.stderr
    changed = sorted(line[3:] for line in _git(project, "status", "--porcelain", "--untracked-files=all").splitlines())
    assert changed == [
        "README.md",
        "fixtures/GL799_sample_mistake/bad.py",
        "fixtures/GL799_sample_mistake/good.py",
        "fixtures/GL799_sample_mistake/test_runtime.py",
        "gradlint/rules/_catalog.py",
        "gradlint/rules/gl799_sample_mistake.py",
        "rules/GL799.md",
        "rules/README.md",
    ]
    # The registry finds the new rule with no other edit, and the generated docs are in sync.
    found = _run(project, "-c", "from gradlint.rules import rule_by_code; print(rule_by_code('GL799').name)")
    assert found.stdout.strip() == "sample-mistake", found.stderr
    assert _run(project, "-m", "gradlint.docs", "--check", "rules").returncode == 0
    assert "sample-mistake" in (project / "README.md").read_text(encoding="utf-8")


def test_scaffold_refuses_an_existing_code_and_bad_names(tmp_path):
    (tmp_path / "gradlint" / "rules").mkdir(parents=True)
    (tmp_path / "gradlint" / "rules" / "gl101_variable_call.py").write_text("")
    with pytest.raises(ScaffoldError, match="exists already"):
        create("GL101", "other-name", tmp_path)
    (tmp_path / "gradlint" / "rules" / "gl604_amp_step_order").mkdir()  # a rule package
    with pytest.raises(ScaffoldError, match="exists already: gradlint/rules/gl604_amp_step_order"):
        create("GL604", "other-name", tmp_path)
    with pytest.raises(ScaffoldError, match="bad rule code"):
        create("GL61", "name", tmp_path)
    with pytest.raises(ScaffoldError, match="kebab-case"):
        create("GL601", "Bad_Name", tmp_path)


def test_template_names_follow_the_registry_conventions():
    rule = NewRule("GL601", "model-in-train-mode")
    assert rule.stem == "gl601_model_in_train_mode" and rule.class_name == "ModelInTrainMode"
    paths = {path.relative_to(ROOT).as_posix() for path in rule.files(ROOT)}
    assert paths == {
        "gradlint/rules/gl601_model_in_train_mode.py",
        "fixtures/GL601_model_in_train_mode/bad.py",
        "fixtures/GL601_model_in_train_mode/good.py",
        "fixtures/GL601_model_in_train_mode/test_runtime.py",
    }
