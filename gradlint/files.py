"""File I/O at the edges: reading that never blocks or crashes, and atomic, guarded writes."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from gradlint.interrupts import deferred

NOTEBOOK_SUFFIX = ".ipynb"  # a Jupyter notebook: its code cells are checked as one module
# The memory budget of an analysis, in bytes of source: LibCST takes several hundred bytes of
# memory per byte it parses (a whole 2 MB file about 1.3 GB). A larger file is compiled by CPython
# whole (GL001) and analysed in pieces of whole top-level statements, each with its context within
# this budget (`gradlint.pieces`); a single statement over it is left out with a warning. `fix`
# leaves a file over it unchanged, with a warning. `--max-file-size` changes it (0: no limit).
# Results over it are never cached, so a raised limit takes effect.
MAX_FILE_BYTES = 2 * 1024 * 1024
# How the temporary file holding a file's new content ends (`.<name>.<random>.gradlint-tmp`, beside it).
TEMPORARY_SUFFIX = ".gradlint-tmp"
# A temporary file this old was left by a run that was killed (a run writes one in moments).
STALE_SECONDS = 15 * 60


def describe_size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"


class SourceReadError(Exception):
    """The file could not be read; the message is a short reason."""


class ChangedOnDisk(Exception):
    """The file changed between reading and writing; it was not overwritten."""


class ReadOnlyFile(Exception):
    """The file is read-only; it was not overwritten."""


# Opening never blocks: O_NONBLOCK makes opening a FIFO (or a device) return at once, and the
# descriptor is then checked with fstat, so a file swapped for a FIFO after discovery is refused
# instead of hanging the run.
_EXTRA_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def describe_os_error(error: OSError) -> str:
    """A short, lower-case reason for an OSError (no errno numbers, no repeated path)."""
    reasons = {
        errno.ENOENT: "no such file or directory (deleted, or a broken symbolic link?)",
        errno.ELOOP: "symbolic link loop",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EISDIR: "is a directory",
        errno.ENOTDIR: "a parent of the path is not a directory",
    }
    if error.errno in reasons:
        return reasons[error.errno]
    reason = error.strerror or str(error) or type(error).__name__
    return reason[:1].lower() + reason[1:]


def read_source(path: Path) -> bytes:
    """The bytes of a regular file, or SourceReadError with a one-line reason. Never blocks."""
    try:
        with open(path, "rb", buffering=0, opener=_nonblocking) as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise SourceReadError(f"not a regular file ({describe_file_type(info.st_mode)})")
            return handle.readall()
    except SourceReadError:
        raise
    except OSError as error:
        raise SourceReadError(describe_os_error(error)) from None


def _nonblocking(path: str, flags: int) -> int:
    return os.open(path, flags | _EXTRA_FLAGS)


def describe_file_type(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a special file"


def digest(data: bytes) -> str:
    import hashlib  # here, as tempfile below: the commands that read or write no file start without them

    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes, expected_original: bytes) -> None:
    """Replace `path` with `data` unless its content is no longer `expected_original`.

    Writes a temporary file in the same directory and renames it over the original, so a reader
    (or a crash) sees either the old or the new file, never a half-written one. Keeps the mode
    (and, where permitted, the owner). The content is compared with `expected_original` as late
    as possible, after the temporary file is complete and just before the rename.
    """
    writes = StagedWrites()
    try:
        writes.stage(path, data, expected_original)
        writes.commit()
    finally:
        writes.discard()


@dataclass
class _Staged:
    target: Path  # the file itself (a symbolic link resolved)
    data: bytes
    original: bytes
    temporary: Optional[str]  # the new content, beside the file; None: written in place (hard links)


class StagedWrites:
    """Files replaced together, all or none: each new content is written and flushed to a temporary
    file beside its file, and the file checked unchanged, before any file is replaced. `stage`
    raises ChangedOnDisk, ReadOnlyFile, SourceReadError or OSError for a file that cannot be
    written; `commit` replaces every staged file, SIGINT and SIGTERM waiting until it is done,
    and puts back what it replaced when one fails; `discard` removes what was not used.
    """

    def __init__(self) -> None:
        self._staged: list[_Staged] = []
        self.failing: Optional[Path] = None  # after a failed `commit`: the file it could not replace

    def stage(self, path: Path, data: bytes, expected_original: bytes) -> None:
        expected = digest(expected_original)
        _check_unchanged(path, expected)
        target = Path(os.path.realpath(path))
        info = os.stat(target)
        if _read_only(target, info):
            raise ReadOnlyFile("read-only; not overwritten")
        if info.st_nlink > 1:  # one inode under several names: a rename would change one name only
            self._staged.append(_Staged(target, data, expected_original, None))
            return
        import tempfile  # here: the commands that write no file start without it

        with deferred():  # the temporary file is known to `discard` as soon as it exists
            handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMPORARY_SUFFIX, dir=target.parent)
            self._staged.append(_Staged(target, data, expected_original, temporary))
            out = os.fdopen(handle, "wb")
        with out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        _keep_owner(temporary, info)
        _check_unchanged(target, expected)

    def commit(self) -> None:
        with deferred():
            for staged in self._staged:
                if staged.temporary is not None:
                    self.failing = staged.target
                    _check_unchanged(staged.target, digest(staged.original))
            # In place first: such a write is the one that may fail halfway (it puts its original back).
            order = sorted(self._staged, key=lambda staged: staged.temporary is not None)
            done: list[_Staged] = []
            try:
                for staged in order:
                    self.failing = staged.target
                    if staged.temporary is None:
                        _overwrite_in_place(staged.target, staged.data, staged.original)
                    else:
                        os.replace(staged.temporary, staged.target)
                        staged.temporary = None
                    done.append(staged)
            except BaseException:
                for staged in reversed(done):
                    _put_back(staged)
                raise
            self.failing = None
            for directory in dict.fromkeys(staged.target.parent for staged in self._staged):
                _sync_directory(directory)

    def discard(self) -> None:
        with deferred():  # every temporary file goes, even when an interrupt comes meanwhile
            for staged in self._staged:
                if staged.temporary is not None:
                    try:
                        os.unlink(staged.temporary)
                    except OSError:
                        pass
                    staged.temporary = None
            self._staged = []


def _check_unchanged(path: Path, expected: str) -> None:
    if digest(read_source(path)) != expected:
        raise ChangedOnDisk("changed on disk since it was read; not overwritten")


def _put_back(staged: _Staged) -> None:
    """Undo a replacement of a group that failed further on (best effort: the rest of the group is
    what gets reported)."""
    try:
        write_atomic(staged.target, staged.original, staged.data)
    except (OSError, ChangedOnDisk, ReadOnlyFile, SourceReadError):
        pass


def _read_only(target: Path, info: os.stat_result) -> bool:
    """Nobody may write the file (even root, who `os.access` lets write anything), or we may not."""
    writable_bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    return not info.st_mode & writable_bits or not os.access(target, os.W_OK)


def _overwrite_in_place(target: Path, data: bytes, original: bytes) -> None:
    """Write `data` into the file itself: a file with several hard links is one inode under several
    names, and a rename would give only this name the new content. Not atomic, so the original is
    written back if the write fails (it fits: it is what the file held)."""
    with open(target, "r+b") as out:
        if digest(out.read()) != digest(original):
            raise ChangedOnDisk("changed on disk since it was read; not overwritten")
        try:
            _write_whole(out, data)
        except BaseException:
            _write_whole(out, original)
            raise


def _write_whole(out, data: bytes) -> None:
    out.seek(0)
    out.write(data)
    out.truncate()
    out.flush()
    os.fsync(out.fileno())


def _replace_through_temporary(target: Path, data: bytes, before_rename: Callable[[str], None]) -> None:
    """Write `data` to a temporary file beside `target`, run `before_rename` on it, and rename it
    over `target`; the temporary file is removed if anything fails."""
    import tempfile

    with deferred():  # no interrupt between the temporary file's creation and the `try` removing it
        handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMPORARY_SUFFIX, dir=target.parent)
        try:
            out = os.fdopen(handle, "wb")
        except BaseException:
            os.unlink(temporary)
            raise
    try:
        with out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        before_rename(temporary)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
    _sync_directory(target.parent)


def remove_stale_temporaries(directory: Path, pattern: str = f".*{TEMPORARY_SUFFIX}") -> None:
    """Remove the temporary files (`pattern`) a run killed outright (SIGKILL, a power cut) left in
    `directory`, once they are STALE_SECONDS old: a younger one may be a running run's."""
    import time

    now = time.time()
    try:
        found = list(directory.glob(pattern))
    except OSError:
        return
    for path in found:
        try:
            if now - path.lstat().st_mtime > STALE_SECONDS:
                path.unlink()
        except OSError:
            pass


def _keep_owner(temporary: str, info: os.stat_result) -> None:
    if not hasattr(os, "chown"):
        return
    current = os.stat(temporary)
    if (current.st_uid, current.st_gid) == (info.st_uid, info.st_gid):
        return
    try:
        os.chown(temporary, info.st_uid, info.st_gid)
    except OSError:
        pass  # only root (or a member of the group) may; the content is what matters


def _sync_directory(directory: Path) -> None:
    """Make the rename durable (best effort; not every platform can open a directory)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def write_output_atomic(path: Path, text: str) -> None:
    """Write a report to `path` (created, or replaced whole): a reader sees the old file or the
    new one, never a half-written one. A new file gets the default mode (umask applied)."""
    path.parent.mkdir(parents=True, exist_ok=True)

    def set_mode(temporary: str) -> None:
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, stat.S_IMODE(os.stat(path).st_mode) if path.exists() else 0o666 & ~mask)

    _replace_through_temporary(path, text.encode("utf-8"), set_mode)
