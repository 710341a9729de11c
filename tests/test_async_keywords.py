"""`async=` keyword arguments: found in the tokens, renamed so that the file parses, and every
finding and fix placed back on the text as written, through every front end."""

from __future__ import annotations

from gradlint.analysis.async_keywords import repair_async_keywords
from gradlint.flake8_plugin import GradlintPlugin
from gradlint.fix.apply import fix_text
from gradlint.fix.edits import apply_edits
from gradlint.pipeline import check_source, fix_source
from gradlint.rules import all_codes
from support import lint

ALL = frozenset(all_codes())

SAME_LINE = """\
import torch
from torch.autograd import Variable

def step(x, y):
    return x.cuda(async=True), Variable(y).cuda(async=True), Variable(x)
"""


def positions(source, *codes):
    return [(f.code, f.location.row, f.location.column, f.end_location.column) for f in lint(source, *codes)]


def test_only_keyword_arguments_of_calls_are_found():
    source = (
        "async def f(x):\n"
        "    async with lock:\n"
        "        async for y in x.to('cpu', async=True):\n"
        "            pass\n"
        "    s = 'x.cuda(async=True)'  # x.cuda(async=True)\n"
        "def g(x, async=False):\n"
        "    return h(x, async == 1), k(async=True)(y, async=False), [async] \n"
        "class C(Base, async=True):\n"
        "    pass\n"
    )
    repair = repair_async_keywords(source)
    assert [source[site - 10 : site] for site in repair.sites] == ["to('cpu', ", " == 1), k(", "=True)(y, "]
    assert repair.text.count("non_blocking") == 3 and "def g(x, async=False)" in repair.text
    assert repair_async_keywords("x = y.cuda(non_blocking=True)\n") is None


def test_offsets_in_the_repaired_text_map_back_to_the_text_as_written():
    source = "f(async=1, b=2, async=3)\n"
    repair = repair_async_keywords(source)
    assert repair.text == "f(non_blocking=1, b=2, non_blocking=3)\n"
    repaired = repair.text
    for word in ("b=2", "=3)", "=1,"):
        assert repair.original_offset(repaired.index(word)) == source.index(word)
    first = repaired.index("non_blocking")
    assert (repair.original_offset(first), repair.original_offset(first + len("non_blocking"))) == (2, 7)


def test_other_rules_report_at_the_columns_of_the_text_as_written():
    lines = SAME_LINE.splitlines()
    found = positions(SAME_LINE, "GL101", "GL501")
    line = lines[4]
    second_variable = line.index("Variable(y)") + 1
    last_variable = line.index("Variable(x)") + 1
    assert found == [
        ("GL501", 5, line.index("async") + 1, line.index("async") + 6),
        ("GL101", 5, second_variable, second_variable + len("Variable(y)")),
        ("GL501", 5, line.rindex("async") + 1, line.rindex("async") + 6),
        ("GL101", 5, last_variable, last_variable + len("Variable(x)")),
    ]


def test_fix_writes_the_renamed_keywords_with_the_other_fixes_and_a_second_fix_changes_nothing():
    result = fix_text(SAME_LINE, "step.py", ALL)
    assert result.error is None
    assert result.text.splitlines()[-1] == "    return x.cuda(non_blocking=True), y.detach().cuda(non_blocking=True), x.detach()"
    again = fix_text(result.text, "step.py", ALL)
    assert again.text == result.text and again.applied == 0


def test_edits_of_a_finding_apply_to_the_text_as_written():
    [finding] = [f for f in lint(SAME_LINE, "GL101") if f.location.column > 40]
    assert apply_edits(SAME_LINE, finding.fix.edits).splitlines()[-1].endswith("Variable(y).cuda(async=True), x.detach()")


def test_without_gl501_other_fixes_still_apply_and_the_keyword_stays():
    result = fix_text(SAME_LINE, "step.py", frozenset({"GL101"}))
    assert result.error is None
    assert result.text.splitlines()[-1] == "    return x.cuda(async=True), y.detach().cuda(async=True), x.detach()"
    assert [f.code for f in lint(SAME_LINE, "GL001", "GL101")] == ["GL101", "GL101"]


def test_noqa_suppresses_gl501_on_its_line_only():
    source = "x = a.cuda(async=True)  # noqa: GL501\ny = b.cuda(async=True)\n"
    assert positions(source) == [("GL501", 2, 12, 17)]


def test_a_file_still_invalid_after_the_renaming_is_gl001_at_the_remaining_error():
    source = "x = a.cuda(async=True); y = (1 +\n"
    [finding] = lint(source)
    assert finding.code == "GL001" and finding.location.row == 1
    for still_invalid in ("def f(x, async=False):\n    return x\n", "self.async = async\n"):
        assert [f.code for f in lint(still_invalid)] == ["GL001"]


def test_a_gl001_location_after_a_renamed_keyword_is_in_the_text_as_written():
    source = "x = a.cuda(async=True) + ) \n"
    [finding] = lint(source)
    assert finding.code == "GL001" and finding.location.column == source.index(")", 22) + 1


def test_bytes_stdin_text_and_flake8_get_the_same_findings():
    expected = [(f.code, f.location) for f in lint(SAME_LINE)]
    for source in (SAME_LINE, SAME_LINE.encode("utf-8")):
        result = check_source(source, "-", ALL)
        assert result.error is None and [(f.code, f.location) for f in result.findings] == expected
    plugin = GradlintPlugin(None, "step.py", SAME_LINE.splitlines(keepends=True))
    assert [(row, column + 1, message.split()[0]) for row, column, message, _ in plugin.run()] == [
        (location.row, location.column, code) for code, location in expected
    ]


def test_fix_source_keeps_the_encoding_and_renames():
    result = fix_source(SAME_LINE.replace("\n", "\r\n").encode("utf-8"), "step.py", frozenset({"GL501"}))
    assert result.error is None and result.applied == 2
    assert result.fixed == SAME_LINE.replace("async=", "non_blocking=").replace("\n", "\r\n").encode("utf-8")
