"""Wire settings, discovery, the engine and the fixer over many files. No analysis here."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from gradlint.config import Settings
from gradlint.discovery import discover
from gradlint.engine import lint_bytes
from gradlint.files import ChangedOnDisk, SourceReadError, read_source, write_atomic
from gradlint.fixer import fix_text
from gradlint.model import FileResult, Finding
from gradlint.source import UndecodableSource, decode_source, encode_source
from gradlint.engine import DECODE_ERROR
from gradlint.model import Location


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


def check_paths(paths: list[Path], settings: Settings) -> RunSummary:
    summary = RunSummary()
    for path in _targets(paths, settings, summary):
        summary.add(check_file(path, settings))
    summary.findings.sort(key=Finding.sort_key)
    return summary


def check_file(path: Path, settings: Settings) -> FileResult:
    try:
        raw = read_source(path)
    except SourceReadError as error:
        return FileResult(str(path), error=str(error))
    return lint_bytes(raw, str(path), settings.codes_for(relative_to_root(path, settings)))


def check_stdin(raw: bytes, name: str, settings: Settings) -> RunSummary:
    summary = RunSummary()
    codes = settings.codes_for(relative_to_root(Path(name), settings)) if name != "-" else settings.codes()
    summary.add(lint_bytes(raw, name, codes))
    return summary


def fix_paths(paths: list[Path], settings: Settings, *, diff: bool) -> RunSummary:
    summary = RunSummary()
    for path in _targets(paths, settings, summary):
        fix_file(path, settings, summary, diff=diff)
    summary.findings.sort(key=Finding.sort_key)
    return summary


def fix_file(path: Path, settings: Settings, summary: RunSummary, *, diff: bool) -> None:
    try:
        raw = read_source(path)
    except SourceReadError as error:
        summary.errors.append((str(path), str(error)))
        return
    codes = settings.codes_for(relative_to_root(path, settings))
    fixed = fix_bytes(raw, str(path), codes, settings.unsafe_fixes, summary)
    if fixed is None or fixed == raw:
        return
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
