"""File I/O at the edges: reading that never blocks or crashes, and atomic, guarded writes."""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path


class SourceReadError(Exception):
    """The file could not be read; the message is a short reason."""


class ChangedOnDisk(Exception):
    """The file changed between reading and writing; it was not overwritten."""


def read_source(path: Path) -> bytes:
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise SourceReadError("is a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file")
        with open(path, "rb") as handle:
            return handle.read()
    except SourceReadError:
        raise
    except FileNotFoundError:
        raise SourceReadError("no such file or directory (deleted or a broken link?)") from None
    except PermissionError:
        raise SourceReadError("permission denied") from None
    except OSError as error:
        raise SourceReadError(error.strerror or str(error)) from None


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes, expected_original: bytes) -> None:
    """Replace `path` with `data` unless its content is no longer `expected_original`.

    Writes a temporary file in the same directory and renames it over the original, so a reader
    (or a crash) sees either the old or the new file, never a half-written one. Keeps the mode.
    """
    if digest(read_source(path)) != digest(expected_original):
        raise ChangedOnDisk("changed on disk since it was read; not overwritten")
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(os.stat(target).st_mode)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".gradlint-tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
