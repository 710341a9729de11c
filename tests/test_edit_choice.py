"""Choosing and applying a round's edits: the indexed versions give exactly the results of the
pairwise comparison and the back-to-front application they replace."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gradlint.fix import apply as fixer
from gradlint.fix.edits import apply_edits
from gradlint.model import SAFE, Edit, Finding, Fix, Location

HERE = Location(1, 1)
spans = st.tuples(st.integers(0, 30), st.sampled_from([0, 0, 1, 2, 3, 7]))


def edit(start: int, length: int, content: str = "") -> Edit:
    return Edit(start, start + length, content, HERE, HERE)


def pairwise_conflict(a: Edit, b: Edit) -> bool:
    return a.start == b.start or (a.start < b.end and b.start < a.end)


def finding(edits: tuple[Edit, ...]) -> Finding:
    return Finding("GL101", "message", "x.py", HERE, HERE, Fix(SAFE, "fix", tuple(sorted(edits, key=lambda e: (e.start, e.end)))))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(spans, min_size=1, max_size=3), min_size=1, max_size=12))
def test_choosing_fixes_matches_comparing_every_pair(groups):
    findings = []
    for group in groups:
        edits = sorted({edit(start, length) for start, length in group}, key=lambda e: (e.start, e.end))
        if any(a.end > b.start for a, b in zip(edits, edits[1:])):
            continue  # a single fix never holds overlapping edits
        findings.append(finding(tuple(edits)))
    expected, taken = [], []
    for candidate in sorted(findings, key=lambda f: f.fix.edits[0].start):
        if candidate.fix.edits in {f.fix.edits for f in expected}:
            expected.append(candidate)
        elif not any(pairwise_conflict(e, other) for e in candidate.fix.edits for other in taken):
            expected.append(candidate)
            taken.extend(candidate.fix.edits)
    assert fixer.choose_fixes(findings, unsafe=False) == expected


def back_to_front(text: str, edits) -> str:
    for e in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: e.start] + e.content + text[e.end :]
    return text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(spans, st.text("xyz", max_size=3)), max_size=10))
def test_applying_edits_in_one_pass_matches_applying_them_back_to_front(raw):
    text = "abcdefghijklmnopqrstuvwxyz0123456789"
    edits = [edit(start, length, content) for (start, length), content in raw]
    assert apply_edits(text, edits) == back_to_front(text, edits)
