"""The hand review of gradlint's findings on current PyTorch code (tests/data/modern_precision.json).

Always: the review is consistent, every rule meets the precision target, and bench/PRECISION.md is
generated from it. With `GRADLINT_MODERN_CORPUS` naming a corpus made by
`python bench/precision.py fetch DIR`: gradlint reports exactly what the review records as reported.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("precision", ROOT / "bench" / "precision.py")
precision = importlib.util.module_from_spec(spec)
sys.modules["precision"] = precision  # dataclasses look their module up while the class is built
spec.loader.exec_module(precision)

CORPUS = os.environ.get("GRADLINT_MODERN_CORPUS")


@pytest.fixture(scope="module")
def review():
    return precision.Review.load()


def test_the_page_is_generated_from_the_review(review):
    assert precision.TABLE.read_text(encoding="utf-8") == precision.table(review), "run `python bench/precision.py table`"


def test_every_rule_meets_the_target(review):
    below = {
        code: precision.precision(counter) for code, counter in review.counts().items() if precision.precision(counter) < precision.TARGET
    }
    assert below == {}


def test_the_review_is_well_formed(review):
    assert len(review.repositories) >= 10 and all(re.fullmatch(r"[0-9a-f]{40}", commit) for commit in review.repositories.values())
    assert {key[0] for key in review.verdicts} <= set(review.repositories)
    assert set(review.verdicts.values()) <= {"correct", "wrong"}
    assert all(review.notes[key] for key, verdict in review.verdicts.items() if verdict == "wrong"), "a wrong finding says why"
    rules = {path.name[:5].upper() for path in (ROOT / "gradlint" / "rules").glob("gl[0-9]*")}  # modules and rule packages
    assert {key[3] for key in review.verdicts} <= rules
    for code, size in review.sampled.items():
        assert sum(count for state, count in review.counts()[code].items() if state != "not worth") == size, code
    for key in review.not_worth:
        assert review.verdicts[key] == "correct" and precision.is_bug_rule(key[3]) and review.notes[key], key


def test_every_bug_rule_meets_the_strict_target(review):
    """Findings a maintainer would act on: at least 0.9 for each bug rule of the default selection
    that reports 5 or more (an opt-in rule is asked for by those who want its findings)."""
    below = {}
    for code, counter in review.counts().items():
        reported = counter["correct"] + counter["wrong"]
        if (
            precision.strictly_gated(code)
            and reported >= precision.STRICT_MINIMUM
            and precision.strict_precision(counter) < precision.STRICT_TARGET
        ):
            below[code] = precision.strict_precision(counter)
    assert below == {}


def test_compare_sorts_findings_into_what_the_review_expects():
    """The comparison itself, on a made-up review: what `check` and the corpus test rely on."""
    keys = [("o/r", "a.py", line, code) for line, code in ((1, "GL101"), (2, "GL101"), (3, "GL101"), (4, "GL301"))]
    review = precision.Review(
        repositories={"o/r": "0" * 40},
        sampled={"GL301": 1},
        verdicts={keys[0]: "correct", keys[1]: "wrong", keys[2]: "wrong", keys[3]: "correct"},
        notes={key: "why" for key in keys},
        silenced=frozenset({keys[2]}),
    )
    found = {keys[0], keys[2], ("o/r", "b.py", 9, "GL101"), ("o/r", "b.py", 9, "GL301")}
    result = precision.compare(review, found)
    assert result.unreviewed == [("o/r", "b.py", 9, "GL101")]  # sampled rules need no verdict for each finding
    assert result.lost == [keys[1], keys[3]]
    assert result.returned == [keys[2]]
    assert review.counts()["GL101"] == {"correct": 1, "wrong": 1, "silenced": 1}
    assert precision.precision(review.counts()["GL101"]) == 0.5


def test_strict_precision_counts_findings_not_worth_acting_on_as_wrong():
    keys = [("o/r", "a.py", line, "GL201") for line in range(1, 5)]
    review = precision.Review(
        repositories={"o/r": "0" * 40},
        sampled={},
        verdicts={key: "correct" for key in keys},
        notes={key: "why" for key in keys},
        silenced=frozenset(),
        not_worth=frozenset(keys[:1]),
    )
    counter = review.counts()["GL201"]
    assert (precision.precision(counter), precision.strict_precision(counter)) == (1.0, 0.75)
    assert precision.is_bug_rule("GL201") and not precision.is_bug_rule("GL507")
    assert precision.strictly_gated("GL201") and not precision.strictly_gated("GL711")  # GL711 is opt-in
    assert "| GL201 | 4 | 4 | 1 | 0 | 0 | 0 | 1.000 | 0.750 |" in precision.table(review)


@pytest.mark.skipif(not CORPUS, reason="GRADLINT_MODERN_CORPUS is not set (see bench/precision.py)")
def test_gradlint_reports_what_the_review_records(review):
    result = precision.compare(review, precision.findings_on(Path(CORPUS), review))
    assert (result.unreviewed, result.lost, result.returned) == ([], [], [])
