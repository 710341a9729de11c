"""Wire settings, discovery, the cache and the process pool over many files; write the fixes.

What happens to one file is `pipeline.check_source` / `pipeline.fix_source`."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gradlint.cache import CACHE_DIR_NAME, ResultCache, entry_digest
from gradlint.config import Settings
from gradlint.discovery import discover, is_excluded
from gradlint.files import ChangedOnDisk, SourceReadError, describe_os_error, read_source, write_atomic
from gradlint.model import Finding
from gradlint.pipeline import MAX_FILE_BYTES, Source, SourceResult, check_source, fix_source, over_size_limit
from gradlint.pool import Progress, map_in_pool
from gradlint.source import UndecodableSource, decode_source


@dataclass
class RunSummary:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason); exit code unchanged
    fixed: int = 0
    diffs: list[str] = field(default_factory=list)
    changed_files: int = 0

    def add(self, result: SourceResult) -> None:
        self.findings.extend(result.findings)
        if result.error is not None:
            self.errors.append((result.path, result.error))
        if result.warning is not None:
            self.warnings.append((result.path, result.warning))
        self.fixed += result.applied


@dataclass(frozen=True)
class WorkItem:
    """One file's work, as sent to a pool worker."""

    name: str
    raw: bytes
    codes: frozenset[str]
    max_bytes: int
    unsafe: bool = False  # fix only


def work_item(path: Path, raw: bytes, settings: Settings, max_bytes: int) -> WorkItem:
    """The work for one file of `check_paths` or `fix_paths`."""
    return WorkItem(str(path), raw, settings.codes_for(relative_to_root(path, settings)), max_bytes, settings.unsafe_fixes)


def relative_to_root(path: Path, settings: Settings) -> str:
    try:
        return path.resolve().relative_to(settings.root).as_posix()
    except ValueError:
        return path.as_posix()


def _targets(paths: list[Path], settings: Settings, summary: RunSummary) -> list[Path]:
    found = discover(paths, settings)
    summary.errors.extend(found.errors)
    return found.files


def check_paths(
    paths: list[Path],
    settings: Settings,
    *,
    jobs: int = 0,
    use_cache: bool = True,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Optional[Progress] = None,
) -> RunSummary:
    """Check every discovered file: cached results first, the rest in a process pool (`jobs` 0 = all cores)."""
    summary = RunSummary()
    cache = ResultCache(cache_directory(settings)) if use_cache else None
    results: dict[int, SourceResult] = {}
    pending: list[tuple[int, WorkItem, Optional[str]]] = []  # (index, work, cache digest)
    for index, path in enumerate(_targets(paths, settings, summary)):
        try:
            raw = read_source(path)
        except SourceReadError as error:
            results[index] = SourceResult(str(path), error=str(error))
            continue
        item = work_item(path, raw, settings, max_bytes)
        # Over the size limit, the result depends on the limit: never looked up (nor stored).
        digest = entry_digest(raw, item.codes) if cache is not None and not over_size_limit(len(raw), max_bytes) else None
        cached = cache.get(item.name, digest) if digest is not None else None
        if cached is not None:
            results[index] = SourceResult(cached.path, cached.findings, cached.error)
        else:
            pending.append((index, item, digest))
    for (index, item, digest), result in zip(pending, map_in_pool(_check_item, [item for _, item, _ in pending], jobs, progress)):
        results[index] = result
        if digest is not None and result.cacheable:
            cache.put(item.name, digest, result)
    for index in sorted(results):
        summary.add(results[index])
    if cache is not None:
        cache.save()
    summary.findings.sort(key=Finding.sort_key)
    return summary


def cache_directory(settings: Settings) -> Path:
    return settings.root / (settings.cache_dir or CACHE_DIR_NAME)


def _check_item(item: WorkItem) -> SourceResult:
    return check_source(item.raw, item.name, item.codes, max_bytes=item.max_bytes)


def _fix_item(item: WorkItem) -> SourceResult:
    return fix_source(item.raw, item.name, item.codes, unsafe=item.unsafe, max_bytes=item.max_bytes)


def stdin_is_excluded(name: str, settings: Settings) -> bool:
    """`--force-exclude` applies to the name given with `--stdin-filename` too."""
    return settings.force_exclude and name != "-" and is_excluded(Path(name), settings)


def stdin_codes(name: str, settings: Settings) -> frozenset[str]:
    """The rules for source read from stdin: per-file-ignores apply to its `--stdin-filename`."""
    return settings.codes_for(relative_to_root(Path(name), settings)) if name != "-" else settings.codes()


def check_stdin(source: Source, name: str, settings: Settings, *, max_bytes: int = MAX_FILE_BYTES) -> RunSummary:
    """Check source that is not read from a file (stdin, an editor's buffer) as if it were `name`."""
    summary = RunSummary()
    if not stdin_is_excluded(name, settings):
        summary.add(check_source(source, name, stdin_codes(name, settings), max_bytes=max_bytes))
    return summary


def fix_stdin(source: Source, name: str, settings: Settings, *, unsafe: bool, max_bytes: int = MAX_FILE_BYTES) -> SourceResult:
    """Fix source that is not read from a file as if it were `name`; `fixed` is None when excluded."""
    if stdin_is_excluded(name, settings):
        return SourceResult(name)
    return fix_source(source, name, stdin_codes(name, settings), unsafe=unsafe, max_bytes=max_bytes)


def fix_paths(
    paths: list[Path],
    settings: Settings,
    *,
    diff: bool,
    jobs: int = 0,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Optional[Progress] = None,
) -> RunSummary:
    """Compute fixes in a process pool, then write (or diff) them here, one file at a time."""
    summary = RunSummary()
    work: list[WorkItem] = []
    targets: list[Path] = []
    seen: set[str] = set()
    for path in _targets(paths, settings, summary):
        real = os.path.realpath(path)
        if real in seen:
            continue  # the same file by another name (a symbolic link): fix it once
        seen.add(real)
        try:
            raw = read_source(path)
        except SourceReadError as error:
            summary.errors.append((str(path), str(error)))
            continue
        targets.append(path)
        work.append(work_item(path, raw, settings, max_bytes))
    for path, item, result in zip(targets, work, map_in_pool(_fix_item, work, jobs, progress)):
        summary.add(result)
        if result.fixed is not None and result.fixed != item.raw:
            _write_fixed(path, item.raw, result.fixed, summary, diff=diff)
    summary.findings.sort(key=Finding.sort_key)
    return summary


def _write_fixed(path: Path, raw: bytes, fixed: bytes, summary: RunSummary, *, diff: bool) -> None:
    summary.changed_files += 1
    if diff:
        summary.diffs.append(unified_diff(raw, fixed, str(path)))
        return
    try:
        write_atomic(path, fixed, raw)
    except ChangedOnDisk as error:
        summary.errors.append((str(path), str(error)))
    except SourceReadError as error:
        summary.errors.append((str(path), f"not overwritten: {error}"))
    except OSError as error:
        summary.errors.append((str(path), f"could not write: {describe_os_error(error)}"))


def unified_diff(before: bytes, after: bytes, name: str) -> str:
    old = _text_for_diff(before).splitlines(keepends=True)
    new = _text_for_diff(after).splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"))


def _text_for_diff(raw: bytes) -> str:
    try:
        return decode_source(raw)[0]
    except UndecodableSource:
        return raw.decode("utf-8", errors="replace")
