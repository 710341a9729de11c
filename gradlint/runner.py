"""Wire settings, discovery, the cache and the process pool over many files; write the fixes.

What happens to one file is `pipeline.check_source` / `pipeline.fix_source`."""

from __future__ import annotations

import difflib
import hashlib
import os
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from gradlint.analysis.project import ProjectIndex
from gradlint.cache import CACHE_DIR_NAME, ResultCache, content_digest, entry_digest
from gradlint.config import Settings, settings_for_file
from gradlint.discovery import discover, is_excluded
from gradlint.files import (
    MAX_FILE_BYTES,
    ChangedOnDisk,
    ReadOnlyFile,
    SourceReadError,
    StagedWrites,
    describe_os_error,
    read_source,
    remove_stale_temporaries,
)
from gradlint.fix.fixable import only_fixable
from gradlint.fix.target import within_target as fixes_within_target
from gradlint.local_modules import facts_beside, read_module
from gradlint.model import Finding
from gradlint.model.migration import AppliedChange
from gradlint.model.project import ProjectFacts
from gradlint.notebook import cell_diff, is_notebook, python_source
from gradlint.pipeline import Analyse, Source, SourceResult, add_noqa_source, check_source, fix_source, over_size_limit
from gradlint.pool import Progress, map_in_pool
from gradlint.report.paths import display_path
from gradlint.rules import rule_by_code
from gradlint.shared_imports import restore_used_imports, written_together
from gradlint.source import UndecodableSource, decode_source

if TYPE_CHECKING:
    from gradlint.fix.memory import FixMemory


@dataclass
class RunSummary:
    findings: list[Finding] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason); exit code unchanged
    fixed: int = 0
    diffs: list[str] = field(default_factory=list)
    changed_files: int = 0
    unwritten: set[str] = field(default_factory=set)  # fix: the files whose fixes could not be written
    changes: list[AppliedChange] = field(default_factory=list)  # with `record_changes`: each change made, file by file
    files: int = 0  # how many files the paths held (what was discovered to check or fix)
    # (path, whether and how it was checked): every path the run considered, with `explain`
    explained: list[tuple[str, str]] = field(default_factory=list)

    def add(self, result: SourceResult) -> None:
        self.findings.extend(result.findings)
        if result.error is not None:
            self.errors.append((result.path, result.error))
        if result.warning is not None:
            self.warnings.append((result.path, result.warning))
        self.fixed += result.applied
        self.changes.extend(result.changes)


@dataclass(frozen=True)
class WorkItem:
    """One file's work, as sent to a pool worker."""

    name: str
    raw: bytes
    codes: frozenset[str]
    max_bytes: int
    unsafe: bool = False  # fix only
    project: Optional[ProjectFacts] = None  # what the file uses from (and, for fix, gives to) the other files of the run
    respect_noqa: bool = True  # False: `--ignore-noqa`
    record_changes: bool = False  # fix only: list each change made (a migration report)
    target_torch: Optional[str] = None  # the oldest torch the file must run on (`target-torch`)
    fixable: Optional[frozenset[str]] = None  # the rules whose fixes may be used (`fixable`/`unfixable`); None: all


def work_item(path: Path, raw: bytes, settings: Settings, max_bytes: int, respect_noqa: bool = True) -> WorkItem:
    """The work for one file of `check_paths` or `fix_paths`."""
    own = settings_for_file(settings, path)
    codes = own.codes_for(relative_to_root(path, own))
    return WorkItem(
        str(path),
        raw,
        codes,
        max_bytes,
        own.unsafe_fixes,
        respect_noqa=respect_noqa,
        target_torch=own.target_torch,
        fixable=own.fixable_codes(),
    )


def within_size_limit(item: WorkItem) -> bool:
    """Whether the file is analysed whole. A notebook's outputs (plots, tables) do not count:
    the pipeline measures its code, and says when that is over the limit."""
    return is_notebook(item.name) or not over_size_limit(len(item.raw), item.max_bytes)


def relative_to_root(path: Path, settings: Settings) -> str:
    try:
        return path.resolve().relative_to(settings.root).as_posix()
    except ValueError:
        return path.as_posix()


def _targets(paths: list[Path], settings: Settings, summary: RunSummary, explain: bool = False) -> list[Path]:
    found = discover(paths, settings, explain=explain)
    summary.files += len(found.files)
    summary.errors.extend(found.errors)
    summary.explained.extend((path, f"skipped: {reason}") for path, reason in found.skipped)
    return found.files


def _how_checked(item: WorkItem, cached: bool, adding_noqa: bool = False) -> str:
    if not within_size_limit(item):
        how = "decoded and compiled, not analysed" if adding_noqa else "analysed in pieces"
        return f"too large ({len(item.raw)} bytes, limit {item.max_bytes}): {how}"
    return "checked (cached result)" if cached else "checked"


def check_paths(
    paths: list[Path],
    settings: Settings,
    *,
    jobs: int = 0,
    use_cache: bool = True,
    max_bytes: int = MAX_FILE_BYTES,
    respect_noqa: bool = True,
    progress: Optional[Progress] = None,
    explain: bool = False,
) -> RunSummary:
    """Check every discovered file: cached results first, the rest in a process pool (`jobs` 0 = all
    cores). `respect_noqa` False ignores every noqa comment (`--ignore-noqa`). With `explain`, the
    summary says why each path was or was not checked."""
    summary = RunSummary()
    cache = ResultCache(cache_directory(settings)) if use_cache else None
    results: dict[int, SourceResult] = {}
    readable: list[tuple[int, Path, WorkItem]] = []
    for index, path in enumerate(_targets(paths, settings, summary, explain)):
        try:
            raw = read_source(path)
        except SourceReadError as error:
            results[index] = SourceResult(str(path), error=str(error))
            continue
        readable.append((index, path, work_item(path, raw, settings, max_bytes, respect_noqa)))
    analysed = [entry for entry in readable if within_size_limit(entry[2])]
    contents = {index: content_digest(item.raw) for index, _, item in analysed}
    project = RunProject(
        [(path, item.raw) for _, path, item in analysed], [contents[index] for index, _, _ in analysed], paths, settings, max_bytes
    )
    # (index, work, cache digest, project key, digests of the modules outside the run it depends on)
    pending: list[tuple[int, WorkItem, Optional[str], str, dict[str, str]]] = []
    for index, path, item in readable:
        if index not in contents:  # over the size limit, the result depends on the limit: never cached
            pending.append((index, item, None, "", {}))
            continue
        stored = cache.project_key(item.name, project.fingerprint, project.unchanged) if cache is not None else None
        if stored is not None:
            facts, (key, outside) = None, stored
        else:
            facts = project.facts_for(path)
            key, outside = (project.key_for(facts), project.outside()) if cache is not None else ("", {})
        options = "" if respect_noqa else "ignore-noqa"
        digest = entry_digest(contents[index], item.codes, key, options) if cache is not None else None
        cached = cache.get(item.name, digest) if digest is not None else None
        if cached is not None:
            results[index] = SourceResult(cached.path, cached.findings, cached.error)
        else:
            facts = project.facts_for(path) if stored is not None and key else facts
            pending.append((index, replace(item, project=facts), digest, key, outside))
    work = [entry[1] for entry in pending]
    for (index, item, digest, key, outside), result in zip(
        pending, map_in_pool(_check_item, work, jobs, progress, weight=_size, prepare=load_rules, crashed=_crashed)
    ):
        results[index] = result
        if digest is not None and result.cacheable:
            cache.put(item.name, digest, result, run=project.fingerprint, project_key=key, outside=outside)
    items = {index: item for index, _, item in readable}
    for index in sorted(results):
        item = items.get(index)
        summary.add(as_configured(results[index], item.target_torch if item else None, item.fixable if item else None))
    if explain:
        cached = set(results) - {entry[0] for entry in pending}
        summary.explained.extend((item.name, _how_checked(item, index in cached)) for index, _, item in readable)
    if cache is not None:
        _save_cache(cache, summary, explain)
    summary.findings.sort(key=Finding.sort_key)
    return summary


def _save_cache(cache: ResultCache, summary: RunSummary, explain: bool) -> None:
    """Save the results; with `explain`, say why stored results were not used; warn (once) when
    they cannot be stored."""
    cache.save()
    if explain and cache.ignored is not None:
        summary.explained.insert(0, (display_path(str(cache.pack)), cache.ignored))
    if cache.unwritable is not None:
        reason = f"cache not written ({cache.unwritable}); the results are not cached"
        summary.warnings.append((display_path(str(cache.directory)), reason))


def cache_directory(settings: Settings) -> Path:
    return settings.root / (settings.cache_dir or CACHE_DIR_NAME)


def _size(item: WorkItem) -> int:
    return len(item.raw)


def as_configured(result: SourceResult, target_torch: Optional[str], fixable: Optional[frozenset[str]]) -> SourceResult:
    """A file's result (analysed or cached: the same for every setting) as `target-torch` and
    `fixable` see it: the fixes that need a newer torch are unsafe, those of rules that are not
    fixable are dropped. The fix loop applies both to each round of its own (`fix_text`)."""
    return replace(result, findings=only_fixable(fixes_within_target(result.findings, target_torch), fixable))


def load_rules(work: Sequence[WorkItem]) -> None:
    """Import the modules of the rules selected for `work` (the engine imports a rule's module when a
    file first gets past its prefilter): done before a pool starts, once, for every worker."""
    for code in sorted(frozenset().union(*(item.codes for item in work))):
        rule_by_code(code)


WORKER_DIED = "internal error: the process analysing it died (out of memory?)"


def _crashed(item: WorkItem) -> SourceResult:
    return SourceResult(item.name, error=WORKER_DIED, cacheable=False)


def _crashed_fixing(item: WorkItem) -> SourceResult:
    return SourceResult(item.name, error=f"{WORKER_DIED}; file left unchanged", cacheable=False)


def _check_item(item: WorkItem) -> SourceResult:
    return check_source(item.raw, item.name, item.codes, max_bytes=item.max_bytes, respect_noqa=item.respect_noqa, project=item.project)


def _fix_item(item: WorkItem) -> SourceResult:
    return fix_source(
        item.raw,
        item.name,
        item.codes,
        unsafe=item.unsafe,
        max_bytes=item.max_bytes,
        respect_noqa=item.respect_noqa,
        project=item.project,
        record_changes=item.record_changes,
        target_torch=item.target_torch,
        fixable=item.fixable,
    )


def _add_noqa_item(item: WorkItem) -> SourceResult:
    return add_noqa_source(item.raw, item.name, item.codes, max_bytes=item.max_bytes, project=item.project)


def stdin_is_excluded(name: str, settings: Settings) -> bool:
    """`--force-exclude` applies to the name given with `--stdin-filename` too."""
    return settings.force_exclude and name != "-" and is_excluded(Path(name), settings)


def stdin_codes(name: str, settings: Settings) -> frozenset[str]:
    """The rules for source read from stdin: per-file-ignores apply to its `--stdin-filename`."""
    if name == "-":
        return settings.codes()
    own = _stdin_settings(name, settings)
    return own.codes_for(relative_to_root(Path(name), own))


def stdin_fixable(name: str, settings: Settings) -> frozenset[str]:
    """The fixable rules for source read from stdin: those of its `--stdin-filename`'s configuration."""
    return _stdin_settings(name, settings).fixable_codes()


def stdin_target_torch(name: str, settings: Settings) -> str:
    """The `target-torch` for source read from stdin: that of its `--stdin-filename`'s configuration."""
    return _stdin_settings(name, settings).target_torch


def _stdin_settings(name: str, settings: Settings) -> Settings:
    return settings if name == "-" else settings_for_file(settings, Path(name))


def check_stdin(
    source: Source,
    name: str,
    settings: Settings,
    *,
    max_bytes: int = MAX_FILE_BYTES,
    respect_noqa: bool = True,
    analyse: Optional[Analyse] = None,
) -> RunSummary:
    """Check source that is not read from a file (stdin, an editor's buffer) as if it were `name`.
    `analyse`: how its text is analysed, when not by `engine.analyse_text`."""
    summary = RunSummary()
    if not stdin_is_excluded(name, settings):
        facts = facts_beside(source, name, [str(settings.root)])
        codes = stdin_codes(name, settings)
        result = check_source(source, name, codes, max_bytes=max_bytes, respect_noqa=respect_noqa, project=facts, analyse=analyse)
        summary.add(as_configured(result, stdin_target_torch(name, settings), stdin_fixable(name, settings)))
    return summary


def fix_stdin(
    source: Source,
    name: str,
    settings: Settings,
    *,
    unsafe: bool,
    max_bytes: int = MAX_FILE_BYTES,
    respect_noqa: bool = True,
    record_changes: bool = False,
    memory: Optional["FixMemory"] = None,
) -> SourceResult:
    """Fix source that is not read from a file as if it were `name`; `fixed` is None when excluded.
    It uses what the local modules next to `name` on disk give it, and the files of `name`'s
    project on disk keep what they import from it. `memory`: see `fix.apply.fix_text`."""
    if stdin_is_excluded(name, settings):
        return SourceResult(name)
    codes = stdin_codes(name, settings)
    target_torch = stdin_target_torch(name, settings)
    facts = facts_beside(source, name, [str(settings.root)])
    # The same fix each time, with what the project keeps importing from this source.
    fix_with = partial(
        fix_source,
        source,
        name,
        codes,
        unsafe=unsafe,
        max_bytes=max_bytes,
        respect_noqa=respect_noqa,
        record_changes=record_changes,
        target_torch=target_torch,
        fixable=stdin_fixable(name, settings),
        memory=memory,
    )
    result = fix_with(project=facts)
    if name == "-" or not result.removed_imports:
        return result
    path = Path(name)

    def refix(wanted: list[tuple[int, frozenset[str]]]) -> list[SourceResult]:
        return [fix_with(project=keeping(facts, names)) for _, names in wanted]

    raw = source if isinstance(source, bytes) else source.encode("utf-8", "surrogatepass")
    roots = [str(path.parent), str(settings.root)]
    return restore_used_imports([name], [raw], [result], roots, lambda seeds: files_outside_run(seeds, [path], [], settings), refix)[0]


def fix_paths(
    paths: list[Path],
    settings: Settings,
    *,
    diff: bool,
    jobs: int = 0,
    max_bytes: int = MAX_FILE_BYTES,
    respect_noqa: bool = True,
    add_noqa: bool = False,
    progress: Optional[Progress] = None,
    explain: bool = False,
    record_changes: bool = False,
) -> RunSummary:
    """Compute fixes in a process pool, then write (or diff) them here, one file at a time.
    `add_noqa`: instead of fixing, add `# noqa` comments for what remains (`check --add-noqa`);
    `record_changes`: list each change made in the summary's `changes` (a migration report)."""
    summary = RunSummary()
    work: list[WorkItem] = []
    targets: list[Path] = []
    seen: set[str] = set()
    for path in _targets(paths, settings, summary, explain):
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
        work.append(work_item(path, raw, settings, max_bytes, respect_noqa))
    analysed = [(path, item.raw) for path, item in zip(targets, work) if within_size_limit(item)]
    project = RunProject(analysed, [], paths, settings, max_bytes)
    work = [replace(item, project=project.facts_for(path), record_changes=record_changes) for path, item in zip(targets, work)]
    if explain:
        summary.explained.extend((item.name, _how_checked(item, False, adding_noqa=add_noqa)) for item in work)
    worker = _add_noqa_item if add_noqa else _fix_item
    results = map_in_pool(worker, work, jobs, progress, weight=_size, prepare=load_rules, crashed=_crashed_fixing)

    def refix(wanted: list[tuple[int, frozenset[str]]]) -> list[SourceResult]:
        again = [replace(work[index], project=keeping(work[index].project, names)) for index, names in wanted]
        return map_in_pool(worker, again, jobs, prepare=load_rules, crashed=_crashed_fixing)

    results = restore_used_imports(
        [str(path) for path in targets],
        [item.raw for item in work],
        results,
        project.roots,
        lambda seeds: files_outside_run(seeds, targets, paths, settings),
        refix,
    )
    changed = [index for index, (item, result) in enumerate(zip(work, results)) if _changes(item, result)]
    not_written: dict[int, str] = {}
    if diff:
        summary.diffs.extend(unified_diff(work[index].raw, results[index].fixed, str(targets[index])) for index in changed)
        summary.changed_files += len(changed)
    else:
        for directory in dict.fromkeys(os.path.dirname(os.path.realpath(targets[index])) for index in changed):
            remove_stale_temporaries(Path(directory))  # where a killed run wrote its temporary files
        groups = written_together([str(path) for path in targets], [item.raw for item in work], results, project.roots, changed)
        not_written = _write_groups(groups, targets, work, results, summary)
    for index, (item, result) in enumerate(zip(work, results)):
        if index in not_written:
            summary.errors.append((item.name, not_written[index]))
            result = _unwritten(item, result)
            summary.unwritten.add(result.path)
        summary.add(result)
    summary.findings.sort(key=Finding.sort_key)
    return summary


def _changes(item: WorkItem, result: SourceResult) -> bool:
    return result.fixed is not None and result.fixed != item.raw


# -- the project index: what each file of the run uses from the others -----------------------------


class RunProject:
    """The files of one run as a project, with the local modules they import read from disk when
    the run does not include them. The index is built only when a file's facts are asked for: a
    cached run of unchanged files (same `fingerprint`, and the modules outside the run it read
    unchanged) reuses the facts keys it stored."""

    def __init__(
        self,
        sources: Sequence[tuple[Path, bytes]],
        contents: Sequence[str],
        paths: Sequence[Path],
        settings: Settings,
        max_bytes: int = MAX_FILE_BYTES,
    ) -> None:
        self.sources = sources
        self.roots = [str(path if path.is_dir() else path.parent) for path in paths] + [str(settings.root)]
        # A file name that is not UTF-8 holds surrogates (Python's surrogateescape): hashed as they are
        stamp = hashlib.sha256("\0".join(self.roots).encode("utf-8", "surrogatepass"))
        for (path, _), content in zip(sources, contents):
            stamp.update(f"\0{path}\0{content}".encode("utf-8", "surrogatepass"))
        self.fingerprint = stamp.hexdigest()[:32]
        self._max_bytes = max_bytes
        # A module in a folder the run names was left out on purpose (excluded, over the size
        # limit): it stays unknown, and a whole-project run looks for nothing on disk.
        self._covered = [os.path.abspath(path) for path in paths if path.is_dir()]
        self._index: Optional[ProjectIndex] = None
        self._outside: Optional[dict[str, str]] = None
        self._on_disk: dict[str, Optional[str]] = {}

    def facts_for(self, path: Path) -> Optional[ProjectFacts]:
        """What `path` uses from the other files of the run, and, when the run names a folder that
        holds it (every file that may import it is then in the run), which of its functions
        other files mention, what the run's constructions pass to its classes, what may reach
        its methods from other files and which attributes of other files' classes hold only
        integer tensors."""
        index = self._built()
        facts = index.facts_for(str(path))
        modules = index.module_classes(str(path))
        if modules:
            facts = replace(facts or ProjectFacts(), module_classes=modules)
        if not any(_within(os.path.abspath(path), folder) for folder in self._covered):
            return facts
        mentioned = index.functions_mentioned_elsewhere(str(path))
        passed = index.passed_arguments(str(path))
        reached = index.methods_reached_elsewhere(str(path))
        integers = index.integer_attributes(str(path))
        facts = facts or ProjectFacts()
        return replace(
            facts,
            called_elsewhere=mentioned,
            passed=passed,
            reached_elsewhere=reached,
            integer_attributes=integers,
            argument_writes=index.argument_writes(str(path)),
            sealed_attributes=index.sealed_attributes(str(path)),
        )

    def outside(self) -> dict[str, str]:
        """The content digest of every module outside the run that its files import."""
        if self._outside is None:
            self._outside = {path: content_digest(raw) for path, raw in self._built().modules_outside_run().items()}
        return self._outside

    def key_for(self, facts: Optional[ProjectFacts]) -> str:
        """The cache key of a file's project facts: the facts, and what the modules outside the
        run they were read from hold."""
        if not facts:
            return ""
        outside = self.outside()
        if not outside:
            return facts.key()
        return hashlib.sha256(f"{facts.key()}\0{sorted(outside.items())}".encode()).hexdigest()[:32]

    def unchanged(self, outside: dict[str, str]) -> bool:
        """Every module outside the run still holds what it held when a stored key was made."""
        for path, digest in outside.items():
            if path not in self._on_disk:
                raw = read_module(path, self._max_bytes)
                self._on_disk[path] = content_digest(raw) if raw is not None else None
            if self._on_disk[path] != digest:
                return False
        return True

    def _built(self) -> ProjectIndex:
        if self._index is None:
            sources = [(str(source), python_source(str(source), raw)) for source, raw in self.sources]
            self._index = ProjectIndex(sources, self.roots, read_outside=self._read_outside)
        return self._index

    def _read_outside(self, path: str) -> Optional[bytes]:
        if any(_within(path, folder) for folder in self._covered):
            return None
        return read_module(path, self._max_bytes)


def keeping(facts: Optional[ProjectFacts], names: frozenset[str]) -> ProjectFacts:
    """`facts`, with `names` kept by the import clean-up (other files use them through this one)."""
    return replace(facts, reimported=names) if facts else ProjectFacts(reimported=names)


def files_outside_run(seeds: Sequence[str], run: Sequence[Path], paths: Sequence[Path], settings: Settings) -> list[tuple[str, bytes]]:
    """The Python files of the projects of `seeds` (the folder of a script, or the folder holding
    its top-level package, with every folder below) that the run does not include. Nothing is
    read when the run names a folder holding that project: the run is the whole project."""
    covered = [os.path.realpath(path) for path in paths if path.is_dir()]
    folders = {_top_folder_on_disk(os.path.realpath(seed)) for seed in seeds}
    folders = {folder for folder in folders if not any(_within(folder, whole) for whole in covered)}
    if not folders:
        return []
    inside = {os.path.realpath(path) for path in run}
    found = []
    for path in discover([Path(folder) for folder in sorted(folders)], settings).files:
        if os.path.realpath(path) in inside or path.suffix != ".py":
            continue
        try:
            raw = read_source(path)
        except SourceReadError:
            continue  # unreadable: not a file that imports anything
        if len(raw) <= MAX_FILE_BYTES and b"import" in raw:
            found.append((str(path), raw))
    return found


def _top_folder_on_disk(path: str) -> str:
    folder = os.path.dirname(path)
    while os.path.isfile(os.path.join(folder, "__init__.py")) and os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
    return folder


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


_WRITE_ERRORS = (ChangedOnDisk, ReadOnlyFile, SourceReadError, OSError)


def _write_groups(
    groups: list[list[int]], targets: list[Path], work: list[WorkItem], results: list[SourceResult], summary: RunSummary
) -> dict[int, str]:
    """Write each group of fixed files all or none; the files not written, each with its reason."""
    not_written: dict[int, str] = {}
    for group in groups:
        failed = _write_group(group, targets, work, results)
        if failed is None:
            summary.changed_files += len(group)
            continue
        culprit, reason = failed
        for index in group:
            not_written[index] = reason if index == culprit else f"not written: {targets[culprit]} could not be written"
    return not_written


def _write_group(group: list[int], targets: list[Path], work: list[WorkItem], results: list[SourceResult]) -> Optional[tuple[int, str]]:
    """None when every file of the group is written; else none is, and this is the file that could
    not be, with why."""
    writes = StagedWrites()
    try:
        for index in group:
            try:
                writes.stage(targets[index], results[index].fixed, work[index].raw)
            except _WRITE_ERRORS as error:
                return index, _write_failure(error)
        try:
            writes.commit()
        except _WRITE_ERRORS as error:
            failing = writes.failing
            culprit = next((index for index in group if os.path.realpath(targets[index]) == str(failing)), group[0])
            return culprit, _write_failure(error)
        return None
    finally:
        writes.discard()


def _write_failure(error: Exception) -> str:
    """Why a fixed file could not be written, in one line."""
    if isinstance(error, (ChangedOnDisk, ReadOnlyFile)):
        return str(error)
    if isinstance(error, SourceReadError):
        return f"not overwritten: {error}"
    return f"could not write: {describe_os_error(error)}"


def _unwritten(item: WorkItem, result: SourceResult) -> SourceResult:
    """The result of a file whose fixes could not be written: none applied, and what it still
    holds is what a check of it finds."""
    return replace(result, findings=_check_item(item).findings, applied=0, changes=[], fixed=None)


def unified_diff(before: bytes, after: bytes, name: str) -> str:
    if is_notebook(name):
        return cell_diff(before, after, name)
    old = _text_for_diff(before).splitlines(keepends=True)
    new = _text_for_diff(after).splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}"))


def _text_for_diff(raw: bytes) -> str:
    try:
        return decode_source(raw)[0]
    except UndecodableSource:
        return raw.decode("utf-8", errors="replace")
