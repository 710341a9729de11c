"""`async=` keyword arguments (`x.cuda(async=True)`, torch 0.3's spelling of `non_blocking=`).

Since Python 3.7 `async` is a keyword, so a file with such a call is a syntax error. The tokenizer
still reads `async` as a name, so a token pass finds every `async=` inside call parentheses and
renames it, which lets the rest of the file be parsed and analysed. Offsets in the repaired text
map back to the text as written (only the columns after a renamed keyword on its line move).
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Optional

LEGACY_KEYWORD = "async"
MODERN_KEYWORD = "non_blocking"
_GROWTH = len(MODERN_KEYWORD) - len(LEGACY_KEYWORD)

# Cheap test before tokenizing: most files have no `async` followed by `=` at all.
_CANDIDATE = re.compile(r"\basync\s*=(?!=)")
_SKIPPED = frozenset({tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT})
_DEFINITIONS = frozenset({"def", "class"})


@dataclass(frozen=True)
class AsyncKeywordRepair:
    """`text` with every `async=` keyword argument renamed `non_blocking=`."""

    original: str
    sites: tuple[int, ...]  # offset of each `async` keyword in the text as written, ascending

    @cached_property
    def text(self) -> str:
        pieces, previous = [], 0
        for site in self.sites:
            pieces.append(self.original[previous:site])
            pieces.append(MODERN_KEYWORD)
            previous = site + len(LEGACY_KEYWORD)
        pieces.append(self.original[previous:])
        return "".join(pieces)

    @cached_property
    def repaired_sites(self) -> tuple[int, ...]:
        """Offset of each renamed keyword in the repaired text."""
        return tuple(site + index * _GROWTH for index, site in enumerate(self.sites))

    def original_offset(self, offset: int) -> int:
        """The offset in the text as written of `offset` in the repaired text. An offset inside
        a renamed keyword maps into the `async` it replaced (its end to the end)."""
        index = bisect_right(self.repaired_sites, offset) - 1
        if index < 0:
            return offset
        start = self.repaired_sites[index]
        within = offset - start
        if within >= len(MODERN_KEYWORD):
            return offset - (index + 1) * _GROWTH
        return self.sites[index] + min(within, len(LEGACY_KEYWORD))


@lru_cache(maxsize=16)  # parsing, analysis and the fixer ask for the same text in turn
def repair_async_keywords(text: str) -> Optional[AsyncKeywordRepair]:
    """The repair of `text`, or None when it has no `async=` keyword argument (or cannot be
    tokenized, in which case it does not parse either way)."""
    if not _CANDIDATE.search(text):
        return None
    sites = _async_keyword_sites(text)
    return AsyncKeywordRepair(text, sites) if sites else None


def _async_keyword_sites(text: str) -> tuple[int, ...]:
    lines = io.StringIO(text).readlines()
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    calls: list[bool] = []  # per open bracket: whether it is the parentheses of a call
    before_previous: Optional[tokenize.TokenInfo] = None
    previous: Optional[tokenize.TokenInfo] = None
    candidate: Optional[tokenize.TokenInfo] = None
    sites = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in _SKIPPED:
                continue
            if candidate is not None and token.type == tokenize.OP and token.string == "=":
                row, column = candidate.start
                sites.append(starts[row - 1] + column)
            candidate = None
            if token.type == tokenize.OP and token.string in "([{":
                calls.append(token.string == "(" and _opens_call(previous, before_previous))
            elif token.type == tokenize.OP and token.string in ")]}":
                if calls:
                    calls.pop()
            elif _is_argument_name(token, previous) and calls and calls[-1]:
                candidate = token
            before_previous, previous = previous, token
    except (tokenize.TokenError, SyntaxError):
        return ()
    return tuple(sites)


def _opens_call(previous: Optional[tokenize.TokenInfo], before_previous: Optional[tokenize.TokenInfo]) -> bool:
    """A `(` right after a callee: a name (not a keyword, not the name a `def` or `class`
    defines) or a closing bracket (`f(a)(b)`, `fs[0](b)`)."""
    if previous is None:
        return False
    if previous.type == tokenize.NAME:
        defines = before_previous is not None and before_previous.type == tokenize.NAME and before_previous.string in _DEFINITIONS
        return not keyword.iskeyword(previous.string) and not defines
    return previous.type == tokenize.OP and previous.string in (")", "]")


def _is_argument_name(token: tokenize.TokenInfo, previous: Optional[tokenize.TokenInfo]) -> bool:
    """`async` where an argument starts (right after `(` or `,`)."""
    return (
        token.type == tokenize.NAME
        and token.string == LEGACY_KEYWORD
        and previous is not None
        and previous.type == tokenize.OP
        and previous.string in ("(", ",")
    )
