"""Imports that other files still need after a fix run.

The clean-up after fixes drops the imports the fixes left unused in their file, but another file
may use such a name through this one (`from model import *`, `from model import Variable`,
`model.Variable`). Files are fixed in parallel, each seeing only itself, so whether a removal
stands is decided once every file of the run is fixed, the same whatever the order: a name comes
back when a file still uses it through this one, read in its fixed text when it is in the run (a
use the run rewrote is gone) and as it is on disk when it belongs to the project but not to the
run (`fix model.py`, stdin, an editor), which the run cannot rewrite. A file whose removal does
not stand is fixed again with those names kept. When the run is not the whole project, an
`__init__.py` keeps its imports: a package re-exports them to files nobody can see.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable, Optional, Sequence

from gradlint.analysis.project import ProjectIndex
from gradlint.pipeline import SourceResult

# Restoring an import can make another file's removal wrong in turn (`a` re-imports from `b`):
# after this many passes every removal still in question is undone.
MAX_PASSES = 5

Refix = Callable[[list[tuple[int, frozenset[str]]]], list[SourceResult]]  # (file index, names to keep) -> results
OutsideFiles = Callable[[Sequence[str]], Sequence[tuple[str, bytes]]]  # paths -> the project's files outside the run


def restore_used_imports(
    paths: Sequence[str],
    originals: Sequence[bytes],
    results: Sequence[SourceResult],
    roots: Sequence[str],
    outside_files: OutsideFiles,
    refix: Refix,
) -> list[SourceResult]:
    """`results` (of fixing the files `paths`, whose sources were `originals`) with every removed
    import that another file still uses put back, and a note where a file outside the run is why."""
    results = list(results)
    removed = {index: result.removed_imports for index, result in enumerate(results) if result.removed_imports}
    if not removed:
        return results
    outside = list(outside_files([paths[index] for index in removed]))
    outside_paths = {os.path.abspath(path) for path, _ in outside}
    kept: dict[int, set[str]] = {index: set() for index in removed}
    notes: dict[int, str] = {}
    forced: dict[int, frozenset[str]] = {}
    if outside:
        for index in removed:
            if os.path.basename(paths[index]) == "__init__.py":
                forced[index] = removed[index]
                notes[index] = _note(removed[index], "a package's `__init__.py` may re-export it to files outside this run")
    for passes in range(MAX_PASSES + 1):
        still = {index: removed[index] - kept[index] for index in removed}
        if passes < MAX_PASSES:
            wanted = _still_used(paths, originals, results, roots, outside, still)
        else:
            wanted = {index: {name: frozenset() for name in names} for index, names in still.items() if names}
        for index, names in forced.items():
            wanted.setdefault(index, {}).update({name: frozenset() for name in names})
        forced = {}
        if not wanted:
            break
        for index, users in wanted.items():
            kept[index] |= set(users)
            note = _outside_users_note(paths[index], users, outside_paths)
            if note is not None and index not in notes:
                notes[index] = note
        for index, result in zip(wanted, refix([(index, frozenset(kept[index])) for index in wanted])):
            results[index] = result
    for index, note in notes.items():
        if results[index].warning is None:
            results[index] = replace(results[index], warning=note)
    return results


def _still_used(
    paths: Sequence[str],
    originals: Sequence[bytes],
    results: Sequence[SourceResult],
    roots: Sequence[str],
    outside: Sequence[tuple[str, bytes]],
    removed: dict[int, frozenset[str]],
) -> dict[int, dict[str, frozenset[str]]]:
    """For each file, the removed names another file uses through it, with those files."""
    removed = {index: names for index, names in removed.items() if names}
    if not removed:
        return {}
    texts = [(path, _current_text(original, result)) for path, original, result in zip(paths, originals, results)]
    index = ProjectIndex(texts + list(outside), roots, removed={paths[position]: names for position, names in removed.items()})
    wanted = {}
    for position, names in removed.items():
        found = index.users_of(paths[position])
        if found is None:  # unknown: every removed name may be used
            found = {name: frozenset() for name in names}
        users = {name: importers for name, importers in found.items() if name in names}
        if users:
            wanted[position] = users
    return wanted


def _current_text(original: bytes, result: SourceResult) -> bytes:
    """The file as the run leaves it."""
    fixed: Optional[object] = result.fixed if result.error is None else None
    if isinstance(fixed, bytes):
        return fixed
    if isinstance(fixed, str):
        return fixed.encode("utf-8", "surrogatepass")
    return original


def _outside_users_note(path: str, users: dict[str, frozenset[str]], outside: set[str]) -> Optional[str]:
    """Why a name comes back, when a file outside the run uses it (one in the run says so itself:
    its finding remains)."""
    strangers = {name: sorted(set(importers) & outside) for name, importers in users.items()}
    strangers = {name: found for name, found in strangers.items() if found}
    if not strangers:
        return None
    first = os.path.relpath(min(found[0] for found in strangers.values()), os.path.dirname(os.path.abspath(path)))
    return _note(frozenset(strangers), f"{first} uses it through this file and is not in this run")


def _note(names: frozenset[str], reason: str) -> str:
    listed = ", ".join(f"`{name}`" for name in sorted(names))
    return f"kept the unused import of {listed}: {reason}"


def written_together(
    paths: Sequence[str], originals: Sequence[bytes], results: Sequence[SourceResult], roots: Sequence[str], changed: Sequence[int]
) -> list[list[int]]:
    """The files of a fix run to write (`changed`: indexes) in groups that must be written all or
    none, each in run order: a file whose fix drops an import that another file uses through it (as
    that file is on disk) goes with that file, whose fix stops using the name. Written alone, it
    would break the other file. Every other file is a group of its own."""
    group = {index: index for index in changed}

    def top(index: int) -> int:
        while group[index] != index:
            index = group[index]
        return index

    removed = {index: results[index].removed_imports for index in changed if results[index].removed_imports}
    if removed:
        position = {os.path.abspath(path): index for index, path in enumerate(paths)}
        project = ProjectIndex(list(zip(paths, originals)), roots, removed={paths[at]: names for at, names in removed.items()})
        for at, names in removed.items():
            users = project.users_of(paths[at])
            if users is None:  # unknown: any file may use the names
                linked = list(changed)
            else:
                linked = [position[user] for name in names for user in users.get(name, ()) if user in position]
            for other in linked:
                if other in group:
                    group[top(at)] = top(other)
    members: dict[int, list[int]] = {}
    for index in changed:
        members.setdefault(top(index), []).append(index)
    return sorted(members.values())
