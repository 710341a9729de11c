"""Hostile and awkward inputs: each gives one clear line naming the file and the reason, the run
goes on with the other files, and no traceback reaches the user.

Exit codes: 2 only when a file could not be read (or an internal error), 1 for findings (GL001 and
GL002 included), 0 otherwise. test_cli.py already covers a syntax error, `print x`, a Latin-1 file
without a cookie, a missing path, an explicit FIFO / dangling link, and EACCES by a patched
`open`; this file covers the rest of the list, in trees (walks) as well as explicit paths.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gradlint import deepstack, pipeline, runner
from gradlint.rules import all_codes
from gradlint.files import SourceReadError, read_source
from support import write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\n"
GOOD_LINE = "good.py:2:5: GL101"


def concise(run_cli, *args: str):
    result = run_cli("check", "--no-cache", "--output-format", "concise", "-q", *args)
    assert "Traceback" not in result.output
    return result


def codes_by_file(output: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for line in output.splitlines():
        if line.startswith("gradlint:"):
            continue
        name, _, rest = line.partition(":")
        found.setdefault(os.path.basename(name), set()).add(rest.split(": ", 1)[1].split()[0])
    return found


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("gradlint: error:")]


# ---------------------------------------------------------------------------------------------
# Files that can be read: findings or nothing, never exit 2.

READABLE = {
    # name: (bytes, the codes expected for it)
    "syntax.py": (b"def f(:\n    pass\n", {"GL001"}),
    "py2_print.py": (b'print "loss", loss\n', {"GL001"}),
    "py2_except.py": (b"try:\n    pass\nexcept ValueError, e:\n    pass\n", {"GL001"}),
    "null_byte.py": (b"x = 1\x00\ny = Variable(t)\n", {"GL001"}),
    "latin1_no_cookie.py": ("# caf\xe9\n".encode("latin-1") + LEGACY.encode(), {"GL002"}),
    "cp1252_no_cookie.py": ("# \u201cquoted\u201d\n".encode("cp1252") + LEGACY.encode(), {"GL002"}),
    "utf8_cookie_latin1_bytes.py": ("# -*- coding: utf-8 -*-\n# caf\xe9\n".encode("latin-1"), {"GL002"}),
    "unknown_cookie.py": (b"# -*- coding: klingon -*-\nx = 1\n", {"GL002"}),
    "latin1_cookie.py": (("# -*- coding: latin-1 -*-\n# caf\xe9\n" + LEGACY).encode("latin-1"), {"GL101"}),
    "cp1252_cookie.py": (("# -*- coding: cp1252 -*-\n# \u201cquoted\u201d \u20ac\n" + LEGACY).encode("cp1252"), {"GL101"}),
    "bom.py": (b"\xef\xbb\xbf" + LEGACY.encode(), {"GL101"}),
    "crlf.py": (LEGACY.replace("\n", "\r\n").encode(), {"GL101"}),
    "mixed_endings.py": (b"from torch.autograd import Variable\r\nimport torch\nx = Variable(t)\ry = 1\r\n", {"GL101"}),
    "tabs.py": (b"from torch.autograd import Variable\nif x:\n\ty = Variable(t)\n", {"GL101"}),
    "tabs_and_spaces.py": (b"if x:\n\ty = 1\n        z = 2\n", {"GL001"}),
    "empty.py": (b"", set()),
    "only_newlines.py": (b"\n\r\n\n", set()),
    "bom_only.py": (b"\xef\xbb\xbf", set()),
    "no_final_newline.py": (LEGACY.rstrip("\n").encode(), {"GL101"}),
}


@pytest.mark.parametrize("name", sorted(READABLE))
def test_readable_oddity_gives_its_findings_and_the_run_goes_on(run_cli, tmp_path, name):
    raw, expected = READABLE[name]
    write(tmp_path / name, raw)
    write(tmp_path / "good.py", LEGACY)
    result = concise(run_cli, name, "good.py")
    assert error_lines(result.output) == []
    found = codes_by_file(result.output)
    assert found.get(name, set()) == expected
    assert found["good.py"] == {"GL101"}
    assert result.exit_code == 1
    # Alone, a clean oddity exits 0 and a GL001/GL002 one exits 1 (a finding, not an error).
    alone = concise(run_cli, name)
    assert alone.exit_code == (1 if expected else 0), alone.output
    for line in alone.output.splitlines():
        if "GL00" in line:
            assert line.startswith(f"{name}:") and ("could not parse: " in line or "could not decode: " in line)


def test_every_oddity_in_one_tree(run_cli, tmp_path):
    for name, (raw, _) in READABLE.items():
        write(tmp_path / "tree" / name, raw)
    result = run_cli("check", "--no-cache", "--output-format", "json", "tree")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    found: dict[str, set[str]] = {}
    for finding in json.loads(result.output):
        found.setdefault(os.path.basename(finding["filename"]), set()).add(finding["code"])
    assert found == {name: codes for name, (_, codes) in READABLE.items() if codes}


# ---------------------------------------------------------------------------------------------
# Deep nesting: what CPython compiles is analysed; what it refuses is GL001 with its reason.

HEADER = "from torch.autograd import Variable\n"


def deep_sources() -> dict[str, str]:
    blocks = "".join(" " * depth + "if x:\n" for depth in range(1000)) + " " * 1000 + "y = Variable(t)\n"
    return {
        "binop.py": HEADER + "x = Variable(t)" + " + 1" * 1000 + "\n",
        "attribute_chain.py": HEADER + "x = Variable(t)" + ".a" * 1000 + "\n",
        "unary.py": HEADER + "x = " + "-" * 1000 + "Variable(t)\n",
        "parentheses.py": HEADER + "x = " + "(" * 1000 + "Variable(t)" + ")" * 1000 + "\n",
        "calls.py": HEADER + "x = " + "f(" * 1000 + "Variable(t)" + ")" * 1000 + "\n",
        "blocks.py": HEADER + blocks,
        "too_long_chain.py": HEADER + "x = Variable(t)" + " + 1" * 5000 + "\n",
    }


def test_thousand_deep_nesting(run_cli, tmp_path):
    for name, source in deep_sources().items():
        write(tmp_path / name, source)
    write(tmp_path / "good.py", LEGACY)
    result = concise(run_cli, ".")
    assert error_lines(result.output) == []
    lines = result.output.splitlines()
    # Valid Python (CPython compiles it): analysed, despite LibCST's RecursionError at the default limit.
    assert any(line.startswith("binop.py:2:5: GL101 ") for line in lines)
    assert any(line.startswith("attribute_chain.py:2:5: GL101 ") for line in lines)
    assert any(line.startswith("unary.py:2:1005: GL101 ") for line in lines)
    # CPython refuses these: GL001 with CPython's own reason, without handing them to LibCST.
    assert "parentheses.py:2:205: GL001 could not parse: too many nested parentheses" in lines
    assert "calls.py:2:406: GL001 could not parse: too many nested parentheses" in lines
    assert any(line.startswith("blocks.py:") and line.endswith("GL001 could not parse: too many levels of indentation") for line in lines)
    assert "too_long_chain.py:1:1: GL001 could not parse: nesting too deep for Python's compiler (RecursionError)" in lines
    assert any(line.startswith(GOOD_LINE) for line in lines)
    assert result.exit_code == 1


@pytest.mark.parametrize("operator", ["and", "or"])
def test_twenty_thousand_term_boolean_chain_is_checked_and_fixed(run_cli, tmp_path, operator):
    """CPython compiles a flat `a and a and ...` of any length; LibCST nests it 20,000 deep."""
    chain = "x = " + f" {operator} ".join(["a"] * 20_000) + "\n"
    path = write(tmp_path / "chain.py", HEADER + chain + "y = Variable(t)\n")
    checked = concise(run_cli, "chain.py")
    assert checked.output.splitlines()[0].startswith("chain.py:3:5: GL101 ")
    assert error_lines(checked.output) == []
    fixed = run_cli("fix", "chain.py")
    assert fixed.exit_code == 0, fixed.output
    assert path.read_text() == chain + "y = t.detach()\n"
    compile(path.read_text(), "chain.py", "exec")


# LibCST nests `a and b and ...` one node per operator; a finding inside the chain has its statement
# rendered (for its position and its fix), which recursed once per operand.
def _chain(operator: str, count: int) -> str:
    return f" {operator} ".join(["a"] * count)


INSIDE_CHAINS = {
    # name: (the line as written, its column of the finding, the line once fixed)
    "and_first": ("x = Variable(t) and " + _chain("and", 15_000), 5, "x = t.detach() and " + _chain("and", 15_000)),
    "or_middle": (
        "x = " + _chain("or", 7_500) + " or loss.data[0] or " + _chain("or", 7_500),
        5 + 5 * 7_500,
        "x = " + _chain("or", 7_500) + " or loss.item() or " + _chain("or", 7_500),
    ),
    "and_last": ("x = " + _chain("and", 15_000) + " and loss.data[0]", 5 + 6 * 15_000, "x = " + _chain("and", 15_000) + " and loss.item()"),
    "mixed_in_a_call": (
        "y = f(" + _chain("and", 7_500) + " or Variable(t) and " + _chain("or", 7_500) + ")",
        7 + 6 * 7_500 - 5 + 4,
        "y = f(" + _chain("and", 7_500) + " or t.detach() and " + _chain("or", 7_500) + ")",
    ),
    # CPython nests `+` in its own compiler too, and accepts about 3,000 of them; comparisons stay flat.
    "plus_middle": (
        "x = " + _chain("+", 1_400) + " + loss.data[0] + " + _chain("+", 1_400),
        5 + 4 * 1_400,
        "x = " + _chain("+", 1_400) + " + loss.item() + " + _chain("+", 1_400),
    ),
    "comparison_middle": (
        "x = " + _chain("<", 7_500) + " < loss.data[0] < " + _chain("<", 7_500),
        5 + 4 * 7_500,
        "x = " + _chain("<", 7_500) + " < loss.item() < " + _chain("<", 7_500),
    ),
}


@pytest.mark.parametrize("name", sorted(INSIDE_CHAINS))
def test_finding_inside_a_long_chain_is_checked_and_fixed(run_cli, tmp_path, name):
    line, column, fixed_line = INSIDE_CHAINS[name]
    path = write(tmp_path / "chain.py", "import torch\n" + HEADER + line + "\n")
    checked = concise(run_cli, "chain.py")
    assert error_lines(checked.output) == []
    assert checked.output.splitlines()[0].split(": ")[0] == f"chain.py:3:{column}"
    fixed = run_cli("fix", "chain.py")
    assert fixed.exit_code == 0, fixed.output
    assert path.read_text() == "import torch\n" + fixed_line + "\n"
    compile(path.read_text(), "chain.py", "exec")


def test_valid_python_beyond_libcsts_parser_is_reported_as_such(run_cli, tmp_path):
    """LibCST's parser gives up on an expression of several thousand implicitly joined strings;
    CPython reads it: GL001 says the code is valid, not that it has a syntax error."""
    write(tmp_path / "strings.py", "import torch\nprint(" + " ".join(['"a"'] * 6_000) + ", loss.data[0])\n")
    result = concise(run_cli, "strings.py")
    (line,) = [line for line in result.output.splitlines() if "GL001" in line]
    assert "could not parse: valid Python that LibCST's parser cannot read (" in line
    assert error_lines(result.output) == []


def test_thousand_deep_expression_is_fixed(run_cli, tmp_path):
    path = write(tmp_path / "binop.py", HEADER + "x = Variable(t)" + " + 1" * 1000 + "\n")
    result = run_cli("fix", "binop.py")
    assert result.exit_code == 0, result.output
    assert path.read_text() == "x = t.detach()" + " + 1" * 1000 + "\n"


def test_recursion_in_analysis_is_one_line_and_the_run_goes_on(run_cli, tmp_path, monkeypatch):
    real = pipeline.analyse_text

    def deep(text, name, codes, **options):
        if name.endswith("deep.py"):
            raise RecursionError("maximum recursion depth exceeded")
        if name.endswith("odd.py"):
            raise ValueError("an unexpected\nmulti-line message")
        return real(text, name, codes, **options)

    monkeypatch.setattr(pipeline, "analyse_text", deep)
    write(tmp_path / "deep.py", LEGACY)
    write(tmp_path / "odd.py", LEGACY)
    write(tmp_path / "good.py", LEGACY)
    result = concise(run_cli, ".")
    assert error_lines(result.output) == [
        "gradlint: error: deep.py: internal error: nesting too deep to analyse",
        "gradlint: error: odd.py: internal error: ValueError: an unexpected",
    ]
    assert any(line.startswith(GOOD_LINE) for line in result.output.splitlines())
    assert result.exit_code == 2


def test_recursion_limit_is_restored(tmp_path):
    before = sys.getrecursionlimit()
    assert deepstack.run_deep(sys.getrecursionlimit) == deepstack.ANALYSIS_RECURSION_LIMIT
    assert deepstack.run_deep(sys.getrecursionlimit, 1234) == 1234
    with pytest.raises(KeyError):
        deepstack.run_deep(lambda: {}["missing"])
    assert sys.getrecursionlimit() == before


def test_analysis_thread_is_reused_and_survives_fork(tmp_path):
    """The deep-stack thread is made once per process; a worker forked after the parent made its
    own gets a fresh one instead of waiting forever on the parent's."""
    script = f"""
import sys, threading
from gradlint import deepstack, pipeline, pool, runner
from gradlint.rules import all_codes
deep = {HEADER!r} + "x = Variable(t)" + " + 1" * 1000 + "\\n"
codes = frozenset(all_codes())
first = pipeline.check_source(deep.encode(), "a.py", codes)
threads = {{t.ident for t in threading.enumerate() if t.name == "gradlint-analysis"}}
second = pipeline.check_source(deep.encode(), "b.py", codes)
assert {{t.ident for t in threading.enumerate() if t.name == "gradlint-analysis"}} == threads and len(threads) == 1
results = pool.map_in_pool(runner._check_item, [runner.WorkItem(f"f{{i}}.py", deep.encode(), codes, pipeline.MAX_FILE_BYTES) for i in range(2 * pool.MIN_FILES_PER_WORKER)], jobs=2)
assert [r.findings[0].code for r in results] == ["GL101"] * 2 * pool.MIN_FILES_PER_WORKER, results[0]
assert deepstack.run_deep(sys.getrecursionlimit) == deepstack.ANALYSIS_RECURSION_LIMIT
print("ok", first.findings[0].code, second.findings[0].code)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "GL101", "GL101"]


# ---------------------------------------------------------------------------------------------
# Size: a file over the limit is analysed in pieces of whole statements, each within the limit
# (LibCST takes hundreds of bytes of memory per byte it parses).


def test_file_over_the_size_limit_is_analysed_in_pieces(run_cli, tmp_path):
    big = write(tmp_path / "big.py", HEADER + "x = Variable(t)\nloss_sum = loss.data[0]\n" * 2000)
    original = big.read_bytes()
    write(tmp_path / "good.py", LEGACY)
    result = concise(run_cli, "--max-file-size", "16K", ".")
    lines = result.output.splitlines()
    assert not [line for line in lines if line.startswith("gradlint:")]  # no warning, no error
    assert codes_by_file(result.output)["big.py"] == {"GL101", "GL103"}
    assert sum(line.startswith("big.py:") for line in lines) == 4000
    assert any(line.startswith(GOOD_LINE) for line in lines)
    assert result.exit_code == 1
    assert big.read_bytes() == original


def test_max_file_size_option(run_cli, tmp_path):
    path = write(tmp_path / "a.py", HEADER + "x = Variable(t)\n" * 120)
    small = concise(run_cli, "--max-file-size", "1K", "a.py")
    assert not [line for line in small.output.splitlines() if line.startswith("gradlint:")]
    assert sum(": GL101 " in line for line in small.output.splitlines()) == 120 and small.exit_code == 1
    # `fix` fixes a file over the limit in pieces too; only the import clean-up, which reads the
    # whole tree, is left out.
    fixed = run_cli("fix", "--max-file-size", "1K", "a.py")
    assert not [line for line in fixed.output.splitlines() if line.startswith("gradlint:")] and fixed.exit_code == 0
    assert path.read_text() == HEADER + "x = t.detach()\n" * 120
    path.write_text(HEADER + "x = Variable(t)\n" * 120)
    assert concise(run_cli, "--max-file-size", "0", "a.py").exit_code == 1
    assert concise(run_cli, "--max-file-size", "2M", "a.py").exit_code == 1
    bad = run_cli("check", "--max-file-size", "lots", "a.py")
    assert bad.exit_code == 2 and "is not a size" in bad.output
    # One statement over the limit: the rest is analysed, and a warning names the statement.
    write(tmp_path / "table.py", HEADER + "TABLE = [\n" + "    Variable(t),\n" * 100 + "]\nx = Variable(t)\n")
    table = concise(run_cli, "--max-file-size", "1K", "table.py")
    assert sorted(table.output.splitlines()) == [
        "gradlint: warning: table.py: partly analysed: a statement of 1.7 KiB (lines 2-103) is over the 1.0 KiB size limit"
        " (raise it with --max-file-size)",
        "table.py:104:5: GL101 [*] `Variable(...)` is a no-op wrapper since PyTorch 0.4; use the tensor (`.detach()` keeps the exact meaning)",
    ]
    # Over the limit but nothing any selected rule looks for: no warning, no finding; still
    # compiled by CPython, so a syntax error is GL001 at the right place.
    write(tmp_path / "table.py", "TABLE=[\n" + "    (1, 2.5, 'abc'),\n" * 100 + "]\n")
    assert concise(run_cli, "--max-file-size", "1K", "table.py").output == ""
    write(tmp_path / "table.py", "TABLE=[\n" + "    (1, 2.5, 'abc'),\n" * 100 + "]\ndef f(:\n")
    assert (
        concise(run_cli, "--max-file-size", "1K", "table.py").output.splitlines()[0]
        == "table.py:103:7: GL001 could not parse: invalid syntax"
    )


def test_oversized_results_are_not_cached(run_cli, tmp_path):
    write(tmp_path / "a.py", HEADER + "TABLE = [\n" + "    Variable(t),\n" * 100 + "]\n")
    assert run_cli("check", "--max-file-size", "1K", "a.py").exit_code == 0  # the statement is over the limit
    assert run_cli("check", "a.py").exit_code == 1


# ---------------------------------------------------------------------------------------------
# Paths that cannot be read: one error line each, exit 2, everything else still checked.


def unreadable_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    write(tree / "good.py", LEGACY)
    write(tree / "x.py" / "inner.py", LEGACY)  # a directory named like a source file: walked
    os.symlink(tree / "missing.py", tree / "dangling.py")
    os.symlink(tree / "loop_b.py", tree / "loop_a.py")
    os.symlink(tree / "loop_a.py", tree / "loop_b.py")
    os.mkfifo(tree / "pipe.py")
    os.symlink("someone@host.1234:1700000000", tree / ".#good.py")  # an Emacs lock: not source
    os.symlink(tree / "x.py", tree / "link_to_dir.py")  # not followed
    os.symlink(tree / "good.py", tree / "link_to_file.py")
    return tree


def test_unreadable_entries_found_by_walking(run_script, tmp_path):
    unreadable_tree(tmp_path)
    result = run_script("check", "--no-cache", "--output-format", "concise", "-q", "tree")  # a subprocess: a blocked FIFO would time out
    stdout, stderr = result.stdout.decode(), result.stderr.decode()
    assert "Traceback" not in stdout + stderr
    assert sorted(error_lines(stderr)) == [
        f"gradlint: error: {os.path.join('tree', 'dangling.py')}: broken symbolic link (its target does not exist)",
        f"gradlint: error: {os.path.join('tree', 'loop_a.py')}: symbolic link loop",
        f"gradlint: error: {os.path.join('tree', 'loop_b.py')}: symbolic link loop",
        f"gradlint: error: {os.path.join('tree', 'pipe.py')}: not a regular file (a named pipe)",
    ]
    assert sorted(codes_by_file(stdout)) == ["good.py", "inner.py", "link_to_file.py"]
    assert result.returncode == 2


def test_unreadable_paths_named_explicitly(run_script, tmp_path):
    tree = unreadable_tree(tmp_path)
    names = ["dangling.py", "loop_a.py", "pipe.py", "nothing_here.py", "x.py", "good.py"]
    result = run_script("check", "--no-cache", "--output-format", "concise", "-q", *names, cwd=tree)
    stdout, stderr = result.stdout.decode(), result.stderr.decode()
    assert "Traceback" not in stdout + stderr
    assert error_lines(stderr) == [
        "gradlint: error: dangling.py: broken symbolic link (its target does not exist)",
        "gradlint: error: loop_a.py: symbolic link loop",
        "gradlint: error: pipe.py: not a regular file (a named pipe)",
        "gradlint: error: nothing_here.py: no such file or directory",
    ]
    assert sorted(codes_by_file(stdout)) == ["good.py", "inner.py"]
    assert result.returncode == 2


def test_fix_reports_unreadable_paths_and_fixes_the_rest(run_cli, tmp_path):
    tree = unreadable_tree(tmp_path)
    result = run_cli("fix", "tree")
    assert "Traceback" not in result.output
    assert len(error_lines(result.output)) == 4, result.output  # not link_to_file.py: the same file, fixed once
    assert (tree / "good.py").read_text() == "x = t.detach()\n"
    assert (tree / "link_to_file.py").is_symlink()
    assert (tree / "x.py" / "inner.py").read_text() == "x = t.detach()\n"
    assert result.exit_code == 2


def _drop_root_file_access() -> None:
    """In the child: drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set, so that
    root, after exec, obeys file permissions like any user."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def _run_without_permission_bypass(args: list[str], cwd: Path, probe: Path):
    """Run gradlint so that chmod 000 really denies reading; None if that cannot be arranged."""
    command = [sys.executable, "-m", "gradlint", *args]
    if os.geteuid() != 0:
        return subprocess.run(command, cwd=cwd, capture_output=True, timeout=120)
    try:
        check = subprocess.run(
            [sys.executable, "-c", f"open({str(probe)!r}, 'rb')"], preexec_fn=_drop_root_file_access, capture_output=True, timeout=60
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if b"PermissionError" not in check.stderr:
        return None
    return subprocess.run(command, cwd=cwd, capture_output=True, timeout=120, preexec_fn=_drop_root_file_access)


@pytest.mark.parametrize("explicit", [False, True], ids=["walked", "named"])
def test_permission_denied_for_real(tmp_path, monkeypatch, explicit):
    write(tmp_path / "secret.py", LEGACY)
    write(tmp_path / "locked" / "inner.py", LEGACY)
    write(tmp_path / "good.py", LEGACY)
    (tmp_path / "secret.py").chmod(0)
    (tmp_path / "locked").chmod(0)
    paths = ["secret.py", "locked", "good.py"] if explicit else ["."]
    args = ["check", "--no-cache", "--output-format", "concise", "-q", *paths]
    try:
        result = _run_without_permission_bypass(args, tmp_path, tmp_path / "secret.py")
        if result is None:
            # Root with CAP_DAC_OVERRIDE that cannot be dropped here: chmod 000 does not stop it,
            # so the honest expectation is that everything is read and checked (test_cli.py
            # covers the EACCES path with a patched `open`).
            from click.testing import CliRunner

            from gradlint.cli import cli

            monkeypatch.chdir(tmp_path)
            outcome = CliRunner().invoke(cli, args)
            assert sorted(codes_by_file(outcome.output)) == ["good.py", "inner.py", "secret.py"]
            assert outcome.exit_code == 1
            return
        stdout, stderr = result.stdout.decode(), result.stderr.decode()
        assert "Traceback" not in stdout + stderr
        assert sorted(error_lines(stderr)) == [
            "gradlint: error: locked: cannot list directory: permission denied",
            "gradlint: error: secret.py: permission denied",
        ]
        assert sorted(codes_by_file(stdout)) == ["good.py"]
        assert result.returncode == 2
    finally:
        (tmp_path / "secret.py").chmod(0o644)
        (tmp_path / "locked").chmod(0o755)


# ---------------------------------------------------------------------------------------------
# Races: the file system changes between discovery and reading.


def discover_then(monkeypatch, change):
    """Make discovery return its files, then apply `change` to the tree before they are read."""
    real = runner.discover

    def racing(paths, settings, **options):
        found = real(paths, settings, **options)
        change()
        return found

    monkeypatch.setattr(runner, "discover", racing)


@pytest.mark.parametrize("command", ["check", "fix"])
def test_file_deleted_between_discovery_and_reading(run_cli, tmp_path, monkeypatch, command):
    write(tmp_path / "gone.py", LEGACY)
    write(tmp_path / "good.py", LEGACY)
    discover_then(monkeypatch, lambda: (tmp_path / "gone.py").unlink())
    result = run_cli(command, ".")
    assert "Traceback" not in result.output
    assert error_lines(result.output) == ["gradlint: error: gone.py: no such file or directory (deleted, or a broken symbolic link?)"]
    assert result.exit_code == 2
    if command == "check":
        assert "good.py:2:5: GL101" in result.output
    else:
        assert (tmp_path / "good.py").read_text() == "x = t.detach()\n"


def test_file_replaced_by_a_directory_or_a_fifo_after_discovery(run_cli, tmp_path, monkeypatch):
    write(tmp_path / "now_dir.py", LEGACY)
    write(tmp_path / "now_pipe.py", LEGACY)
    write(tmp_path / "good.py", LEGACY)

    def swap():
        (tmp_path / "now_dir.py").unlink()
        (tmp_path / "now_dir.py").mkdir()
        (tmp_path / "now_pipe.py").unlink()
        os.mkfifo(tmp_path / "now_pipe.py")

    discover_then(monkeypatch, swap)
    outcome = {}
    worker = threading.Thread(target=lambda: outcome.setdefault("result", run_cli("check", "--no-cache", ".")), daemon=True)
    worker.start()
    worker.join(60)
    if worker.is_alive():  # unblock the reader before failing, so the run can end
        os.close(os.open(tmp_path / "now_pipe.py", os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO blocked the run")
    result = outcome["result"]
    assert "Traceback" not in result.output
    assert error_lines(result.output) == [
        "gradlint: error: now_dir.py: is a directory",
        "gradlint: error: now_pipe.py: not a regular file (a named pipe)",
    ]
    assert "good.py:2:5: GL101" in result.output
    assert result.exit_code == 2


def test_read_source_never_blocks_and_names_the_reason(tmp_path):
    os.mkfifo(tmp_path / "pipe.py")
    os.symlink(tmp_path / "loop.py", tmp_path / "loop.py")
    reasons = {}
    for name in ("pipe.py", "loop.py", "missing.py", "."):
        with pytest.raises(SourceReadError) as caught:
            read_source(tmp_path / name)
        reasons[name] = str(caught.value)
    assert reasons == {
        "pipe.py": "not a regular file (a named pipe)",
        "loop.py": "symbolic link loop",
        "missing.py": "no such file or directory (deleted, or a broken symbolic link?)",
        ".": "is a directory",
    }


EVERY_STATEMENT_KIND = """
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        match x.dim():
            case 2:
                return self.fc(x)
            case _:
                return self.fc(x.flatten(1))


async def serve(model, stream, lock):
    async with lock:
        async for x in stream:
            yield model(x)


def train(model, loader, mode):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    match mode:
        case "finetune":
            model.fc = nn.Linear(4, 3)
        case {"head": head} if head:
            model.fc = head
    try:
        for x, y in loader:
            optimizer.zero_grad()
            (loss := nn.functional.cross_entropy(model(x), y)).backward()
            optimizer.step()
    except* ValueError:
        pass
    while (batch := next(loader, None)) is not None:
        global STEPS
        STEPS = batch
    with torch.no_grad(), open("log") as log:
        print(loss.item(), file=log)
    return [lambda: model] if mode else {**{}}
"""


def test_every_rule_analyses_every_statement_kind():
    """`match`, `try`/`except*`, `async for`/`async with`, walrus, `global`: no rule may fail on them."""
    result = pipeline.check_source(EVERY_STATEMENT_KIND, "kinds.py", frozenset(all_codes()))
    assert result.error is None
    fixed = pipeline.fix_source(EVERY_STATEMENT_KIND, "kinds.py", frozenset(all_codes()), unsafe=True)
    assert fixed.error is None
