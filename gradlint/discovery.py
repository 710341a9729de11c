"""Find the Python files (and notebooks) to check: recursive, honouring .gitignore, exclude and extend-exclude."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import pathspec

from gradlint.config import Settings
from gradlint.files import describe_file_type, describe_os_error

SOURCE_SUFFIXES = (".py", ".pyi")
CHECKED_SUFFIXES = (*SOURCE_SUFFIXES, ".ipynb")  # what a directory walk finds: Python files and Jupyter notebooks


@dataclass(frozen=True)
class Discovered:
    files: list[Path]
    errors: list[tuple[str, str]]  # (path, reason) for paths that do not exist or cannot be listed


def discover(paths: list[Path], settings: Settings) -> Discovered:
    excluded = pathspec.GitIgnoreSpec.from_lines(settings.exclude + settings.extend_exclude)
    files: list[Path] = []
    errors: list[tuple[str, str]] = []
    for path in paths:
        kind, reason = _classify(path)
        if kind == "directory":
            walker = _Walker(settings, excluded, errors)
            files.extend(walker.walk(path))
        elif kind == "file":
            if not (settings.force_exclude and is_excluded(path, settings, excluded)):
                files.append(path)  # named explicitly: checked even when excluded, unless forced
        else:
            errors.append((str(path), reason))
    return Discovered(_unique(files), errors)


def is_excluded(path: Path, settings: Settings, excluded: Optional[pathspec.PathSpec] = None) -> bool:
    """Whether a walk from the settings' root would skip `path` by `exclude`/`extend-exclude`
    (the file itself or one of its directories)."""
    if excluded is None:
        excluded = pathspec.GitIgnoreSpec.from_lines(settings.exclude + settings.extend_exclude)
    return _is_excluded_path(path, settings.root, excluded)


def _is_excluded_path(path: Path, root: Path, excluded: pathspec.PathSpec, *, is_dir: bool = False) -> bool:
    try:
        parts = path.resolve().relative_to(root.resolve()).parts
    except ValueError:
        parts = (path.name,)  # outside the configured tree: only its own name can match
    return any(
        _matches(excluded, "/".join(parts[:depth]), parts[depth - 1], is_dir=depth < len(parts) or is_dir)
        for depth in range(1, len(parts) + 1)
    )


def _matches(excluded: pathspec.PathSpec, relative: str, name: str, *, is_dir: bool) -> bool:
    """An exclude pattern matches the path relative to the root, or its name alone."""
    slash = "/" if is_dir else ""
    return excluded.match_file(relative + slash) or excluded.match_file(name + slash)


def _classify(path: Path) -> tuple[str, str]:
    """("directory" | "file" | "unreadable", reason). Never raises, never opens the path (opening
    a FIFO blocks, opening some devices has side effects)."""
    try:
        info = os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "unreadable", "symbolic link loop"
        if os.path.islink(path):
            return "unreadable", "broken symbolic link (its target does not exist)"
        if error.errno in (errno.ENOENT, errno.ENOTDIR):
            return "unreadable", "no such file or directory"
        return "unreadable", describe_os_error(error)
    if stat.S_ISDIR(info.st_mode):
        return "directory", ""
    if stat.S_ISREG(info.st_mode):
        return "file", ""
    return "unreadable", f"not a regular file ({describe_file_type(info.st_mode)})"


def _unique(files: list[Path]) -> list[Path]:
    seen: set[Path] = set()
    result = []
    for file in files:
        key = file.absolute()
        if key not in seen:
            seen.add(key)
            result.append(file)
    return result


def _is_regular(entry: os.DirEntry) -> bool:
    try:
        return entry.is_file(follow_symlinks=False)  # from the directory listing: no extra stat
    except OSError:
        return False


def _is_editor_lock(entry: os.DirEntry) -> bool:
    """Emacs marks a file being edited with a dangling symbolic link `.#name.py`: not source."""
    return entry.name.startswith(".#") and entry.is_symlink()


class _Walker:
    def __init__(self, settings: Settings, excluded: pathspec.PathSpec, errors: list[tuple[str, str]]) -> None:
        self.root = settings.root
        self.excluded = excluded
        self.errors = errors
        self.respect_gitignore = settings.respect_gitignore
        self.exclusion_base = settings.root  # where exclude patterns are anchored
        self.force_exclude = settings.force_exclude

    def walk(self, top: Path) -> Iterator[Path]:
        """The files under `top`. A directory named on the command line is checked even when it is
        excluded or gitignored itself (as a file named there is): patterns then apply below it."""
        ignores = self._parent_gitignores(top) if self.respect_gitignore else []
        if not self.force_exclude:
            if ignores and _is_ignored(top, True, ignores):
                ignores = [(top, spec) for _, spec in ignores]  # patterns of the files above apply below `top`
            if _is_excluded_path(top, self.root, self.excluded, is_dir=True):
                self.exclusion_base = top
        elif _is_excluded_path(top, self.root, self.excluded, is_dir=True) or ignores and _is_ignored(top, True, ignores):
            return
        yield from self._walk(top, ignores)

    def _walk(self, directory: Path, ignores: list[tuple[Path, pathspec.PathSpec]]) -> Iterator[Path]:
        if self.respect_gitignore:
            own = _gitignore_of(directory)
            if own is not None:
                ignores = [*ignores, (directory, own)]
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            self.errors.append((str(directory), f"cannot list directory: {describe_os_error(error)}"))
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                is_dir = False
            if self._is_excluded(path, is_dir) or _is_ignored(path, is_dir, ignores):
                continue
            if is_dir:
                yield from self._walk(path, ignores)
            elif entry.name.endswith(CHECKED_SUFFIXES):
                if _is_regular(entry):
                    yield path
                    continue
                kind, reason = _classify(path)
                if kind == "file":
                    yield path  # a symbolic link to a file
                elif kind == "unreadable" and not _is_editor_lock(entry):
                    self.errors.append((str(path), reason))
                # a symbolic link to a directory is not followed (no loops, no escaping the tree)

    def _is_excluded(self, path: Path, is_dir: bool) -> bool:
        relative = _relative(path, self.exclusion_base)
        return _matches(self.excluded, relative if relative is not None else path.name, path.name, is_dir=is_dir)

    def _parent_gitignores(self, top: Path) -> list[tuple[Path, pathspec.PathSpec]]:
        """.gitignore files of the directories above `top`, up to the repository root."""
        found = []
        absolute = top.resolve()
        for directory in absolute.parents:
            spec = _gitignore_of(directory)
            if spec is not None:
                found.append((directory, spec))
            if (directory / ".git").exists():
                break
        return list(reversed(found))


def _gitignore_of(directory: Path) -> Optional[pathspec.PathSpec]:
    try:
        text = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(text.splitlines())


def _is_ignored(path: Path, is_dir: bool, ignores: list[tuple[Path, pathspec.PathSpec]]) -> bool:
    ignored = False
    absolute = path.absolute()
    for base, spec in ignores:
        relative = _relative(absolute, base.absolute()) or _relative(path.resolve(), base.resolve())
        if relative is None:
            continue
        result = spec.check_file(relative + ("/" if is_dir else ""))
        if result.include is not None:
            ignored = result.include
    return ignored


def _relative(path: Path, base: Path) -> Optional[str]:
    try:
        return path.absolute().relative_to(base.absolute()).as_posix()
    except ValueError:
        return None
