"""What the fix of a document keeps from the fix of its last version, in the language server."""

from __future__ import annotations

from dataclasses import dataclass, field

from gradlint.incremental import IncrementalAnalysis
from gradlint.statement_trees import StatementTrees


@dataclass
class FixMemory:
    """An incremental analysis per step of the fix (its first round's text, its second...), each
    learning from the same step of the last version's fix, and the trees of the statements of
    the texts of those steps, by which a round's text is told valid."""

    analyses: dict[int, IncrementalAnalysis] = field(default_factory=dict)
    trees: StatementTrees = field(default_factory=StatementTrees)

    def analysis(self, step: int) -> IncrementalAnalysis:
        return self.analyses.setdefault(step, IncrementalAnalysis())
