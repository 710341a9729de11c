"""Which rules' fixes a run uses (`fixable`, `extend-fixable`, `unfixable`, `extend-unfixable`,
`--fixable`, `--extend-fixable`, `--unfixable`, as ruff's), and `check --fix-only`."""

from __future__ import annotations

import json

import pytest

from gradlint.config import FixSelection
from gradlint.rules import all_codes
from support import write

# GL101 (a safe fix) on line 6, GL103 (a safe fix) on line 7.
TWO_FIXES = """import torch
from torch.autograd import Variable


def f(loss, t):
    x = Variable(t)
    print(loss.data[0])
    return x
"""
UNFIXABLE = "import torch\nx = torch.ones(2)\nx.cuda()\n"  # GL610, no fix
UNSAFE = "for x, y in loader:\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n"  # GL201, an unsafe fix


def fixes_by_code(run_cli, *options: str) -> dict[str, bool]:
    """Whether each finding of TWO_FIXES (in a.py) is reported with its fix."""
    result = run_cli("check", "--no-cache", "--output-format", "json", *options, "a.py")
    return {finding["code"]: finding["fix"] is not None for finding in json.loads(result.stdout)}


def configure(tmp_path, lines: str) -> None:
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\n" + lines)


# -- the settings ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "configuration, options, fixable",
    [
        ("", (), {"GL101": True, "GL103": True}),
        ('unfixable = ["GL101"]\n', (), {"GL101": False, "GL103": True}),
        ('fixable = ["GL103"]\n', (), {"GL101": False, "GL103": True}),
        ('fixable = ["GL103"]\nextend-fixable = ["GL101"]\n', (), {"GL101": True, "GL103": True}),
        ('extend-unfixable = ["GL10"]\n', (), {"GL101": False, "GL103": False}),
        # Within one selection the most specific prefix wins, as in ruff.
        ('fixable = ["GL101"]\nunfixable = ["GL1"]\n', (), {"GL101": True, "GL103": False}),
        ("", ("--unfixable", "GL103"), {"GL101": True, "GL103": False}),
        ("", ("--fixable", "GL101"), {"GL101": True, "GL103": False}),
        # `--fixable` starts afresh: the configured `unfixable` no longer holds (ruff's layering).
        ('unfixable = ["GL1"]\n', ("--fixable", "GL1"), {"GL101": True, "GL103": True}),
        # `--unfixable` and `--extend-fixable` add to the configuration's choice.
        ('fixable = ["GL1"]\n', ("--unfixable", "GL101"), {"GL101": False, "GL103": True}),
        ('unfixable = ["GL1"]\n', ("--extend-fixable", "GL103"), {"GL101": False, "GL103": True}),
        ("", ("--config", 'unfixable = ["GL103"]'), {"GL101": True, "GL103": False}),
    ],
)
def test_fixable_and_unfixable_choose_the_fixes_reported(run_cli, tmp_path, configuration, options, fixable):
    write(tmp_path / "a.py", TWO_FIXES)
    if configuration:
        configure(tmp_path, configuration)
    assert fixes_by_code(run_cli, *options) == fixable


def test_fix_selection_layers():
    every = frozenset(all_codes())
    assert FixSelection().applied_to(every) == every
    assert FixSelection(unfixable=("GL1",)).applied_to(every) == {code for code in every if not code.startswith("GL1")}
    assert FixSelection(fixable=("GL2",)).applied_to(every) == {code for code in every if code.startswith("GL2")}
    assert FixSelection(fixable=("GL1",), unfixable=("GL1",)).applied_to(every) == frozenset()  # unfixable wins a tie


def test_an_unknown_code_is_a_usage_error(run_cli, tmp_path):
    write(tmp_path / "a.py", TWO_FIXES)
    for option in ("--fixable", "--unfixable", "--extend-fixable"):
        result = run_cli("check", option, "GL999", "a.py")
        assert result.exit_code == 2 and "GL999" in result.stderr, option
    configure(tmp_path, 'extend-unfixable = ["GL999"]\n')
    assert run_cli("check", "a.py").exit_code == 2


def test_a_rule_that_is_not_fixable_loses_its_mark_and_its_count(run_cli, tmp_path):
    write(tmp_path / "a.py", TWO_FIXES)
    lines = run_cli("check", "--output-format", "concise", "--unfixable", "GL101", "a.py").stdout.splitlines()
    assert lines[0].startswith("a.py:6:9: GL101 `Variable(...)`")
    assert lines[1].startswith("a.py:7:11: GL103 [*] ")
    assert lines[-1] == "[*] 1 fixable with `gradlint fix`."


def test_fix_applies_only_the_fixable_rules_and_says_why_the_rest_stays(run_cli, tmp_path):
    path = write(tmp_path / "a.py", TWO_FIXES)
    configure(tmp_path, 'unfixable = ["GL101"]\n')
    result = run_cli("fix", "a.py")
    assert "x = Variable(t)" in path.read_text() and "print(loss.item())" in path.read_text()
    assert result.exit_code == 1
    assert "Fixed 1 error, 1 remaining:" in result.stdout
    assert "GL101  variable-call" in result.stdout and "not fixable here (`fixable`/`unfixable`)" in result.stdout


def test_check_fix_and_stdin_follow_the_choice(run_cli, tmp_path):
    path = write(tmp_path / "a.py", TWO_FIXES)
    run_cli("check", "--fix", "--fixable", "GL101", "a.py")
    assert "x = t.detach()" in path.read_text() and "loss.data[0]" in path.read_text()
    fixed = run_cli("fix", "-", "--stdin-filename", "b.py", "--unfixable", "GL101", input=TWO_FIXES).stdout
    assert "x = Variable(t)" in fixed and "print(loss.item())" in fixed


def test_unsafe_fixes_of_a_rule_that_is_not_fixable_are_not_applied(run_cli, tmp_path):
    path = write(tmp_path / "a.py", UNSAFE)
    run_cli("fix", "--unsafe-fixes", "--unfixable", "GL201", "a.py")
    assert path.read_text() == UNSAFE
    run_cli("fix", "--unsafe-fixes", "a.py")
    assert "zero_grad()" in path.read_text()


def test_show_settings_lists_the_rules_that_are_not_fixable(run_cli, tmp_path):
    write(tmp_path / "a.py", TWO_FIXES)
    lines = run_cli("check", "--show-settings", "--unfixable", "GL10", "a.py").stdout.splitlines()
    assert 'unfixable-rules = ["GL101", "GL102", "GL103", "GL104", "GL105", "GL106", "GL107", "GL108", "GL109"]' in lines
    assert "unfixable-rules = []" in run_cli("check", "--show-settings", "a.py").stdout.splitlines()


# -- check --fix-only ------------------------------------------------------------------------------


def test_fix_only_fixes_and_reports_nothing_of_what_remains(run_cli, tmp_path):
    path = write(tmp_path / "a.py", TWO_FIXES + UNFIXABLE)
    result = run_cli("check", "--fix-only", "a.py")
    assert result.exit_code == 0  # GL610 remains, as ruff's --fix-only does not fail on it
    assert "x = t.detach()" in path.read_text() and "print(loss.item())" in path.read_text()
    assert result.stdout == "Fixed 2 errors.\n"
    again = run_cli("check", "--fix-only", "a.py")
    assert (again.exit_code, again.stdout) == (0, "No errors fixed.\n")
    assert run_cli("check", "a.py").exit_code == 1  # GL610 is still there


def test_fix_only_exit_codes_as_ruff(run_cli, tmp_path):
    path = write(tmp_path / "a.py", TWO_FIXES)
    assert run_cli("check", "--fix-only", "--exit-non-zero-on-fix", "a.py").exit_code == 1  # a file changed
    assert run_cli("check", "--fix-only", "--exit-non-zero-on-fix", "a.py").exit_code == 0  # nothing left to change
    path.write_text(TWO_FIXES)
    assert run_cli("check", "--fix-only", "--exit-non-zero-on-fix", "--exit-zero", "a.py").exit_code == 0
    assert run_cli("check", "--fix-only", "missing.py").exit_code == 2


def test_fix_only_honours_the_fixable_rules_and_unsafe_fixes(run_cli, tmp_path):
    write(tmp_path / "a.py", TWO_FIXES)
    path = write(tmp_path / "b.py", UNSAFE)
    assert run_cli("check", "--fix-only", "--unfixable", "GL103", "a.py").stdout == "Fixed 1 error.\n"
    assert "loss.data[0]" in (tmp_path / "a.py").read_text()
    result = run_cli("check", "--fix-only", "b.py")
    assert result.stdout == "No errors fixed (1 fix available with `--unsafe-fixes`).\n" and path.read_text() == UNSAFE
    assert run_cli("check", "--fix-only", "--unsafe-fixes", "b.py").stdout == "Fixed 1 error.\n"


def test_fix_only_keeps_structured_stdout_empty_and_quiet_says_nothing(run_cli, tmp_path):
    write(tmp_path / "a.py", TWO_FIXES + UNFIXABLE)
    result = run_cli("check", "--fix-only", "--output-format", "json", "a.py")
    assert (result.exit_code, result.stdout) == (0, "")
    assert "Fixed 2 errors." in result.stderr
    write(tmp_path / "a.py", TWO_FIXES)
    quiet = run_cli("check", "--fix-only", "-q", "a.py")
    assert (quiet.exit_code, quiet.output) == (0, "")


def test_fix_only_on_stdin_writes_the_fixed_source_alone(run_cli):
    result = run_cli("check", "--fix-only", "-", "--stdin-filename", "a.py", input=TWO_FIXES + UNFIXABLE)
    assert result.exit_code == 0
    assert "x = t.detach()" in result.stdout and "GL610" not in result.output


def test_fix_only_diff_shows_the_changes(run_cli, tmp_path):
    path = write(tmp_path / "a.py", TWO_FIXES)
    result = run_cli("check", "--fix-only", "--diff", "a.py")
    assert result.exit_code == 1 and "+    x = t.detach()" in result.stdout and path.read_text() == TWO_FIXES


def test_fix_only_refuses_add_noqa_and_no_fix_only_checks(run_cli, tmp_path):
    path = write(tmp_path / "a.py", TWO_FIXES)
    refused = run_cli("check", "--fix-only", "--add-noqa", "a.py")
    assert refused.exit_code == 2 and "--add-noqa cannot be used with --fix-only" in refused.stderr
    assert run_cli("check", "--fix-only", "--no-fix-only", "a.py").exit_code == 1
    assert path.read_text() == TWO_FIXES


def test_check_help_lists_the_new_options(run_cli):
    text = run_cli("check", "--help").stdout
    for option in ("--watch", "--fix-only", "--fixable", "--unfixable", "--extend-fixable"):
        assert option in text, option


def test_the_result_cache_serves_every_choice(run_cli, tmp_path):
    write(tmp_path / "a.py", TWO_FIXES)
    assert fixes_by_code(run_cli) == {"GL101": True, "GL103": True}
    cached = run_cli("check", "--output-format", "json", "a.py")  # fills the cache
    assert {finding["code"] for finding in json.loads(cached.stdout)} == {"GL101", "GL103"}
    for options, fixable in (((), {"GL101": True, "GL103": True}), (("--unfixable", "GL101"), {"GL101": False, "GL103": True})):
        result = run_cli("check", "--output-format", "json", *options, "a.py")
        assert {finding["code"]: finding["fix"] is not None for finding in json.loads(result.stdout)} == fixable
    assert list((tmp_path / ".gradlint_cache").glob("results-*.json"))  # the runs above read it
