"""Whether a text could be nested beyond CPython's own limits, from a scan far cheaper than
compiling it.

Every file is first offered to CPython's compiler, because LibCST can take seconds and gigabytes
on what CPython refuses for its nesting (`f(f(f(...)))` 1,000 deep). Compiling costs about a tenth
of the LibCST parse, and almost no file comes near those limits, so the compiler runs only on the
files this scan cannot clear. The scan over-approximates: it may send a file to the compiler for
nothing, never the other way round. The limits, measured on CPython 3.9 to 3.13 under the default
recursion limit, and the margin kept here:

- 200 nested brackets ("too many nested parentheses"): the scan stops clearing at 150;
- 100 levels of indentation ("too many levels of indentation"): at 90;
- 20 statically nested blocks (loops, `try`, `except` handlers, each item of a `with`): each level
  of indentation counts 3 blocks (2 was the most measured), a `with` one per item, `if`,
  `elif`, `def` and `class` none, and the scan stops at 18;
- about 3,000 levels of expression nesting (`a + a + ...`, `-(-(-...))`, `x.a.b...`), and
  likewise of `elif` branches (RecursionError or MemoryError): each level needs at least one
  character of one logical line, so the scan stops at logical lines of 2,000 characters (string
  literals other than f-strings count one, as they hold no code) and at 1,000 `elif`s.

Anything it does not follow (tabs or form feeds in indentation, brackets that do not balance, an
f-string whose braces do not) sends the file to the compiler.
"""

from __future__ import annotations

import re

MAX_BRACKET_DEPTH = 150
MAX_INDENT_LEVELS = 90
MAX_BLOCKS = 18
MAX_LOGICAL_LINE = 2_000
MAX_ELIFS = 1_000
BLOCKS_PER_LEVEL = 3

_STRING_OR_COMMENT = re.compile(
    r"""'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|\#[^\n]*""",
    re.DOTALL,
)
_FIRST_WORD = re.compile(r"(?:async[ \t]+)?(\w+)")
_WITHOUT_BLOCKS = frozenset({"if", "elif", "def", "class"})
_BRACKET = re.compile(r"[()\[\]{}]")


class _NotFollowed(Exception):
    pass


def may_exceed_nesting_limits(text: str) -> bool:
    """False only when CPython cannot refuse `text` for its nesting (see the module's docstring)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.count("elif") >= MAX_ELIFS:
        return True
    try:
        code = _STRING_OR_COMMENT.sub(_code_stand_in, text)
    except _NotFollowed:
        return True
    return _Lines().too_nested(code.replace("\\\n", " ").split("\n"))


def _code_stand_in(match: re.Match) -> str:
    """What a comment or string literal counts as: nothing, one character, or, for an f-string,
    all of it (its fields hold expressions)."""
    token = match.group()
    if token[0] == "#":
        return ""
    if not _is_formatted(match.string, match.start()):
        return "S"
    # An f-string cut short by a quote of its own kind inside a field (`f"{x["k"]}"`, Python 3.12)
    # leaves a brace open: the scan cannot follow it.
    fields = token.replace("{{", "").replace("}}", "")  # without the literal braces
    if fields.count("{") != fields.count("}") or token.count("(") + token.count("[") + token.count("{") >= MAX_BRACKET_DEPTH:
        raise _NotFollowed
    return "S" * len(token)


def _is_formatted(text: str, quote: int) -> bool:
    """An f-string (or template string): its prefix, the letters right before the quote, has an f or t."""
    prefix = text[max(quote - 2, 0) : quote]
    if not prefix[-1:].isalpha():
        return False
    letters = prefix if prefix[:1].isalpha() else prefix[-1:]
    return "f" in letters.lower() or "t" in letters.lower()


class _Lines:
    """The logical lines of code without strings or comments, with their indentation and blocks."""

    def __init__(self) -> None:
        self.widths = [0]  # the indentation levels
        self.weights = [0]  # the blocks each level opens
        self.blocks = 0
        self.header = ""  # the previous logical line
        self.with_commas = -1  # the commas of a `with` header; -1: not a `with`

    def too_nested(self, lines: list[str]) -> bool:
        depth = length = 0  # open brackets, and the logical line's length so far
        for line in lines:  # the hot loop: names kept local
            if depth == 0:
                stripped = line.lstrip(" ")
                if not stripped or stripped.isspace():
                    continue  # a blank or comment line: no logical line
                if stripped[0] in "\t\f\v" or self._indent(len(line) - len(stripped)):
                    return True
                self.header = stripped
                self.with_commas = 0 if stripped.startswith(("with", "async")) else -1
                length = 0
            length += len(line)
            if self.with_commas >= 0:
                self.with_commas += line.count(",")
            if _BRACKET.search(line):
                opened = line.count("(") + line.count("[") + line.count("{")
                if depth + opened >= MAX_BRACKET_DEPTH:
                    return True
                depth += opened - line.count(")") - line.count("]") - line.count("}")
                if depth < 0:
                    return True
            if length >= MAX_LOGICAL_LINE:
                return True
        return depth != 0

    def _indent(self, width: int) -> bool:
        """Enter or leave levels for a logical line starting at `width`; True when too deep."""
        if width > self.widths[-1]:
            word = _FIRST_WORD.match(self.header)
            weight = self._blocks_opened(word.group(1) if word else "")
            self.widths.append(width)
            self.weights.append(weight)
            self.blocks += weight
            return self.blocks >= MAX_BLOCKS or len(self.widths) > MAX_INDENT_LEVELS
        while width < self.widths[-1]:
            self.widths.pop()
            self.blocks -= self.weights.pop()
        return False

    def _blocks_opened(self, word: str) -> int:
        if word in _WITHOUT_BLOCKS:
            return 0
        return self.with_commas + 1 if word == "with" else BLOCKS_PER_LEVEL
