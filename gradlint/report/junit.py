"""JUnit XML (ruff's shape): one test suite per file, one failing test case per finding; a single
passing case when there is nothing to report."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from itertools import groupby
from typing import Sequence

from gradlint.model import Finding
from gradlint.notebook import in_file
from gradlint.report.options import RenderOptions
from gradlint.report.paths import absolute_path
from gradlint.rules import severity_of

PROGRAM = "gradlint"
PACKAGE = f"org.{PROGRAM}"
# Characters XML 1.0 cannot carry, even escaped (control characters, lone surrogates).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _suite(name: str, tests: int, failures: int) -> ET.Element:
    attributes = {"name": _xml_text(name), "tests": str(tests), "disabled": "0", "errors": "0", "failures": str(failures)}
    return ET.Element("testsuite", {**attributes, "package": PACKAGE})


def _case(finding: Finding, filename: str) -> ET.Element:
    row, column = finding.location.row, finding.location.column
    case = ET.Element(
        "testcase",
        {
            "name": f"{PACKAGE}.{finding.code}",
            "classname": _xml_text(os.path.splitext(filename)[0]),
            "line": str(row),
            "column": str(column),
        },
    )
    properties = ET.SubElement(case, "properties")
    ET.SubElement(properties, "property", {"name": "severity", "value": severity_of(finding.code)})
    message = _xml_text(finding.message)
    failure = ET.SubElement(case, "failure", {"message": message})
    failure.text = f"line {row}, col {column}, {message}"
    return case


def render_junit(findings: Sequence[Finding], options: RenderOptions) -> str:
    root = ET.Element("testsuites", {"name": PROGRAM, "tests": str(max(len(findings), 1)), "failures": str(len(findings)), "errors": "0"})
    if not findings:
        suite = _suite(PROGRAM, 1, 0)
        ET.SubElement(suite, "testcase", {"name": "No errors found", "classname": PROGRAM})
        root.append(suite)
    named = sorted(((absolute_path(finding.path), finding) for finding in in_file(findings, options.source_of)), key=lambda pair: pair[0])
    for filename, group in groupby(named, key=lambda pair: pair[0]):
        cases = [_case(finding, filename) for _, finding in group]
        suite = _suite(filename, len(cases), len(cases))
        suite.extend(cases)
        root.append(suite)
    ET.indent(root, space="    ")
    # Character references keep the document valid in whatever encoding the terminal or pipe uses.
    body = ET.tostring(root, encoding="unicode").encode("ascii", "xmlcharrefreplace").decode("ascii")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
