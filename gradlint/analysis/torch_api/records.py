"""The record types of the torch API table, and the reader of its rows.

A row is a name followed by the words that hold for it (`add_  accumulates`), so the tables read as one
line per API. Every word is checked against the vocabulary of its table when the table is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional


@dataclass(frozen=True)
class Row:
    """One API and the properties its row states."""

    name: str
    properties: frozenset[str]
    # The value of a `word=value` property (`replaced_by=torch.linalg.solve`).
    values: Mapping[str, str] = field(default_factory=dict)

    def has(self, word: str) -> bool:
        return word in self.properties

    def value(self, word: str) -> Optional[str]:
        return self.values.get(word)


def read_rows(text: str, vocabulary: Mapping[str, str], table: str) -> dict[str, Row]:
    """The rows of `text`, one API per line; `#` starts a comment, blank lines are skipped."""
    rows: dict[str, Row] = {}
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        name, *properties = words
        if name in rows:
            raise ValueError(f"{table}: {name} has two rows")
        flags = set()
        values = {}
        for word in properties:
            key, _, value = word.partition("=")
            if key not in vocabulary:
                raise ValueError(f"{table}: unknown property {key!r} of {name}")
            flags.add(key)
            if value:
                values[key] = value
        rows[name] = Row(name, frozenset(flags), values)
    return rows
