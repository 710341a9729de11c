"""LibCST's parser without the check every node makes of itself when it is made.

Each LibCST node validates its fields in `CSTNode.__post_init__` (its whitespace against regular
expressions, its parentheses paired, ...). That guards trees built by hand, such as a fix's
replacement; a tree the parser builds from source text holds what the text holds, and checking it
costs about a seventh of the parse (LibCST's own comment there says validating parsed trees could
be skipped). `unvalidated()` turns the check off for the duration of a parse: the nodes built
anywhere else are validated as before. When LibCST has no such hook, nothing changes.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from libcst._nodes.base import CSTNode

_VALIDATE = CSTNode.__dict__.get("__post_init__")
_TURNED = threading.Lock()  # one parse at a time turns it off and back on


def _trusted(self: CSTNode) -> None:
    pass


@contextmanager
def unvalidated() -> Iterator[None]:
    """Nodes made inside the block skip their validation."""
    if _VALIDATE is None:
        yield
        return
    with _TURNED:
        CSTNode.__post_init__ = _trusted
        try:
            yield
        finally:
            CSTNode.__post_init__ = _VALIDATE
