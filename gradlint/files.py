"""File I/O at the edges: reading that never blocks or crashes, and atomic, guarded writes."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

NOTEBOOK_SUFFIX = ".ipynb"  # a Jupyter notebook: its code cells are checked as one module
# The memory budget of an analysis, in bytes of source: LibCST takes several hundred bytes of
# memory per byte it parses (a whole 2 MB file about 1.3 GB). A larger file is compiled by CPython
# whole (GL001) and analysed in pieces of whole top-level statements, each with its context within
# this budget (`gradlint.pieces`); a single statement over it is left out with a warning. `fix`
# leaves a file over it unchanged, with a warning. `--max-file-size` changes it (0: no limit).
# Results over it are never cached, so a raised limit takes effect.
MAX_FILE_BYTES = 2 * 1024 * 1024


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
    expected = digest(expected_original)
    if digest(read_source(path)) != expected:
        raise ChangedOnDisk("changed on disk since it was read; not overwritten")
    target = Path(os.path.realpath(path))
    info = os.stat(target)
    if _read_only(target, info):
        raise ReadOnlyFile("read-only; not overwritten")
    if info.st_nlink > 1:
        _overwrite_in_place(target, data, expected_original)
        return

    def keep_mode_owner_and_check(temporary: str) -> None:
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        _keep_owner(temporary, info)
        if digest(read_source(target)) != expected:
            raise ChangedOnDisk("changed on disk since it was read; not overwritten")

    _replace_through_temporary(target, data, keep_mode_owner_and_check)


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

    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gradlint-tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
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
