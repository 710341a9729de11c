"""Message text: a finding's message is always one line, however long the code it quotes."""

from __future__ import annotations

from typing import Optional


def snippet(text: str, limit: int, fallback: Optional[str] = None) -> str:
    """`text` when it is one line of at most `limit` characters; otherwise `fallback`, or, without
    one, its first line cut to `limit` characters ending in "..."."""
    if len(text) <= limit and "\n" not in text:
        return text
    if fallback is not None:
        return fallback
    return text.splitlines()[0][: limit - 3] + "..."
