"""Generic fixture contract: bad.py findings equal its `# expect:` markers, good.py has none,
and every rule in the registry has a fixture folder with a runtime test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gradlint.engine import lint_bytes
from gradlint.rules import all_codes, all_rules
from support import ROOT

FIXTURES = ROOT / "fixtures"
FOLDERS = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and re.match(r"GL\d{3}_", p.name))
EXPECT = re.compile(rb"#\s*expect:\s*(GL\d{3}(?:\s*,\s*GL\d{3})*)")


def expected_findings(path: Path) -> list[tuple[int, str]]:
    expected = []
    for row, line in enumerate(path.read_bytes().splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            expected.extend((row, code.strip().decode()) for code in match.group(1).split(b","))
    return sorted(expected)


def actual_findings(path: Path) -> list[tuple[int, str]]:
    result = lint_bytes(path.read_bytes(), str(path), frozenset(all_codes()))
    assert result.error is None, result.error
    return sorted((f.location.row, f.code) for f in result.findings)


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_bad_file_findings_match_expect_markers(folder):
    bad = folder / "bad.py"
    expected = expected_findings(bad)
    assert expected, f"{bad} has no `# expect:` markers"
    assert actual_findings(bad) == expected


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_good_file_has_no_findings(folder):
    assert actual_findings(folder / "good.py") == []


@pytest.mark.parametrize("folder", FOLDERS, ids=[f.name for f in FOLDERS])
def test_folder_has_runtime_test_and_expects_its_own_rule(folder):
    code = folder.name.split("_", 1)[0]
    assert list(folder.glob("test_*.py")), f"{folder.name} has no runtime test"
    assert code in {c for _, c in expected_findings(folder / "bad.py")}


def test_every_rule_has_a_fixture_folder():
    names = {folder.name for folder in FOLDERS}
    for rule in all_rules():
        expected = f"{rule.code}_{rule.name.replace('-', '_')}"
        assert expected in names, f"missing fixtures/{expected}/"
