"""`# gradlint: noqa: CODES` on a line of its own turns those codes (or prefixes) off for the whole
file, in every front end; suppression comments that do not do what they seem to get a warning."""

from __future__ import annotations

import json

from gradlint import pipeline
from gradlint.engine import lint_text
from gradlint.noqa import file_noqa_codes, malformed_suppressions, without_suppressed
from gradlint.rules import all_codes
from support import write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\ny = loss.data[0]\n"
ALL = frozenset(all_codes())


def codes_of(findings) -> list[str]:
    return sorted(finding.code for finding in findings)


def test_listed_codes_and_prefixes_are_suppressed_for_the_file():
    assert codes_of(lint_text(LEGACY, "a.py", ALL).findings) == ["GL101", "GL103"]
    assert codes_of(lint_text("# gradlint: noqa: GL101\n" + LEGACY, "a.py", ALL).findings) == ["GL103"]
    assert codes_of(lint_text(LEGACY + "#   GRADLINT: NOQA: gl1\n", "a.py", ALL).findings) == []


def test_the_pipeline_neither_reports_nor_fixes_suppressed_codes():
    source = "# gradlint: noqa: GL103\n" + LEGACY
    assert codes_of(pipeline.check_source(source, "a.py", ALL).findings) == ["GL101"]
    fixed = pipeline.fix_source(source, "a.py", ALL)
    assert "loss.data[0]" in fixed.fixed and "Variable(" not in fixed.fixed.split("\n", 2)[2]


def test_a_trailing_directive_suppresses_nothing_and_is_reported():
    source = LEGACY.replace("x = Variable(t)", "x = Variable(t)  # gradlint: noqa: GL103")
    result = pipeline.check_source(source, "a.py", ALL)
    assert codes_of(result.findings) == ["GL101", "GL103"]
    assert result.warning == "line 2: `# gradlint: noqa: GL103` is not on a line of its own, so it suppresses nothing in the file"


def test_malformed_directives_are_reported():
    text = "# gradlint noqa GL101\n#gradlint: noqa:\nx = 1  # noqa: see above\ny = 2  # noqa: GL101\ns = '# gradlint noqa'\n"
    assert malformed_suppressions(text) == [
        "line 1: malformed `# gradlint noqa GL101`: write `# gradlint: noqa` or `# gradlint: noqa: GL101, GL3`",
        "line 2: malformed `#gradlint: noqa:`: write `# gradlint: noqa` or `# gradlint: noqa: GL101, GL3`",
        "line 3: `# noqa: see above` names no valid code, so it suppresses every finding on its line",
    ]


def test_well_formed_comments_give_no_warning():
    text = "# gradlint: noqa: GL101, GL3\nx = 1  # noqa\ny = 2  # noqa: GL101,GL102\n"
    assert malformed_suppressions(text) == []
    assert file_noqa_codes(text) == {"GL101", "GL3"}
    assert without_suppressed(frozenset({"GL101", "GL102", "GL303"}), file_noqa_codes(text)) == {"GL102"}


def test_cli_prints_the_warning_and_keeps_the_exit_code(run_script, tmp_path):
    write(tmp_path / "a.py", "# gradlint noqa: GL101\n" + LEGACY)
    result = run_script("check", "--output-format", "json", "a.py")
    assert result.returncode == 1
    assert [finding["code"] for finding in json.loads(result.stdout)] == ["GL101", "GL103"]
    assert b"gradlint: warning: a.py: line 1: malformed `# gradlint noqa: GL101`" in result.stderr
