from __future__ import annotations

from gradlint.docs import README_TABLE_END, README_TABLE_START, render_rule, stale_files, with_readme_table, write_catalog
from gradlint.rules import all_rules, presets
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


def test_readme_rule_table_is_generated_from_the_registry():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert README_TABLE_START in readme and README_TABLE_END in readme
    assert with_readme_table(readme) == readme
    for rule in all_rules():
        assert rule.name in readme, f"{rule.code} is missing from README's rule table"
    edited = readme.replace("| GL101–", "| GL100–", 1)
    assert edited != readme and with_readme_table(edited) == readme


def test_an_edited_readme_table_is_reported_stale(tmp_path):
    catalog = tmp_path / "rules"
    write_catalog(catalog)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (tmp_path / "README.md").write_text(readme.replace("| GL101–", "| GL100–", 1), encoding="utf-8")
    assert stale_files(catalog) == ["../README.md"]
    write_catalog(catalog)
    assert stale_files(catalog) == []


def test_migration_presets_come_from_the_rules():
    declared = {rule.code for rule in all_rules() if rule.migration is not None}
    assert set(presets()["migrate"]) == declared
    assert presets()["migrate-variable"] == ("GL101", "GL102", "GL103", "GL104", "GL105", "GL106", "GL107", "GL108", "GL109")
    assert presets()["migrate-data"] == ("GL301", "GL302", "GL303", "GL304")
