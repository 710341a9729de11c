"""Nodes reported outside the traversal (by whole-file rules) are placed by the engine itself."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.tree import descendants, iter_children
from gradlint.context import FileContext
from gradlint.positions import member_statement
from support import lint

SOURCE = """\
import torch


class Trainer:
    @decorate(lambda: 1)
    def fit(self, data):
        for x in data:
            loss = self.model(x).sum()
            loss.backward()
            self.opt.step()

    class Inner:
        def run(self):
            return [y for y in range(3)]


for x in data:
    loss = f(x)
    loss.backward()
    optimizer.step()
"""


def _stacks(module: cst.Module):
    """(node, ancestors with the node last) for every node, as the walker's stack has them."""
    pending = [(module, [module])]
    while pending:
        node, stack = pending.pop()
        yield node, stack
        pending.extend((child, [*stack, child]) for child in iter_children(node))


def test_every_node_is_placed_in_the_statement_the_traversal_would_use():
    module = cst.parse_module(SOURCE)
    context = FileContext("a.py", SOURCE, module)
    checked = 0
    for node, stack in _stacks(module):
        if node is module:
            continue
        assert context.placement_of(node) is member_statement(stack), type(node).__name__
        checked += 1
    assert checked == sum(1 for _ in descendants(module)) - 1


def test_the_map_is_built_only_when_a_node_is_placed():
    module = cst.parse_module(SOURCE)
    context = FileContext("a.py", SOURCE, module)
    assert "_placements" not in vars(context)
    context.placement_of(module.body[0])
    assert "_placements" in vars(context)


def test_whole_file_rules_report_at_the_same_positions_as_before():
    findings = lint(SOURCE, "GL201")
    assert [(f.location.row, f.location.column) for f in findings] == [(7, 9), (17, 1)]
    assert "(line 9)" in findings[0].message and "(line 19)" in findings[1].message
