"""Wire settings, discovery, the engine and the fixer over many files. No analysis here."""

from __future__ import annotations

import difflib
import hashlib
import os
import queue
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence, TypeVar

from gradlint.analysis.project import ProjectFacts, ProjectIndex
from gradlint.cache import CACHE_DIR_NAME, ResultCache, content_digest, entry_digest
from gradlint.config import Settings
from gradlint.discovery import discover, is_excluded
from gradlint.engine import DECODE_ERROR, PARSE_ERROR, lint_bytes, parse, rules_for
from gradlint.files import ChangedOnDisk, SourceReadError, describe_os_error, read_source, write_atomic
from gradlint.fixer import fix_text
from gradlint.model import FileResult, Finding, Location
from gradlint.noqa import file_is_exempt
from gradlint.source import UndecodableSource, decode_source, dominant_newline, encode_source


MIN_FILES_PER_WORKER = 8
# Files larger than this are not parsed with LibCST (a generated 5 MB file of legacy training code
# took 11 minutes and 3.3 GB to check); they are still decoded (GL002) and compiled by CPython
# (GL001), and skipped with a warning only when some selected rule could have found something in
# them. `--max-file-size` changes it (0: no limit). Never cached, so a raised limit takes effect.
MAX_FILE_BYTES = 2 * 1024 * 1024
# Analysis runs in a thread with a large stack and a higher recursion limit, so that code nested
# as deeply as CPython itself accepts (about 3,000 levels of `a + b + ...` or `x.a.b...`) is
# analysed instead of failing with RecursionError in LibCST or in a rule.
ANALYSIS_RECURSION_LIMIT = 20_000
PYTHON_RECURSION_LIMIT = 1_000  # CPython's default: what `python file.py` compiles with
ANALYSIS_STACK_BYTES = 256 * 1024 * 1024
# CPython's own nesting limits: a file over them does not compile, so it is reported as GL001
# without handing it to LibCST, which can take seconds and gigabytes on such input.
_PYTHON_NESTING_LIMITS = ("too many nested parentheses", "too many levels of indentation", "too many statically nested blocks")
Progress = Callable[[int, int], None]  # (files done, files to do)
T = TypeVar("T")
R = TypeVar("R")


@dataclass
class RunSummary:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason); exit code unchanged
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
    results: dict[int, FileResult] = {}
    readable: list[tuple[int, Path, bytes, frozenset[str]]] = []
    pending: list[tuple[int, str, bytes, frozenset[str], str, Optional[ProjectFacts], str]] = []
    for index, path in enumerate(_targets(paths, settings, summary)):
        try:
            raw = read_source(path)
        except SourceReadError as error:
            results[index] = FileResult(str(path), error=str(error))
            continue
        codes = settings.codes_for(relative_to_root(path, settings))
        if _oversized(raw, max_bytes):
            results[index] = lint_oversized(raw, str(path), codes, max_bytes, summary)  # never cached
            continue
        readable.append((index, path, raw, codes))
    contents = [content_digest(raw) for _, _, raw, _ in readable]
    project = RunProject([(path, raw) for _, path, raw, _ in readable], contents, paths, settings)
    for (index, path, raw, codes), content in zip(readable, contents):
        key = cache.project_key(str(path), project.fingerprint) if cache is not None else None
        facts = project.facts_for(path) if key is None else None
        key = facts.key() if facts else key or ""
        digest = entry_digest(content, codes, key)
        cached = cache.get(str(path), digest) if cache is not None else None
        if cached is not None:
            results[index] = cached
        else:
            facts = facts or (project.facts_for(path) if key else None)
            pending.append((index, str(path), raw, codes, digest, facts, key))
    work = [(name, raw, codes, facts) for _, name, raw, codes, _, facts, _ in pending]
    for (index, name, _, _, digest, _, key), result in zip(pending, lint_many(work, jobs, progress)):
        results[index] = result
        if cache is not None:
            cache.put(name, digest, result, run=project.fingerprint, project_key=key)
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


def lint_many(work: list[tuple], jobs: int, progress: Optional[Progress] = None) -> list[FileResult]:
    """Lint (name, raw, codes) or (name, raw, codes, project facts) items, in order."""
    return map_in_pool(_lint_item, work, jobs, progress)


def map_in_pool(function: Callable[[T], R], work: list[T], jobs: int, progress: Optional[Progress] = None) -> list[R]:
    """`[function(item) for item in work]`, in a process pool when there is enough work to pay for it.

    `progress(done, total)` is called as results arrive."""
    workers = min(worker_count(jobs), len(work) // MIN_FILES_PER_WORKER)
    if workers <= 1:
        return _collect((function(item) for item in work), len(work), progress)
    chunk = max(1, len(work) // (workers * 8))
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return _collect(pool.map(function, work, chunksize=chunk), len(work), progress)
    except (OSError, BrokenProcessPool):
        return _collect((function(item) for item in work), len(work), progress)  # no processes here: stay correct


def _collect(results: Iterable[R], total: int, progress: Optional[Progress]) -> list[R]:
    if progress is None:
        return list(results)
    collected = []
    for result in results:
        collected.append(result)
        progress(len(collected), total)
    return collected


def _lint_item(item: tuple) -> FileResult:
    name, raw, codes, *project = item
    return lint_file(raw, name, codes, project[0] if project else None)


def lint_file(raw: bytes, name: str, codes: frozenset[str], project: Optional[ProjectFacts] = None) -> FileResult:
    """`lint_bytes` that never raises: a file over CPython's nesting limits is GL001, deep but valid
    code is analysed with a deeper stack, and any other failure is a one-line internal error."""
    try:
        rejected = python_nesting_error(raw, name, codes)
        if rejected is not None:
            return FileResult(name, rejected)
        if project is None:  # the single-file call, exactly as every other front end makes it
            return run_deep(lambda: lint_bytes(raw, name, codes))
        return run_deep(lambda: lint_bytes(raw, name, codes, project))
    except Exception as error:
        return FileResult(name, error=describe_internal_error(error))


def describe_internal_error(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "internal error: nesting too deep to analyse"
    if isinstance(error, MemoryError):
        return "internal error: out of memory"
    lines = str(error).strip().splitlines()
    return f"internal error: {type(error).__name__}" + (f": {lines[0][:200]}" if lines else "")


def run_deep(function: Callable[[], R], recursion_limit: int = ANALYSIS_RECURSION_LIMIT) -> R:
    """`function()` on a thread with a large stack, under `recursion_limit` (counted from that
    thread's base, so the result does not depend on how deep the caller is; the previous limit is
    restored afterwards). Exceptions propagate. Runs in place when no such thread can be made."""
    return _DEEP_THREAD.run(function, recursion_limit)


class _DeepThread:
    """One long-lived thread per process with a large stack. A fresh thread per file cost about
    20 % of the parse time (a new stack and allocator arena to fault in for every file)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._tasks: "queue.SimpleQueue[tuple[Callable[[], object], int, list, threading.Event]]" = queue.SimpleQueue()

    def run(self, function: Callable[[], R], recursion_limit: int) -> R:
        if threading.current_thread() is self._thread:
            return _under_limit(function, recursion_limit)  # already here (a nested call)
        if not self._started():
            return function()  # no thread (resource limits): the caller's stack will do
        outcome: list = []
        done = threading.Event()
        self._tasks.put((function, recursion_limit, outcome, done))
        done.wait()
        (result,) = outcome
        if isinstance(result, _Raised):
            raise result.error
        return result

    def forget(self) -> None:
        """After fork: the child has no such thread, whatever the parent had."""
        self._lock = threading.Lock()
        self._thread = None
        self._tasks = queue.SimpleQueue()

    def _started(self) -> bool:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return True
            try:
                previous_stack = threading.stack_size(ANALYSIS_STACK_BYTES)
            except (ValueError, RuntimeError):
                return False
            try:
                thread = threading.Thread(target=self._serve, name="gradlint-analysis", daemon=True)
                thread.start()
            except RuntimeError:
                return False
            finally:
                threading.stack_size(previous_stack)
            self._thread = thread
            return True

    def _serve(self) -> None:
        while True:
            function, recursion_limit, outcome, done = self._tasks.get()
            try:
                outcome.append(_under_limit(function, recursion_limit))
            except BaseException as error:  # re-raised in the caller
                outcome.append(_Raised(error))
            finally:
                done.set()


@dataclass(frozen=True)
class _Raised:
    error: BaseException


def _under_limit(function: Callable[[], R], recursion_limit: int) -> R:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(recursion_limit)
    try:
        return function()
    finally:
        sys.setrecursionlimit(previous)


_DEEP_THREAD = _DeepThread()
os.register_at_fork(after_in_child=_DEEP_THREAD.forget)


def python_nesting_error(raw: bytes, name: str, codes: frozenset[str]) -> Optional[list[Finding]]:
    """GL001 (or nothing, when GL001 is not selected) for a file that CPython refuses because it is
    nested beyond CPython's own limits; None for every other file (the engine decides)."""
    try:
        text, _ = decode_source(raw)
    except UndecodableSource:
        return None
    if file_is_exempt(text):
        return None
    failure = _python_compile_failure(text)
    if failure is None:
        return None
    reason, location = failure
    if not (reason.startswith(_PYTHON_NESTING_LIMITS) or "RecursionError" in reason or "MemoryError" in reason):
        return None
    return [_parse_error_finding(reason, name, location)] if PARSE_ERROR in codes else []


def _python_compile_failure(text: str) -> Optional[tuple[str, Location]]:
    """Why CPython, with its default recursion limit, refuses `text`, and where; None if it compiles."""
    return run_deep(lambda: _compile_failure(text), PYTHON_RECURSION_LIMIT)


def _compile_failure(text: str) -> Optional[tuple[str, Location]]:
    # Compiled to bytecode, as `import` does: four times faster than building Python AST objects.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings are not ours to print (nor errors under -W error)
            compile(text, "<gradlint>", "exec", dont_inherit=True)
    except SyntaxError as error:
        reason = (error.msg or "invalid syntax").splitlines()[0]
        return reason, Location(max(error.lineno or 1, 1), max(error.offset or 1, 1))
    except RecursionError:
        return "nesting too deep for Python's compiler (RecursionError)", Location(1, 1)
    except MemoryError:
        return "too complex for Python's parser (MemoryError)", Location(1, 1)
    except ValueError as error:  # null bytes
        return str(error).splitlines()[0] if str(error) else "invalid source", Location(1, 1)
    return None


def _parse_error_finding(reason: str, name: str, location: Location) -> Finding:
    return Finding(PARSE_ERROR, f"could not parse: {reason}", name, location, location, None, location.row)


def _oversized(raw: bytes, max_bytes: int) -> bool:
    return max_bytes > 0 and len(raw) > max_bytes


def _size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


def lint_oversized(raw: bytes, name: str, codes: frozenset[str], max_bytes: int, summary: RunSummary) -> FileResult:
    """A file over the size limit: decoded (GL002) and compiled by CPython (GL001), but not parsed
    with LibCST. A warning says so when any selected rule could have found something in it."""
    try:
        text, _ = decode_source(raw)
    except UndecodableSource:
        return lint_bytes(raw, name, codes)  # GL002 only; nothing is parsed
    if file_is_exempt(text):
        return FileResult(name)
    failure = _python_compile_failure(text)
    if failure is not None:
        reason, location = failure
        return FileResult(name, [_parse_error_finding(reason, name, location)] if PARSE_ERROR in codes else [])
    if any(rule.applies_to(text) for rule in rules_for(codes)):
        summary.warnings.append(
            (name, f"not analysed: {_size(len(raw))} is over the {_size(max_bytes)} size limit (raise it with --max-file-size)")
        )
    return FileResult(name)


def stdin_is_excluded(name: str, settings: Settings) -> bool:
    """`--force-exclude` applies to the name given with `--stdin-filename` too."""
    return settings.force_exclude and name != "-" and is_excluded(Path(name), settings)


def stdin_codes(name: str, settings: Settings) -> frozenset[str]:
    """The rules for source read from stdin: per-file-ignores apply to its `--stdin-filename`."""
    return settings.codes_for(relative_to_root(Path(name), settings)) if name != "-" else settings.codes()


def check_stdin(raw: bytes, name: str, settings: Settings, *, max_bytes: int = MAX_FILE_BYTES) -> RunSummary:
    summary = RunSummary()
    if stdin_is_excluded(name, settings):
        return summary
    codes = stdin_codes(name, settings)
    if _oversized(raw, max_bytes):
        summary.add(lint_oversized(raw, name, codes, max_bytes, summary))
    else:
        summary.add(lint_file(raw, name, codes))
    return summary


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
    work: list[tuple[Path, bytes, frozenset[str], bool, int, Optional[ProjectFacts]]] = []
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
        work.append((path, raw, settings.codes_for(relative_to_root(path, settings)), settings.unsafe_fixes, max_bytes, None))
    sources = [(path, raw) for path, raw, *_ in work if not _oversized(raw, max_bytes)]
    project = RunProject(sources, [], paths, settings)
    work = [(*item[:5], project.facts_for(item[0], for_fix=True)) for item in work]
    for (path, raw, *_), (fixed, partial) in zip(work, map_in_pool(_fix_item, work, jobs, progress)):
        summary.findings.extend(partial.findings)
        summary.errors.extend(partial.errors)
        summary.warnings.extend(partial.warnings)
        summary.fixed += partial.fixed
        if fixed is not None and fixed != raw:
            _write_fixed(path, raw, fixed, summary, diff=diff)
    summary.findings.sort(key=Finding.sort_key)
    return summary


def _fix_item(item: tuple[Path, bytes, frozenset[str], bool, int, Optional[ProjectFacts]]) -> tuple[Optional[bytes], RunSummary]:
    path, raw, codes, unsafe, max_bytes, project = item
    partial = RunSummary()
    return fix_bytes(raw, str(path), codes, unsafe, partial, max_bytes=max_bytes, project=project), partial


# -- the project index: what each file of the run uses from the others -----------------------------


class RunProject:
    """The files of one run as a project. The index is built only when a file's facts are asked
    for: a cached run of unchanged files (same `fingerprint`) reuses the facts keys it stored."""

    def __init__(self, sources: Sequence[tuple[Path, bytes]], contents: Sequence[str], paths: Sequence[Path], settings: Settings) -> None:
        self.sources = sources
        self.roots = [str(path if path.is_dir() else path.parent) for path in paths] + [str(settings.root)]
        stamp = hashlib.sha256("\0".join(self.roots).encode())
        for (path, _), content in zip(sources, contents):
            stamp.update(f"\0{path}\0{content}".encode())
        self.fingerprint = stamp.hexdigest()[:32]
        self._index: Optional[ProjectIndex] = None

    def facts_for(self, path: Path, *, for_fix: bool = False) -> Optional[ProjectFacts]:
        """What `path` uses from the other files of the run (None for most files). `for_fix` adds
        the names other files import from it (their imports must survive the fix)."""
        if self._index is None:
            self._index = ProjectIndex([(str(source), raw) for source, raw in self.sources], self.roots)
        return self._index.facts_for(str(path), for_fix=for_fix)


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


def fix_bytes(
    raw: bytes,
    name: str,
    codes: frozenset[str],
    unsafe: bool,
    summary: RunSummary,
    *,
    max_bytes: int = MAX_FILE_BYTES,
    project: Optional[ProjectFacts] = None,
) -> Optional[bytes]:
    """The fixed bytes (same encoding, BOM, line endings and final newline), or None when nothing
    could be done. Never raises: failures are one-line errors in `summary`."""
    if _oversized(raw, max_bytes):
        summary.findings.extend(lint_oversized(raw, name, codes, max_bytes, summary).findings)
        return None
    try:
        text, encoding = decode_source(raw)
    except UndecodableSource:
        if DECODE_ERROR in codes:
            summary.findings.extend(lint_bytes(raw, name, codes).findings)
        return None
    try:
        rejected = python_nesting_error(raw, name, codes)
        if rejected is not None:
            summary.findings.extend(rejected)
            return None
        if project is None:
            result = run_deep(lambda: fix_text(text, name, codes, unsafe=unsafe))
        else:
            result = run_deep(lambda: fix_text(text, name, codes, unsafe=unsafe, project=project))
    except Exception as error:
        summary.errors.append((name, f"{describe_internal_error(error)}; file left unchanged"))
        return None
    summary.findings.extend(result.remaining)
    if result.error is not None:
        summary.errors.append((name, result.error))
        return None
    summary.fixed += result.applied
    if result.text == text:
        return raw
    fixed_text = _keep_final_newline(text, result.text)
    try:
        return encode_source(fixed_text, encoding)
    except UnicodeEncodeError:
        summary.errors.append((name, f"fixed text cannot be encoded as {encoding}; file left unchanged"))
        return None


def _ends_with_newline(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def _keep_final_newline(original: str, fixed: str) -> str:
    """A fix that removed or rewrote the last line must not add or drop the final newline."""
    if _ends_with_newline(original) == _ends_with_newline(fixed) or not fixed:
        return fixed
    if _ends_with_newline(fixed):
        candidate = fixed[:-2] if fixed.endswith("\r\n") else fixed[:-1]
    else:
        candidate = fixed + dominant_newline(original)
    module, _ = parse(candidate)
    return candidate if module is not None else fixed


def unified_diff(before: bytes, after: bytes, name: str) -> str:
    old = _text_for_diff(before).splitlines(keepends=True)
    new = _text_for_diff(after).splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"))


def _text_for_diff(raw: bytes) -> str:
    try:
        return decode_source(raw)[0]
    except UndecodableSource:
        return raw.decode("utf-8", errors="replace")
