"""Find the Python files to check: recursive, honouring .gitignore, exclude and extend-exclude."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import pathspec

from gradlint.config import Settings

SOURCE_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class Discovered:
    files: list[Path]
    errors: list[tuple[str, str]]  # (path, reason) for paths that do not exist or cannot be listed


def discover(paths: list[Path], settings: Settings) -> Discovered:
    excluded = pathspec.GitIgnoreSpec.from_lines(settings.exclude + settings.extend_exclude)
    files: list[Path] = []
    errors: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            walker = _Walker(settings, excluded, errors)
            files.extend(walker.walk(path))
        elif path.is_file() or path.is_fifo():
            files.append(path)  # named explicitly: always checked
        elif path.is_symlink():
            errors.append((str(path), "broken symbolic link"))
        elif path.exists():
            errors.append((str(path), "not a regular file or directory"))
        else:
            errors.append((str(path), "no such file or directory"))
    return Discovered(_unique(files), errors)


def _unique(files: list[Path]) -> list[Path]:
    seen: set[Path] = set()
    result = []
    for file in files:
        key = file.absolute()
        if key not in seen:
            seen.add(key)
            result.append(file)
    return result


class _Walker:
    def __init__(self, settings: Settings, excluded: pathspec.PathSpec, errors: list[tuple[str, str]]) -> None:
        self.root = settings.root
        self.excluded = excluded
        self.errors = errors
        self.respect_gitignore = settings.respect_gitignore

    def walk(self, top: Path) -> Iterator[Path]:
        ignores = self._parent_gitignores(top) if self.respect_gitignore else []
        yield from self._walk(top, ignores)

    def _walk(self, directory: Path, ignores: list[tuple[Path, pathspec.PathSpec]]) -> Iterator[Path]:
        if self.respect_gitignore:
            own = _gitignore_of(directory)
            if own is not None:
                ignores = [*ignores, (directory, own)]
        try:
            entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            self.errors.append((str(directory), error.strerror or str(error)))
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file()
            except OSError:
                continue
            if self._is_excluded(path, is_dir) or _is_ignored(path, is_dir, ignores):
                continue
            if is_dir:
                yield from self._walk(path, ignores)
            elif is_file and entry.name.endswith(SOURCE_SUFFIXES):
                yield path

    def _is_excluded(self, path: Path, is_dir: bool) -> bool:
        relative = _relative(path, self.root)
        if relative is None:
            relative = path.name
        candidates = [relative + ("/" if is_dir else ""), path.name + ("/" if is_dir else "")]
        return any(self.excluded.match_file(candidate) for candidate in candidates)

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
