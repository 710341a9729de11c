"""The value model: one record per expression, and the one-field questions asked of it."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.values import Certainty, Dim, Grad, Kind, ValueRecord
from gradlint.context import FileContext

PREAMBLE = """\
import torch
import torch.nn as nn
"""


def context_of(source: str) -> FileContext:
    source = PREAMBLE + textwrap.dedent(source)
    context = FileContext("example.py", source, cst.parse_module(source))
    context.stack = [context.module]  # the views evaluate where the visited node is: at module level
    return context


def last_value(context: FileContext) -> cst.BaseExpression:
    """The value of the file's last statement, `result = <value>`."""
    return context.module.body[-1].body[0].value


def record(source: str) -> ValueRecord:
    context = context_of(source)
    return context.values.record(last_value(context), context.module)


def test_a_sized_factory_is_a_constructed_tensor_with_its_shape():
    found = record("result = torch.randn(2, 3)")
    assert (found.kind, found.certainty, found.shape, found.dim) == (Kind.TENSOR, Certainty.CONSTRUCTED, (2, 3), Dim.N)
    assert found.is_tensor_like


def test_a_name_bound_to_a_factory_is_a_tensor_known_through_its_binding():
    found = record("x = torch.zeros(4, dtype=torch.float64)\nresult = x")
    assert (found.kind, found.certainty, found.shape, found.dtype) == (Kind.TENSOR, Certainty.BOUND, (4,), "torch.float64")


def test_item_gives_a_python_number():
    found = record("x = torch.randn(3)\nresult = x.sum().item()")
    assert (found.kind, found.certainty, found.grad) == (Kind.NUMBER, Certainty.CONSTRUCTED, Grad.FREE)
    assert not found.is_tensor_like


def test_a_model_call_is_a_tensor_with_history():
    found = record("model = nn.Linear(3, 2)\nx = torch.randn(2, 3)\nresult = model(x)")
    assert (found.kind, found.grad, found.dim, found.shape) == (Kind.TENSOR, Grad.HISTORY, Dim.N, (2, 2))
    unknown = record("model = nn.Linear(3, 2)\nresult = model(x)")
    assert (unknown.kind, unknown.grad, unknown.dim) == (Kind.TENSOR, Grad.HISTORY, Dim.UNKNOWN)


def test_a_layer_construction_is_a_module():
    assert (record("result = nn.Linear(3, 2)").kind, record("result = nn.Linear(3, 2)").certainty) == (
        Kind.NN_MODULE,
        Certainty.CONSTRUCTED,
    )
    bound = record("model = nn.Linear(3, 2).to('cuda')\nresult = model")
    assert (bound.kind, bound.certainty, bound.grad) == (Kind.NN_MODULE, Certainty.BOUND, Grad.UNKNOWN)


def test_an_optimizer_construction_is_an_optimizer():
    source = "model = nn.Linear(3, 2)\nresult = torch.optim.SGD(model.parameters(), lr=0.1)"
    assert (record(source).kind, record(source).certainty) == (Kind.OPTIMIZER, Certainty.CONSTRUCTED)
    assert record(source.replace("result = ", "opt = ") + "\nresult = opt").certainty is Certainty.BOUND


def test_an_optimizer_only_named_so_is_known_by_its_name():
    context = context_of("def train(optimizer):\n    optimizer.step()\n")
    (function,) = context.function_table.all
    name = cst.ensure_type(function.body.body[0], cst.SimpleStatementLine).body[0].value.func.value
    found = context.values.record(name, function)
    assert (found.kind, found.certainty) == (Kind.OPTIMIZER, Certainty.NAMED)


def test_a_full_reduction_is_zero_dim():
    found = record("x = torch.randn(2, 3)\nresult = x.sum()")
    assert (found.kind, found.dim) == (Kind.TENSOR, Dim.ZERO)


def test_a_literal_shape_decides_the_dimensions():
    assert record("result = torch.zeros(())").dim is Dim.ZERO
    assert record("result = torch.ones(5)").dim is Dim.N


def test_detach_is_history_free():
    found = record("x = torch.randn(2, 3)\nresult = x.detach()")
    assert (found.kind, found.grad) == (Kind.TENSOR, Grad.FREE)


def test_a_leaf_requiring_grad_and_a_parameter():
    assert record("result = torch.zeros(3, requires_grad=True)").grad is Grad.REQUIRES_GRAD
    assert record("w = torch.zeros(3, requires_grad=True)\nresult = w").grad is Grad.REQUIRES_GRAD
    parameter = record("result = nn.Parameter(torch.zeros(3))")
    assert (parameter.kind, parameter.certainty, parameter.grad) == (Kind.PARAMETER, Certainty.CONSTRUCTED, Grad.REQUIRES_GRAD)
    assert record("p = nn.Parameter(torch.zeros(3))\nresult = p").kind is Kind.PARAMETER


def test_a_layers_weight_and_a_loop_over_parameters_are_parameters():
    assert record("layer = nn.Linear(3, 2)\nresult = layer.weight").kind is Kind.PARAMETER
    context = context_of("model = nn.Linear(3, 2)\nfor p in model.parameters():\n    result = p\n")
    loop = cst.ensure_type(context.module.body[-1], cst.For)
    value = cst.ensure_type(loop.body.body[0], cst.SimpleStatementLine).body[0].value
    assert context.values.kind(value, context.module) is Kind.PARAMETER


def test_containers_of_tensors():
    assert record("model = nn.Linear(3, 2)\nresult = model.parameters()").kind is Kind.TENSORS
    assert record("x = torch.randn(4)\nresult = x.chunk(2)").kind is Kind.TENSORS
    assert record("x = torch.randn(4)\nresult = [x, x * 2]").kind is Kind.TENSORS
    assert record("result = [1, 'a']").kind is Kind.UNKNOWN


def test_a_name_only_spelled_like_a_loss_is_known_by_its_name():
    context = context_of("def report(loss):\n    return loss\n")
    (function,) = context.function_table.all
    returned = cst.ensure_type(function.body.body[0], cst.SimpleStatementLine).body[0].value
    found = context.values.record(returned, function)
    assert (found.kind, found.certainty) == (Kind.TENSOR, Certainty.NAMED)


def test_a_legacy_typed_constructor_spells_its_dtype():
    assert record("result = torch.LongTensor([1, 2])").dtype == "torch.int64"
    assert record("result = torch.ones(2)").dtype is None


def test_a_number_returned_by_a_function_of_the_file_is_known_through_the_return():
    found = record("def mean(values):\n    return sum(v.item() for v in values) / len(values)\n\nresult = mean([])")
    assert (found.kind, found.certainty) == (Kind.NUMBER, Certainty.BOUND)


def test_numbers_written_out_are_constructed():
    assert (record("result = -3").kind, record("result = -3").certainty) == (Kind.NUMBER, Certainty.CONSTRUCTED)
    assert record("n = 2\nresult = n * 0.5").certainty is Certainty.CONSTRUCTED  # arithmetic of numbers, here


def test_a_loss_named_value_bound_to_numbers_is_a_number():
    found = record("loss = 0.0\nloss += 1.5\nresult = loss")
    assert (found.kind, found.certainty) == (Kind.NUMBER, Certainty.BOUND)


def test_an_unknown_value_says_so():
    found = record("result = config.value")
    assert found == ValueRecord(Kind.UNKNOWN, Certainty.NONE, Grad.UNKNOWN, Dim.UNKNOWN, None, None)


# -- remembered per node and scope ---------------------------------------------------------------


def test_the_record_is_the_same_object_on_every_question():
    context = context_of("x = torch.randn(2)\nresult = x + 1")
    value = last_value(context)
    assert context.values.record(value, context.module) is context.values.record(value, context.module)


class Counting:
    """An evaluator that counts the questions it is asked, per question and node."""

    def __init__(self, evaluator) -> None:
        self.evaluator = evaluator
        self.calls: dict[tuple[str, int], int] = {}

    def __getattr__(self, name):
        answer = getattr(self.evaluator, name)
        if not callable(answer):
            return answer

        def counted(*args, **kwargs):
            key = (name, id(args[0]) if args else 0)
            self.calls[key] = self.calls.get(key, 0) + 1
            return answer(*args, **kwargs)

        return counted


def test_each_evaluator_is_asked_once_per_node_and_scope():
    context = context_of("x = torch.randn(2)\nresult = x.sum()")
    tensors, scalars = Counting(context.tensors), Counting(context.scalars)
    context.tensors, context.scalars = tensors, scalars  # the cached members, replaced before the model is built
    value = last_value(context)
    for _ in range(3):
        assert context.is_tensor(value) and context.is_scalar(value)
        context.value(value)
    assert (tensors.calls[("is_tensor", id(value))], scalars.calls[("is_scalar", id(value))]) == (1, 1)
    assert set(tensors.calls.values()) == set(scalars.calls.values()) == {1}  # nor any other node twice


def test_a_view_runs_only_its_own_evaluator():
    context = context_of("x = torch.randn(2)\nresult = x")
    assert context.is_tensor(last_value(context))
    built = vars(context)  # cached members live in the instance's dict once built
    assert "tensors" in built and not {"scalars", "grads", "history", "modules"} & set(built)


def test_the_views_answer_for_the_scope_they_are_given():
    context = context_of("def f():\n    loss = 1.0\n    return loss\n\nloss = torch.randn(())\nresult = loss\n")
    (function,) = context.function_table.all
    inner = cst.ensure_type(function.body.body[-1], cst.SimpleStatementLine).body[0].value
    outer = last_value(context)
    assert context.values.kind(inner, function) is Kind.NUMBER
    assert context.values.kind(outer, context.module) is Kind.TENSOR


def test_a_node_built_for_one_question_is_not_confused_with_a_later_one():
    context = context_of("x = torch.randn(2)\ny = 1.0\n")
    for name, expected in [("x", True), ("y", False)] * 50:
        assert context.values.is_tensor(cst.Name(name), context.module) is expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = torch.zeros(3)\nresult = torch.tensor(x)", True),  # through a name bound to a factory
        ("x = torch.zeros(3)\nresult = torch.tensor(x.float() * 2)", True),
        ("model = nn.Linear(3, 2)\nresult = torch.tensor(model(torch.zeros(3)))", False),  # a model call is no construction
        ("x = load()\nresult = torch.tensor(x)", False),  # a value built elsewhere
    ],
)
def test_evident_tensors_are_built_here(source, expected):
    context = context_of(source)
    source_value = last_value(context).args[0].value
    assert context.values.is_evident_tensor(source_value, context.module) is expected
