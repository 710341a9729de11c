"""`gradlint fix` never corrupts a file: re-parsed before writing, atomic, keeps the file's
encoding, line endings, final newline, mode and owner, refuses files that changed on disk,
applies overlapping fixes in bounded rounds, is idempotent on every fixture and example, and two
concurrent runs on one tree (and a check beside them) give exactly the single-run result.

test_fixer_io.py already covers LF / CRLF / BOM / Latin-1 cookie / missing final newline for one
small file, the mode, symlinks, `write_atomic` refusing a changed file, `fix_text` refusing a
patched `apply_edits`, and three nested `Variable` calls; this file covers the rest end to end.
"""

from __future__ import annotations

import ast
import errno
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gradlint import files, pipeline, runner
from gradlint.fix import apply as fixer
from gradlint.model import SAFE
from gradlint.rules import rule_by_code
from gradlint.fix.plan import FixPlan, Replace
from support import ROOT, write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\nloss_sum = loss.data[0]\n"
MIGRATED = "x = t.detach()\nloss_sum = loss.item()\n"
FIXTURE_BAD_FILES = sorted(path for path in (ROOT / "fixtures").glob("GL*/bad.py") if not path.parent.name.startswith(("GL001", "GL002")))
EXAMPLES = sorted((ROOT / "examples" / "legacy").glob("*.py"))


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("gradlint: error:")]


def leftovers(directory: Path) -> list[str]:
    return [path.name for path in directory.rglob("*.gradlint-tmp")]


# ---------------------------------------------------------------------------------------------
# Re-parse before writing.


def test_a_rule_fix_that_does_not_parse_leaves_the_file_untouched(run_cli, tmp_path, monkeypatch):
    rule = rule_by_code("GL103")

    def broken_fix(self, message, *changes):
        return FixPlan(SAFE, message, tuple(Replace(change.node, "loss.item(") for change in changes))

    monkeypatch.setattr(rule, "safe_fix", broken_fix)
    broken = write(tmp_path / "a.py", LEGACY)
    other = write(tmp_path / "b.py", "from torch.autograd import Variable\nx = Variable(t)\n")
    result = run_cli("fix", "a.py", "b.py")
    (line,) = error_lines(result.output)
    # GL101's fix of the same round is fine: only the rule whose own fix breaks the file is named.
    assert line == "gradlint: error: a.py: internal error: a fix by GL103 produced invalid code; file left unchanged"
    assert "Traceback" not in result.output
    assert broken.read_text() == LEGACY
    assert other.read_text() == "x = t.detach()\n"
    assert result.exit_code == 2
    diff = run_cli("fix", "--diff", "a.py")
    assert "+" not in "".join(line for line in diff.output.splitlines() if not line.startswith("gradlint"))
    assert broken.read_text() == LEGACY


def test_an_exception_while_fixing_is_one_line_and_the_run_goes_on(run_cli, tmp_path, monkeypatch):
    real = pipeline.fix_text

    def exploding(text, name, codes, *, unsafe=False, **options):
        if name.endswith("a.py"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(text, name, codes, unsafe=unsafe, **options)

    monkeypatch.setattr(pipeline, "fix_text", exploding)
    write(tmp_path / "a.py", LEGACY)
    other = write(tmp_path / "b.py", LEGACY)
    result = run_cli("fix", "--verbose", ".")
    assert error_lines(result.output) == ["gradlint: error: a.py: internal error: nesting too deep to analyse; file left unchanged"]
    assert "Traceback" not in result.output
    assert (tmp_path / "a.py").read_text() == LEGACY
    assert other.read_text() == MIGRATED
    assert result.exit_code == 2


# ---------------------------------------------------------------------------------------------
# Atomic writes.


def test_the_new_content_is_renamed_over_the_file_from_the_same_directory(run_cli, tmp_path, monkeypatch):
    renames = []
    real = os.replace

    def spy(source, target):
        renames.append((Path(source), Path(target), Path(source).read_bytes()))
        return real(source, target)

    monkeypatch.setattr(files.os, "replace", spy)
    path = write(tmp_path / "pkg" / "a.py", LEGACY)
    assert run_cli("fix", "pkg").exit_code == 0
    ((source, target, content),) = renames
    assert source.parent == target.parent == path.parent
    assert source.name.startswith(".a.py.") and source.name.endswith(".gradlint-tmp")
    assert target == path and content == MIGRATED.encode()
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("failing", ["replace", "fsync", "mkstemp"])
def test_a_failed_write_leaves_the_original_whole(run_cli, tmp_path, monkeypatch, failing):
    def fail(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    target = tempfile if failing == "mkstemp" else files.os  # files imports tempfile when it writes
    monkeypatch.setattr(target, failing, fail)
    path = write(tmp_path / "a.py", LEGACY)
    result = run_cli("fix", "a.py")
    assert error_lines(result.output) == ["gradlint: error: a.py: could not write: no space left on device"]
    assert "Traceback" not in result.output
    assert path.read_text() == LEGACY
    assert leftovers(tmp_path) == []
    assert result.exit_code == 2


# ---------------------------------------------------------------------------------------------
# What a rewrite keeps.

KEEPS = {
    "cp1252-cookie": (
        ("# -*- coding: cp1252 -*-\n# \u201cquoted\u201d \u20ac\n" + LEGACY).encode("cp1252"),
        ("# -*- coding: cp1252 -*-\n# \u201cquoted\u201d \u20ac\n" + MIGRATED).encode("cp1252"),
    ),
    "latin-1-in-fixed-line": (
        "# coding: latin-1\nfrom torch.autograd import Variable\nx = Variable(t)  # caf\xe9\n".encode("latin-1"),
        "# coding: latin-1\nx = t.detach()  # caf\xe9\n".encode("latin-1"),
    ),
    "bom-crlf": (b"\xef\xbb\xbf" + LEGACY.replace("\n", "\r\n").encode(), b"\xef\xbb\xbf" + MIGRATED.replace("\n", "\r\n").encode()),
    "crlf-no-final-newline": (LEGACY.replace("\n", "\r\n").rstrip().encode(), MIGRATED.replace("\n", "\r\n").rstrip().encode()),
    "cr-only": (LEGACY.replace("\n", "\r").encode(), MIGRATED.replace("\n", "\r").encode()),
    "mixed": (
        b"from torch.autograd import Variable\r\nimport torch\nw = torch.zeros(3, requires_grad=True)\r\n"
        b"w.data.mul_(2)\ny = Variable(w)\r\nz = loss.data[0]",
        b"import torch\nw = torch.zeros(3, requires_grad=True)\r\n"
        b"with torch.no_grad():\r\n    w.mul_(2)\ny = w.detach()\r\nz = loss.item()",
    ),
    "tabs-crlf": (
        b"import torch\r\nw = torch.zeros(3, requires_grad=True)\r\nif True:\r\n\tw.data.mul_(2)\r\n",
        b"import torch\r\nw = torch.zeros(3, requires_grad=True)\r\nif True:\r\n\twith torch.no_grad():\r\n\t\tw.mul_(2)\r\n",
    ),
    # The fix removes the last line (the unused import): the file still has no final newline.
    "last-line-removed-no-final-newline": (
        b"import torch\nx = Variable(t)\nfrom torch.autograd import Variable",
        b"import torch\nx = t.detach()",
    ),
    "last-line-removed-final-newline": (
        b"import torch\nx = Variable(t)\nfrom torch.autograd import Variable\n",
        b"import torch\nx = t.detach()\n",
    ),
}


@pytest.mark.parametrize("name", sorted(KEEPS))
def test_fix_keeps_encoding_line_endings_and_final_newline(run_cli, tmp_path, name):
    raw, expected = KEEPS[name]
    path = write(tmp_path / "a.py", raw)
    every_migration = ("--unsafe-fixes", "--extend-select", "GL3")  # `.data` is off by default
    result = run_cli("fix", *every_migration, "a.py")
    assert error_lines(result.output) == [], result.output
    assert path.read_bytes() == expected
    again = run_cli("fix", *every_migration, "a.py")
    assert again.output.startswith("Fixed 0 errors") and path.read_bytes() == expected


def test_diff_of_a_non_utf8_file_shows_its_real_characters(run_cli, tmp_path):
    write(tmp_path / "a.py", KEEPS["latin-1-in-fixed-line"][0])
    result = run_cli("fix", "--diff", "a.py")
    assert "+x = t.detach()  # caf\xe9" in result.output


def test_fix_keeps_mode_and_owner(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    path.chmod(0o640)
    owner = (path.stat().st_uid, path.stat().st_gid)
    if os.geteuid() == 0:
        owner = (4321, 4322)
        os.chown(path, *owner)
    assert run_cli("fix", "a.py").exit_code == 0
    info = path.stat()
    assert path.read_text() == MIGRATED
    assert stat.S_IMODE(info.st_mode) == 0o640
    assert (info.st_uid, info.st_gid) == owner


@pytest.mark.parametrize("mode", [0o444, 0o400])
def test_a_read_only_file_is_reported_and_left_alone(run_cli, tmp_path, mode):
    """Read-only for everyone, even for root, whom the permission bits do not stop."""
    path = write(tmp_path / "a.py", LEGACY)
    other = write(tmp_path / "b.py", LEGACY)
    path.chmod(mode)
    result = run_cli("fix", ".")
    assert error_lines(result.output) == ["gradlint: error: a.py: read-only; not overwritten"]
    assert path.read_text() == LEGACY and stat.S_IMODE(path.stat().st_mode) == mode
    assert other.read_text() == MIGRATED
    assert result.exit_code == 2


def test_the_summary_counts_only_the_fixes_written(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    write(tmp_path / "b.py", LEGACY)
    path.chmod(0o444)
    result = run_cli("fix", "--output-format", "concise", ".")
    assert "Fixed 2 errors, 2 remaining" in result.stdout  # b.py's two; a.py keeps its two
    assert "1 in files that could not be written" in result.stdout and "blocked by other edits" not in result.stdout
    remaining = [line for line in result.stdout.splitlines() if line.startswith("a.py:")]
    assert [line.split()[1] for line in remaining] == ["GL101", "GL103"]


def test_a_hard_linked_file_is_rewritten_in_place_for_every_name(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    twin = tmp_path / "elsewhere" / "same.txt"
    twin.parent.mkdir()
    os.link(path, twin)
    inode = path.stat().st_ino
    assert run_cli("fix", "a.py").exit_code == 0
    assert path.read_text() == twin.read_text() == MIGRATED
    assert path.stat().st_ino == twin.stat().st_ino == inode and path.stat().st_nlink == 2
    assert leftovers(tmp_path) == []


def test_a_failed_write_of_a_hard_linked_file_puts_the_original_back(run_cli, tmp_path, monkeypatch):
    path = write(tmp_path / "a.py", LEGACY)
    os.link(path, tmp_path / "twin.py.orig")
    real = os.fsync
    calls = []

    def full_disk(descriptor):
        calls.append(descriptor)
        if len(calls) == 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(descriptor)

    monkeypatch.setattr(files.os, "fsync", full_disk)
    result = run_cli("fix", "a.py")
    assert error_lines(result.output) == ["gradlint: error: a.py: could not write: no space left on device"]
    assert path.read_text() == (tmp_path / "twin.py.orig").read_text() == LEGACY
    assert result.exit_code == 2


# ---------------------------------------------------------------------------------------------
# A file that changes on disk while it is being fixed is left alone and reported.


def test_file_changed_between_reading_and_writing(run_cli, tmp_path, monkeypatch):
    real = runner.fix_source

    def meanwhile(raw, name, *args, **kwargs):
        fixed = real(raw, name, *args, **kwargs)
        if name.endswith("edited.py"):
            Path(name).write_text("# saved by the editor meanwhile\n")
        return fixed

    monkeypatch.setattr(runner, "fix_source", meanwhile)
    edited = write(tmp_path / "edited.py", LEGACY)
    other = write(tmp_path / "other.py", LEGACY)
    result = run_cli("fix", ".")
    assert error_lines(result.output) == ["gradlint: error: edited.py: changed on disk since it was read; not overwritten"]
    assert "Traceback" not in result.output
    assert edited.read_text() == "# saved by the editor meanwhile\n"
    assert other.read_text() == MIGRATED
    assert result.exit_code == 2


def test_file_changed_while_the_new_content_is_being_written(run_cli, tmp_path, monkeypatch):
    path = write(tmp_path / "a.py", LEGACY)
    real = os.fsync

    def slow_disk(descriptor):
        real(descriptor)
        path.write_text("# saved by the editor meanwhile\n")  # during the temporary file's write

    monkeypatch.setattr(files.os, "fsync", slow_disk)
    result = run_cli("fix", "a.py")
    assert error_lines(result.output) == ["gradlint: error: a.py: changed on disk since it was read; not overwritten"]
    assert path.read_text() == "# saved by the editor meanwhile\n"
    assert leftovers(tmp_path) == []
    assert result.exit_code == 2


def test_file_deleted_between_reading_and_writing(run_cli, tmp_path, monkeypatch):
    real = runner.fix_source

    def meanwhile(raw, name, *args, **kwargs):
        fixed = real(raw, name, *args, **kwargs)
        Path(name).unlink()
        return fixed

    monkeypatch.setattr(runner, "fix_source", meanwhile)
    write(tmp_path / "a.py", LEGACY)
    result = run_cli("fix", "a.py")
    assert error_lines(result.output) == [
        "gradlint: error: a.py: not overwritten: no such file or directory (deleted, or a broken symbolic link?)"
    ]
    assert not (tmp_path / "a.py").exists() and leftovers(tmp_path) == []
    assert result.exit_code == 2


# ---------------------------------------------------------------------------------------------
# Overlapping fixes: one per round, at most fixer.MAX_ROUNDS rounds per run.


def test_overlapping_fixes_are_applied_in_bounded_rounds(run_cli, tmp_path):
    depth = fixer.MAX_ROUNDS + 5
    path = write(tmp_path / "a.py", "from torch.autograd import Variable\nx = " + "Variable(" * depth + "t" + ")" * depth + "\n")
    first = run_cli("fix", "--output-format", "concise", "a.py")
    assert first.exit_code == 1
    assert f"Fixed {fixer.MAX_ROUNDS} errors, 5 remaining:" in first.output
    assert "5 blocked by other edits: run `gradlint fix` again" in first.output
    text = path.read_text()
    ast.parse(text)
    assert text.count("Variable(") == 5 and "from torch.autograd import Variable" in text
    second = run_cli("fix", "a.py")
    assert second.exit_code == 0 and "5 errors, 0 remaining" in second.output
    assert path.read_text() == "x = t.detach()\n"  # an unwrapped `Variable(...)` needs no second detach
    assert run_cli("fix", "a.py").output.startswith("Fixed 0 errors")


# ---------------------------------------------------------------------------------------------
# Layout: a rewritten expression that spans lines keeps the indentation of its continuation lines.


def test_a_replaced_expression_keeps_its_continuation_lines_where_they_were(run_cli, tmp_path):
    """LibCST writes a line broken inside brackets relative to its block: rendered out of place,
    `criterion(output,\n            target).data[0]` came back with its second line at 4 spaces."""
    path = write(
        tmp_path / "a.py",
        "import torch\n\n\ndef evaluate(criterion, output, target):\n"
        "    if True:\n"
        "        total = criterion(output,\n"
        "            target).data[0]\n"
        "    return total\n",
    )
    assert run_cli("fix", "--select", "GL103", "a.py").exit_code == 0
    assert path.read_text() == (
        "import torch\n\n\ndef evaluate(criterion, output, target):\n"
        "    if True:\n"
        "        total = criterion(output,\n"
        "            target).item()\n"
        "    return total\n"
    )


# ---------------------------------------------------------------------------------------------
# Idempotence on every fixture and example; two concurrent runs equal one.


def copy_corpus(destination: Path, copies: int = 1) -> list[Path]:
    copied = []
    for copy in range(copies):
        for source in FIXTURE_BAD_FILES:
            target = destination / f"set{copy}" / f"{source.parent.name}.py"
            target.parent.mkdir(parents=True, exist_ok=True)
            copied.append(Path(shutil.copyfile(source, target)))
        for source in EXAMPLES:
            target = destination / f"set{copy}" / "examples" / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            copied.append(Path(shutil.copyfile(source, target)))
    return copied


def snapshot(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*.py"))}


def test_the_corpus_covers_every_fixable_fixture():
    assert len(FIXTURE_BAD_FILES) == len(list((ROOT / "fixtures").glob("GL*/bad.py"))) - 2
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("options", [(), ("--unsafe-fixes",)], ids=["safe", "unsafe"])
def test_second_fix_changes_nothing(run_cli, tmp_path, options):
    copied = copy_corpus(tmp_path / "tree")
    original = snapshot(tmp_path / "tree")
    first = run_cli("fix", "--no-cache", *options, "tree")
    assert error_lines(first.output) == [] and "Traceback" not in first.output
    fixed = snapshot(tmp_path / "tree")
    assert fixed != original
    for path in copied:
        ast.parse(path.read_bytes(), str(path))
    second = run_cli("fix", "--no-cache", *options, "tree")
    assert "Fixed 0 errors" in second.output, second.output
    assert snapshot(tmp_path / "tree") == fixed
    assert run_cli("fix", "--diff", *options, "tree").exit_code in (0, 1)
    assert snapshot(tmp_path / "tree") == fixed


def gradlint_process(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gradlint", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "NO_COLOR": "1"},
    )


def test_two_concurrent_fix_runs_and_a_check_give_the_single_run_result(tmp_path):
    copy_corpus(tmp_path / "single", copies=2)
    copy_corpus(tmp_path / "shared", copies=2)
    assert len(snapshot(tmp_path / "shared")) >= 40
    arguments = ("fix", "--no-cache", "--unsafe-fixes", "-q", ".")
    reference = gradlint_process(*arguments, cwd=tmp_path / "single")
    reference.communicate(timeout=300)
    expected = snapshot(tmp_path / "single")

    cache = str(tmp_path / "cache")
    runs = [gradlint_process(*arguments, cwd=tmp_path / "shared") for _ in range(2)]
    check = gradlint_process("check", "--cache-dir", cache, "--output-format", "concise", ".", cwd=tmp_path / "shared")
    outputs = [run.communicate(timeout=300) for run in runs]
    for run, (stdout, stderr) in zip(runs, outputs):
        text = stdout.decode() + stderr.decode()
        assert "Traceback" not in text
        for line in error_lines(text):
            assert line.endswith(("changed on disk since it was read; not overwritten", "could not be written")), line
        assert run.returncode in (0, 1, 2)
    stdout, stderr = check.communicate(timeout=300)
    assert "Traceback" not in stderr.decode() and error_lines(stderr.decode()) == []
    assert check.returncode in (0, 1) and stdout.decode().count(": GL") > 0  # old or new files: findings either way
    result = snapshot(tmp_path / "shared")
    assert result.keys() == expected.keys()
    for name, content in result.items():
        ast.parse(content, name)
        assert content == expected[name], name
    assert leftovers(tmp_path) == []
    # The cache the check wrote while the files changed under it gives what a cold check does now.
    cold = gradlint_process("check", "--no-cache", "--output-format", "concise", ".", cwd=tmp_path / "shared").communicate(timeout=300)
    warm = gradlint_process("check", "--cache-dir", cache, "--output-format", "concise", ".", cwd=tmp_path / "shared").communicate(
        timeout=300
    )
    assert warm == cold
