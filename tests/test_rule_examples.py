"""Every rule's VALID / INVALID examples (Fixit-style): the rule class is its own test table."""

from __future__ import annotations

import pytest

from gradlint.fix.apply import fix_text
from gradlint.rules import all_rules
from support import example_codes, lint

VALID = [(rule, source) for rule in all_rules() for source in rule.VALID]
INVALID = [(rule, example) for rule in all_rules() for example in rule.INVALID]


UNFIXED = [(rule, example) for rule, example in INVALID if example.fixed is None]


@pytest.mark.parametrize("rule, source", VALID, ids=[r.code for r, _ in VALID])
def test_valid_example_is_not_flagged(rule, source):
    assert [f for f in lint(source, *example_codes(rule)) if f.code == rule.code] == []


@pytest.mark.parametrize("rule, example", INVALID, ids=[r.code for r, _ in INVALID])
def test_invalid_example_is_flagged(rule, example):
    assert any(f.code == rule.code for f in lint(example.code, *example_codes(rule)))


FIXED = [(rule, example) for rule, example in INVALID if example.fixed is not None]


@pytest.mark.parametrize("rule, example", FIXED, ids=[r.code for r, _ in FIXED])
def test_invalid_example_fix(rule, example):
    codes = frozenset(example_codes(rule))
    first = fix_text(example.code, "example.py", codes, unsafe=True)
    assert first.error is None
    assert first.text == example.fixed
    again = fix_text(first.text, "example.py", codes, unsafe=True)
    assert again.text == first.text and again.applied == 0


@pytest.mark.parametrize("rule, example", UNFIXED, ids=[r.code for r, _ in UNFIXED])
def test_invalid_example_without_fix_is_left_alone(rule, example):
    result = fix_text(example.code, "example.py", frozenset(example_codes(rule)), unsafe=True)
    assert result.text == example.code


def test_every_rule_has_examples_both_ways():
    for rule in all_rules():
        if not rule.visits_nodes():
            continue
        assert rule.VALID, f"{rule.code} has no VALID examples"
        assert rule.INVALID, f"{rule.code} has no INVALID examples"


def test_every_rule_has_full_documentation():
    for rule in all_rules():
        doc = rule.documentation()
        for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety", "## Known limits"):
            assert heading in doc, f"{rule.code} documentation lacks {heading!r}"
