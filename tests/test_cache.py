"""The result cache is an optimisation: whatever its file holds, a check gives the uncached answer."""

from __future__ import annotations

import errno
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gradlint.cache import ResultCache
from gradlint.model import FileResult
from support import write

LEGACY = "import torch\nx = torch.autograd.Variable(torch.ones(1))\n"


def pack(directory: Path) -> Path:
    (found,) = (directory / ".gradlint_cache").glob("results-*.json")
    return found


@pytest.mark.parametrize("depth", [985, 100_000])
def test_a_deeply_nested_cache_file_is_ignored_and_rebuilt(run_cli, tmp_path, depth):
    write(tmp_path / "a.py", LEGACY)
    expected = run_cli("check", "a.py")
    path = pack(tmp_path)
    path.write_text('{"a.py": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    for _ in range(2):
        result = run_cli("check", "a.py")
        assert (result.exit_code, result.output) == (expected.exit_code, expected.output)
    (entry,) = json.loads(path.read_text(encoding="utf-8"))  # rebuilt: the file's result alone
    assert Path(entry).name == "a.py"


def test_an_entry_too_deep_to_write_back_is_dropped_and_the_new_results_are_kept(tmp_path, monkeypatch):
    cache = ResultCache(tmp_path)
    cache.entries["old.py"] = {"digest": "0", "result": {}}
    real_dumps = json.dumps

    def shallow_dumps(value, **options):
        if "old.py" in value:
            raise RecursionError("maximum recursion depth exceeded while encoding a JSON object")
        return real_dumps(value, **options)

    monkeypatch.setattr(json, "dumps", shallow_dumps)
    cache.put("new.py", "1", FileResult("new.py", [], None))
    cache.save()
    assert set(json.loads(cache.pack.read_text(encoding="utf-8"))) == {"new.py"}


# -- a damaged pack or entry: ignored, rebuilt, and with `-v` one line says why --------------------

OTHER = "import torch\nloss = torch.ones(1).sum()\ntotal = loss.data[0]\n"


def first_entry(text: str, change) -> str:
    entries = json.loads(text)
    path = sorted(entries)[0]
    entries[path] = change(entries[path])
    return json.dumps(entries)


def with_findings(entry, findings):
    entry["result"]["findings"] = findings
    return entry


DAMAGES = {
    "truncated": (lambda text: text[: len(text) // 2], "cache ignored: not valid JSON (truncated or corrupted); rebuilt"),
    "garbage bytes": (lambda text: random.Random(3).randbytes(400), "cache ignored: not valid JSON (truncated or corrupted); rebuilt"),
    "a list": (lambda text: json.dumps([json.loads(text)]), "cache ignored: a JSON list, not the object of a results cache; rebuilt"),
    "not an entry": (lambda text: first_entry(text, lambda entry: [entry]), "1 cache entry ignored (1 not an entry); rebuilt"),
    "another build": (
        lambda text: first_entry(text, lambda entry: {**entry, "build": "0123456789abcdef"}),
        "1 cache entry ignored (1 written by another gradlint build); rebuilt",
    ),
    "damaged findings": (
        lambda text: first_entry(text, lambda entry: with_findings(entry, [{"code": "GL101", "location": [1]}])),
        "1 cache entry ignored (1 with damaged results); rebuilt",
    ),
    "findings not a list": (
        lambda text: first_entry(text, lambda entry: with_findings(entry, 7)),
        "1 cache entry ignored (1 with damaged results); rebuilt",
    ),
}


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_cache_is_ignored_rebuilt_and_said_so_with_verbose(run_cli, tmp_path, damage):
    change, said = DAMAGES[damage]
    write(tmp_path / "a.py", LEGACY)
    write(tmp_path / "b.py", OTHER)
    cold = run_cli("check", "--no-cache", ".")
    assert cold.exit_code == 1 and "GL101" in cold.stdout and "GL103" in cold.stdout
    run_cli("check", ".")
    path = pack(tmp_path)
    damaged = change(path.read_text(encoding="utf-8"))
    if isinstance(damaged, bytes):
        path.write_bytes(damaged)
    else:
        path.write_text(damaged, encoding="utf-8")
    quiet = run_cli("check", ".")
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (cold.exit_code, cold.stdout, "")  # without -v: nothing to see
    path.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
    verbose = run_cli("check", "-v", ".")
    assert (verbose.exit_code, verbose.stdout) == (cold.exit_code, cold.stdout)
    assert [line for line in verbose.stderr.splitlines() if "ignored" in line] == [
        f"gradlint: {Path('.gradlint_cache') / path.name}: {said}"
    ]
    assert len(json.loads(path.read_text(encoding="utf-8"))) == 2  # rebuilt
    again = run_cli("check", "-v", ".")
    assert (again.exit_code, again.stdout) == (cold.exit_code, cold.stdout)
    assert [line for line in again.stderr.splitlines() if "checked" in line or "ignored" in line] == [
        f"gradlint: {name}: checked (cached result)" for name in ("a.py", "b.py")
    ]


# -- a cache that cannot be written: the run goes on without it, with one warning ------------------


def a_regular_file(directory: Path, monkeypatch) -> str:
    write(directory, "not a directory\n")
    return "not a directory"


def a_read_only_directory(directory: Path, monkeypatch) -> str:
    directory.mkdir()
    directory.chmod(0o500)
    if os.geteuid() == 0:  # root writes whatever the mode says: the system's refusal, as others get it

        def refuse(*args, **kwargs):
            raise PermissionError(errno.EACCES, "Permission denied")

        monkeypatch.setattr(tempfile, "mkstemp", refuse)
    return "permission denied"


@pytest.mark.parametrize("unwritable", [a_regular_file, a_read_only_directory], ids=lambda f: f.__name__)
def test_an_unwritable_cache_leaves_the_run_uncached_with_one_warning(run_cli, tmp_path, monkeypatch, unwritable):
    write(tmp_path / "a.py", LEGACY)
    write(tmp_path / "b.py", OTHER)
    cold = run_cli("check", "--no-cache", ".")
    reason = unwritable(tmp_path / "cache", monkeypatch)
    try:
        for _ in range(2):
            result = run_cli("check", "--cache-dir", "cache", ".")
            assert (result.exit_code, result.stdout) == (cold.exit_code, cold.stdout)
            assert result.stderr.splitlines() == [f"gradlint: warning: cache: cache not written ({reason}); the results are not cached"]
    finally:
        if (tmp_path / "cache").is_dir():
            (tmp_path / "cache").chmod(0o700)
    assert not list(tmp_path.rglob("*.tmp"))


# -- two runs sharing one cache directory at once -------------------------------------------------


def test_two_runs_sharing_one_cache_directory_at_once_are_both_right_and_leave_it_valid(tmp_path):
    for copy in range(20):
        write(tmp_path / "tree" / f"a{copy}.py", LEGACY + f"y{copy} = {copy}\n")
        write(tmp_path / "tree" / f"b{copy}.py", OTHER)
    command = [sys.executable, "-m", "gradlint", "check", "--output-format", "concise", "."]

    def start(*options: str) -> subprocess.Popen:
        return subprocess.Popen(
            [*command[:4], *options, *command[4:]], cwd=tmp_path / "tree", stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )

    cold = start("--no-cache").communicate(timeout=300)
    runs = [start("--cache-dir", str(tmp_path / "shared")) for _ in range(2)]
    for run, (stdout, stderr) in zip(runs, [run.communicate(timeout=300) for run in runs]):
        assert (run.returncode, stdout, stderr) == (1, cold[0], b"")
    (found,) = (tmp_path / "shared").glob("results-*.json")
    assert len(json.loads(found.read_text(encoding="utf-8"))) == 40
    warm = start("--cache-dir", str(tmp_path / "shared"), "-v").communicate(timeout=300)
    assert warm[0] == cold[0]
    assert warm[1].decode().count("checked (cached result)") == 40 and "cache ignored" not in warm[1].decode()
    assert not list(tmp_path.rglob("*.tmp"))
