"""Which states a loop feeds back to a model in its next iteration (GL613's `carried_state`)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.context import FileContext
from gradlint.rules.gl613_carried_state_not_detached.rule import CarriedStateNotDetached


def _carried(source: str) -> list[tuple[str, ...]]:
    module = cst.parse_module(textwrap.dedent(source))
    context = FileContext("example.py", module.code, module)
    loop = next(statement for statement in module.body if isinstance(statement, (cst.For, cst.While)))
    return [state.names for state in CarriedStateNotDetached(context).carried_states.of_loop(loop, module)]


def test_lstm_state_passed_and_bound_as_a_tuple():
    source = """
    for x in xs:
        out, (h, c) = lstm(x, (h, c))
    """
    assert _carried(source) == [("h", "c")]


def test_state_carried_by_a_nested_loop_across_the_outer_iterations():
    source = """
    while True:
        for x in seq:
            h = cell(x, h)
        loss.backward()
    """
    assert _carried(source) == [("h",)]


@pytest.mark.parametrize(
    "body",
    [
        "out, h = rnn(x, h.detach())",  # detached where it is passed
        "out, h = rnn(x, h)\nif done:\n    h = None",  # reset on some iterations
        "out, h = rnn(x, h)\nh.detach_()",
        "out, h = rnn(x, h)\ndel h",
        "out, h = compute(x, h)",  # not a model
        "with torch.no_grad():\n    out, h = rnn(x, h)",
    ],
)
def test_not_carried_with_its_graph(body):
    source = "import torch\nfor x in xs:\n" + textwrap.indent(body, "    ") + "\n"
    assert _carried(source) == []
