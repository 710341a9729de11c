"""Every front end goes through the same per-file guards (`pipeline.check_source` / `fix_source`):
the CLI's files, `-` (stdin), the language server and the flake8 plugin give the same outcome on
deep, over-nested and oversized files; GL001/GL002 are file rules the registry names by failure."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint import pipeline, server
from gradlint.config import Settings
from gradlint.flake8_plugin import GradlintPlugin
from gradlint.model import Location
from gradlint.rules import all_codes, file_rules, rule_for_failure, severity_of
from gradlint.rules.file_rule import FileFailure
from support import write

HEADER = "from torch.autograd import Variable\n"
LEGACY = HEADER + "x = Variable(t)\n"
# Valid Python that LibCST cannot parse at the default recursion limit.
DEEP = HEADER + "x = Variable(t)" + " + 1" * 1000 + "\n"
# Over CPython's own nesting limit: GL001 with CPython's reason, never handed to LibCST.
OVER_NESTED = HEADER + "x = " + "(" * 1000 + "Variable(t)" + ")" * 1000 + "\n"
ALL = frozenset(all_codes())


def flake8(*args: str, cwd: Path) -> list[tuple[str, str, str]]:
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "GL", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=600,  # a guard against hangs, not a speed test: a loaded machine is slow
    )
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr
    return re.findall(r"^\S+?:(\d+):(\d+): (GL\d+ .*)$", result.stdout, re.M)


def test_flake8_analyses_code_nested_deeper_than_the_default_recursion_limit(tmp_path):
    # CPython compiles a flat `a and a and ...`; LibCST nests it 20,000 deep (pyflakes, which
    # flake8 always runs, copes with this shape but not with a deep `a + 1 + 1 ...`).
    write(tmp_path / "chain.py", HEADER + "x = " + " and ".join(["a"] * 20_000) + "\ny = Variable(t)\n")
    assert [(row, code.split()[0]) for row, _, code in flake8("chain.py", cwd=tmp_path)] == [("3", "GL101")]


def test_flake8_plugin_analyses_deep_code_on_the_deep_stack():
    found = list(GradlintPlugin(None, "deep.py", DEEP.splitlines(keepends=True)).run())
    assert [(row, column, message.split()[0]) for row, column, message, _ in found] == [(2, 4, "GL101")]


def test_flake8_reports_cpython_nesting_limits_as_gradlint_check_does(tmp_path, run_cli):
    write(tmp_path / "nested.py", OVER_NESTED)
    checked = run_cli("check", "--no-cache", "--output-format", "concise", "-q", "nested.py").output.splitlines()
    assert checked == ["nested.py:2:205: GL001 could not parse: too many nested parentheses"]
    # flake8 itself reports such a file as E999 and runs no plugin on it; the plugin alone agrees
    # (its columns are 0-based, printed 1-based by flake8).
    found = list(GradlintPlugin(None, "nested.py", OVER_NESTED.splitlines(keepends=True)).run())
    assert [(row, column, message) for row, column, message, _ in found] == [(2, 204, "GL001 could not parse: too many nested parentheses")]


def test_flake8_plugin_applies_the_size_limit():
    table = "T = [\n" + "    Variable(t),\n" * (pipeline.MAX_FILE_BYTES // 17 + 1) + "]\n"  # one statement just over the default
    lines = (LEGACY + table).splitlines(keepends=True)
    found = list(GradlintPlugin(None, "big.py", lines).run())  # the statement left out: said, not passed silently
    assert [message.split()[0] for _, _, message, _ in found] == ["GL009", "GL101"]
    assert found[0][:2] == (1, 0) and found[0][2].startswith("GL009 gradlint: partly analysed: a statement of 2.0 MiB (lines 3-")
    small = LEGACY.splitlines(keepends=True)
    assert [message.split()[0] for _, _, message, _ in GradlintPlugin(None, "small.py", small).run()] == ["GL101"]


def test_flake8_plugin_honours_the_whole_file_exemption_but_not_line_noqa():
    exempt = ("# gradlint: noqa\n" + LEGACY).splitlines(keepends=True)
    assert list(GradlintPlugin(None, "a.py", exempt).run()) == []
    suppressed = (HEADER + "x = Variable(t)  # noqa: GL101\n").splitlines(keepends=True)
    assert [message.split()[0] for _, _, message, _ in GradlintPlugin(None, "a.py", suppressed).run()] == ["GL101"]


def test_an_oversized_file_gives_the_same_outcome_as_a_file_and_on_stdin(run_cli, tmp_path):
    source = LEGACY * 40
    write(tmp_path / "a.py", source)
    as_file = run_cli("check", "--no-cache", "--output-format", "concise", "-q", "--max-file-size", "1K", "a.py")
    on_stdin = run_cli("check", "--output-format", "concise", "-q", "--max-file-size", "1K", "--stdin-filename", "a.py", "-", input=source)
    assert as_file.output == on_stdin.output
    assert [line.split()[1] for line in as_file.output.splitlines()] == ["GL101"] * 40  # analysed in pieces
    assert as_file.exit_code == on_stdin.exit_code == 1
    fixed = run_cli("fix", "--max-file-size", "1K", "--stdin-filename", "a.py", "-", input=source)
    whole = run_cli("fix", "--stdin-filename", "a.py", "-", input=source)
    assert fixed.exit_code == 0 and "gradlint: warning" not in fixed.output
    assert fixed.stdout.count("t.detach()") == whole.stdout.count("t.detach()") == 40  # fixed in pieces too


def test_an_oversized_file_with_async_keywords_is_analysed_in_pieces(run_cli, tmp_path):
    """`.cuda(async=True)` does not compile, but the analysis reads it (GL501), in pieces too. A
    large file with a real syntax error too is GL001, where a small one is."""
    write(tmp_path / "a.py", "import torch\nx = torch.zeros(2).cuda(async=True)\n" + "y = 1\n" * 400)
    write(tmp_path / "b.py", "import torch\nx = torch.zeros(2).cuda(async=True)\ndef f(:\n" + "y = 1\n" * 400)
    result = run_cli("check", "--no-cache", "--output-format", "concise", "--max-file-size", "1K", "a.py", "b.py")
    whole = run_cli("check", "--no-cache", "--output-format", "concise", "a.py")
    assert re.findall(r"^a\.py:.*$", result.output, re.M) == re.findall(r"^a\.py:.*$", whole.output, re.M) != []
    assert "gradlint: warning" not in result.output
    small = run_cli("check", "--no-cache", "--output-format", "concise", "b.py")
    assert re.findall(r"^b\.py:\d+:\d+: GL001.*$", result.output, re.M) == re.findall(r"^b\.py:\d+:\d+: GL001.*$", small.output, re.M) != []


def test_an_over_nested_file_gives_the_same_outcome_as_a_file_and_on_stdin(run_cli, tmp_path):
    write(tmp_path / "nested.py", OVER_NESTED)
    as_file = run_cli("check", "--no-cache", "--output-format", "concise", "nested.py")
    on_stdin = run_cli("check", "--output-format", "concise", "--stdin-filename", "nested.py", "-", input=OVER_NESTED)
    assert as_file.output == on_stdin.output and as_file.exit_code == on_stdin.exit_code == 1


def test_the_language_server_guards_text_it_cannot_encode(tmp_path):
    """An editor buffer that its own coding cookie cannot encode is checked as text, through the
    same guards (before, it skipped CPython's nesting limits and the size limit)."""
    cookie = "# -*- coding: latin-1 -*-\n# \u20ac\n"  # the euro sign is not Latin-1
    settings = Settings(root=tmp_path)
    over_nested = server._lint(cookie + OVER_NESTED, str(tmp_path / "a.py"), settings)
    assert [(f.code, f.message) for f in over_nested.findings] == [("GL001", "could not parse: too many nested parentheses")]
    deep = server._lint(cookie + DEEP, str(tmp_path / "a.py"), settings)
    assert [f.code for f in deep.findings] == ["GL101"] and deep.errors == []
    assert server._fixed(cookie + DEEP, str(tmp_path / "a.py"), settings) == cookie + "x = t.detach()" + " + 1" * 1000 + "\n"


@pytest.mark.parametrize("source", [LEGACY.encode(), LEGACY], ids=["bytes", "text"])
def test_check_and_fix_take_bytes_or_text(source):
    checked = pipeline.check_source(source, "a.py", ALL)
    assert [f.code for f in checked.findings] == ["GL101"]
    fixed = pipeline.fix_source(source, "a.py", ALL)
    assert fixed.fixed == (b"x = t.detach()\n" if isinstance(source, bytes) else "x = t.detach()\n")
    assert fixed.applied == 1 and fixed.findings == [] and fixed.error is None
    unchanged = pipeline.fix_source(b"x = 1\n", "a.py", ALL)
    assert unchanged.fixed == b"x = 1\n" and unchanged.applied == 0


def test_decoding_comes_before_the_whole_file_exemption():
    undecodable = "# gradlint: noqa\n# caf\xe9\n".encode("latin-1")
    assert [f.code for f in pipeline.check_source(undecodable, "a.py", ALL).findings] == ["GL002"]
    result = pipeline.fix_source(undecodable, "a.py", ALL)
    assert [f.code for f in result.findings] == ["GL002"] and result.fixed is None
    exempt = pipeline.fix_source(("# gradlint: noqa\n" + LEGACY).encode(), "a.py", ALL)
    assert exempt.findings == [] and exempt.fixed == ("# gradlint: noqa\n" + LEGACY).encode()


def test_the_own_noqa_option_keeps_line_suppressed_findings():
    source = HEADER + "x = Variable(t)  # noqa: GL101\n"
    assert pipeline.check_source(source, "a.py", ALL).findings == []
    assert [f.code for f in pipeline.check_source(source, "a.py", ALL, own_noqa=False).findings] == ["GL101"]


def test_an_oversized_result_is_not_cacheable():
    result = pipeline.check_source(LEGACY * 40, "a.py", ALL, max_bytes=1024)
    assert not result.cacheable and [f.code for f in result.findings] == ["GL101"] * 40 and result.warning is None
    assert pipeline.check_source(LEGACY * 40, "a.py", ALL, max_bytes=0).cacheable


def test_file_rules_are_declared_and_named_by_failure():
    assert {rule.code for rule in file_rules()} == {"GL001", "GL002"}
    assert rule_for_failure(FileFailure.INVALID_SYNTAX).code == "GL001"
    assert rule_for_failure(FileFailure.UNDECODABLE).code == "GL002"
    assert sorted({rule.failure for rule in file_rules()}, key=lambda f: f.value) == sorted(FileFailure, key=lambda f: f.value)
    finding = rule_for_failure(FileFailure.UNDECODABLE).finding("bad byte", "a.py", Location(3, 4))
    assert (finding.code, finding.message, finding.noqa_row) == ("GL002", "could not decode: bad byte", 3)
    # Files that could not be read are errors (they raise SyntaxError on import).
    assert {severity_of(rule.code) for rule in file_rules()} == {"error"}


def test_a_file_rule_without_a_visitor_needs_no_triggers():
    undecodable = rule_for_failure(FileFailure.UNDECODABLE)
    assert not undecodable.visits_nodes() and undecodable.triggers == ()
    assert rule_for_failure(FileFailure.INVALID_SYNTAX).visits_nodes()  # Python 2 `except E, e:`
