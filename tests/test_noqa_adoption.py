"""Adopting gradlint on a legacy code base: `check --add-noqa`, GL900 (unused `# noqa` codes) and
`--ignore-noqa`; the comment editing underneath, line by line."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from gradlint.config import Overrides, Settings, load_settings
from gradlint.noqa import NoqaLines, add_noqa, merged_codes
from gradlint.pipeline import add_noqa_source
from gradlint.rules import all_codes
from support import lint, write

IMPORT = "from torch.autograd import Variable\n"
ALL = frozenset(all_codes())


def added(text: str) -> str:
    """`text` after `--add-noqa`'s edit, with every rule selected."""
    result = add_noqa_source(text, "train.py", ALL)
    assert result.error is None, result.error
    return result.fixed


def family(prefix: str) -> list[str]:
    return [code for code in ALL if code.startswith(prefix)]


def unsuppressed(text: str) -> list[str]:
    return [f.code for f in lint(text) if f.code != "GL900"]


# ---------------------------------------------------------------------------------------------
# The comment editing.


def test_a_line_without_comment_gets_one_after_two_spaces():
    assert add_noqa("x = f(a)   \ny = 2\n", {1: {"GL303", "GL101"}}) == ("x = f(a)  # noqa: GL101, GL303\ny = 2\n", 1)


def test_an_existing_comment_is_kept_and_the_directive_follows_it():
    assert add_noqa("x = f(a)  # keep this\n", {1: {"GL101"}})[0] == "x = f(a)  # keep this  # noqa: GL101\n"


def test_codes_merge_into_an_existing_directive_sorted_without_duplicates():
    assert add_noqa("x = f(a)  # noqa: GL303, E501\n", {1: {"GL101", "GL303"}})[0] == "x = f(a)  # noqa: E501, GL101, GL303\n"
    assert merged_codes(["gl101", "E501"], ["GL101"]) == ["E501", "gl101"]


@pytest.mark.parametrize("written", ["#noqa:GL303", "# noqa:GL303", "#  noqa: GL303", "# NOQA: GL303"])
def test_spacing_variants_are_merged_into_one_spelling(written):
    assert add_noqa(f"x = f(a) {written}\n", {1: {"GL101"}})[0] == "x = f(a) # noqa: GL101, GL303\n"


def test_text_after_the_codes_is_kept():
    assert add_noqa("x = f(a)  # noqa: GL303 see #12\n", {1: {"GL101"}})[0] == "x = f(a)  # noqa: GL101, GL303 see #12\n"


def test_crlf_and_a_file_without_final_newline_are_kept():
    assert add_noqa("a = 1\r\nx = f(a)\r\ny = 2", {2: {"GL101"}})[0] == "a = 1\r\nx = f(a)  # noqa: GL101\r\ny = 2"
    assert add_noqa("x = f(a)", {1: {"GL101"}})[0] == "x = f(a)  # noqa: GL101"


def test_a_noqa_inside_a_string_is_not_a_directive():
    text = 's = "# noqa: E501"; x = f(a)\n'
    assert NoqaLines(text).codes_at(1) is None
    assert add_noqa(text, {1: {"GL101"}})[0] == 's = "# noqa: E501"; x = f(a)  # noqa: GL101\n'
    assert NoqaLines('s = "#"  # noqa: GL101\n').codes_at(1) == {"GL101"}


def test_the_noqa_of_a_continued_line_is_read_where_the_statement_ends():
    lines = NoqaLines('x = f(a) + \\\n    g(b) + \\\n    1\ny = """one\ntwo""" + h(c)\nz = 3\n')
    assert [lines.row_for(row) for row in range(1, 7)] == [3, 3, 3, 5, 5, 6]


def test_a_file_that_does_not_tokenize_reads_each_line_on_its_own():
    lines = NoqaLines('x = """never closed\ny = 1  # noqa: GL101\n')
    assert lines.row_for(1) == 1


# ---------------------------------------------------------------------------------------------
# `--add-noqa` through the pipeline: where the comment goes, and that a second run adds nothing.


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            IMPORT + "x = Variable(t) + \\\n    1\n",
            IMPORT + "x = Variable(t) + \\\n    1  # noqa: GL101\n",
        ),
        (
            IMPORT + 'x = Variable(t) + len("""a\n# noqa: GL999\n""")\n',
            IMPORT + 'x = Variable(t) + len("""a\n# noqa: GL999\n""")  # noqa: GL101\n',
        ),
        (
            IMPORT + "x = Variable(\n    t)  # keep\n",
            IMPORT + "x = Variable(  # noqa: GL101\n    t)  # keep\n",
        ),
        (
            IMPORT + "x = Variable(t).data  #noqa:GL303 the old form\n",
            IMPORT + "x = Variable(t).data  # noqa: GL101, GL303 the old form\n",
        ),
    ],
    ids=["backslash", "multi-line-string", "multi-line-call", "existing-codes"],
)
def test_add_noqa_suppresses_every_finding_and_a_second_run_adds_nothing(source, expected):
    assert unsuppressed(source)
    first = added(source)
    assert first == expected
    assert unsuppressed(first) == []
    again = add_noqa_source(first, "train.py", ALL)
    assert again.fixed == first and again.applied == 0


def test_the_noqa_after_a_multi_line_string_suppresses_what_starts_before_it():
    """Regression: the comment was read on the finding's first row, inside the string."""
    source = IMPORT + 'x = Variable(t) + len("""a\nb""")  # noqa: GL101\n'
    assert unsuppressed(source) == []


def test_bom_encoding_and_line_endings_survive_in_bytes():
    raw = codecs.BOM_UTF8 + (IMPORT + "x = Variable(t)  # é\n").replace("\n", "\r\n").encode()
    result = add_noqa_source(raw, "train.py", ALL)
    assert result.applied == 1
    assert result.fixed == codecs.BOM_UTF8 + (IMPORT + "x = Variable(t)  # é  # noqa: GL101\n").replace("\n", "\r\n").encode()
    latin = b"# -*- coding: latin-1 -*-\n" + IMPORT.encode() + b"x = Variable(t)  # \xe9\n"
    assert add_noqa_source(latin, "train.py", ALL).fixed == latin[:-1] + b"  # noqa: GL101\n"


def test_whole_file_suppression_is_respected_and_broken_files_are_left_alone():
    exempt = "# gradlint: noqa\n" + IMPORT + "x = Variable(t)\n"
    assert added(exempt) == exempt
    listed = "# gradlint: noqa: GL101\n" + IMPORT + "x = Variable(t).data\n"
    assert added(listed) == listed.replace(".data\n", ".data  # noqa: GL303\n")  # GL101 is off for the file
    broken = IMPORT + "x = Variable(t)\nprint 'epoch'\n"
    assert added(broken) == broken
    python2_handler = "try:\n    pass\nexcept E, e:\n    pass\n"  # parsed: GL001 is a line finding here
    assert added(python2_handler) == python2_handler.replace("E, e:", "E, e:  # noqa: GL001")
    assert unsuppressed(added(python2_handler)) == []


# ---------------------------------------------------------------------------------------------
# GL900: off unless selected, judged only for the codes of selected rules.


def test_gl900_is_off_by_default_and_on_when_a_selector_names_it(tmp_path):
    def codes(**given) -> frozenset[str]:
        return load_settings(None, Overrides(**given), cwd=tmp_path).codes()

    assert "GL900" not in codes() and "GL101" in codes()
    assert "GL900" in codes(extend_select=("GL9",))
    assert "GL900" in codes(select=("GL",))
    assert "GL900" not in codes(select=("GL1",), extend_select=("GL3",))
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nselect = ["GL"]\n')
    assert "GL900" in codes()
    assert "GL900" not in Settings(tmp_path, extend_select=("GL9",), ignore=("GL900",)).codes()


def test_gl900_leaves_codes_of_rules_not_selected_and_of_other_tools_alone():
    source = "x = t.detach()  # noqa: GL101, E501, F401\n"
    assert [f.code for f in lint(source, "GL900", *family("GL3"))] == []
    (finding,) = lint(source, "GL900", *family("GL1"))
    assert finding.message == "Unused `noqa` directive (unused: `GL101`)"
    assert finding.fix.edits[0].content == "# noqa: E501, F401"


def test_gl900_skips_a_code_the_file_itself_turns_off():
    source = "# gradlint: noqa: GL101\nx = t.detach()  # noqa: GL101\n"
    assert [f.code for f in lint(source)] == []


def test_a_prefix_code_is_used_when_it_suppresses_a_finding():
    assert [f.code for f in lint(IMPORT + "x = Variable(t)  # noqa: GL1\n")] == []
    assert [f.message for f in lint("x = t.detach()  # noqa: GL1\n")] == ["Unused `noqa` directive (unused: `GL1`)"]


# ---------------------------------------------------------------------------------------------
# End to end through the command line.


def test_check_add_noqa_then_check_passes(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-select = ["GL303"]\n')  # `.data` reads are off by default
    train = write(tmp_path / "src" / "train.py", IMPORT + "x = Variable(t)  # legacy\ny = Variable(t).data\n")
    exempt = write(tmp_path / "src" / "vendored.py", "# gradlint: noqa\n" + IMPORT + "z = Variable(t)\n")
    vendored = exempt.read_bytes()
    first = run_cli("check", "--add-noqa", "src")
    assert first.exit_code == 0
    assert first.stderr == "Added 2 noqa directives.\n" and first.stdout == ""
    assert train.read_text() == IMPORT + "x = Variable(t)  # legacy  # noqa: GL101\ny = Variable(t).data  # noqa: GL101, GL303\n"
    assert exempt.read_bytes() == vendored
    assert run_cli("check", "src").exit_code == 0
    again = run_cli("check", "--add-noqa", "src")
    assert again.exit_code == 0 and again.stderr == "Added 0 noqa directives.\n"


def test_add_noqa_refuses_stdin_and_ignore_noqa(run_cli):
    result = run_cli("check", "--add-noqa", "-", input="x = 1\n")
    assert result.exit_code == 2 and "stdin" in result.stderr
    result = run_cli("check", "--add-noqa", "--ignore-noqa", ".")
    assert result.exit_code == 2 and "--ignore-noqa" in result.stderr


def test_ignore_noqa_reports_and_fixes_what_comments_suppress(run_cli, tmp_path):
    write(tmp_path / "a.py", IMPORT + "x = Variable(t)  # noqa: GL101\n")
    write(tmp_path / "b.py", "# gradlint: noqa\n" + IMPORT + "y = Variable(t)\n")
    assert run_cli("check", ".").exit_code == 0
    shown = run_cli("check", "--ignore-noqa", "--output-format", "concise", "-q", ".")
    assert shown.exit_code == 1
    assert [line.split(":")[0] for line in shown.stdout.splitlines()] == ["a.py", "b.py"]
    assert run_cli("check", ".").exit_code == 0  # the cache keeps the two kinds of result apart
    assert run_cli("fix", "--ignore-noqa", ".").exit_code == 0
    assert (tmp_path / "a.py").read_text() == "x = t.detach()  # noqa: GL101\n"  # the unused import goes too
    fixed = run_cli("fix", "--ignore-noqa", "-", input=IMPORT + "z = Variable(t)  # noqa\n")
    assert fixed.stdout == "z = t.detach()  # noqa\n"


def test_gl900_end_to_end(run_cli, tmp_path):
    path = write(tmp_path / "train.py", IMPORT + "x = t.detach()  # noqa: GL101, E501\ny = Variable(t)  # noqa: GL101, GL999\n")
    assert run_cli("check", "train.py").exit_code == 0  # off by default
    found = run_cli("check", "--extend-select", "GL900", "--output-format", "concise", "-q", "train.py")
    assert found.exit_code == 1
    assert [line.split(": ", 1)[1] for line in found.stdout.splitlines()] == [
        "GL900 [*] Unused `noqa` directive (unused: `GL101`)",
        "GL900 [*] Unused `noqa` directive (unknown: `GL999`)",
    ]
    assert (
        run_cli("check", "--extend-select", "GL900", "--ignore-noqa", "--output-format", "concise", "train.py").stdout.count("GL900") == 0
    )
    assert run_cli("fix", "--extend-select", "GL900", "train.py").exit_code == 0
    assert path.read_text() == IMPORT + "x = t.detach()  # noqa: E501\ny = Variable(t)  # noqa: GL101\n"


def test_add_noqa_writes_atomically_in_place(run_cli, tmp_path):
    path = write(tmp_path / "train.py", IMPORT + "x = Variable(t)\n")
    path.chmod(0o640)
    assert run_cli("check", "--add-noqa", "train.py").exit_code == 0
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in Path(tmp_path).iterdir() if p.name != ".gradlint_cache") == ["train.py"]
