"""The command-line options shared with ruff: `check --fix`, output files, settings and file
listings, verbose reasons, configuration on the command line, colour, quietness, `rule` and
`clean`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gradlint import __version__
from support import write

FIXABLE = "from torch.autograd import Variable\nx = Variable(t)\n"
UNFIXABLE = "import torch\nx = torch.ones(2)\nx.cuda()\n"
UNSAFE = "for x, y in loader:\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n"


def codes(result) -> list[str]:
    return [finding["code"] for finding in json.loads(result.output)]


# -- check --fix, --unsafe-fixes, --diff (bug 16) ---------------------------------------------------


def test_check_fix_applies_the_fixes_and_reports_what_remains(run_cli, tmp_path):
    path = write(tmp_path / "a.py", FIXABLE + UNFIXABLE)
    result = run_cli("check", "--fix", "a.py")
    assert result.exit_code == 1
    assert "x = t.detach()" in path.read_text()
    assert "GL610" in result.output and "GL101" not in result.output
    assert "Fixed 1 error, 1 remaining" in result.output


def test_check_fix_with_unsafe_fixes_applies_them(run_cli, tmp_path):
    path = write(tmp_path / "a.py", UNSAFE)
    assert run_cli("check", "--unsafe-fixes", "a.py").exit_code == 1  # accepted, as the output mentions it
    assert run_cli("check", "--fix", "a.py").exit_code == 1
    assert "zero_grad" not in path.read_text()
    assert run_cli("check", "--fix", "--unsafe-fixes", "a.py").exit_code == 0
    assert "optimizer.zero_grad()" in path.read_text()


def test_check_with_unsafe_fixes_counts_them_as_fixable(run_cli, tmp_path):
    write(tmp_path / "a.py", UNSAFE)
    plain = run_cli("check", "a.py").output.splitlines()
    assert "1 more fixable with `gradlint fix --unsafe-fixes`." in plain and not any("[*]" in line for line in plain)
    unsafe = run_cli("check", "--unsafe-fixes", "a.py").output.splitlines()
    assert " GL201 [*] " in unsafe[0]
    assert "[*] 1 fixable with `gradlint fix --unsafe-fixes`." in unsafe and "1 more fixable" not in "".join(unsafe)
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\nunsafe-fixes = true\n")
    assert run_cli("check", "a.py").output.splitlines() == unsafe  # the setting, as the option


def test_check_diff_shows_the_fixes_and_writes_nothing(run_cli, tmp_path):
    path = write(tmp_path / "a.py", FIXABLE)
    result = run_cli("check", "--diff", "a.py")
    assert result.exit_code == 1
    assert "+x = t.detach()" in result.output
    assert path.read_text() == FIXABLE


def test_help_lists_every_command_with_a_whole_short_help(run_cli):
    text = run_cli("--help").output
    commands = text.split("Commands:")[1].strip().splitlines()
    assert {line.split()[0] for line in commands} >= {"check", "fix", "rule", "rules", "clean", "server"}
    for line in commands:
        assert not line.endswith("..."), line
        assert line.count("(") == line.count(")"), line


# -- output -------------------------------------------------------------------------------------------


def test_output_file_receives_the_report(run_cli, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    result = run_cli("check", "--output-format", "json", "-o", "reports/out.json", "a.py")
    assert result.exit_code == 1
    assert result.output == ""
    assert [finding["code"] for finding in json.loads((tmp_path / "reports" / "out.json").read_text())] == ["GL101"]


def test_fix_output_file_receives_what_remains(run_cli, tmp_path):
    write(tmp_path / "a.py", FIXABLE + UNFIXABLE)
    result = run_cli("fix", "--output-file", "out.txt", "a.py")
    assert result.exit_code == 1
    report = (tmp_path / "out.txt").read_text()
    assert "GL610" in report and "Fixed 1 error, 1 remaining" in report


def test_color_option_overrides_the_environment(run_cli, tmp_path, monkeypatch):
    write(tmp_path / "a.py", FIXABLE)
    assert "\x1b[" in run_cli("check", "--color", "a.py").output
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run_cli("check", "a.py").output
    assert "\x1b[" not in run_cli("check", "--no-color", "a.py").output


def test_version_short_and_long(run_cli):
    assert run_cli("-V").output == f"gradlint {__version__}\n"
    assert run_cli("--version").output == f"gradlint {__version__}\n"


@pytest.mark.parametrize("flag", [["--silent"], ["-s"], ["-qq"]])
def test_silent_prints_nothing_but_keeps_the_exit_code(run_cli, tmp_path, flag):
    write(tmp_path / "a.py", FIXABLE)
    result = run_cli("check", *flag, "a.py")
    assert (result.exit_code, result.output) == (1, "")


def test_exit_non_zero_on_fix(run_cli, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    write(tmp_path / "b.py", FIXABLE)
    assert run_cli("fix", "a.py").exit_code == 0
    assert run_cli("fix", "--exit-non-zero-on-fix", "b.py").exit_code == 1
    assert run_cli("fix", "--exit-non-zero-on-fix", "b.py").exit_code == 0  # nothing left to change
    write(tmp_path / "c.py", FIXABLE)
    assert run_cli("check", "--fix", "--exit-non-zero-on-fix", "c.py").exit_code == 1


def test_exit_non_zero_on_fix_of_stdin(run_cli):
    result = run_cli("fix", "--exit-non-zero-on-fix", "-", input=FIXABLE)
    assert result.exit_code == 1
    assert "x = t.detach()" in result.output


# -- what a run would check, and why --------------------------------------------------------------


def test_show_files_lists_the_files_a_run_checks(run_cli, tmp_path):
    write(tmp_path / "b.py", "")
    write(tmp_path / "a.py", "")
    write(tmp_path / "build" / "c.py", "")
    write(tmp_path / "notes.txt", "")
    result = run_cli("check", "--show-files")
    assert result.exit_code == 0
    assert result.output.splitlines() == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]


def test_show_settings_gives_the_settings_of_the_first_file(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL2"]\n')
    write(tmp_path / "a.py", "")
    result = run_cli("check", "--show-settings", "--extend-exclude", "gen", "a.py")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[:2] == [f"Resolved settings for: {tmp_path / 'a.py'}", f"Settings path: {tmp_path / 'pyproject.toml'}"]
    values = dict(line.split(" = ", 1) for line in lines[3:])
    assert json.loads(values["ignore"]) == ["GL2"]
    assert json.loads(values["extend-exclude"]) == ["gen"]
    assert "GL201" not in json.loads(values["rules"]) and "GL101" in json.loads(values["rules"])


def test_verbose_says_why_each_path_was_or_was_not_checked(run_cli, tmp_path):
    write(tmp_path / ".gitignore", "generated/\n")
    write(tmp_path / "generated" / "g.py", FIXABLE)
    write(tmp_path / "vendor" / "v.py", FIXABLE)
    write(tmp_path / "notes.txt", "")
    write(tmp_path / "a.py", FIXABLE)
    write(tmp_path / "big.py", "x = 1\n" * 200)
    first = run_cli("check", "-v", "--extend-exclude", "vendor", "--max-file-size", "1K", ".")
    said = dict(line.split(": ", 2)[1:] for line in first.stderr.splitlines() if line.startswith("gradlint: "))
    assert said["generated"] == "skipped: gitignored by `generated/` in .gitignore"
    assert said["vendor"] == "skipped: excluded by `vendor` (extend-exclude)"
    assert said["notes.txt"] == "skipped: neither Python nor a notebook"
    assert said["a.py"] == "checked"
    assert said["big.py"].startswith("too large (1200 bytes, limit 1024)")
    again = run_cli("check", "-v", "--extend-exclude", "vendor", "--max-file-size", "1K", ".")
    assert "gradlint: a.py: checked (cached result)" in again.stderr.splitlines()
    fixed = run_cli("fix", "-v", "--extend-exclude", "vendor", ".").stderr.splitlines()
    assert "gradlint: a.py: checked" in fixed and "gradlint: vendor: skipped: excluded by `vendor` (extend-exclude)" in fixed


# -- configuration on the command line ----------------------------------------------------------------


def test_exclude_options(run_cli, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    write(tmp_path / "gen" / "b.py", FIXABLE)
    write(tmp_path / "build" / "c.py", FIXABLE)
    assert len(codes(run_cli("check", "--output-format", "json"))) == 2
    assert len(codes(run_cli("check", "--output-format", "json", "--extend-exclude", "gen"))) == 1
    assert len(codes(run_cli("check", "--output-format", "json", "--exclude", "gen,a.py"))) == 1  # build/ is checked again


def test_per_file_ignores_option(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint.per-file-ignores]\n"a.py" = ["GL6"]\n')
    write(tmp_path / "a.py", FIXABLE + UNFIXABLE)
    assert codes(run_cli("check", "--output-format", "json")) == ["GL101"]
    assert codes(run_cli("check", "--output-format", "json", "--per-file-ignores", "a.py:GL1")) == ["GL610"]
    assert codes(run_cli("check", "--output-format", "json", "--extend-per-file-ignores", "a.py:GL1")) == []
    result = run_cli("check", "--per-file-ignores", "a.py", "a.py")
    assert result.exit_code == 2 and "PATTERN:CODE" in result.output


def test_config_overrides_are_between_the_file_and_the_options(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL1"]\n')
    write(tmp_path / "a.py", FIXABLE + UNFIXABLE)
    assert codes(run_cli("check", "--output-format", "json")) == ["GL610"]
    assert codes(run_cli("check", "--output-format", "json", "--config", "ignore = ['GL6']")) == ["GL101"]
    inline = "lint.per-file-ignores = {'a.py' = ['GL101', 'GL610']}"
    assert codes(run_cli("check", "--output-format", "json", "--config", "ignore = []", "--config", inline)) == []
    assert codes(run_cli("check", "--output-format", "json", "--config", "ignore = ['GL6']", "--ignore", "GL1")) == []


def test_config_overrides_apply_to_every_nearest_configuration(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\n")
    write(tmp_path / "ml" / "pyproject.toml", '[tool.gradlint]\nignore = ["GL1"]\n')
    write(tmp_path / "ml" / "a.py", FIXABLE + UNFIXABLE)
    assert codes(run_cli("check", "--output-format", "json", "--config", "select = ['GL1']")) == []
    assert codes(run_cli("check", "--output-format", "json", "--config", "ignore = []")) == ["GL101", "GL610"]


@pytest.mark.parametrize(
    ("value", "message"),
    [("select = [", "neither a configuration file nor a TOML"), ("colour = true", "unknown key `colour`"), ("missing.toml", "cannot read")],
)
def test_bad_config_option_is_one_line(run_cli, tmp_path, value, message):
    write(tmp_path / "a.py", FIXABLE)
    result = run_cli("check", "--config", value, "a.py")
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_isolated_ignores_configuration_files(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL1"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[tool.gradlint]\nignore = ["GL1"]\n')
    write(tmp_path / "sub" / "a.py", FIXABLE)
    assert codes(run_cli("check", "--output-format", "json")) == []
    assert codes(run_cli("check", "--output-format", "json", "--isolated")) == ["GL101"]
    assert run_cli("check", "--isolated", "--config", "pyproject.toml").exit_code == 2


def test_respect_gitignore_and_cache_dir_options(run_cli, tmp_path, monkeypatch):
    write(tmp_path / ".gitignore", "generated/\n")
    write(tmp_path / "generated" / "g.py", FIXABLE)
    write(tmp_path / "a.py", FIXABLE)
    assert len(codes(run_cli("check", "--output-format", "json", "--no-cache"))) == 1
    assert len(codes(run_cli("check", "--output-format", "json", "--no-cache", "--no-respect-gitignore"))) == 2
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\nrespect-gitignore = false\n")
    monkeypatch.chdir(tmp_path / "generated")
    assert len(codes(run_cli("check", "--output-format", "json", "--respect-gitignore", "--cache-dir", "here", ".."))) == 1
    assert (tmp_path / "generated" / "here").is_dir() and not (tmp_path / ".gradlint_cache").exists()


# -- .git/info/exclude and the global excludes file (bug 17) ----------------------------------------


def test_git_info_exclude_is_honoured(run_cli, tmp_path):
    write(tmp_path / ".git" / "info" / "exclude", "# local\nscratch/\n")
    write(tmp_path / "scratch" / "a.py", FIXABLE)
    write(tmp_path / "src" / "b.py", FIXABLE)
    findings = json.loads(run_cli("check", "--output-format", "json", "src", ".").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "src" / "b.py")]
    write(tmp_path / "src" / ".gitignore", "!*.py\n")  # a .gitignore below overrides it, as in git
    write(tmp_path / ".git" / "info" / "exclude", "*.py\n")
    assert len(json.loads(run_cli("check", "--output-format", "json", "src").output)) == 1


def test_info_exclude_of_a_worktree_is_the_main_repositorys(run_cli, tmp_path):
    write(tmp_path / "main" / ".git" / "info" / "exclude", "scratch.py\n")
    write(tmp_path / "main" / ".git" / "worktrees" / "wt" / "commondir", "../..\n")
    write(tmp_path / "wt" / ".git", f"gitdir: {tmp_path / 'main' / '.git' / 'worktrees' / 'wt'}\n")
    write(tmp_path / "wt" / "scratch.py", FIXABLE)
    write(tmp_path / "wt" / "train.py", FIXABLE)
    findings = json.loads(run_cli("check", "--output-format", "json", "wt").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "wt" / "train.py")]


def test_global_excludes_file_is_honoured(run_cli, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    write(home / ".gitconfig", '[user]\n\tname = x\n[core]\n\texcludesFile = "~/global-ignore"\n')
    write(home / "global-ignore", "*_scratch.py\n")
    write(tmp_path / "repo" / ".git" / "HEAD", "ref: refs/heads/main\n")
    write(tmp_path / "repo" / "a_scratch.py", FIXABLE)
    write(tmp_path / "repo" / "train.py", FIXABLE)
    findings = json.loads(run_cli("check", "--output-format", "json", "repo").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "repo" / "train.py")]
    (home / ".gitconfig").unlink()
    write(home / ".config" / "git" / "ignore", "train.py\n")  # git's default global excludes file
    findings = json.loads(run_cli("check", "--output-format", "json", "repo").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "repo" / "a_scratch.py")]


# -- rule, clean ----------------------------------------------------------------------------------------


def test_rule_by_code_or_name(run_cli):
    by_code = run_cli("rule", "GL201")
    assert by_code.exit_code == 0 and by_code.output.startswith("# GL201 missing-zero-grad\n")
    assert run_cli("rule", "missing-zero-grad").output == by_code.output
    as_json = json.loads(run_cli("rule", "missing-zero-grad", "--output-format", "json").output)
    listed = {row["code"]: row for row in json.loads(run_cli("rules", "--output-format", "json").output)}
    assert {key: value for key, value in as_json.items() if key != "explanation"} == listed["GL201"]
    assert "## What it does" in as_json["explanation"]
    unknown = run_cli("rule", "no-such-rule")
    assert unknown.exit_code == 2 and "unknown rule code or name `no-such-rule`" in unknown.output


def test_rule_all(run_cli):
    text = run_cli("rule", "--all").output
    headers = re.findall(r"^# (GL\d{3}) ", text, flags=re.MULTILINE)
    listed = [row["code"] for row in json.loads(run_cli("rules", "--output-format", "json").output)]
    assert headers == listed
    assert [row["code"] for row in json.loads(run_cli("rule", "--all", "--output-format", "json").output)] == listed
    assert run_cli("rule").exit_code == 2
    assert run_cli("rule", "--all", "GL201").exit_code == 2


def test_clean_removes_every_cache_below_and_nothing_else(run_cli, tmp_path, monkeypatch):
    write(tmp_path / "a.py", FIXABLE)
    write(tmp_path / "sub" / "b.py", FIXABLE)
    run_cli("check", "a.py")
    monkeypatch.chdir(tmp_path / "sub")
    run_cli("check", "b.py")
    monkeypatch.chdir(tmp_path)
    assert (tmp_path / ".gradlint_cache").is_dir() and (tmp_path / "sub" / ".gradlint_cache").is_dir()
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\ncache-dir = "src"\n')
    write(tmp_path / "src" / "keep.py", "")  # a mistaken cache-dir names a source folder
    result = run_cli("clean")
    assert result.exit_code == 0
    assert sorted(result.output.splitlines()) == [f"Removing cache at: {Path(path)}" for path in (".gradlint_cache", "sub/.gradlint_cache")]
    assert not (tmp_path / ".gradlint_cache").exists() and not (tmp_path / "sub" / ".gradlint_cache").exists()
    assert (tmp_path / "src" / "keep.py").exists()


def test_clean_removes_the_configured_cache_directory(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\ncache-dir = "../elsewhere/cache"\n')
    write(tmp_path / "a.py", FIXABLE)
    run_cli("check", "a.py")
    assert (tmp_path.parent / "elsewhere" / "cache").is_dir()
    assert run_cli("clean", "-q").output == ""
    assert not (tmp_path.parent / "elsewhere" / "cache").exists()


# -- what ruff users expect of the flags they combine -------------------------------------------------


def test_stdin_filename_without_a_dash_reads_stdin(run_cli, tmp_path):
    """As ruff: no paths but `--stdin-filename` reads stdin (it checked the current directory)."""
    write(tmp_path / "other.py", FIXABLE)
    checked = run_cli(
        "check", "--output-format", "json", "--stdin-filename", "mine.py", input="import torch\nx = torch.ones(2)\nx.cuda()\n"
    )
    assert [(Path(f["filename"]).name, f["code"]) for f in json.loads(checked.output)] == [("mine.py", "GL610")]
    fixed = run_cli("fix", "--stdin-filename", "mine.py", input=FIXABLE)
    assert fixed.output.startswith("x = t.detach()\n") and (tmp_path / "other.py").read_text() == FIXABLE


@pytest.mark.parametrize("combined", ["--fix", "--diff"])
def test_add_noqa_refuses_fix_and_diff(run_cli, tmp_path, combined):
    path = write(tmp_path / "a.py", FIXABLE)
    result = run_cli("check", "--add-noqa", combined, "a.py")
    assert result.exit_code == 2
    assert f"--add-noqa cannot be used with {combined}" in result.output
    assert path.read_text() == FIXABLE


@pytest.mark.parametrize("command", [("check", "--diff"), ("fix", "--diff")])
def test_diff_with_exit_zero_exits_0(run_cli, tmp_path, command):
    path = write(tmp_path / "a.py", FIXABLE)
    assert run_cli(*command, "a.py").exit_code == 1
    result = run_cli(*command, "--exit-zero", "a.py")
    assert result.exit_code == 0 and "+x = t.detach()" in result.output and path.read_text() == FIXABLE
    assert run_cli(*command, "--exit-zero", "--stdin-filename", "a.py", "-", input=FIXABLE).exit_code == 0


@pytest.mark.parametrize("command", ["check", "fix"])
def test_paths_without_python_files_warn(run_cli, tmp_path, command):
    (tmp_path / "empty").mkdir()
    write(tmp_path / "excluded" / "a.py", FIXABLE)
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["excluded/"]\n')
    for paths in (["empty"], [".", "--force-exclude", "excluded"]):
        result = run_cli(command, *paths)
        assert "gradlint: warning: no Python files found under the given paths" in result.output
        assert result.exit_code == 0
    assert "no Python files found" not in run_cli(command, "excluded").output  # a directory named is walked


@pytest.mark.parametrize("how", ["option", "configuration"])
def test_an_empty_selection_warns(run_cli, tmp_path, how):
    write(tmp_path / "a.py", FIXABLE)
    if how == "configuration":
        write(tmp_path / "pyproject.toml", "[tool.gradlint]\nselect = []\n")
    result = run_cli("check", *(["--select", ""] if how == "option" else []), "a.py")
    assert "gradlint: warning: no rules are selected (`select` is empty): nothing is checked" in result.output
    assert "no rules are selected" not in run_cli("check", "--select", "GL101", "a.py").output


def test_fix_statistics_lists_what_is_left_once(run_cli, tmp_path):
    write(tmp_path / "a.py", "import torch\nfrom torch.autograd import Variable\nx = Variable(t)\ny = Variable(t, volatile=True)\n")
    result = run_cli("fix", "--statistics", "--isolated", "a.py")
    assert [line.split()[1] for line in result.output.splitlines() if re.match(r"\s*\d+\s+GL\d+", line)] == ["GL101", "GL102"]
    assert "Fixed 1 error, 2 remaining.\n" in result.output


def test_a_migration_preset_says_it_replaces_select(run_cli, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    result = run_cli("fix", "--diff", "--migrate", "--select", "GL103", "a.py")
    assert "gradlint: warning: --migrate selects its own rules; --select is not used (--extend-select adds rules)" in result.output
    assert "+x = t.detach()" in result.output
    assert "selects its own rules" not in run_cli("fix", "--diff", "--migrate", "a.py").output
