"""`--output-format sarif`: valid SARIF 2.1.0 (the official schema), regions and fixes that match the
findings, and the code-scanning command of README."""

from __future__ import annotations

import json
import re
import shlex

import jsonschema
import pytest

from gradlint.engine import lint_text
from gradlint.report import RenderOptions, render
from gradlint.rules import all_codes, all_rules
from gradlint.pipeline import check_source
from gradlint.source import LineIndex
from support import ROOT, write

SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft4Validator(SCHEMA)
FIXTURE_BAD_FILES = sorted((ROOT / "fixtures").glob("GL*/bad.py"))

LEGACY = """import torch
from torch.autograd import Variable

x = Variable(torch.ones(2), volatile=True)
w = Variable(torch.ones(2), requires_grad=True)
for a, b in loader:
    loss = crit(model(a), b)
    loss.backward()
    opt.step()
    print("größe 😀", loss.data[0])
"""


def sarif_of(findings) -> dict:
    return json.loads(render(findings, "sarif", RenderOptions()))


def assert_valid(log: dict) -> None:
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda error: list(error.path))
    assert not errors, "\n".join(f"{list(error.path)}: {error.message}" for error in errors[:5])


def test_the_schema_rejects_what_it_should():
    """The validator is live: a region with a 0 line and a result without a message are refused."""
    log = sarif_of(lint_text(LEGACY, "train.py", frozenset(all_codes())).findings)
    broken = json.loads(json.dumps(log))
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    assert list(VALIDATOR.iter_errors(broken))
    del broken["runs"][0]["results"][0]["message"]
    assert list(VALIDATOR.iter_errors(broken))


@pytest.mark.parametrize("path", FIXTURE_BAD_FILES, ids=lambda path: path.parent.name)
def test_every_fixture_gives_valid_sarif_that_mirrors_the_findings(path, monkeypatch):
    monkeypatch.chdir(ROOT)
    relative = str(path.relative_to(ROOT))
    findings = check_source(path.read_bytes(), relative, frozenset(all_codes())).findings
    assert findings
    log = sarif_of(findings)
    assert_valid(log)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [rule["id"] for rule in rules] == [rule.code for rule in all_rules()]
    assert len(run["results"]) == len(findings)
    for finding, result in zip(findings, run["results"]):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == finding.code
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": relative.replace("\\", "/"), "uriBaseId": "%SRCROOT%"}
        region = location["region"]
        assert (region["startLine"], region["startColumn"]) == (finding.location.row, finding.location.column)
        assert (region["endLine"], region["endColumn"]) == (finding.end_location.row, finding.end_location.column)
        assert ("fixes" in result) == (finding.fix is not None)


def _apply_regions(text: str, replacements: list[dict]) -> str:
    """Apply SARIF replacements (1-based lines, code-point columns) to `text`."""
    index = LineIndex.of(text)
    spans = []
    for replacement in replacements:
        region = replacement["deletedRegion"]
        start = index.offset(region["startLine"], region["startColumn"] - 1)
        end = index.offset(region["endLine"], region["endColumn"] - 1) if region["endLine"] <= len(index.starts) else len(text)
        spans.append((start, end, replacement["insertedContent"]["text"]))
    for start, end, content in sorted(spans, reverse=True):
        text = text[:start] + content + text[end:]
    return text


def test_sarif_fixes_rewrite_the_same_text_as_the_fix_edits():
    """Columns are code points (`columnKind`), so a fix applied from SARIF regions lands exactly."""
    findings = lint_text(LEGACY, "train.py", frozenset(all_codes())).findings
    log = sarif_of(findings)
    assert log["runs"][0]["columnKind"] == "unicodeCodePoints"
    fixed = [(finding, result) for finding, result in zip(findings, log["runs"][0]["results"]) if finding.fix]
    assert {finding.code for finding, _ in fixed} >= {"GL101", "GL103", "GL201"}
    for finding, result in fixed:
        by_offsets = LEGACY
        for edit in sorted(finding.fix.edits, key=lambda edit: edit.start, reverse=True):
            by_offsets = by_offsets[: edit.start] + edit.content + by_offsets[edit.end :]
        replacements = result["fixes"][0]["artifactChanges"][0]["replacements"]
        assert _apply_regions(LEGACY, replacements) == by_offsets
        assert result["properties"]["fixApplicability"] == finding.fix.applicability


def test_levels_and_rule_metadata():
    log = sarif_of(lint_text("print 'x'\n", "old.py", frozenset(all_codes())).findings)
    assert_valid(log)
    run = log["runs"][0]
    assert run["results"][0]["ruleId"] == "GL001" and run["results"][0]["level"] == "error"
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert {rule_id: rule["defaultConfiguration"]["level"] for rule_id, rule in rules.items()} == {
        rule.code: rule.severity.value for rule in all_rules()
    }
    assert (rules["GL201"]["defaultConfiguration"]["level"], rules["GL101"]["defaultConfiguration"]["level"]) == ("error", "warning")
    assert rules["GL201"]["helpUri"].endswith("/rules/GL201.md")
    assert rules["GL201"]["fullDescription"]["text"].startswith("Flags a `for`/`while` loop")
    assert run["tool"]["driver"]["name"] == "gradlint"


def test_paths_outside_the_working_directory_are_file_uris(tmp_path, monkeypatch):
    inside = tmp_path / "work"
    inside.mkdir()
    monkeypatch.chdir(inside)
    outside = write(tmp_path / "other dir" / "trâin.py", LEGACY)
    log = sarif_of(lint_text(LEGACY, str(outside), frozenset(all_codes())).findings)
    assert_valid(log)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == outside.as_uri() and "%20" in uri


def test_empty_run_is_valid():
    log = sarif_of([])
    assert_valid(log)
    assert log["runs"][0]["results"] == []


def _readme_sarif_command() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if "--output-format sarif" in line)
    command = line.split("run:", 1)[1].split("&&", 1)[1]
    arguments, redirect = command.split(">", 1)
    assert redirect.strip() == "gradlint.sarif"
    return shlex.split(arguments)


def test_readme_code_scanning_command(run_cli, tmp_path):
    """README's upload step: `gradlint check --output-format sarif --exit-zero src/ > gradlint.sarif`."""
    arguments = _readme_sarif_command()
    assert arguments[:2] == ["gradlint", "check"]
    write(tmp_path / "src" / "train.py", LEGACY)
    result = run_cli(*arguments[1:])
    assert result.exit_code == 0  # --exit-zero: the upload step must run even with findings
    log = json.loads(result.output)
    assert_valid(log)
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert uris == {"src/train.py"}
    assert re.fullmatch(r"file:///.*/", log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"])


def test_files_that_could_not_be_checked_are_tool_notifications(run_cli, tmp_path):
    write(tmp_path / "src" / "train.py", LEGACY)
    (tmp_path / "src" / "gone.py").symlink_to(tmp_path / "missing.py")
    write(tmp_path / "big.py", "T = [\n" + "    Variable(t),\n" * 100 + "]\n")  # one statement over the limit
    result = run_cli("check", "--output-format", "sarif", "--max-file-size", "1K", "src", "big.py")
    assert result.exit_code == 2
    log = json.loads(result.stdout)
    assert_valid(log)
    (invocation,) = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    notes = {
        (note["level"], note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]): note["message"]["text"]
        for note in invocation["toolExecutionNotifications"]
    }
    assert set(notes) == {("error", "src/gone.py"), ("warning", "big.py")}
    assert "broken symbolic link" in notes[("error", "src/gone.py")]
    assert "size limit" in notes[("warning", "big.py")]
    assert {r["ruleId"] for r in log["runs"][0]["results"]} >= {"GL101"}


def test_a_clean_run_is_a_successful_invocation(run_cli, tmp_path):
    write(tmp_path / "ok.py", "import torch\n")
    log = json.loads(run_cli("check", "--output-format", "sarif", "ok.py").stdout)
    assert_valid(log)
    assert log["runs"][0]["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]
