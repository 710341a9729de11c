"""Fixes land where the finding is, whatever characters come before it on its line or in the file.

LibCST leaves a statement line's leading whitespace up to a form feed out of its tree, and
`str.splitlines` splits at characters Python does not end a line at (form feed, vertical tab,
U+2028, ...): columns or rows computed on one view of a line and applied to the other put an
edit in the wrong place (`F.upsample` became `Finterpolatee`).
"""

from __future__ import annotations

import ast

import pytest

from gradlint.fix.apply import fix_text
from gradlint.rules import all_codes, opt_in_codes
from support import ROOT, parses

CODES = frozenset(all_codes()) - opt_in_codes()
RENAMES = "import torch\nimport torch.nn.functional as F\n{prefix}z = F.upsample(x, scale_factor=2)\n{prefix}torch.nn.utils.clip_grad_norm(p, 1)\n"
RENAMED = "import torch\nimport torch.nn.functional as F\n{prefix}z = F.interpolate(x, scale_factor=2)\n{prefix}torch.nn.utils.clip_grad_norm_(p, 1)\n"


def fixed(text: str, unsafe: bool = False) -> str:
    result = fix_text(text, "train.py", CODES, unsafe=unsafe)
    assert result.error is None, result.error
    return result.text


@pytest.mark.parametrize("prefix", ["\f", "\f\f", " \f", "\f\n", "\f\n\f"])
def test_a_form_feed_before_a_statement_keeps_the_fix_in_place(prefix):
    assert fixed(RENAMES.format(prefix=prefix)) == RENAMED.format(prefix=prefix)


@pytest.mark.parametrize(
    "before",
    [
        "s = 'été'; ",
        "s = '\U0001f525'; ",  # outside the BMP: one character, two UTF-16 units, four UTF-8 bytes
        "s = '\u2028\u0085\x1c'; ",
        "s = '\v'; ",
        "s = '\f'; ",
        "s = '\t'; ",
    ],
)
def test_characters_before_the_edit_on_its_line(before):
    source = f"import torch.nn.functional as F\n{before}z = F.upsample(x, scale_factor=2)\n"
    assert fixed(source) == source.replace("F.upsample", "F.interpolate")


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x1c", "\v", "\f"])
def test_line_separators_of_str_splitlines_in_earlier_lines_do_not_move_rows(separator):
    source = f"import torch.nn.functional as F\n# a comment with {separator} in it\ns = '{separator}'\nz = F.upsample(x, scale_factor=2)\n"
    assert fixed(source) == source.replace("F.upsample", "F.interpolate")


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_form_feed_lines_with_every_line_ending(newline):
    source = RENAMES.format(prefix="\f").replace("\n", newline)
    assert fixed(source) == RENAMED.format(prefix="\f").replace("\n", newline)


LOOP = (
    "import torch\nmodel = torch.nn.Linear(2, 2)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for x, y in loader:\n    loss = torch.nn.functional.mse_loss(model(x), y)\n{backward}    optimizer.step()\n{after}"
)


def test_a_line_inserted_before_a_form_feed_line_goes_after_the_form_feed_at_the_indentation_after_it():
    source = LOOP.format(backward="\f    loss.backward()\n", after="")
    expected = LOOP.format(backward="\f    optimizer.zero_grad()\n    loss.backward()\n", after="")
    assert fixed(source, unsafe=True) == expected


def test_a_form_feed_that_ends_a_block_keeps_its_place():
    # CPython starts the column again after a form feed: the `print` is outside the loop.
    source = LOOP.format(backward="    loss.backward()\n", after="    \fprint(x.data)\n")
    expected = LOOP.format(backward="    optimizer.zero_grad()\n    loss.backward()\n", after="    \fprint(x.detach())\n")
    assert fixed(source, unsafe=True) == expected


def statement_rows(text: str) -> set[int]:
    """The rows statements start on (the first decorator's for a decorated definition)."""
    rows = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.stmt):
            decorators = getattr(node, "decorator_list", [])
            rows.add(min([node.lineno, *(d.lineno for d in decorators)]))
    return rows


def with_form_feeds(text: str) -> str:
    """A form feed in front of every other line a statement starts on, and a line of two form feeds
    in front of the others (a removed line keeps the form feed that opens it, which must not make a
    form feed line with the blank line that follows)."""
    rows = sorted(statement_rows(text))
    markers = {row: "\f" if number % 2 else "\f\f\n" for number, row in enumerate(rows)}
    lines = text.splitlines(keepends=True)
    return "".join(markers.get(row, "") + line for row, line in enumerate(lines, start=1))


def without_form_feeds(text: str) -> str:
    return text.replace("\f\f\n", "").replace("\f", "")


BAD_FILES = [path for path in sorted(ROOT.glob("fixtures/*/bad.py")) if parses(path)]  # GL001's have no fix


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: p.parent.name)
def test_fixing_a_fixture_with_form_feeds_equals_fixing_it_without(path):
    text = path.read_text(encoding="utf-8")
    assert "\f" not in text
    assert without_form_feeds(fixed(with_form_feeds(text), unsafe=True)) == fixed(text, unsafe=True)
