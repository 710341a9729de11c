"""Configuration files: `gradlint.toml` / `.gradlint.toml` beside `pyproject.toml` (as ruff's
`ruff.toml` / `.ruff.toml`), and `extend` (one file inheriting another's settings), on the command
line, in a monorepo, and under `--force-exclude` as the pre-commit hook runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support import ROOT, write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\nprint(loss.data[0])\n"  # GL101, GL103


def found(run_cli, *args: str, root: Path) -> dict[str, list[str]]:
    """`gradlint check --output-format json ARGS`: the codes found per file, relative to `root`."""
    result = run_cli("check", "--no-cache", "--output-format", "json", *args)
    assert result.exit_code in (0, 1), result.output
    reported: dict[str, list[str]] = {}
    for finding in json.loads(result.output):
        name = Path(finding["filename"]).resolve().relative_to(root.resolve()).as_posix()
        reported.setdefault(name, []).append(finding["code"])
    return reported


def shown(run_cli, path: str) -> dict[str, object]:
    """`--show-settings` for `path`: the settings path and the values."""
    result = run_cli("check", "--show-settings", path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    values: dict[str, object] = {"path": lines[1].removeprefix("Settings path: ")}
    for line in lines[3:]:
        key, _, value = line.partition(" = ")
        values[key] = json.loads(value)
    return values


@pytest.mark.parametrize(
    "present, winner",
    [
        ((".gradlint.toml", "gradlint.toml", "pyproject.toml"), ".gradlint.toml"),
        (("gradlint.toml", "pyproject.toml"), "gradlint.toml"),
        ((".gradlint.toml", "pyproject.toml"), ".gradlint.toml"),
        (("pyproject.toml",), "pyproject.toml"),
    ],
)
def test_in_one_directory_a_gradlint_file_wins_over_pyproject(run_cli, tmp_path, present, winner):
    ignored = {".gradlint.toml": "GL101", "gradlint.toml": "GL103", "pyproject.toml": "GL1"}
    for name in present:
        table = f'ignore = ["{ignored[name]}"]\n'
        write(tmp_path / name, f"[tool.gradlint]\n{table}" if name == "pyproject.toml" else table)
    write(tmp_path / "train.py", LEGACY)
    settings = shown(run_cli, "train.py")
    assert Path(str(settings["path"])).name == winner
    assert settings["ignore"] == [ignored[winner]]


def test_a_gradlint_file_counts_even_empty_and_a_pyproject_only_with_its_table(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL101"]\n')
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'pkg'\n")  # no table: not a configuration
    write(tmp_path / "pkg" / "train.py", LEGACY)
    assert found(run_cli, "pkg", root=tmp_path) == {"pkg/train.py": ["GL103"]}
    write(tmp_path / "pkg" / "gradlint.toml", "")  # the defaults, here and below, as an empty ruff.toml
    assert found(run_cli, "pkg", root=tmp_path) == {"pkg/train.py": ["GL101", "GL103"]}


@pytest.mark.parametrize("name", ["gradlint.toml", ".gradlint.toml"])
def test_config_option_takes_a_gradlint_file(run_cli, tmp_path, name):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL101"]\n')
    write(tmp_path / "settings" / name, 'ignore = ["GL103"]\n')
    write(tmp_path / "train.py", LEGACY)
    assert found(run_cli, "--config", f"settings/{name}", ".", root=tmp_path) == {"train.py": ["GL101"]}


def test_extend_inherits_and_local_keys_override(run_cli, tmp_path):
    write(
        tmp_path / "base" / "pyproject.toml",
        '[tool.gradlint]\nignore = ["GL103"]\ntarget-torch = "2.1"\nfail-on = "error"\nextend-exclude = ["vendored/"]\n',
    )
    write(
        tmp_path / "project" / "gradlint.toml", 'extend = "../base/pyproject.toml"\ntarget-torch = "2.4"\nextend-exclude = ["generated/"]\n'
    )
    write(tmp_path / "project" / "train.py", LEGACY)
    settings = shown(run_cli, "project/train.py")
    assert Path(str(settings["path"])).resolve() == (tmp_path / "project" / "gradlint.toml").resolve()
    assert settings["root"] == str((tmp_path / "project").resolve())
    assert settings["ignore"] == ["GL103"]  # inherited
    assert settings["fail-on"] == "error"  # inherited
    assert settings["target-torch"] == "2.4"  # its own over the base's
    assert settings["extend-exclude"] == ["vendored/", "generated/"]  # added to the base's, as ruff's


def test_extend_chains_and_select_starts_a_new_selection(run_cli, tmp_path):
    write(tmp_path / "a.toml", 'ignore = ["GL2"]\nextend-select = ["GL303"]\n')
    write(tmp_path / "b.toml", 'extend = "a.toml"\nignore = ["GL3"]\nextend-select = ["GL201"]\n')
    write(tmp_path / "c.toml", 'extend = "b.toml"\nselect = ["GL1"]\n')
    write(tmp_path / "train.py", LEGACY)
    # As ruff chains the selections: b's ignore of GL3 comes after a's extend-select of GL303, b's
    # extend-select of GL201 after a's ignore of GL2.
    result = run_cli("check", "--config", "b.toml", "--show-settings", "train.py")
    values = dict(line.split(" = ", 1) for line in result.output.splitlines()[3:])
    assert json.loads(values["extend-select"]) == ["GL201"]
    assert json.loads(values["ignore"]) == ["GL2", "GL3"]
    rules = json.loads(values["rules"])
    assert "GL201" in rules and "GL202" not in rules and "GL303" not in rules and "GL101" in rules
    result = run_cli("check", "--config", "c.toml", "--show-settings", "train.py")
    values = dict(line.split(" = ", 1) for line in result.output.splitlines()[3:])
    assert (json.loads(values["select"]), json.loads(values["extend-select"]), json.loads(values["ignore"])) == (["GL1"], [], [])


def test_paths_are_relative_to_the_file_that_names_them(run_cli, tmp_path, monkeypatch):
    write(
        tmp_path / "pyproject.toml",
        '[tool.gradlint]\nextend-exclude = ["ml/generated/", "/tools/"]\ncache-dir = ".cache/gradlint"\n\n'
        '[tool.gradlint.per-file-ignores]\n"ml/scripts/*" = ["GL101"]\n',
    )
    write(tmp_path / "ml" / "gradlint.toml", 'extend = "../pyproject.toml"\n')
    for name in ("ml/train.py", "ml/generated/model.py", "ml/scripts/run.py", "ml/tools/run.py"):
        write(tmp_path / name, LEGACY)
    monkeypatch.chdir(tmp_path / "ml")  # the `extend` path is the file's, not the working directory's
    assert found(run_cli, ".", root=tmp_path) == {
        "ml/train.py": ["GL101", "GL103"],
        "ml/scripts/run.py": ["GL103"],
        "ml/tools/run.py": ["GL101", "GL103"],  # `/tools/` of the root is not ml/tools/
    }
    assert shown(run_cli, "train.py")["cache-dir"] == str(tmp_path.resolve() / ".cache" / "gradlint")


@pytest.mark.parametrize(
    "files, expected",
    [
        ({"gradlint.toml": 'extend = "gradlint.toml"\n'}, ["gradlint.toml", "gradlint.toml"]),
        (
            {"gradlint.toml": 'extend = "configs/base.toml"\n', "configs/base.toml": 'extend = "../gradlint.toml"\n'},
            ["gradlint.toml", "configs/base.toml", "gradlint.toml"],
        ),
    ],
)
def test_an_extend_cycle_is_one_line_error(run_cli, tmp_path, files, expected):
    for name, text in files.items():
        write(tmp_path / name, text)
    write(tmp_path / "train.py", LEGACY)
    result = run_cli("check", "--no-cache", "train.py")
    assert result.exit_code == 2
    (line,) = result.output.splitlines()
    chain = " -> ".join(str((tmp_path / name).resolve()) for name in expected)
    assert line == f"gradlint: error: `extend` forms a cycle: {chain}"


@pytest.mark.parametrize(
    "text, message",
    [
        ('extend = "missing.toml"\n', "`extend` in {config} names missing.toml, which is not a file"),
        ("extend = 3\n", "`extend` in {config} must be the path of a configuration file"),
        ('extend = "base.toml"\n', "unknown key `selct` in {base}"),
    ],
)
def test_extend_errors_name_the_file(run_cli, tmp_path, text, message):
    write(tmp_path / "gradlint.toml", text)
    write(tmp_path / "base.toml", 'selct = ["GL1"]\n')
    write(tmp_path / "train.py", LEGACY)
    result = run_cli("check", "--no-cache", "train.py")
    assert result.exit_code == 2
    config, base = tmp_path.resolve() / "gradlint.toml", tmp_path.resolve() / "base.toml"
    assert result.output == f"gradlint: error: {message.format(config=config, base=base)}\n"


def test_extend_is_not_a_command_line_override(run_cli, tmp_path):
    write(tmp_path / "train.py", LEGACY)
    result = run_cli("check", "--config", 'extend = "base.toml"', "train.py")
    assert result.exit_code == 2
    assert "only a configuration file can extend another" in result.output


MONOREPO = {
    "pyproject.toml": '[tool.gradlint]\nignore = ["GL103"]\nextend-exclude = ["ml/generated/"]\n',
    "ml/gradlint.toml": 'extend = "../pyproject.toml"\nextend-exclude = ["checkpoints/"]\n\n[per-file-ignores]\n"legacy/*" = ["GL101"]\n',
    "train.py": LEGACY,
    "ml/train.py": LEGACY,
    "ml/legacy/old.py": LEGACY,
    "ml/generated/model.py": LEGACY,
    "ml/checkpoints/copy.py": LEGACY,
}
# The root ignores GL103 and excludes ml/generated/; ml/ extends it, ignores GL101 in legacy/ and
# excludes its checkpoints/.
MONOREPO_FINDINGS = {"train.py": ["GL101"], "ml/train.py": ["GL101"]}


def monorepo(root: Path) -> Path:
    for name, text in MONOREPO.items():
        write(root / name, text)
    return root


def test_monorepo_sub_project_extending_the_root_from_root_and_from_sub_dir(run_cli, tmp_path, monkeypatch):
    root = monorepo(tmp_path / "repo")
    monkeypatch.chdir(root)
    assert found(run_cli, ".", root=root) == MONOREPO_FINDINGS
    monkeypatch.chdir(root / "ml")
    assert found(run_cli, ".", root=root) == {"ml/train.py": ["GL101"]}
    assert found(run_cli, str(root), root=root) == MONOREPO_FINDINGS


def test_monorepo_with_force_exclude_as_the_pre_commit_hook_runs(run_cli, tmp_path, monkeypatch):
    root = monorepo(tmp_path / "repo")
    monkeypatch.chdir(root)
    (hook,) = [hook for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")) if hook["id"] == "gradlint"]
    command = hook["entry"].split()
    assert command[:3] == ["gradlint", "check", "--force-exclude"]
    named = [name for name in MONOREPO if name.endswith(".py")]  # pre-commit names every staged file
    assert found(run_cli, *command[2:], *named, root=root) == MONOREPO_FINDINGS
    assert found(run_cli, *named, root=root) == {  # without it, a named file is checked even when excluded
        **MONOREPO_FINDINGS,
        "ml/generated/model.py": ["GL101"],
        "ml/checkpoints/copy.py": ["GL101"],
    }
