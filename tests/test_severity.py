"""One severity per rule, reported alike by every format and the server."""

from __future__ import annotations

import json

import pytest
from pygls.workspace.position_codec import PositionCodec

from gradlint.report import render
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
LSP_SEVERITY = {1: "error", 2: "warning"}  # DiagnosticSeverity


@pytest.fixture
def findings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "train.py", SOURCE)
    found = lint(SOURCE, path="train.py")
    assert [finding.code for finding in found] == ["GL101", "GL201", "GL103"]
    return found


def _severities_by_format(findings) -> dict[str, list[str]]:
    sarif = json.loads(render(findings, "sarif"))["runs"][0]["results"]
    github = render(findings, "github").splitlines()
    codec = PositionCodec()
    return {
        "json": [entry["severity"] for entry in json.loads(render(findings, "json"))],
        "github": [line[2 : line.index(" ")] for line in github],
        "sarif": [result["level"] for result in sarif],
        "server": [LSP_SEVERITY[_diagnostic(finding, Positions(SOURCE, codec)).severity] for finding in findings],
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
