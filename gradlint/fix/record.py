"""Which changes a fix run made, and where each sits in the file as it was read: the fixer's
rounds rewrite the text, so a later round's positions are carried back through the edits of the
rounds before it."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from gradlint.fix.edits import apply_edits
from gradlint.fix.plan import Applicability
from gradlint.model import Edit, Finding, Location
from gradlint.model.migration import AppliedChange, ChangedLines
from gradlint.source import LineIndex

_NEWLINE = re.compile(r"\r\n|\r|\n")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


@dataclass(frozen=True)
class _Span:
    """One applied edit, in offsets into the text before its round, with the text it replaced."""

    start: int
    end: int
    content: str
    replaced: str

    @classmethod
    def of(cls, edit: Edit, text: str) -> "_Span":
        return cls(edit.start, edit.end, edit.content, text[edit.start : edit.end])

    def before(self, offset_in_content: int) -> int:
        """Where an offset into the written content was: the start of the replaced line that
        reads the same but for its indentation (a block re-indented under a new `with`), the
        nearest to the same line number; else the line with that number (the last one when the
        content has more), or the edit's start on the content's first line."""
        line = len(_NEWLINE.findall(self.content, 0, offset_in_content))
        written = _lines(self.content)[line].strip()
        replaced = _lines(self.replaced)
        same = [index for index, text in enumerate(replaced) if text.strip() == written]
        if same:
            chosen = min(same, key=lambda index: abs(index - line))
        elif line == 0:
            return self.start
        else:
            chosen = min(line, len(replaced) - 1)
        return self.start + sum(len(text) for text in replaced[:chosen])


def _lines(text: str) -> list[str]:
    """The lines of `text`, each with its line break: split where `_NEWLINE` counts lines."""
    return _LINE.findall(text) or [""]


class ChangeLog:
    """The changes of one file's fix run, recorded round by round."""

    def __init__(self, path: str, original: str) -> None:
        self.path = path
        self.original_index = LineIndex.of(original)
        self.rounds: list[list[_Span]] = []
        self.changes: list[AppliedChange] = []

    def record_round(self, current: str, chosen: Sequence[Finding]) -> None:
        """The fixes of `chosen`, about to be applied together to `current`."""
        index = LineIndex.of(current)
        for finding in chosen:
            start = index.offset(finding.location.row, finding.location.column - 1)
            self.changes.append(
                AppliedChange(
                    self.path,
                    finding.code,
                    finding.message,
                    finding.fix.message,
                    finding.fix.applicability,
                    self._original_location(start),
                    tuple(self._lines(current, index, finding.fix.edits)),
                )
            )
        edits = {edit for finding in chosen for edit in finding.fix.edits}
        self.rounds.append([_Span.of(edit, current) for edit in sorted(edits, key=lambda edit: (edit.start, edit.end))])

    def record_import_removal(self, current: str, cleaned: str, removed: Iterable[str]) -> None:
        """The clean-up's rewrite of `current`: each block of lines it changed, one change."""
        names = ", ".join(f"`{name}`" for name in sorted(removed))
        before, after = current.splitlines(keepends=True), cleaned.splitlines(keepends=True)
        starts = LineIndex.of(current)
        matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
        for tag, first, last, new_first, new_last in matcher.get_opcodes():
            if tag == "equal":
                continue
            location = self._original_location(starts.line_start(first + 1) if first < len(before) else len(current))
            lines = ChangedLines(location.row, "".join(before[first:last]), "".join(after[new_first:new_last]))
            message = f"Import of {names} removed: the fixes left it unused"
            self.changes.append(AppliedChange(self.path, None, message, "Remove the unused import", Applicability.SAFE, location, (lines,)))

    def _lines(self, current: str, index: LineIndex, edits: Sequence[Edit]) -> list[ChangedLines]:
        """The whole lines `edits` touch, one block per run of adjacent lines, before and after."""
        blocks: list[list[Edit]] = []
        block_last = 0
        for edit in sorted(edits, key=lambda edit: (edit.start, edit.end)):
            first, last = _rows(index, edit)
            if blocks and first <= block_last + 1:
                blocks[-1].append(edit)
                block_last = max(block_last, last)
            else:
                blocks.append([edit])
                block_last = last
        return [self._block(current, index, block) for block in blocks]

    def _block(self, current: str, index: LineIndex, edits: list[Edit]) -> ChangedLines:
        first = _rows(index, edits[0])[0]
        last = max(_rows(index, edit)[1] for edit in edits)
        start, end = index.line_start(first), index.line_end(last)
        shifted = [Edit(edit.start - start, edit.end - start, edit.content, edit.location, edit.end_location) for edit in edits]
        before = current[start:end]
        return ChangedLines(self._original_location(start).row, before, apply_edits(before, shifted))

    def _original_location(self, offset: int) -> Location:
        """Where `offset`, in the text after every recorded round, was in the text as read; an
        offset inside text a fix wrote goes to the line it rewrote (`_Span.before`)."""
        for spans in reversed(self.rounds):
            offset = _before_round(spans, offset)
        return Location(*self.original_index.position(offset))


def _rows(index: LineIndex, edit: Edit) -> tuple[int, int]:
    """The first and last rows an edit touches (an insertion: the row it is inserted on)."""
    first = index.position(edit.start)[0]
    last = index.position(edit.end - 1)[0] if edit.end > edit.start else first
    return first, max(first, last)


def _before_round(spans: list[_Span], offset: int) -> int:
    shift = 0
    for span in spans:
        written_start = span.start + shift
        if offset < written_start:
            break
        if offset < written_start + len(span.content):
            return span.before(offset - written_start)
        shift += len(span.content) - (span.end - span.start)
    return offset - shift
