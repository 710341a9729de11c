"""GitLab Code Quality reports (ruff's shape): paths relative to the project directory, and a
fingerprint per finding that survives reruns and lines shifting above it, so that GitLab can tell
new findings from known ones."""

from __future__ import annotations

import hashlib
import json
from typing import Sequence

from gradlint.model import Finding, Location
from gradlint.notebook import in_file
from gradlint.report.options import RenderOptions
from gradlint.report.paths import repository_path
from gradlint.rules import rule_by_code, severity_of

# GitLab's scale: info, minor, major, critical, blocker.
GITLAB_SEVERITY = {"warning": "minor", "error": "major"}


def _fingerprint(name: str, path: str, salt: str) -> str:
    """The rule and the file, not the line: a finding keeps its fingerprint when code above it moves."""
    return hashlib.blake2b(f"{salt}\0{name}\0{path}".encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _position(location: Location) -> dict:
    return {"line": location.row, "column": location.column}


def render_gitlab(findings: Sequence[Finding], options: RenderOptions) -> str:
    issues = []
    taken: set[str] = set()
    latest: dict[tuple[str, str], str] = {}  # (rule, path) -> the fingerprint it was last given
    for finding in in_file(findings, options.source_of):  # GitLab places lines of files
        name = rule_by_code(finding.code).name
        path = repository_path(finding.path, "CI_PROJECT_DIR")
        # The same rule again in the same file chains on from its previous fingerprint (not from
        # the start of the chain each time, which was quadratic in the repeats).
        fingerprint = _fingerprint(name, path, latest.get((name, path), ""))
        while fingerprint in taken:
            fingerprint = _fingerprint(name, path, fingerprint)
        taken.add(fingerprint)
        latest[(name, path)] = fingerprint
        issues.append(
            {
                "check_name": finding.code,
                # GitLab shows the description alone, not the check name.
                "description": f"{finding.code}: {finding.message}",
                "severity": GITLAB_SEVERITY[severity_of(finding.code)],
                "fingerprint": fingerprint,
                "location": {"path": path, "positions": {"begin": _position(finding.location), "end": _position(finding.end_location)}},
            }
        )
    return json.dumps(issues, indent=2) + "\n"
