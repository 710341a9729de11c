from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

# Formats a person reads; the others are parsed by tools, so nothing else may share their stream.
HUMAN_FORMATS = frozenset({"text", "full", "concise", "grouped"})


def _no_source(path: str) -> Optional[str]:
    return None


@dataclass(frozen=True)
class RenderOptions:
    quiet: bool = False  # findings only, no summary
    color: bool = False  # ANSI styles (the CLI decides: a TTY and no NO_COLOR)
    show_fixes: bool = False  # print each available fix as a small diff
    unsafe_fixes: bool = False  # `gradlint fix` applies unsafe fixes too (--unsafe-fixes or the setting): they count as fixable
    source_of: Callable[[str], Optional[str]] = _no_source  # decoded text of a reported path, if readable
    # Paths that could not be checked: (path, one-line reason, "error" or "warning"). The text
    # formats leave them to stderr; SARIF records them as tool execution notifications.
    problems: tuple[tuple[str, str, str], ...] = ()
