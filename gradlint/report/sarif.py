"""SARIF 2.1.0 (one run), for GitHub code scanning and other SARIF viewers."""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePath
from typing import Sequence
from urllib.parse import quote

from gradlint import RULE_DOCS_URL, __version__
from gradlint.model import Edit, Finding, Location
from gradlint.notebook import in_file
from gradlint.report.options import RenderOptions
from gradlint.rules import all_rules, severity_of
from gradlint.rules.base import Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"
INFORMATION_URI = "https://github.com/gradlint/gradlint"


def _first_section(documentation: str) -> str:
    """The prose of the rule doc's first section ("What it does"), on one line."""
    first = documentation.split("\n## ", 1)[0]
    return " ".join(" ".join(first.splitlines()[1:]).split())


def rule_descriptor(rule: "type[Rule]") -> dict:
    documentation = rule.documentation()
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": f"{rule.summary[:1].upper()}{rule.summary[1:]}."},
        "fullDescription": {"text": _first_section(documentation)},
        "help": {"text": documentation, "markdown": documentation},
        "helpUri": f"{RULE_DOCS_URL}{rule.code}.md",
        "defaultConfiguration": {"level": severity_of(rule.code)},
        "properties": {"fix": rule.fix_summary()},
    }


def artifact_location(path: str) -> dict:
    """Relative to the source root (the working directory) when inside it, else an absolute file URI."""
    absolute = Path(path) if os.path.isabs(path) else Path(os.getcwd(), path)
    try:
        relative = PurePath(os.path.relpath(absolute))
    except ValueError:
        relative = None
    if relative is not None and not relative.as_posix().startswith("../"):
        # the bytes of a file name that is not UTF-8, percent-encoded as `as_uri` does them
        return {"uri": quote(relative.as_posix(), errors="surrogateescape"), "uriBaseId": SOURCE_ROOT}
    return {"uri": absolute.as_uri()}


def region(start: Location, end: Location) -> dict:
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def _replacement(edit: Edit) -> dict:
    return {"deletedRegion": region(edit.location, edit.end_location), "insertedContent": {"text": edit.content}}


def _result(finding: Finding, rule_index: dict[str, int]) -> dict:
    location = artifact_location(finding.path)
    result = {
        "ruleId": finding.code,
        "level": severity_of(finding.code),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {"artifactLocation": location, "region": region(finding.location, finding.end_location)}}],
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.fix is not None:
        change = {"artifactLocation": location, "replacements": [_replacement(edit) for edit in finding.fix.edits]}
        result["fixes"] = [{"description": {"text": finding.fix.message}, "artifactChanges": [change]}]
        result["properties"] = {"fixApplicability": finding.fix.applicability}
    return result


def _notification(path: str, reason: str, level: str) -> dict:
    return {
        "level": level,
        "message": {"text": reason},
        "locations": [{"physicalLocation": {"artifactLocation": artifact_location(path)}}],
    }


def invocation(problems: Sequence[tuple[str, str, str]]) -> dict:
    """Whether every file could be checked, and why not where one could not."""
    return {
        "executionSuccessful": not any(level == "error" for _, _, level in problems),
        "toolExecutionNotifications": [_notification(*problem) for problem in problems],
    }


def sarif_log(findings: Sequence[Finding], problems: Sequence[tuple[str, str, str]] = ()) -> dict:
    rules = list(all_rules())
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    driver = {
        "name": "gradlint",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": [rule_descriptor(rule) for rule in rules],
    }
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path(os.getcwd()).as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [invocation(problems)],
        "results": [_result(finding, rule_index) for finding in findings],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render_sarif(findings: Sequence[Finding], options: RenderOptions) -> str:
    return json.dumps(sarif_log(in_file(findings, options.source_of), options.problems), indent=2, ensure_ascii=False) + "\n"
