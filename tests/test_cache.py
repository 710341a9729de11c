"""The result cache is an optimisation: whatever its file holds, a check gives the uncached answer."""

from __future__ import annotations

import json
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
