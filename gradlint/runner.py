"""Wire settings, discovery, the engine and the fixer over many files. No analysis here."""

from __future__ import annotations

import difflib
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, TypeVar

from gradlint.cache import CACHE_DIR_NAME, ResultCache, entry_digest
from gradlint.config import Settings
from gradlint.discovery import discover
from gradlint.engine import lint_bytes
from gradlint.files import ChangedOnDisk, SourceReadError, read_source, write_atomic
from gradlint.fixer import fix_text
from gradlint.model import FileResult, Finding
from gradlint.source import UndecodableSource, decode_source, encode_source
from gradlint.engine import DECODE_ERROR
from gradlint.model import Location


MIN_FILES_PER_WORKER = 8
T = TypeVar("T")
R = TypeVar("R")


@dataclass
class RunSummary:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason)
    fixed: int = 0
    diffs: list[str] = field(default_factory=list)
    changed_files: int = 0

    def add(self, result: FileResult) -> None:
        self.findings.extend(result.findings)
        if result.error is not None:
            self.errors.append((result.path, result.error))


def relative_to_root(path: Path, settings: Settings) -> str:
    try:
        return path.resolve().relative_to(settings.root).as_posix()
    except ValueError:
        return path.as_posix()


def _targets(paths: list[Path], settings: Settings, summary: RunSummary) -> list[Path]:
    found = discover(paths, settings)
    summary.errors.extend(found.errors)
    return found.files


def check_paths(paths: list[Path], settings: Settings, *, jobs: int = 0, use_cache: bool = True) -> RunSummary:
    """Check every discovered file: cached results first, the rest in a process pool (`jobs` 0 = all cores)."""
    summary = RunSummary()
    cache = ResultCache(cache_directory(settings)) if use_cache else None
    results: dict[int, FileResult] = {}
    pending: list[tuple[int, str, bytes, frozenset[str], str]] = []
    for index, path in enumerate(_targets(paths, settings, summary)):
        try:
            raw = read_source(path)
        except SourceReadError as error:
            results[index] = FileResult(str(path), error=str(error))
            continue
        codes = settings.codes_for(relative_to_root(path, settings))
        digest = entry_digest(raw, codes)
        cached = cache.get(str(path), digest) if cache is not None else None
        if cached is not None:
            results[index] = cached
        else:
            pending.append((index, str(path), raw, codes, digest))
    for (index, name, _, _, digest), result in zip(pending, lint_many([(name, raw, codes) for _, name, raw, codes, _ in pending], jobs)):
        results[index] = result
        if cache is not None:
            cache.put(name, digest, result)
    for index in sorted(results):
        summary.add(results[index])
    if cache is not None:
        cache.save()
    summary.findings.sort(key=Finding.sort_key)
    return summary


def cache_directory(settings: Settings) -> Path:
    return settings.root / (settings.cache_dir or CACHE_DIR_NAME)


def worker_count(jobs: int) -> int:
    return jobs if jobs > 0 else (os.cpu_count() or 1)


def lint_many(work: list[tuple[str, bytes, frozenset[str]]], jobs: int) -> list[FileResult]:
    """Lint (name, raw, codes) items, in order."""
    return map_in_pool(_lint_item, work, jobs)


def map_in_pool(function: Callable[[T], R], work: list[T], jobs: int) -> list[R]:
    """`[function(item) for item in work]`, in a process pool when there is enough work to pay for it."""
    workers = min(worker_count(jobs), len(work) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        return [function(item) for item in work]
    chunk = max(1, len(work) // (workers * 8))
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(function, work, chunksize=chunk))
    except (OSError, BrokenProcessPool):
        return [function(item) for item in work]  # no processes available here: stay correct


def _lint_item(item: tuple[str, bytes, frozenset[str]]) -> FileResult:
    name, raw, codes = item
    return lint_bytes(raw, name, codes)


def check_stdin(raw: bytes, name: str, settings: Settings) -> RunSummary:
    summary = RunSummary()
    codes = settings.codes_for(relative_to_root(Path(name), settings)) if name != "-" else settings.codes()
    summary.add(lint_bytes(raw, name, codes))
    return summary


def fix_paths(paths: list[Path], settings: Settings, *, diff: bool, jobs: int = 0) -> RunSummary:
    """Compute fixes in a process pool, then write (or diff) them here, one file at a time."""
    summary = RunSummary()
    work: list[tuple[Path, bytes, frozenset[str], bool]] = []
    for path in _targets(paths, settings, summary):
        try:
            raw = read_source(path)
        except SourceReadError as error:
            summary.errors.append((str(path), str(error)))
            continue
        work.append((path, raw, settings.codes_for(relative_to_root(path, settings)), settings.unsafe_fixes))
    for (path, raw, _, _), (fixed, partial) in zip(work, map_in_pool(_fix_item, work, jobs)):
        summary.findings.extend(partial.findings)
        summary.errors.extend(partial.errors)
        summary.fixed += partial.fixed
        if fixed is not None and fixed != raw:
            _write_fixed(path, raw, fixed, summary, diff=diff)
    summary.findings.sort(key=Finding.sort_key)
    return summary


def _fix_item(item: tuple[Path, bytes, frozenset[str], bool]) -> tuple[Optional[bytes], RunSummary]:
    path, raw, codes, unsafe = item
    partial = RunSummary()
    return fix_bytes(raw, str(path), codes, unsafe, partial), partial


def _write_fixed(path: Path, raw: bytes, fixed: bytes, summary: RunSummary, *, diff: bool) -> None:
    summary.changed_files += 1
    if diff:
        summary.diffs.append(unified_diff(raw, fixed, str(path)))
        return
    try:
        write_atomic(path, fixed, raw)
    except (ChangedOnDisk, SourceReadError) as error:
        summary.errors.append((str(path), str(error)))
    except OSError as error:
        summary.errors.append((str(path), f"could not write: {error.strerror or error}"))


def fix_bytes(raw: bytes, name: str, codes: frozenset[str], unsafe: bool, summary: RunSummary) -> Optional[bytes]:
    """The fixed bytes (same encoding and BOM), or None when nothing could be done."""
    try:
        text, encoding = decode_source(raw)
    except UndecodableSource as error:
        if DECODE_ERROR in codes:
            at = Location(1, 1)
            summary.findings.append(Finding(DECODE_ERROR, f"could not decode: {error}", name, at, at, None, 1))
        return None
    result = fix_text(text, name, codes, unsafe=unsafe)
    summary.findings.extend(result.remaining)
    if result.error is not None:
        summary.errors.append((name, result.error))
        return None
    summary.fixed += result.applied
    if result.text == text:
        return raw
    try:
        return encode_source(result.text, encoding)
    except UnicodeEncodeError:
        summary.errors.append((name, f"fixed text cannot be encoded as {encoding}; file left unchanged"))
        return None


def unified_diff(before: bytes, after: bytes, name: str) -> str:
    old = before.decode("utf-8", errors="replace").splitlines(keepends=True)
    new = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"))
