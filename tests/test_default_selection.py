"""The default selection: every rule but the opt-in ones and the legacy-style migrations that current
code writes on purpose (`.data`, legacy tensor constructors, `torch.norm`); what turns those on;
the migration presets, which still select them."""

from __future__ import annotations

import json
from pathlib import Path

from gradlint.config import LEGACY_STYLE_CODES, Settings
from gradlint.rules import all_codes, opt_in_codes, presets, rule_by_code
from support import write

DATA_READ = "import torch\nw = torch.nn.Parameter(torch.ones(2))\nprint(w.data)\n"  # GL303
CONSTRUCTOR = "import torch\nx = torch.FloatTensor(3)\n"  # GL507
NORM = "import torch\nn = torch.norm(torch.ones(3))\n"  # GL508
EVERY_LEGACY_STYLE = DATA_READ + CONSTRUCTOR + NORM


def json_codes(result) -> list[str]:
    return sorted(finding["code"] for finding in json.loads(result.output))


def test_the_default_leaves_out_the_opt_in_and_the_legacy_style_rules():
    assert set(all_codes()) - Settings(root=Path(".")).codes() == LEGACY_STYLE_CODES | opt_in_codes()


def test_the_rules_left_out_are_migration_warnings_that_a_migration_preset_still_selects():
    for code in LEGACY_STYLE_CODES:
        rule = rule_by_code(code)
        assert rule.severity.value == "warning" and rule.migration is not None, code
        assert code in presets()[f"migrate-{rule.migration}"] and code in presets()["migrate"], code


def test_check_reports_them_only_when_selected(run_cli, tmp_path):
    write(tmp_path / "a.py", EVERY_LEGACY_STYLE)
    nothing = run_cli("check", "a.py")
    assert nothing.exit_code == 0 and "All checks passed!" in nothing.output
    every = ["GL303", "GL507", "GL508"]
    assert json_codes(run_cli("check", "--output-format", "json", "--extend-select", "GL303,GL5", "a.py")) == every
    assert json_codes(run_cli("check", "--output-format", "json", "--select", "GL", "a.py")) == every
    assert json_codes(run_cli("check", "--output-format", "json", "--select", "GL303", "a.py")) == ["GL303"]
    assert json_codes(run_cli("check", "--output-format", "json", "--migrate-data", "a.py")) == ["GL303"]
    assert json_codes(run_cli("check", "--output-format", "json", "--migrate", "a.py")) == every


def test_a_configuration_turns_them_on(run_cli, tmp_path):
    write(tmp_path / "a.py", EVERY_LEGACY_STYLE)
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-select = ["GL3"]\n')
    assert json_codes(run_cli("check", "--output-format", "json", "a.py")) == ["GL303"]
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nselect = ["GL"]\n')
    assert json_codes(run_cli("check", "--output-format", "json", "a.py")) == ["GL303", "GL507", "GL508"]
    rules = run_cli("check", "--show-settings", "a.py").output
    assert '"GL303"' in rules and '"GL900"' in rules


def test_show_settings_lists_the_default_rules(run_cli, tmp_path):
    write(tmp_path / "a.py", "")
    lines = run_cli("check", "--show-settings", "a.py").output.splitlines()
    rules = json.loads(dict(line.split(" = ", 1) for line in lines[3:])["rules"])
    assert "GL304" in rules and not LEGACY_STYLE_CODES & set(rules) and "GL900" not in rules


def test_the_migration_still_fixes_them(run_cli, tmp_path):
    path = write(tmp_path / "a.py", DATA_READ + CONSTRUCTOR)
    assert run_cli("fix", "a.py").exit_code == 0 and path.read_text() == DATA_READ + CONSTRUCTOR  # not selected
    run_cli("fix", "--migrate", "a.py")
    assert ".data" not in path.read_text() and "FloatTensor" not in path.read_text()


def test_each_rule_page_says_it_is_off_by_default(run_cli):
    for code in LEGACY_STYLE_CODES:
        page = run_cli("rule", code).output
        assert (
            f"Off by default (the legacy form still runs as meant, and current code writes it on purpose): enable with `--extend-select {code}`."
            in page
        )
