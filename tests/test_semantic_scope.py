"""The uses of names in one scope: occurrences, bindings `Bindings` does not record, loop target
paths, returns, source order and the assignment a read sees."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable
from gradlint.context import FileContext

SOURCE = textwrap.dedent(
    """\
    def train(model, loader, *rest):
        x = 1
        if flag:
            x = 2
        y = x
        q = y
        for i, (a, b) in enumerate(loader):
            with open(path) as handle:
                z = x
        def inner(x):
            return x
        return y
    """
)


def _context() -> FileContext:
    return FileContext("probe.py", SOURCE, cst.parse_module(SOURCE))


def _train(context: FileContext) -> cst.FunctionDef:
    return context.module.body[0]


def _uses(context: FileContext) -> ScopeUses:
    return context.scope_uses.of(_train(context))


def test_one_model_per_scope_built_once():
    context = _context()
    assert isinstance(context.scope_uses, ScopeUsesTable)
    assert context.scope_uses.of(_train(context)) is context.scope_uses.of(_train(context))
    assert context.history.scope_uses is context.scope_uses


def test_occurrences_leave_out_labels_and_names_a_nested_function_binds_itself():
    uses = _uses(_context())
    assert len(uses.occurrences("x")) == 4  # `x = 1`, `x = 2`, `y = x`, `z = x`; not `inner`'s own `x`
    assert uses.occurrences("open") and not uses.occurrences("train")


def test_bindings_parameters_loops_and_returns():
    uses = _uses(_context())
    assert uses.parameters == {"model", "loader", "rest"}
    assert {"handle", "inner"} <= uses.hidden_bindings and "model" not in uses.hidden_bindings
    assert [path for _, path in uses.loop_targets["b"]] == [(1, 1)]
    assert [cst.Module([]).code_for_node(value) for value in uses.returns] == ["y"]  # not `inner`'s return


def test_parents_are_confined_to_the_scope():
    context = _context()
    train, uses = _train(context), _uses(context)
    assert uses.parent(train.body) is None and uses.parent(train) is None
    statement = train.body.body[0]
    assert uses.parent(statement) is train.body
    assert context.nodes.parent(train.body) is train  # the file's index sees past it


def test_enclosing_with_and_loops_and_order():
    context = _context()
    uses = _uses(context)
    read_in_with = uses.occurrences("x")[-1]
    assert isinstance(uses.enclosing_with(read_in_with), cst.With)
    assert [type(loop) for loop in uses.enclosing_loops(read_in_with)] == [cst.For]
    first = uses.occurrences("x")[0]
    assert uses.comes_after(read_in_with, first) and not uses.comes_after(first, read_in_with)


def test_the_assignment_a_read_sees():
    context = _context()
    uses = _uses(context)
    code = cst.Module([]).code_for_node
    read_of_y = next(node for node in uses.occurrences("y") if isinstance(context.nodes.parent(node), cst.Assign))  # `q = y`
    assert code(uses.reaching_assignment(read_of_y).value) == "x"
    read_of_x = next(node for node in uses.occurrences("x") if code(context.nodes.parent(node)) == "y = x")
    assert uses.reaching_assignment(read_of_x) is None  # `x = 2` in a branch comes first: either binding may reach
    assert uses.reaching_assignment(uses.occurrences("x")[-1]) is None  # in a loop, which may repeat
