from __future__ import annotations

from gradlint.docs import render_rule, stale_files
from gradlint.rules import all_rules
from support import ROOT


def test_rule_catalog_is_in_sync_with_rule_classes():
    stale = stale_files(ROOT / "rules")
    assert stale == [], f"run `python -m gradlint.docs rules` to regenerate: {stale}"


def test_rule_command_prints_the_catalog_text(run_cli):
    for rule in all_rules():
        result = run_cli("rule", rule.code.lower())
        assert result.exit_code == 0
        assert result.output == render_rule(rule)
        assert result.output == (ROOT / "rules" / f"{rule.code}.md").read_text(encoding="utf-8")


def test_unknown_rule_is_a_usage_error(run_cli):
    result = run_cli("rule", "GL999")
    assert result.exit_code == 2
    assert "unknown rule code" in result.output
