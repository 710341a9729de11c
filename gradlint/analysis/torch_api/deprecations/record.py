"""One deprecated public torch API as GL517 knows it: the release that deprecated (or removed) it,
what replaces it, and the exact fix when the replacement computes the same for every input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Deprecated:
    since: str  # the torch release that deprecated it
    replacement: str = ""  # what to use instead, as the message names it; "" when nothing replaces it
    removed: Optional[str] = None  # the torch release that removed it
    # The exact fix, when there is one: `new` is the dotted name (or, for a method or keyword, the
    # name) written in place of the deprecated one, the call's arguments kept; `leading` are
    # argument texts put before them and `keywords` (name, text) pairs added after them.
    new: Optional[str] = None
    leading: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    positional: Optional[int] = None  # fixed only with at most this many positional arguments
    without: tuple[str, ...] = ()  # keywords only the deprecated API takes: a call passing one gets no fix
    needs_torch: Optional[str] = None  # the oldest torch release that has `new`
    why_no_fix: str = ""  # when `replacement` is not exact: how it differs (shown in the docs)
    # A whole subsystem torch deprecates for a successor that is no drop-in replacement
    # ("TorchScript", "quantization"): reported by GL518, which is opt-in, not by GL517.
    subsystem: str = ""
