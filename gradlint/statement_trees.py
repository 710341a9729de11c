"""The LibCST trees of a document's top-level statements, each parsed alone and kept by its text.

A fix applies its edits round after round, and the text of each round must parse; the fix of a
document just edited changes the same statements as the fix of its last version, but for the
edit. So a text is cut into its top-level statements (as `gradlint.pieces` cuts it, tokenizing
again only the rows that changed since the last text) and only the statements not seen in the last
texts are parsed. A statement of its own is valid Python at the top of a module exactly when it is
valid among the others; when one does not parse alone, the whole text decides.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from gradlint.engine import parse
from gradlint.pieces import common_ends, statement_sources, statement_spans
from gradlint.source import lines_with_ends

# The trees of the statements of this many of the last texts are kept: the steps of the fix of a
# document's last version (its text, the text after each round, after the clean-up) and a spare.
TEXTS_KEPT = 8


@dataclass(frozen=True)
class StatementTree:
    """One top-level statement: where its text starts in the document, and its text parsed alone."""

    offset: int
    first_row: int
    source: str
    module: Optional[cst.Module]  # None when the statement does not parse alone
    facts: dict = field(default_factory=dict, compare=False)  # what was derived from the tree, by name


class StatementTrees:
    """The trees of the statements of successive texts of one document, each statement parsed once."""

    def __init__(self) -> None:
        self._recent: deque[dict[str, StatementTree]] = deque(maxlen=TEXTS_KEPT)
        self._known: dict[str, StatementTree] = {}
        self._texts: deque[tuple[list[str], list[tuple[int, int]]]] = deque(maxlen=TEXTS_KEPT)  # lines, statement rows

    def of(self, text: str) -> Optional[list[StatementTree]]:
        """The statements of `text` in order, covering it; None when it does not tokenize."""
        lines = lines_with_ends(text)
        # The texts of successive steps of a fix differ all over, the same step's texts of
        # successive versions only where edited: the closest earlier text decides the rows.
        closest = max(self._texts, key=lambda known: sum(common_ends(known[0], lines)), default=None)
        spans = statement_spans(text, lines, closest)
        if spans is None:
            return None
        self._texts.append((lines, spans))
        trees, seen, offset = [], {}, 0
        for (first_row, _), source in zip(spans, statement_sources(lines, spans)):
            known = seen.get(source) or self._known.get(source)
            if known is None:
                module, _ = parse(source)
                known = StatementTree(0, 0, source, module)
            seen[source] = known
            trees.append(StatementTree(offset, first_row, source, known.module, known.facts))
            offset += len(source)
        self._remember(seen)
        return trees

    def parses(self, text: str) -> bool:
        """Whether `text` parses, as `engine.parse` decides it."""
        trees = self.of(text)
        if trees is not None and all(tree.module is not None for tree in trees):
            return True
        module, _ = parse(text)
        return module is not None

    def _remember(self, seen: dict[str, StatementTree]) -> None:
        self._recent.append(seen)
        known: dict[str, StatementTree] = {}
        for texts in self._recent:
            known.update(texts)
        self._known = known
