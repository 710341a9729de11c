"""ruff's JSON Lines: the JSON format's objects, one per line (nothing at all when there are none)."""

from __future__ import annotations

import json
from typing import Sequence

from gradlint.model import Finding
from gradlint.report.json import finding_to_dict
from gradlint.report.options import RenderOptions


def render_json_lines(findings: Sequence[Finding], options: RenderOptions) -> str:
    return "".join(json.dumps(finding_to_dict(finding), sort_keys=True, separators=(",", ":")) + "\n" for finding in findings)
