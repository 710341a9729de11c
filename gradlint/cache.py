"""Result cache: a file whose content, selected codes and gradlint build are unchanged is not re-checked.

One JSON pack per project root (`<cache-dir>/results-<build>.json`), mapping each path to the
digest it was checked under and its serialized result. The build fingerprint covers the version and
the size and modification time of every module of the package, so an edited rule invalidates
everything. A missing, corrupt, partial or too deeply nested pack is treated as empty and rewritten
atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping, Optional

import gradlint
from gradlint.files import describe_os_error, remove_stale_temporaries
from gradlint.fix.plan import Applicability
from gradlint.model import Edit, FileResult, Finding, Fix, Location

CACHE_DIR_NAME = ".gradlint_cache"
FORMAT = 2  # 2: a fix keeps the torch release it needs
# The first line of the .gitignore that marks a directory as a cache gradlint made.
MARKER = "# Automatically created by gradlint."


@lru_cache(maxsize=1)
def build_fingerprint() -> str:
    """The version plus a stat of every module of the package (editable installs change in place)."""
    package = Path(gradlint.__file__).parent
    stamp = hashlib.sha256(f"{gradlint.__version__}:{FORMAT}".encode())
    for module in sorted(package.rglob("*.py")):
        info = module.stat()
        stamp.update(f"{module.relative_to(package)}:{info.st_size}:{info.st_mtime_ns}".encode())
    return stamp.hexdigest()[:16]


def content_digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def entry_digest(content: str, codes: frozenset[str], project_key: str = "", options: str = "") -> str:
    """`content`: the file's `content_digest`; `project_key`: the digest of the facts the file uses
    from other files (editing `model.py` must re-check the files that import names from it);
    `options`: the command-line options that change findings (`--ignore-noqa`)."""
    return hashlib.sha256(f"{content}\0{','.join(sorted(codes))}\0{project_key}\0{options}".encode()).hexdigest()


class ResultCache:
    """The results of one project root. Whatever the pack holds, a run gives the uncached answer:
    a pack that cannot be used (not JSON, another shape) is treated as empty, an entry that cannot
    be used (another shape, another gradlint build, damaged findings) as a miss, and `ignored`
    says why; both are rebuilt. A pack that cannot be written leaves the run uncached, and
    `unwritable` says why."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.pack = directory / f"results-{build_fingerprint()}.json"
        self._ignored_pack: Optional[str] = None  # why the whole pack was not used
        self._ignored_entries: dict[str, int] = {}  # why entries were not used -> how many
        self.entries: dict[str, Any] = self._load()
        self.fresh: set[str] = set()  # the paths put by this run
        self.dirty = False
        self.unwritable: Optional[str] = None  # after `save`: why the pack could not be written

    def _load(self) -> dict[str, Any]:
        try:
            raw = self.pack.read_bytes()
        except OSError:
            return {}  # none yet (or no directory): nothing to say
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            self._ignored_pack = "not valid JSON (truncated or corrupted)"
            return {}
        except RecursionError:  # the decoder recurses per level of nesting
            self._ignored_pack = "nested too deeply"
            return {}
        if not isinstance(data, dict):
            self._ignored_pack = f"a JSON {type(data).__name__}, not the object of a results cache"
            return {}
        return data

    @property
    def ignored(self) -> Optional[str]:
        """Why this run did not use the pack, or some of its entries, in one line; None if it did."""
        if self._ignored_pack is not None:
            return f"cache ignored: {self._ignored_pack}; rebuilt"
        if not self._ignored_entries:
            return None
        count = sum(self._ignored_entries.values())
        reasons = ", ".join(f"{count} {reason}" for reason, count in sorted(self._ignored_entries.items()))
        return f"{count} cache {'entry' if count == 1 else 'entries'} ignored ({reasons}); rebuilt"

    def _ignore(self, reason: str) -> None:
        self._ignored_entries[reason] = self._ignored_entries.get(reason, 0) + 1

    def get(self, path: str, digest: str) -> Optional[FileResult]:
        entry = self.entries.get(path)
        if entry is None:
            return None
        if not isinstance(entry, dict):
            self._ignore("not an entry")
            return None
        if entry.get("digest") != digest:
            return None  # the file, its settings or what it imports changed: a plain miss
        if entry.get("build") != build_fingerprint():
            self._ignore("written by another gradlint build")
            return None
        try:
            return _result_from_json(path, entry["result"])
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError):
            self._ignore("with damaged results")
            return None

    def put(
        self, path: str, digest: str, result: FileResult, *, run: str = "", project_key: str = "", outside: Mapping[str, str] = {}
    ) -> None:
        """`run`: the fingerprint of every file of the run, under which the file used the project
        facts `project_key` (an unchanged run need not rebuild the project index); `outside`: the
        content digests of the modules outside the run those facts may come from."""
        if result.error is not None and result.error.startswith(("could not read", "internal error")):
            return  # transient or unexpected: always retry
        self.entries[path] = {
            "digest": digest,
            "build": build_fingerprint(),
            "result": _result_to_json(result),
            "run": run,
            "project": project_key,
            "outside": dict(outside),
        }
        self.fresh.add(path)
        self.dirty = True

    def project_key(self, path: str, run: str, unchanged: Callable[[dict[str, str]], bool]) -> Optional[tuple[str, dict[str, str]]]:
        """The project facts key `path` was checked with and the outside modules it came from, if
        that was in a run of the same files and those modules are `unchanged`."""
        entry = self.entries.get(path)
        if not isinstance(entry, dict) or entry.get("run") != run or not isinstance(entry.get("project"), str):
            return None
        outside = entry.get("outside", {})
        if not isinstance(outside, dict) or not unchanged(outside):
            return None
        return entry["project"], outside

    def save(self) -> None:
        """Write the pack (atomically: a concurrent run reads the old pack or the new one)."""
        if not self.dirty:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text(f"{MARKER}\n*\n", encoding="utf-8")
            for stale in self.directory.glob("results-*.json"):
                if stale != self.pack:
                    stale.unlink(missing_ok=True)
            try:
                text = json.dumps(self.entries, separators=(",", ":"))
            except (RecursionError, ValueError):  # a loaded entry nested deeper than the encoder goes
                text = json.dumps({path: self.entries[path] for path in self.fresh}, separators=(",", ":"))
            _write_replacing(self.pack, text)
        except OSError as error:  # a read-only tree still gets its results, just not cached
            self.unwritable = "not a directory" if self.directory.exists() and not self.directory.is_dir() else describe_os_error(error)


def _write_replacing(pack: Path, text: str) -> None:
    remove_stale_temporaries(pack.parent, ".results-*.tmp")
    handle, temporary = tempfile.mkstemp(prefix=".results-", suffix=".tmp", dir=pack.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, pack)
    except BaseException:  # an interrupt too: no temporary file is left behind
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def is_cache_directory(directory: Path) -> bool:
    """Whether gradlint made `directory` for its cache (it holds the marked .gitignore)."""
    try:
        return (directory / ".gitignore").read_text(encoding="utf-8").startswith(MARKER)
    except (OSError, UnicodeDecodeError):
        return False


def remove_caches(top: Path, configured: Path) -> list[Path]:
    """Remove the cache directory `configured` and every `.gradlint_cache` below `top`, each only
    when gradlint made it (never a directory a mistaken `cache-dir` names); the ones removed."""
    found = []
    for directory, subdirectories, _ in os.walk(top):
        if CACHE_DIR_NAME in subdirectories:
            subdirectories.remove(CACHE_DIR_NAME)  # nothing to look for inside a cache
            found.append(Path(directory) / CACHE_DIR_NAME)
    found.append(configured)  # last: when it is one of those, it is named as found below `top`
    removed: list[Path] = []
    for directory in found:
        if is_cache_directory(directory):  # false for one already removed under another name
            shutil.rmtree(directory)
            removed.append(directory)
    return removed


def _location_to_json(location: Location) -> list[int]:
    return [location.row, location.column]


def _location(value: list[int]) -> Location:
    row, column = value
    return Location(int(row), int(column))


def _result_to_json(result: FileResult) -> dict[str, Any]:
    return {"error": result.error, "findings": [_finding_to_json(f) for f in result.findings]}


def _finding_to_json(finding: Finding) -> dict[str, Any]:
    fix = finding.fix
    return {
        "code": finding.code,
        "message": finding.message,
        "location": _location_to_json(finding.location),
        "end_location": _location_to_json(finding.end_location),
        "noqa_row": finding.noqa_row,
        "cell": finding.cell,
        "fix": None
        if fix is None
        else {
            "applicability": fix.applicability,
            "message": fix.message,
            "edits": [[e.start, e.end, e.content, _location_to_json(e.location), _location_to_json(e.end_location)] for e in fix.edits],
            # kept so that a cached result serves every `target-torch`: the runner applies it after the cache
            "needs_torch": fix.needs_torch,
        },
    }


def _result_from_json(path: str, data: dict[str, Any]) -> FileResult:
    return FileResult(path, [_finding_from_json(path, f) for f in data["findings"]], data["error"])


def _finding_from_json(path: str, data: dict[str, Any]) -> Finding:
    fix = data["fix"]
    return Finding(
        code=str(data["code"]),
        message=str(data["message"]),
        path=path,
        location=_location(data["location"]),
        end_location=_location(data["end_location"]),
        fix=None
        if fix is None
        else Fix(
            Applicability(fix["applicability"]),
            str(fix["message"]),
            tuple(Edit(int(s), int(e), str(c), _location(a), _location(b)) for s, e, c, a, b in fix["edits"]),
            None if fix.get("needs_torch") is None else str(fix["needs_torch"]),
        ),
        noqa_row=int(data["noqa_row"]),
        cell=None if data.get("cell") is None else int(data["cell"]),
    )
