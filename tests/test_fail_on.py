"""Which findings fail a run: `--fail-on error|warning`, the `fail-on` setting (nearest
configuration, `--config KEY=VALUE`, `--show-settings`), on `check` and on what `fix` leaves;
`--exit-zero` over all of them."""

from __future__ import annotations

import json

import pytest

from support import readme_block, write

WARNING = "from torch.autograd import Variable\nx = Variable(t)\n"  # GL101, severity warning
ERROR = "import torch\nx = torch.ones(2)\nx.cuda()\n"  # GL610, severity error
# GL302, a warning with no safe fix (off by default: `LEGACY_STYLE` turns it on).
UNFIXABLE_WARNING = "import torch\nw = torch.nn.Parameter(torch.ones(2))\nw.data = torch.zeros(2)\n"
LEGACY_STYLE = ("--extend-select", "GL302")


def json_codes(result) -> list[str]:
    return [finding["code"] for finding in json.loads(result.output)]


def test_warnings_fail_by_default_and_not_under_fail_on_error(run_cli, tmp_path):
    write(tmp_path / "a.py", WARNING)
    assert run_cli("check", "a.py").exit_code == 1
    assert run_cli("check", "--fail-on", "warning", "a.py").exit_code == 1
    passed = run_cli("check", "--fail-on", "error", "a.py")
    assert passed.exit_code == 0
    assert "a.py:2:5: GL101 [*] " in passed.output and "Found 1 error (severity: 1 warning)." in passed.output  # still reported


def test_an_error_fails_under_either_setting(run_cli, tmp_path):
    write(tmp_path / "a.py", WARNING + ERROR)
    for fail_on in ("warning", "error"):
        result = run_cli("check", "--fail-on", fail_on, "--output-format", "json", "a.py")
        assert result.exit_code == 1 and json_codes(result) == ["GL101", "GL610"]


def test_a_file_that_cannot_be_parsed_is_an_error(run_cli, tmp_path):
    write(tmp_path / "a.py", "print 'python 2'\n")
    assert run_cli("check", "--fail-on", "error", "a.py").exit_code == 1


def test_exit_zero_wins(run_cli, tmp_path):
    write(tmp_path / "a.py", WARNING + ERROR)
    assert run_cli("check", "--fail-on", "warning", "--exit-zero", "a.py").exit_code == 0
    assert run_cli("check", "--fail-on", "error", "--exit-zero", "a.py").exit_code == 0


def test_unreadable_paths_still_exit_two(run_cli, tmp_path):
    write(tmp_path / "a.py", WARNING)
    assert run_cli("check", "--fail-on", "error", "a.py", "missing.py").exit_code == 2


def test_the_setting_and_its_overrides(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nfail-on = "error"\n')
    write(tmp_path / "a.py", WARNING)
    assert run_cli("check", "a.py").exit_code == 0
    assert run_cli("check", "--fail-on", "warning", "a.py").exit_code == 1  # the option over the file
    assert run_cli("check", "--config", "fail-on = 'warning'", "a.py").exit_code == 1
    assert run_cli("check", "--config", "lint.fail-on = 'warning'", "--fail-on", "error", "a.py").exit_code == 0
    assert run_cli("check", "--isolated", "a.py").exit_code == 1  # no configuration: the default


def test_each_file_follows_its_nearest_configuration(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\n")
    write(tmp_path / "ml" / "pyproject.toml", '[tool.gradlint]\nfail-on = "error"\n')
    write(tmp_path / "ml" / "train.py", WARNING)
    assert run_cli("check", ".").exit_code == 0  # ml/'s warning does not fail
    write(tmp_path / "tools" / "export.py", WARNING)
    assert run_cli("check", ".").exit_code == 1  # the root's does
    assert run_cli("check", "--fail-on", "error", ".").exit_code == 0  # the option holds for every configuration


def test_show_settings_names_it(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nfail-on = "error"\n')
    write(tmp_path / "a.py", "")
    lines = run_cli("check", "--show-settings", "a.py").output.splitlines()
    assert 'fail-on = "error"' in lines
    lines = run_cli("check", "--show-settings", "--fail-on", "warning", "a.py").output.splitlines()
    assert 'fail-on = "warning"' in lines


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("--config", "fail-on = 'info'"), "`fail-on` in --config must be one of 'error', 'warning', not 'info'"),
        (("--config", "fail-on = ['error']"), "`fail-on` in --config must be one of"),
        (("--fail-on", "info"), "'info' is not one of 'error', 'warning'"),
    ],
)
def test_a_wrong_value_is_a_usage_error(run_cli, tmp_path, arguments, message):
    write(tmp_path / "a.py", WARNING)
    result = run_cli("check", *arguments, "a.py")
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_a_wrong_value_in_the_configuration_file_names_the_file(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nfail-on = "warnings"\n')
    write(tmp_path / "a.py", WARNING)
    result = run_cli("check", "a.py")
    assert result.exit_code == 2 and f"`fail-on` in {tmp_path / 'pyproject.toml'} must be one of" in result.output


def test_fix_exits_by_the_findings_it_leaves(run_cli, tmp_path):
    write(tmp_path / "a.py", UNFIXABLE_WARNING)
    assert run_cli("fix", *LEGACY_STYLE, "a.py").exit_code == 1
    assert run_cli("fix", *LEGACY_STYLE, "--fail-on", "error", "a.py").exit_code == 0
    assert run_cli("check", "--fix", *LEGACY_STYLE, "--fail-on", "error", "a.py").exit_code == 0
    write(tmp_path / "b.py", ERROR)
    assert run_cli("fix", *LEGACY_STYLE, "--fail-on", "error", "a.py", "b.py").exit_code == 1


def test_fix_of_stdin_exits_by_the_findings_it_leaves(run_cli):
    assert run_cli("fix", *LEGACY_STYLE, "-", input=UNFIXABLE_WARNING).exit_code == 1
    result = run_cli("fix", *LEGACY_STYLE, "-", "--fail-on", "error", input=UNFIXABLE_WARNING)
    assert result.exit_code == 0 and "GL302" in result.stderr


def test_check_of_stdin(run_cli):
    assert run_cli("check", "-", input=WARNING).exit_code == 1
    assert run_cli("check", "-", "--fail-on", "error", input=WARNING).exit_code == 0
    assert run_cli("check", "-", "--fail-on", "error", input=ERROR).exit_code == 1


def test_the_readme_ci_configuration_fails_on_errors_only(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", readme_block("### In CI: severities and the default selection", "toml"))
    write(tmp_path / "a.py", WARNING)
    assert run_cli("check", "a.py").exit_code == 0
    write(tmp_path / "b.py", ERROR)
    assert run_cli("check", ".").exit_code == 1
