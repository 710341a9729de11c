"""Every `--output-format`: ruff's shape where ruff has the format, valid with no findings, parsed
back by a real parser, and alone on stdout; and one severity per rule, reported alike by every
format and by the language server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from gradlint.cli import cli
from gradlint.model import Finding, Location
from gradlint.report import FORMATS, HUMAN_FORMATS, RenderOptions, render
from gradlint.rules import all_rules, rule_by_code
from gradlint.rules.base import Rule, Severity, check_rule_class
from gradlint.server import Positions, _diagnostic
from support import lint, write

# GL101 (a warning: `Variable(t)` still runs), GL201 and GL103 (errors: never reset gradients, raises).
SOURCE = """import torch
from torch.autograd import Variable
x = Variable(t)
for a, b in loader:
    loss = crit(model(a), b)
    loss.backward()
    opt.step()
    print("größe", loss.data[0])
"""
STRUCTURED = sorted(set(FORMATS) - HUMAN_FORMATS)
LSP_SEVERITY = {1: "error", 2: "warning"}  # DiagnosticSeverity

# The Reviewdog Diagnostic Format (reviewdog's proto/rdf), as a JSON schema: what a reader needs.
_POSITION = {"type": "object", "properties": {"line": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1}}}
_RANGE = {"type": "object", "required": ["start"], "properties": {"start": _POSITION, "end": _POSITION}}
_SEVERITY = {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]}
RDJSON_SCHEMA = {
    "type": "object",
    "required": ["diagnostics"],
    "properties": {
        "source": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "url": {"type": "string"}}},
        "severity": _SEVERITY,
        "diagnostics": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["message", "location"],
                "properties": {
                    "message": {"type": "string"},
                    "location": {"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}, "range": _RANGE}},
                    "severity": _SEVERITY,
                    "code": {
                        "type": "object",
                        "required": ["value"],
                        "properties": {"value": {"type": "string"}, "url": {"type": "string"}},
                    },
                    "suggestions": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["range", "text"],
                            "properties": {"range": _RANGE, "text": {"type": "string"}},
                        },
                    },
                },
            },
        },
    },
}


@pytest.fixture
def findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "train.py", SOURCE)
    found = lint(SOURCE, path="train.py")
    assert [finding.code for finding in found] == ["GL101", "GL201", "GL103"]
    return found


def _options() -> RenderOptions:
    return RenderOptions(source_of=lambda path: SOURCE if path.endswith("train.py") else None)


def test_gitlab_severity_follows_the_rule():
    assert [entry["severity"] for entry in json.loads(render(lint(SOURCE, path="train.py"), "gitlab"))] == ["minor", "major", "major"]


def _severities_by_format(findings) -> dict[str, list[str]]:
    sarif = json.loads(render(findings, "sarif"))["runs"][0]["results"]
    github = render(findings, "github").splitlines()
    return {
        "json": [entry["severity"] for entry in json.loads(render(findings, "json"))],
        "json-lines": [json.loads(line)["severity"] for line in render(findings, "json-lines").splitlines()],
        "junit": [prop.get("value") for prop in ET.fromstring(render(findings, "junit")).iter("property")],
        "rdjson": [entry["severity"].lower() for entry in json.loads(render(findings, "rdjson"))["diagnostics"]],
        "gitlab": [{"major": "error", "minor": "warning"}[entry["severity"]] for entry in json.loads(render(findings, "gitlab"))],
        "github": [line[2 : line.index(" ")] for line in github],
        "sarif": [result["level"] for result in sarif],
        "server": [LSP_SEVERITY[_diagnostic(finding, Positions(SOURCE))["severity"]] for finding in findings],
    }


def test_a_finding_has_its_rules_severity_in_every_format_and_in_the_editor(findings):
    declared = [rule_by_code(finding.code).severity.value for finding in findings]
    assert declared == ["warning", "error", "error"]
    for name, severities in _severities_by_format(findings).items():
        assert severities == declared, name


def test_every_rule_declares_a_severity_and_the_registry_refuses_a_rule_without_one():
    assert {rule.severity for rule in all_rules()} == set(Severity)

    class Undeclared(Rule):
        code, name, summary = "GL999", "undeclared", "x"

    with pytest.raises(TypeError, match="declare a severity"):
        check_rule_class(Undeclared, "gradlint.rules.gl999_undeclared")


@pytest.mark.parametrize("output_format", STRUCTURED)
def test_every_structured_format_is_valid_with_no_findings(output_format):
    text = render([], output_format, RenderOptions())
    if output_format in ("json", "gitlab"):
        assert json.loads(text) == []
    elif output_format in ("json-lines", "github", "pylint", "azure"):
        assert text == ""
    elif output_format == "junit":
        (suite,) = ET.fromstring(text)
        assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("gradlint", "1", "0")
        assert [case.get("name") for case in suite] == ["No errors found"] and not list(suite.iter("failure"))
    elif output_format == "rdjson":
        jsonschema.validate(json.loads(text), RDJSON_SCHEMA)
        assert json.loads(text)["diagnostics"] == []
    else:
        assert json.loads(text)["runs"][0]["results"] == []


def test_json_has_rufs_fields_in_rufs_order(findings):
    first = json.loads(render(findings, "json"))[0]
    assert list(first) == [
        "cell",
        "code",
        "end_location",
        "filename",
        "fix",
        "location",
        "message",
        "name",
        "noqa_row",
        "severity",
        "url",
    ]
    assert (first["cell"], first["code"], first["name"], first["location"]) == (None, "GL101", "variable-call", {"column": 5, "row": 3})


def test_json_lines_holds_the_json_objects_one_per_line(findings):
    lines = render(findings, "json-lines").splitlines()
    assert len(lines) == len(findings)
    assert [json.loads(line) for line in lines] == json.loads(render(findings, "json"))
    assert lines[0].startswith('{"cell":null,"code":"GL101","end_location":{"column":16,"row":3},')  # compact, as ruff's


def test_junit_has_a_suite_per_file_and_a_failing_case_per_finding(findings, tmp_path):
    other = Finding("GL303", "form feed \x0c and a lone \ud800 in a message", str(tmp_path / "b.py"), Location(2, 3), Location(2, 9))
    root = ET.fromstring(render([*findings, other], "junit"))
    assert (root.tag, root.get("name"), root.get("tests"), root.get("failures")) == ("testsuites", "gradlint", "4", "4")
    suites = {suite.get("name"): suite for suite in root}
    assert sorted(suites) == [str(tmp_path / "b.py"), str(tmp_path / "train.py")]
    suite = suites[str(tmp_path / "train.py")]
    assert (suite.get("tests"), suite.get("failures"), suite.get("package")) == ("3", "3", "org.gradlint")
    case = suite.find("testcase")
    assert (case.get("name"), case.get("classname"), case.get("line"), case.get("column")) == (
        "org.gradlint.GL101",
        str(tmp_path / "train"),
        "3",
        "5",
    )
    failure = case.find("failure")
    assert failure.get("message") == findings[0].message
    assert failure.text == f"line 3, col 5, {findings[0].message}"
    assert suites[str(tmp_path / "b.py")].find("testcase/failure").get("message") == "form feed \ufffd and a lone \ufffd in a message"


def test_gitlab_report_shape_paths_and_fingerprints(findings, tmp_path, monkeypatch):
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path.parent))
    report = json.loads(render(findings, "gitlab"))
    assert list(report[0]) == ["check_name", "description", "severity", "fingerprint", "location"]
    assert report[0]["description"] == f"GL101: {findings[0].message}"
    assert report[0]["location"] == {
        "path": f"{tmp_path.name}/train.py",
        "positions": {"begin": {"line": 3, "column": 5}, "end": {"line": 3, "column": 16}},
    }
    assert len({entry["fingerprint"] for entry in report}) == 3


def test_gitlab_fingerprints_survive_reruns_and_lines_moving(findings, tmp_path, monkeypatch):
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    before = [entry["fingerprint"] for entry in json.loads(render(findings, "gitlab"))]
    shifted = lint("# a new comment\n\n" + SOURCE, path="train.py")
    assert [finding.location.row for finding in shifted] == [finding.location.row + 2 for finding in findings]
    assert [entry["fingerprint"] for entry in json.loads(render(shifted, "gitlab"))] == before
    # Two findings of one rule in one file still differ.
    twice = lint(SOURCE + "y = Variable(u)\n", "GL101", path="train.py")
    assert len({entry["fingerprint"] for entry in json.loads(render(twice, "gitlab"))}) == 2


def test_pylint_lines(findings):
    assert render(findings, "pylint").splitlines() == [f"train.py:{f.location.row}: [{f.code}] {f.message}" for f in findings]


def test_rdjson_is_valid_with_suggestions_and_utf8_byte_columns(findings):
    result = json.loads(render(findings, "rdjson", _options()))
    jsonschema.validate(result, RDJSON_SCHEMA)
    assert result["source"]["name"] == "gradlint"
    scalar = result["diagnostics"][2]
    assert (scalar["code"]["value"], scalar["severity"]) == ("GL103", "ERROR")
    # `print("größe", loss.data[0])`: `loss` is the 20th character and starts at byte 22 ("öß" take 4 bytes).
    assert (findings[2].location.column, scalar["location"]["range"]["start"]) == (20, {"line": 8, "column": 22})
    assert scalar["suggestions"] == [{"range": scalar["location"]["range"], "text": "loss.item()"}]


def test_the_schema_check_of_rdjson_is_live(findings):
    broken = json.loads(render(findings, "rdjson", _options()))
    broken["diagnostics"][0]["severity"] = "SEVERE"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, RDJSON_SCHEMA)


def test_the_command_line_offers_every_registered_format():
    for command in ("check", "fix"):
        (option,) = [param for param in cli.commands[command].params if param.name == "output_format"]
        assert sorted(option.type.choices) == sorted(FORMATS) == sorted(["text", "full", "concise", "grouped", *STRUCTURED])
    assert set(STRUCTURED) == {"json", "json-lines", "junit", "github", "gitlab", "pylint", "rdjson", "sarif", "azure"}


@pytest.mark.parametrize("output_format", STRUCTURED)
def test_fix_keeps_stdout_to_the_structured_output(run_cli, tmp_path, output_format):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(t)\n")
    result = run_cli("fix", "--output-format", output_format, "a.py")
    assert result.exit_code == 0 and "Fixed 1 error" in result.stderr
    assert result.stdout == render([], output_format, RenderOptions())


@pytest.mark.parametrize("output_format", STRUCTURED)
def test_statistics_stay_json(run_cli, tmp_path, output_format):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(t)\n")
    rows = json.loads(run_cli("check", "--statistics", "--output-format", output_format, "a.py").stdout)
    assert rows == [{"code": "GL101", "name": "variable-call", "severity": "warning", "count": 1, "fixable": True, "fixable_count": 1}]


def test_check_writes_rdjson_columns_from_the_files_text(run_cli, tmp_path):
    write(tmp_path / "train.py", SOURCE)
    diagnostics = json.loads(run_cli("check", "--output-format", "rdjson", "train.py").stdout)["diagnostics"]
    assert [entry["location"]["range"]["start"] for entry in diagnostics if entry["code"]["value"] == "GL103"] == [
        {"line": 8, "column": 22}
    ]


def test_check_writes_gitlab_paths_from_the_project_root(run_cli, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "ml" / "train.py", SOURCE)
    monkeypatch.delenv("CI_PROJECT_DIR", raising=False)
    monkeypatch.chdir(tmp_path / "ml")
    paths = {entry["location"]["path"] for entry in json.loads(run_cli("check", "--output-format", "gitlab", ".").stdout)}
    assert paths == {"ml/train.py"}


# -- ruff's `full`, `grouped` and `azure` ---------------------------------------------------------


def test_full_shows_two_lines_of_source_around_each_finding(findings):
    text = render(findings, "full", _options())
    first = text.split("\n\n")[0].splitlines()
    assert first == [
        "train.py:3:5: GL101 [*] `Variable(...)` is a no-op wrapper since PyTorch 0.4; use the tensor (`.detach()` keeps the exact meaning)",
        "  |",
        "1 | import torch",
        "2 | from torch.autograd import Variable",
        "3 | x = Variable(t)",
        "  |     ^^^^^^^^^^^ GL101",
        "4 | for a, b in loader:",
        "5 |     loss = crit(model(a), b)",
        "  |",
        "  = safe fix: Replace with `t.detach()`",
    ]
    last = text.split("\n\n")[2].splitlines()
    assert last[1:6] == [
        "  |",
        "6 |     loss.backward()",
        "7 |     opt.step()",
        '8 |     print("größe", loss.data[0])',
        "  |" + " " * 20 + "^" * 12 + " GL103",
    ]
    assert text.endswith(
        "Found 3 errors (severity: 2 error, 1 warning).\n[*] 2 fixable with `gradlint fix`.\n1 more fixable with `gradlint fix --unsafe-fixes`.\n"
    )


def test_full_leaves_out_blank_lines_at_the_edges_of_the_context():
    source = "import torch\n\n\nfrom torch.autograd import Variable\nx = Variable(t)\n\n\n"
    (finding,) = lint(source, "GL101", path="a.py")
    frame = render([finding], "full", RenderOptions(quiet=True, source_of=lambda path: source)).splitlines()[1:-2]
    assert frame == ["  |", "4 | from torch.autograd import Variable", "5 | x = Variable(t)", "  |     ^^^^^^^^^^^ GL101", "  |"]


def test_full_shows_a_blank_line_within_the_context_without_trailing_space():
    source = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(t)\n\ny = 1\n"
    (finding,) = lint(source, "GL101", path="a.py")
    frame = render([finding], "full", RenderOptions(quiet=True, source_of=lambda path: source)).splitlines()[1:-2]
    assert frame == [
        "  |",
        "2 | from torch.autograd import Variable",
        "3 |",
        "4 | x = Variable(t)",
        "  |     ^^^^^^^^^^^ GL101",
        "5 |",
        "6 | y = 1",
        "  |",
    ]


def test_text_keeps_the_finding_line_alone(findings):
    assert "1 | import torch" not in render(findings, "text", _options())
    assert render(findings, "text", _options()) != render(findings, "full", _options())


def test_grouped_lists_the_findings_under_their_file_aligned(findings, tmp_path):
    other = Finding("GL303", "a `.data` read", str(tmp_path / "b.py"), Location(12, 3), Location(12, 9))
    text = render([*findings, other], "grouped", _options())
    assert text.splitlines() == [
        "train.py:",
        f"  3:5  GL101 [*] {findings[0].message}",
        f"  4:1  GL201 {findings[1].message}",
        f"  8:20 GL103 [*] {findings[2].message}",
        "",
        "b.py:",
        "  12:3 GL303 a `.data` read",
        "",
        "Found 4 errors (severity: 2 error, 2 warning).",
        "[*] 2 fixable with `gradlint fix`.",
        "1 more fixable with `gradlint fix --unsafe-fixes`.",
    ]
    assert render([], "grouped") == "All checks passed!\n"
    assert render(findings, "grouped", RenderOptions(quiet=True)).splitlines()[-1] == ""  # no summary


def test_grouped_aligns_rows_of_different_widths(tmp_path):
    path = str(tmp_path / "a.py")
    found = [
        Finding("GL303", "near", path, Location(9, 12), Location(9, 13)),
        Finding("GL303", "far", path, Location(120, 1), Location(120, 2)),
    ]
    assert render(found, "grouped", RenderOptions(quiet=True)).splitlines()[1:3] == ["    9:12 GL303 near", "  120:1  GL303 far"]


def test_azure_logging_commands(findings):
    lines = render(findings, "azure").splitlines()
    assert lines[0] == f"##vso[task.logissue type=warning;sourcepath=train.py;linenumber=3;columnnumber=5;code=GL101;]{findings[0].message}"
    assert [line[len("##vso[task.logissue type=") :].split(";")[0] for line in lines] == ["warning", "error", "error"]
    assert lines[2].startswith("##vso[task.logissue type=error;sourcepath=train.py;linenumber=8;columnnumber=20;code=GL103;]")


def test_azure_escapes_what_would_end_a_property_or_the_message(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    odd = Finding("GL303", "100% of it\nsecond line", str(tmp_path / "a;b].py"), Location(1, 1), Location(1, 2))
    (line,) = render([odd], "azure").splitlines()
    assert (
        line
        == "##vso[task.logissue type=warning;sourcepath=a%3Bb%5D.py;linenumber=1;columnnumber=1;code=GL303;]100%AZP25 of it%0Asecond line"
    )


@pytest.mark.parametrize("output_format", ["full", "grouped", "concise"])
def test_the_summary_of_every_text_format_counts_what_is_fixable(run_cli, tmp_path, output_format):
    write(tmp_path / "train.py", SOURCE)
    lines = run_cli("check", "--output-format", output_format, "train.py").stdout.splitlines()
    assert lines[-3:] == [
        "Found 3 errors (severity: 2 error, 1 warning).",
        "[*] 2 fixable with `gradlint fix`.",
        "1 more fixable with `gradlint fix --unsafe-fixes`.",
    ]
    unsafe = run_cli("check", "--unsafe-fixes", "--output-format", output_format, "train.py").stdout.splitlines()
    assert unsafe[-1] == "[*] 3 fixable with `gradlint fix --unsafe-fixes`."
    assert run_cli("check", "-q", "--output-format", output_format, "train.py").stdout.count("Found") == 0


# -- --statistics: what is fixable ---------------------------------------------------------------


def test_statistics_mark_each_rule_fixable_partly_or_not(run_cli, tmp_path):
    write(tmp_path / "train.py", SOURCE + "y = Variable(u, volatile=True, requires_grad=True)\n")
    rows = run_cli("check", "--statistics", "train.py").stdout.splitlines()
    assert [row.split("\t")[1] + " " + row.split("\t")[3] for row in rows[:-3]] == [
        "GL101 [~] variable-call",  # one of its two findings has a fix
        "GL102 [ ] volatile-flag",
        "GL103 [*] legacy-scalar-index",
        "GL201 [ ] missing-zero-grad",  # an unsafe fix: fixable only with --unsafe-fixes
    ]
    assert rows[-3:] == [
        "Found 5 errors (severity: 2 error, 3 warning).",
        "[*] 2 fixable with `gradlint fix`.",
        "1 more fixable with `gradlint fix --unsafe-fixes`.",
    ]
    unsafe = run_cli("check", "--statistics", "--unsafe-fixes", "train.py").stdout.splitlines()
    assert unsafe[3].split("\t")[3] == "[*] missing-zero-grad"


def test_statistics_have_no_marker_column_when_nothing_is_fixable(run_cli, tmp_path):
    write(tmp_path / "train.py", SOURCE)
    rows = run_cli("check", "--statistics", "--unfixable", "GL", "train.py").stdout.splitlines()
    assert rows[0].split("\t")[3] == "variable-call"
    assert rows[-1] == "Found 3 errors (severity: 2 error, 1 warning)."


@pytest.mark.parametrize("options, counts", [((), [1, 1, 0]), (("--unsafe-fixes",), [1, 1, 1]), (("--unfixable", "GL103"), [1, 0, 0])])
def test_statistics_json_counts_what_is_fixable(run_cli, tmp_path, options, counts):
    write(tmp_path / "train.py", SOURCE)
    rows = json.loads(run_cli("check", "--statistics", "--output-format", "json", *options, "train.py").stdout)
    assert [(row["code"], row["count"]) for row in rows] == [("GL101", 1), ("GL103", 1), ("GL201", 1)]
    assert [row["fixable_count"] for row in rows] == counts
    assert [row["fixable"] for row in rows] == [count > 0 for count in counts]
