"""Precision of every rule on current PyTorch code bases, from findings reviewed by hand.

    python bench/precision.py fetch CORPUS     # clone each repository at its recorded commit
    python bench/precision.py check CORPUS     # run gradlint on CORPUS and compare with the review
    python bench/precision.py table            # rewrite bench/PRECISION.md from the review

The review lives in tests/data/modern_precision.json: the repositories with their commits, and one
record per reviewed finding (repository, path, line, rule, verdict "correct" or "wrong", a note).
Every finding of every rule is reviewed, except the `.data` rules named in "sampled", for which a
reproducible random sample is. A corpus is a directory holding one folder per repository, named
`OWNER+NAME`. `tests/test_modern_precision.py` keeps PRECISION.md in sync with the review and,
when `GRADLINT_MODERN_CORPUS` names a corpus, re-checks the review against what gradlint reports.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from gradlint.config import Settings, left_out_by_default
from gradlint.rules import opt_in_codes

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
REVIEW = ROOT / "tests" / "data" / "modern_precision.json"
TABLE = HERE / "PRECISION.md"
TARGET = 0.97
STRICT_TARGET = 0.9  # for bug rules with at least STRICT_MINIMUM findings reported
STRICT_MINIMUM = 5
BUG_FAMILIES = ("GL2", "GL4", "GL6", "GL7")
DEFAULT_CODES = Settings(root=Path(".")).codes()
OPT_IN = opt_in_codes()

Key = tuple[str, str, int, str]  # repository, path inside it, line, rule code


@dataclass(frozen=True)
class Review:
    repositories: dict[str, str]  # "owner/name" -> commit
    sampled: dict[str, int]  # rule code -> size of the reviewed sample
    verdicts: dict[Key, str]  # finding -> "correct" | "wrong"
    notes: dict[Key, str]
    silenced: frozenset[Key]  # no longer reported since the rule was narrowed
    not_worth: frozenset[Key] = frozenset()  # correct, but not worth a maintainer's time (bug rules)

    @classmethod
    def load(cls, path: Path = REVIEW) -> "Review":
        data = json.loads(path.read_text(encoding="utf-8"))
        verdicts, notes, silenced, not_worth = {}, {}, set(), set()
        for record in data["findings"]:
            key = (record["repo"], record["path"], record["line"], record["code"])
            verdicts[key] = record["verdict"]
            notes[key] = record.get("note", "")
            if record.get("silenced"):
                silenced.add(key)
            if record.get("worth") is False:
                not_worth.add(key)
        return cls(data["repositories"], data.get("sampled", {}), verdicts, notes, frozenset(silenced), frozenset(not_worth))

    def counts(self) -> dict[str, Counter]:
        """Rule code -> Counter of "correct" and "wrong" (both still reported), "silenced" (wrong, no
        longer reported) and "lost" (correct, no longer reported)."""
        by_rule: dict[str, Counter] = {}
        for key, verdict in self.verdicts.items():
            state = verdict if key not in self.silenced else "silenced" if verdict == "wrong" else "lost"
            by_rule.setdefault(key[3], Counter())[state] += 1
            if state == "correct" and key in self.not_worth:
                by_rule[key[3]]["not worth"] += 1
        return by_rule


def precision(counter: Counter) -> float:
    """Correct over judged findings that are still reported."""
    reported = counter["correct"] + counter["wrong"]
    return counter["correct"] / reported if reported else 1.0


def strict_precision(counter: Counter) -> float:
    """Findings a maintainer would act on over judged findings that are still reported."""
    reported = counter["correct"] + counter["wrong"]
    return (counter["correct"] - counter["not worth"]) / reported if reported else 1.0


def is_bug_rule(code: str) -> bool:
    """The families a CI gate exists for: training-step order, detach, training semantics, models."""
    return code[:3] in BUG_FAMILIES


def strictly_gated(code: str) -> bool:
    """A bug rule of the default selection: what a CI gate runs unless told otherwise."""
    return is_bug_rule(code) and code in DEFAULT_CODES


def folder_of(repository: str) -> str:
    return repository.replace("/", "+")


# -- fetch ---------------------------------------------------------------------------------------


def fetch(corpus: Path, review: Review) -> None:
    """A shallow clone of each repository at its commit (GitHub serves any reachable commit)."""
    corpus.mkdir(parents=True, exist_ok=True)
    for repository, commit in sorted(review.repositories.items()):
        target = corpus / folder_of(repository)
        if (target / ".git").exists():
            continue
        target.mkdir(parents=True, exist_ok=True)
        for command in (
            ["git", "init", "-q"],
            ["git", "fetch", "-q", "--depth", "1", f"https://github.com/{repository}", commit],
            ["git", "checkout", "-q", "FETCH_HEAD"],
        ):
            subprocess.run(command, cwd=target, check=True)


# -- check ---------------------------------------------------------------------------------------


def findings_on(corpus: Path, review: Review, jobs: int = 0) -> set[Key]:
    """Every finding gradlint reports on the corpus's repositories, as review keys."""
    folders = [corpus / folder_of(repository) for repository in sorted(review.repositories)]
    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        raise SystemExit(f"not in the corpus: {', '.join(missing)} (run `python bench/precision.py fetch {corpus}`)")
    command = [sys.executable, "-m", "gradlint", "check", "--no-cache", "--exit-zero", "-j", str(jobs), "--output-format", "json"]
    command += ["--extend-select", ",".join(sorted(left_out_by_default() - {"GL900"}))]  # reviewed too, though off by default
    completed = subprocess.run([*command, *map(str, folders)], capture_output=True, text=True, check=True)
    by_folder = {folder_of(repository): repository for repository in review.repositories}
    found: set[Key] = set()
    for finding in json.loads(completed.stdout):
        relative = Path(finding["filename"]).resolve().relative_to(corpus.resolve())
        repository = by_folder[relative.parts[0]]
        found.add((repository, Path(*relative.parts[1:]).as_posix(), finding["location"]["row"], finding["code"]))
    return found


@dataclass(frozen=True)
class Comparison:
    unreviewed: list[Key]  # reported now, never judged (rules reviewed in full only)
    lost: list[Key]  # judged correct or recorded as still reported, and no longer reported
    returned: list[Key]  # recorded as silenced, and reported again


def compare(review: Review, found: set[Key]) -> Comparison:
    unreviewed = sorted(key for key in found if key not in review.verdicts and key[3] not in review.sampled)
    lost = sorted(key for key in review.verdicts if key not in review.silenced and key not in found)
    returned = sorted(key for key in review.silenced if key in found)
    return Comparison(unreviewed, lost, returned)


# -- table ---------------------------------------------------------------------------------------


def table(review: Review) -> str:
    counts = review.counts()
    lines = [
        "# Precision on current PyTorch code",
        "",
        "Every finding gradlint reported on the repositories below was read by hand and judged",
        "correct or wrong (for the rules marked *sample*, whose findings are numerous and uniform, a",
        "reproducible random sample). The review is `tests/data/modern_precision.json`; this page is",
        "generated from it by `python bench/precision.py table`. Findings judged wrong led to narrower",
        "rules: *silenced* counts the wrong findings no longer reported, *wrong* those still reported,",
        "and *lost* the correct findings a narrower rule no longer reports. Precision is correct /",
        "(correct + wrong), over what is reported today. `python bench/precision.py check CORPUS`",
        "confirms the review against what gradlint reports (`fetch CORPUS` first).",
        "",
        "For the bug rules (GL2xx, GL4xx, GL6xx, GL7xx), each correct finding was also judged worth a",
        "maintainer's time or not: *not worth* counts the findings that are true but that a maintainer",
        "would not act on (a test that does it on purpose, a toy script), which each rule's Known limits",
        "describe; *strict* is the precision counting those as wrong.",
        "",
        f"Target: every rule at {TARGET:.2f} or above; every bug rule of the default selection with {STRICT_MINIMUM} or",
        f"more findings at {STRICT_TARGET:.2f} or above strict (an opt-in rule is marked *opt-in*). Rules not listed",
        "reported nothing on these repositories.",
        "",
        "| rule | reviewed | correct | not worth | wrong | silenced | lost | precision | strict |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for code in sorted(counts):
        counter = counts[code]
        reviewed = sum(count for state, count in counter.items() if state != "not worth")
        label = f"{code} (sample)" if code in review.sampled else f"{code} (opt-in)" if code in OPT_IN else code
        not_worth, strict = (counter["not worth"], f"{strict_precision(counter):.3f}") if is_bug_rule(code) else ("", "")
        lines.append(
            f"| {label} | {reviewed} | {counter['correct']} | {not_worth} | {counter['wrong']} | {counter['silenced']} "
            f"| {counter['lost']} | {precision(counter):.3f} | {strict} |"
        )
    wrong = [key for key, verdict in review.verdicts.items() if verdict == "wrong"]
    if wrong:
        lines += ["", "## Findings judged wrong", "", "| rule | where | why | now |", "|---|---|---|---|"]
        for key in sorted(wrong, key=lambda key: (key[3], key)):
            repository, path, line, code = key
            state = "silenced" if key in review.silenced else "reported"
            lines.append(f"| {code} | {repository} `{path}:{line}` | {review.notes[key]} | {state} |")
    not_worth = [key for key in review.not_worth if key not in review.silenced]
    if not_worth:
        lines += ["", "## Bug-rule findings judged true but not worth acting on", "", "| rule | where | why |", "|---|---|---|"]
        for key in sorted(not_worth, key=lambda key: (key[3], key)):
            repository, path, line, code = key
            lines.append(f"| {code} | {repository} `{path}:{line}` | {review.notes[key]} |")
    lines += ["", "## Repositories", "", "| repository | commit |", "|---|---|"]
    lines += [
        f"| [{repository}](https://github.com/{repository}) | `{commit}` |" for repository, commit in sorted(review.repositories.items())
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("fetch").add_argument("corpus", type=Path)
    sub.add_parser("check").add_argument("corpus", type=Path)
    sub.add_parser("table")
    args = parser.parse_args(argv)
    review = Review.load()
    if args.command == "fetch":
        fetch(args.corpus, review)
    elif args.command == "table":
        TABLE.write_text(table(review), encoding="utf-8")
    else:
        result = compare(review, findings_on(args.corpus, review))
        for title, keys in (
            ("reported, not reviewed", result.unreviewed),
            ("recorded as reported, not reported", result.lost),
            ("recorded as silenced, reported", result.returned),
        ):
            print(f"{title}: {len(keys)}")
            for key in keys:
                print(f"  {key[3]} {key[0]} {key[1]}:{key[2]}")
        return int(bool(result.unreviewed or result.lost or result.returned))
    return 0


if __name__ == "__main__":
    sys.exit(main())
