"""Find the Python files (and notebooks) to check: recursive, honouring .gitignore, exclude and extend-exclude."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, NamedTuple, Optional

import pathspec

from gradlint.config import Settings, settings_for_directory, settings_for_file
from gradlint.files import describe_file_type, describe_os_error

SOURCE_SUFFIXES = (".py", ".pyi")
CHECKED_SUFFIXES = (*SOURCE_SUFFIXES, ".ipynb")  # what a directory walk finds: Python files and Jupyter notebooks


@dataclass(frozen=True)
class Discovered:
    files: list[Path]
    errors: list[tuple[str, str]]  # (path, reason) for paths that do not exist or cannot be listed
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why it is not checked), when explaining


class _Ignore(NamedTuple):
    """One gitignore-style file: its patterns apply to paths relative to `base`."""

    base: Path
    spec: pathspec.PathSpec
    origin: str  # the file, to say which one ignored a path


def discover(paths: list[Path], settings: Settings, *, explain: bool = False) -> Discovered:
    """The files to check under `paths`; with `explain`, also every path left out and why."""
    excluded = pathspec.GitIgnoreSpec.from_lines(settings.exclude + settings.extend_exclude)
    files: list[Path] = []
    errors: list[tuple[str, str]] = []
    skipped: Optional[list[tuple[str, str]]] = [] if explain else None
    for path in paths:
        kind, reason = _classify(path)
        if kind == "directory":
            walker = _Walker(settings, excluded, errors, skipped)
            files.extend(walker.walk(path))
        elif kind == "file":
            own = settings_for_file(settings, path) if settings.force_exclude else settings
            pattern = _excluding_pattern(path, own.root, _exclusion_spec(own, settings, excluded)) if settings.force_exclude else None
            if pattern is None:
                files.append(path)  # named explicitly: checked even when excluded, unless forced
            elif skipped is not None:
                skipped.append((str(path), _excluded_by(pattern, own)))
        else:
            errors.append((str(path), reason))
    return Discovered(_unique(files), errors, skipped or [])


def _exclusion_spec(own: Settings, settings: Settings, excluded: pathspec.PathSpec) -> pathspec.PathSpec:
    """The exclude patterns of `own` (another configuration's settings), or the run's already compiled."""
    if own is settings:
        return excluded
    return pathspec.GitIgnoreSpec.from_lines(own.exclude + own.extend_exclude)


class _Scope(NamedTuple):
    """The configuration a walk judges paths by: the nearest one above them, as ruff does."""

    settings: Settings
    excluded: pathspec.PathSpec
    base: Path  # where its exclude patterns are anchored


def is_excluded(path: Path, settings: Settings, excluded: Optional[pathspec.PathSpec] = None) -> bool:
    """Whether a walk from the settings' root would skip `path` by `exclude`/`extend-exclude`
    (the file itself or one of its directories)."""
    if excluded is None:
        excluded = pathspec.GitIgnoreSpec.from_lines(settings.exclude + settings.extend_exclude)
    return _excluding_pattern(path, settings.root, excluded) is not None


def _excluding_pattern(path: Path, root: Path, excluded: pathspec.PathSpec, *, is_dir: bool = False) -> Optional[int]:
    """The index of the exclude pattern that matches `path` or one of its directories, if any."""
    try:
        parts = path.resolve().relative_to(root.resolve()).parts
    except ValueError:
        parts = (path.name,)  # outside the configured tree: only its own name can match
    for depth in range(1, len(parts) + 1):
        pattern = _matching(excluded, "/".join(parts[:depth]), parts[depth - 1], is_dir=depth < len(parts) or is_dir)
        if pattern is not None:
            return pattern
    return None


def _matching(excluded: pathspec.PathSpec, relative: str, name: str, *, is_dir: bool) -> Optional[int]:
    """The index of the exclude pattern that matches the path relative to the root, or its name alone."""
    slash = "/" if is_dir else ""
    for candidate in (relative + slash, name + slash):
        if excluded.match_file(candidate):  # faster than check_file, which only says which pattern
            return excluded.check_file(candidate).index
    return None


def _excluded_by(pattern: int, settings: Settings) -> str:
    """Which setting's pattern excluded a path (the patterns are `exclude` then `extend-exclude`)."""
    patterns = settings.exclude + settings.extend_exclude
    return f"excluded by `{patterns[pattern]}` ({'exclude' if pattern < len(settings.exclude) else 'extend-exclude'})"


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
    def __init__(
        self,
        settings: Settings,
        excluded: pathspec.PathSpec,
        errors: list[tuple[str, str]],
        skipped: Optional[list[tuple[str, str]]] = None,
    ) -> None:
        self.settings = settings
        self.root = settings.root
        self.excluded = excluded
        self.errors = errors
        self.skipped = skipped  # None: nobody asks why
        self.respect_gitignore = settings.respect_gitignore
        self.exclusion_base = settings.root  # where exclude patterns are anchored
        self.force_exclude = settings.force_exclude

    def walk(self, top: Path) -> Iterator[Path]:
        """The files under `top`. A directory named on the command line is checked even when it is
        excluded or gitignored itself (as a file named there is): patterns then apply below it."""
        ignores = _ignores_above(top) if self.respect_gitignore else []
        excluding = _excluding_pattern(top, self.root, self.excluded, is_dir=True)
        if not self.force_exclude:
            if ignores and _ignoring(top, True, ignores):
                ignores = [ignore._replace(base=top) for ignore in ignores]  # patterns of the files above apply below `top`
            if excluding is not None:
                self.exclusion_base = top
        elif excluding is not None:
            self._skip(top, _excluded_by(excluding, self.settings))
            return
        elif ignores and (ignored := _ignoring(top, True, ignores)):
            self._skip(top, ignored)
            return
        yield from self._walk(top, ignores, _Scope(self.settings, self.excluded, self.exclusion_base))

    def _scope_of(self, directory: Path, scope: _Scope) -> _Scope:
        """A directory under another configuration (a project of a monorepo) is judged by its own."""
        own = settings_for_directory(self.settings, directory)
        if own.config_path == scope.settings.config_path:
            return scope
        return _Scope(own, _exclusion_spec(own, self.settings, self.excluded), own.root)

    def _walk(self, directory: Path, ignores: list[_Ignore], scope: _Scope) -> Iterator[Path]:
        scope = self._scope_of(directory, scope)
        if self.respect_gitignore:
            own = _gitignore_of(directory)
            if own is not None:
                ignores = [*ignores, own]
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
            excluding = self._excluding(path, is_dir, scope)
            if excluding is not None:
                self._skip(path, _excluded_by(excluding, scope.settings))
                continue
            ignored = _ignoring(path, is_dir, ignores)
            if ignored:
                self._skip(path, ignored)
                continue
            if is_dir:
                yield from self._walk(path, ignores, scope)
            elif entry.name.endswith(CHECKED_SUFFIXES):
                if _is_regular(entry):
                    yield path
                    continue
                kind, reason = _classify(path)
                if kind == "file":
                    yield path  # a symbolic link to a file
                elif kind == "directory":  # not followed: no loops, no escaping the tree
                    self._skip(path, "a symbolic link to a directory (not followed)")
                elif _is_editor_lock(entry):
                    self._skip(path, "an editor's lock file")
                else:
                    self.errors.append((str(path), reason))
            else:
                self._skip(path, "neither Python nor a notebook")

    def _skip(self, path: Path, reason: str) -> None:
        if self.skipped is not None:
            self.skipped.append((str(path), reason))

    def _excluding(self, path: Path, is_dir: bool, scope: _Scope) -> Optional[int]:
        relative = _relative(path, scope.base)
        return _matching(scope.excluded, relative if relative is not None else path.name, path.name, is_dir=is_dir)


def _ignores_above(top: Path) -> list[_Ignore]:
    """What git ignores above `top`, weakest first: the user's global excludes file and the
    repository's `.git/info/exclude` (when `top` is in a repository), then the .gitignore files of
    the directories above `top` up to the repository root."""
    absolute = top.resolve()
    # os.path: False, not PermissionError, inside a folder that cannot be listed
    repository = next((directory for directory in (absolute, *absolute.parents) if os.path.exists(directory / ".git")), None)
    above = list(absolute.parents)
    if repository is not None:
        above = above[: above.index(repository) + 1] if repository in above else []
    found = [ignore for directory in reversed(above) if (ignore := _gitignore_of(directory)) is not None]
    return _repository_excludes(repository) + found if repository is not None else found


def _repository_excludes(repository: Path) -> list[_Ignore]:
    git_dir = _git_dir(repository)
    files = [_excludes_file(git_dir), git_dir / "info" / "exclude"]
    return [ignore for file in files if file is not None and (ignore := _ignore_file(repository, file)) is not None]


def _git_dir(repository: Path) -> Path:
    """The repository's git directory, shared by its worktrees: `.git`, or where a `.git` file
    (`gitdir: ...`) of a worktree or submodule points, up to its `commondir`."""
    dot_git = repository / ".git"
    if os.path.isdir(dot_git):
        return dot_git
    try:
        pointer = dot_git.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return dot_git
    git_dir = (repository / pointer.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return git_dir
    return (git_dir / common).resolve()


def _excludes_file(git_dir: Path) -> Optional[Path]:
    """git's `core.excludesFile`, from the user's and the repository's configuration (the last
    one set wins), else its default `$XDG_CONFIG_HOME/git/ignore`; None without a home directory."""
    try:
        home = Path.home()
        xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config") / "git"
        configured = None
        for config in (xdg / "config", home / ".gitconfig", git_dir / "config"):
            configured = _core_excludes_file(config) or configured
        return Path(configured).expanduser() if configured else xdg / "ignore"
    except RuntimeError:  # no home directory to expand `~` in
        return None


def _core_excludes_file(config: Path) -> Optional[str]:
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section, value = "", None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].strip().lower()
        elif section == "core" and "=" in line:
            key, _, setting = line.partition("=")
            if key.strip().lower() == "excludesfile":
                value = setting.strip().strip('"') or None
    return value


def _gitignore_of(directory: Path) -> Optional[_Ignore]:
    return _ignore_file(directory, directory / ".gitignore")


def _ignore_file(base: Path, file: Path) -> Optional[_Ignore]:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    return (
        _Ignore(base, spec, str(file)) if any(p.include is not None for p in spec.patterns) else None
    )  # git's template info/exclude is all comments


def _ignoring(path: Path, is_dir: bool, ignores: list[_Ignore]) -> Optional[str]:
    """Which gitignore pattern leaves `path` out (`file: pattern`, the last match wins as in git),
    None when it is not ignored."""
    verdict = None
    absolute = path.absolute()
    for ignore in ignores:
        relative = _relative(absolute, ignore.base.absolute()) or _relative(path.resolve(), ignore.base.resolve())
        if relative is None:
            continue
        result = ignore.spec.check_file(relative + ("/" if is_dir else ""))
        if result.include is not None:
            verdict = (ignore, result.index) if result.include else None
    if verdict is None:
        return None
    ignore, index = verdict
    return f"gitignored by `{ignore.spec.patterns[index].pattern}` in {ignore.origin}"


def _relative(path: Path, base: Path) -> Optional[str]:
    try:
        return path.absolute().relative_to(base.absolute()).as_posix()
    except ValueError:
        return None
