"""Parsing without LibCST's node validation gives the trees a validated parse gives, and leaves
every other node validated."""

from __future__ import annotations

import libcst as cst
import pytest

from gradlint.engine import parse
from gradlint.parse_trust import unvalidated

from edit_sequences import REAL_FILES


@pytest.mark.parametrize("path", REAL_FILES[:8], ids=lambda path: path.name)
def test_the_trees_are_those_of_a_validated_parse(path):
    text = path.read_text(encoding="utf-8")
    module, _ = parse(text)  # of the text with `async=` repaired, where it has that
    validated = cst.parse_module(module.code)
    assert module.deep_equals(validated)


def test_nodes_made_outside_a_parse_are_validated():
    parse("x = (1 +\n 2)\n")
    assert parse("x = (\n")[0] is None  # a failed parse turns validation back on too
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("not whitespace")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("x", lpar=[cst.LeftParen()])  # a parenthesis without its pair


def test_validation_is_off_only_inside_the_block():
    with unvalidated():
        cst.SimpleWhitespace("not whitespace")
    with pytest.raises(cst.CSTValidationError):
        cst.SimpleWhitespace("not whitespace")
