"""The node index of a file: parents, statements, source order and what encloses a node, the same
whether the whole file or one function was walked first."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.tree import descendants, iter_children
from gradlint.context import FileContext

SOURCE = textwrap.dedent(
    """\
    import torch

    def train(model, loader):
        total = 0
        for x in loader:
            with torch.no_grad():
                while total < 3:
                    total += model(x)
        return total

    class Net:
        def forward(self, x):
            return x + 1
    """
)


def _module() -> cst.Module:
    return cst.parse_module(SOURCE)


def _name(module: cst.CSTNode, value: str, nth: int = 0) -> cst.Name:
    return [node for node in _source_order(module) if isinstance(node, cst.Name) and node.value == value][nth]


def _function(module: cst.Module, name: str) -> cst.FunctionDef:
    return next(node for node in descendants(module) if isinstance(node, cst.FunctionDef) and node.name.value == name)


def _source_order(root: cst.CSTNode) -> list[cst.CSTNode]:
    order: list[cst.CSTNode] = []
    pending = [root]
    while pending:
        node = pending.pop()
        order.append(node)
        pending.extend(reversed(iter_children(node)))
    return order


def test_every_node_has_the_parent_that_holds_it():
    module = _module()
    index = NodeIndex(module)
    for node in descendants(module):
        for child in iter_children(node):
            assert index.parent(child) is node
    assert index.parent(module) is None


def test_a_node_outside_the_tree_has_no_parent():
    index = NodeIndex(_module())
    assert index.parent(cst.Name("elsewhere")) is None


def test_ancestors_run_from_the_parent_to_the_module():
    module = _module()
    index = NodeIndex(module)
    total = _name(module, "total", 2)  # `total += ...`
    ancestors = list(index.ancestors(total))
    assert isinstance(ancestors[0], cst.AugAssign)
    assert ancestors[-1] is module
    assert [type(node) for node in ancestors if isinstance(node, (cst.For, cst.With, cst.While, cst.FunctionDef))] == [
        cst.While,
        cst.With,
        cst.For,
        cst.FunctionDef,
    ]


def test_the_statement_of_a_node():
    module = _module()
    index = NodeIndex(module)
    statement = index.statement_of(_name(module, "model", 1))
    assert isinstance(statement, cst.AugAssign)
    assert index.statement_of(statement) is statement
    loop = index.enclosing_loops(statement)[-1]
    assert index.statement_of(loop.iter) is loop


def test_enclosing_loops_with_function_and_class():
    module = _module()
    index = NodeIndex(module)
    call = next(node for node in descendants(module) if isinstance(node, cst.Call) and isinstance(node.func, cst.Name))
    assert [type(loop) for loop in index.enclosing_loops(call)] == [cst.While, cst.For]
    assert isinstance(index.enclosing_with(call), cst.With)
    assert index.enclosing_function(call) is _function(module, "train")
    assert index.enclosing_class(call) is None
    plus = next(node for node in descendants(module) if isinstance(node, cst.BinaryOperation))
    assert index.enclosing_function(plus) is _function(module, "forward")
    assert index.enclosing_class(plus).name.value == "Net"
    assert index.enclosing_loops(plus) == [] and index.enclosing_with(plus) is None


def test_a_with_around_a_def_does_not_enclose_its_body():
    module = cst.parse_module("with ctx():\n    for i in x:\n        def f():\n            return y\n")
    index = NodeIndex(module)
    y = _name(module, "y")
    assert index.enclosing_with(y) is None
    assert index.enclosing_loops(y) == []
    assert index.enclosing(y, (cst.With,)) is not None  # asked without the stop at definitions


def test_source_order():
    module = _module()
    index = NodeIndex(module)
    first, second, third = (_name(module, "total", n) for n in range(3))
    assert index.comes_before(first, second) and index.comes_after(second, first)
    assert not index.comes_before(second, first) and not index.comes_after(first, second)
    assert index.comes_after(third, second)
    loop = index.enclosing_loops(third)[-1]
    assert index.contains(loop, third) and not index.contains(loop, first)
    assert not index.comes_before(loop, third) and not index.comes_after(third, loop)  # inside it, neither
    assert index.contains(module, cst.Name("total")) is False


def test_a_subtree_is_its_nodes_in_source_order():
    module = _module()
    index = NodeIndex(module)
    function = _function(module, "train")
    assert index.subtree(function) == _source_order(function)
    assert index.subtree(module) == _source_order(module)


@pytest.mark.parametrize("first", ["train", "forward"])
def test_one_function_indexed_first_answers_like_the_whole_file(first):
    """A function indexed alone answers inside it without walking the file; what needs more
    (its parent, the order against another function) is answered after a walk of the file."""
    module = _module()
    whole = NodeIndex(module)
    lazy = NodeIndex(module)
    function = _function(module, first)
    assert lazy.subtree(function.body) == whole.subtree(function.body)
    assert len(lazy._order) == len(whole.subtree(function.body))  # only the function was walked
    inner = [node for node in descendants(function.body)]
    for node in inner:
        if node is not function.body:
            assert lazy.parent(node) is whole.parent(node)
    assert len(lazy._order) == len(whole.subtree(function.body))
    other = _function(module, "forward" if first == "train" else "train")
    assert lazy.comes_before(_function(module, "train"), _function(module, "forward"))
    assert lazy.parent(function.body) is function
    assert not lazy.contains(function, other.body)
    for node in descendants(module):
        assert lazy.parent(node) is whole.parent(node)


def test_a_subtree_indexed_inside_another_keeps_one_order():
    module = _module()
    lazy = NodeIndex(module)
    train = _function(module, "train")
    loop = next(node for node in descendants(train) if isinstance(node, cst.For))
    lazy.subtree(loop)
    lazy.subtree(train.body)  # walks the loop again, with the rest of the function
    first, third = _name(module, "total", 0), _name(module, "total", 2)
    assert lazy.comes_before(first, third) and lazy.contains(loop, third) and not lazy.contains(loop, first)
    assert lazy.subtree(loop) == _source_order(loop)


def test_the_file_context_builds_the_index_once_and_only_when_asked():
    context = FileContext("probe.py", SOURCE, _module())
    assert "nodes" not in vars(context)
    assert context.nodes is context.nodes
    assert context.nodes._order == []  # nothing walked before a question


ORDER = textwrap.dedent(
    """\
    setup()

    def run(model, loader):
        model.load_state_dict(sd)
        for x in loader:
            prepare(x)
            if x is None:
                skip(x)
            else:
                warm(x)
                out = model(x)
                log(out)
            step()
        finish()

        def later():
            inner()

    teardown()
    """
)


def _call(module: cst.Module, name: str) -> cst.Call:
    return next(node for node in descendants(module) if isinstance(node, cst.Call) and _called(node) == name)


def _called(node: cst.CSTNode) -> str:
    """The called name of a statement that is one call (`log(out)`), else its kind (`If`, `For`)."""
    if isinstance(node, cst.SimpleStatementLine) and isinstance(node.body[0], cst.Expr):
        node = node.body[0].value
    if isinstance(node, cst.SimpleStatementLine) and isinstance(node.body[0], cst.Assign):
        return "assign"
    if isinstance(node, cst.Call):
        func = node.func
        return func.value if isinstance(func, cst.Name) else func.attr.value
    return type(node).__name__


def test_the_statements_before_a_node_in_its_function_run_latest_first():
    module = cst.parse_module(ORDER)
    index = NodeIndex(module)
    forward = _call(module, "model")
    # not `skip(x)` (another branch), nor `setup()` (outside the function)
    assert [_called(s) for s in index.statements_before(forward)] == ["warm", "prepare", "load_state_dict"]


def test_the_statements_after_a_node_in_its_function_run_in_order():
    module = cst.parse_module(ORDER)
    index = NodeIndex(module)
    forward = _call(module, "model")
    # the rest of the branch, of the loop body, then of the function; a nested def is a statement, its body is not run
    assert [_called(s) for s in index.statements_after(forward)] == ["log", "step", "finish", "FunctionDef"]
    assert [_called(s) for s in index.statements_after(_call(module, "inner"))] == []
    assert [_called(s) for s in index.statements_after(_call(module, "setup"))] == ["FunctionDef", "teardown"]


def test_the_positions_around_a_node_stop_at_its_function_body():
    module = cst.parse_module(ORDER)
    index = NodeIndex(module)
    positions = index.positions_in_body(_call(module, "model"))
    assert [type(p.owner) for p in positions] == [cst.Else, cst.For, cst.FunctionDef]
    assert [_called(p.statement) for p in positions] == ["assign", "If", "For"]
    one_line = cst.parse_module("if ready: go()\n")
    (position,) = NodeIndex(one_line).positions_in_body(_call(one_line, "go"))
    assert position.owner is None and position.statement is one_line.body[0]  # a one-line suite is no block


def test_the_positions_around_a_node_are_the_same_from_the_holders_a_walk_knows():
    module = cst.parse_module(ORDER)
    call = _call(module, "model")
    holders = list(NodeIndex(module).ancestors(call))
    given = NodeIndex(module).positions_in_body(call, holders)
    assert [(p.block, p.index, p.owner) for p in given] == [(p.block, p.index, p.owner) for p in NodeIndex(module).positions_in_body(call)]
