"""The bundled 0.3-era scripts in examples/legacy: they fail under torch 2.13, and after
`gradlint fix --migrate-variable` (or `--migrate`) they are modern, stable under a second fix, and
train with a decreasing loss."""

from __future__ import annotations

import ast
import json
import runpy
import shutil
import sys
import warnings

import pytest

from support import ROOT

EXAMPLES = ROOT / "examples" / "legacy"
SCRIPTS = sorted(p.name for p in EXAMPLES.glob("*.py"))
STEPS = 30


def test_there_are_five_legacy_scripts():
    assert {"mnist_classifier.py", "rnn_sequence.py", "gan.py", "regression.py", "manual_sgd.py"} <= set(SCRIPTS)


def run_main(path, steps=STEPS):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return runpy.run_path(str(path), run_name="example")["main"](steps)


@pytest.mark.parametrize("name", SCRIPTS)
def test_original_fails_under_modern_torch(name):
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        run_main(EXAMPLES / name, steps=2)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """Copies of the examples after each migration preset, through the installed command line."""
    import subprocess

    results = {}
    for preset in ("--migrate-variable", "--migrate"):
        folder = tmp_path_factory.mktemp(preset.strip("-"))
        for name in SCRIPTS:
            shutil.copy(EXAMPLES / name, folder / name)
        command = [sys.executable, "-m", "gradlint", "fix", "--no-cache", preset, str(folder)]
        first = subprocess.run(command, capture_output=True, text=True)
        snapshot = {name: (folder / name).read_bytes() for name in SCRIPTS}
        second = subprocess.run(command, capture_output=True, text=True)
        check = subprocess.run(
            [sys.executable, "-m", "gradlint", "check", "--no-cache", "--output-format", "json", str(folder)],
            capture_output=True, text=True,
        )
        results[preset] = (folder, first, second, snapshot, json.loads(check.stdout))
    return results


@pytest.mark.parametrize("preset,codes", [("--migrate-variable", ("GL101", "GL103", "GL104")), ("--migrate", ("GL1", "GL3"))])
def test_migration_leaves_no_legacy_finding(migrated, preset, codes):
    folder, first, _, _, findings = migrated[preset]
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Fixed" in first.stdout
    left = [(f["filename"], f["code"]) for f in findings if f["code"].startswith(codes)]
    assert left == []
    # GL101's rewrite drops `volatile=`, so the message-only GL102 goes with it.
    assert not [f for f in findings if f["code"] == "GL102"]


@pytest.mark.parametrize("preset", ["--migrate-variable", "--migrate"])
@pytest.mark.parametrize("name", SCRIPTS)
def test_migrated_script_parses_is_stable_and_trains(migrated, preset, name):
    folder, _, second, snapshot, _ = migrated[preset]
    source = (folder / name).read_text(encoding="utf-8")
    ast.parse(source)
    assert second.returncode == 0 and "Fixed 0 errors" in second.stdout
    assert (folder / name).read_bytes() == snapshot[name]
    assert "Variable(" not in source and ".data[0]" not in source
    losses = run_main(folder / name)
    assert len(losses) == STEPS and all(isinstance(loss, float) for loss in losses)
    assert sum(losses[-5:]) / 5 < sum(losses[:5]) / 5


@pytest.mark.parametrize("name", SCRIPTS)
def test_data_migration_is_exact(migrated, name):
    """Removing `.data` on top of the Variable migration changes no number."""
    variable_only = run_main(migrated["--migrate-variable"][0] / name)
    everything = run_main(migrated["--migrate"][0] / name)
    assert variable_only == everything


def test_check_on_the_examples_reports_only_migration_rules(run_script):
    result = run_script("check", "--no-cache", "--output-format", "json", str(EXAMPLES))
    assert result.returncode == 1
    codes = {finding["code"] for finding in json.loads(result.stdout)}
    assert codes and all(code.startswith(("GL1", "GL3")) for code in codes)
