"""The findings on the fixtures, the legacy examples and the negative corpora, pinned.

A change to the engine, an analysis or a rule that moves, adds, drops or rewords a finding (or
changes a fix) on these trees fails here, and the diff says which. When the change is intended,
regenerate the snapshot and review its diff:

    GRADLINT_UPDATE_SNAPSHOT=1 python -m pytest tests/test_findings_snapshot.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gradlint.config import left_out_by_default
from support import ROOT

SNAPSHOT = ROOT / "tests" / "snapshots" / "findings.json"
TREES = ("fixtures", "examples", "tests/data")
# The torture suite's kept failures: arbitrary mutated programs, added by every long run; the
# suite replays them for its own properties, and their findings pin nothing.
NOT_PINNED = "tests/data/torture/"


def current_findings(config: Path) -> list[dict]:
    """Every finding of every rule on TREES, as a stable list (paths relative to the repository)."""
    command = [sys.executable, "-m", "gradlint", "check", "--config", str(config), "--no-cache", "-j", "1"]
    command += ["--output-format", "json", "--exit-zero", *TREES]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    rows = [
        {
            "code": finding["code"],
            "file": Path(finding["filename"]).resolve().relative_to(ROOT).as_posix(),
            "start": [finding["location"]["row"], finding["location"]["column"]],
            "end": [finding["end_location"]["row"], finding["end_location"]["column"]],
            "message": finding["message"],
            "fix": finding["fix"],
            **({"cell": finding["cell"]} if finding.get("cell") is not None else {}),  # a notebook's rows count within the cell
        }
        for finding in json.loads(completed.stdout)
        if not Path(finding["filename"]).resolve().relative_to(ROOT).as_posix().startswith(NOT_PINNED)
    ]
    return sorted(rows, key=lambda row: (row["file"], row.get("cell", 0), row["start"], row["code"], row["message"]))


def test_findings_match_the_snapshot(tmp_path):
    config = tmp_path / "pyproject.toml"
    # No excludes: the trees are checked as they are; every rule on but GL900, which would report
    # the inputs' own `noqa` comments.
    extra = sorted(left_out_by_default() - {"GL900"})
    config.write_text(f"[tool.gradlint]\nextend-select = {extra}\n", encoding="utf-8")
    found = current_findings(config)
    if os.environ.get("GRADLINT_UPDATE_SNAPSHOT"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    lines = lambda rows: {json.dumps(row, sort_keys=True) for row in rows}  # noqa: E731
    assert sorted(lines(found) - lines(expected)) == [], "new or changed findings"
    assert sorted(lines(expected) - lines(found)) == [], "findings that disappeared"
    assert len(found) > 100  # the trees were really checked
