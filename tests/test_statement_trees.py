"""The trees of a document's statements, each parsed alone, tell what a parse of the whole text tells,
and the clean-up of unused imports done over them is the clean-up done over the whole tree."""

from __future__ import annotations

import random
import re

import pytest

from gradlint import statement_trees
from gradlint.engine import parse
from gradlint.fix.cleanup import remove_unused_imports
from gradlint.statement_trees import StatementTrees

from edit_sequences import LEGACY, REAL_FILES, edits


def broken(text: str, rng: random.Random) -> str:
    """`text` less one bracket or colon: mostly text that does not parse."""
    places = [match.start() for match in re.finditer(r"[():\[\]]", text)]
    place = rng.choice(places)
    return text[:place] + text[place + 1 :]


@pytest.mark.parametrize("path", REAL_FILES[:12], ids=lambda path: str(path.relative_to(LEGACY)))
def test_a_text_parses_when_each_statement_parses_alone(path):
    rng = random.Random(path.name)
    trees = StatementTrees()
    verdicts = []
    text = path.read_text(encoding="utf-8")
    for version in [text, *edits(text, rng, 15)]:
        for candidate in (version, broken(version, rng)):
            statements = trees.of(candidate)
            whole = parse(candidate)[0] is not None
            if statements is not None:
                assert "".join(statement.source for statement in statements) == candidate
                assert all(candidate[statement.offset :].startswith(statement.source) for statement in statements)
                lines = candidate.splitlines(keepends=True)
                assert all(lines[statement.first_row - 1] == statement.source.splitlines(keepends=True)[0] for statement in statements)
                assert all(statement.module is not None for statement in statements) == whole
            assert trees.parses(candidate) == whole
            verdicts.append(whole)
    assert True in verdicts and False in verdicts  # both kinds of text were judged


def test_only_the_statements_not_seen_in_the_last_texts_are_parsed(monkeypatch):
    text = REAL_FILES[0].read_text(encoding="utf-8")
    trees = StatementTrees()
    statements = trees.of(text)
    parsed = []
    monkeypatch.setattr(statement_trees, "parse", lambda source: parsed.append(source) or parse(source))
    row = statements[len(statements) // 2].first_row
    lines = text.splitlines(keepends=True)
    edited = "".join([*lines[:row], "# a comment typed here\n", *lines[row:]])
    assert trees.parses(edited)
    assert len(parsed) == 1 and "# a comment typed here" in parsed[0]
    assert trees.of(text) is not None and len(parsed) == 1  # the texts before are kept too


# Imports the clean-up drops: at module level after a comment, one of two names, in a function.
IMPORTS = """\
# the autograd wrapper
from torch.autograd import Variable
from torch.autograd import Variable as V, grad


def evaluate(model, x):
    from torch.autograd import Variable
    return model(Variable(x)), grad
"""


@pytest.mark.parametrize("index", range(len(REAL_FILES) + 1))
def test_the_clean_up_of_each_statement_is_the_clean_up_of_the_whole_tree(index):
    text = IMPORTS if index == len(REAL_FILES) else REAL_FILES[index].read_text(encoding="utf-8")
    # The uses of `Variable` gone, as its fix leaves them; the imports stay for the clean-up.
    text = re.sub(r"(?<!import )\bV(ariable)?\(", "(", text)
    whole = remove_unused_imports(text, parse(text)[0], {"GL101"})
    trees = StatementTrees()
    by_statement = remove_unused_imports(text, None, {"GL101"}, trees=trees)
    if whole is None:
        assert by_statement is None
    else:
        assert (by_statement.text, by_statement.removed) == (whole.text, whole.removed)
    if index == len(REAL_FILES):
        assert whole.removed == {"Variable", "V"}
        assert "import Variable" not in whole.text and "from torch.autograd import grad\n" in whole.text
