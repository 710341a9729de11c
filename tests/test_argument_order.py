"""A parameter every call of which is known takes what its callers pass; a name passed at a call
is judged by the one plain assignment that reaches the call when the code shows it (before the call
in its block, no loop, branch or hidden binding between), and by all its bindings otherwise."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.context import FileContext
from gradlint.model.project import ProjectFacts

# A whole-project run in which no other file calls this file's functions.
ALONE = ProjectFacts(called_elsewhere=frozenset(), reached_elsewhere=frozenset())

SAMPLE = """
import torch

def to_numpy(x):
    return x

def sample(net, zs, flag):
    fake = [net(z) for z in zs]
{body}
"""


def parameter_is_tensor(body: str) -> bool:
    """Whether the read of `x` in `to_numpy` is a tensor, for the statements `body` of `sample`."""
    source = textwrap.dedent(SAMPLE).format(body=textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))
    context = FileContext("example.py", source, cst.parse_module(source), ALONE)
    (function,) = [f for f in context.function_table.all if f.name.value == "to_numpy"]
    read = next(n for n in context.nodes.subtree(function.body) if isinstance(n, cst.Name) and n.value == "x")
    return context.values.is_tensor(read, function)


def test_the_assignment_reaching_the_call_decides_what_a_name_passes():
    # `fake` is also a list, and later a NumPy array: only the `torch.cat` reaches the call
    assert parameter_is_tensor(
        """
        fake = torch.cat(fake)
        real, fake = zs[0], to_numpy(fake)
        return fake
        """
    )


def test_the_assignment_reaching_a_call_in_a_branch_is_the_one_before_it_in_the_branch():
    assert parameter_is_tensor(
        """
        if flag:
            fake = torch.cat(fake)
            fake = to_numpy(fake)
        """
    )


def test_a_name_passed_after_its_list_became_a_tensor_in_an_earlier_block_is_the_tensor():
    # `fake` is first a list and the whole body runs before the call: the order-free view saw the list
    assert parameter_is_tensor("fake = torch.cat(fake)\nwith torch.no_grad():\n    to_numpy(fake)")


@pytest.mark.parametrize(
    "body",
    [
        # a later binding inside the loop around the call comes round to it
        """
        fake = torch.cat(fake)
        for step in range(3):
            to_numpy(fake)
            fake = [fake]
        """,
        # a binding in a branch may or may not run before the call
        """
        fake = torch.cat(fake)
        if flag:
            fake = [fake]
        to_numpy(fake)
        """,
        # a nested function rebinds the name when it is called
        """
        def keep():
            nonlocal fake
            fake = [fake]
        fake = torch.cat(fake)
        keep()
        to_numpy(fake)
        """,
        # a comprehension's own `fake` is not the one assigned before it
        """
        fake = torch.cat(fake)
        return [to_numpy(fake) for fake in zs]
        """,
        # the list of the first line reaches the call
        """
        to_numpy(fake)
        """,
    ],
    ids=["a loop brings a later binding round", "a binding in a branch", "a nested function", "a comprehension", "the list reaches"],
)
def test_a_binding_the_code_does_not_show_reaching_the_call_keeps_every_binding(body):
    assert not parameter_is_tensor(body)


def test_a_number_reaching_the_call_is_not_a_tensor_whatever_came_before():
    # order-free, one tensor among the bindings and not all of them numbers made `noise` a tensor
    assert not parameter_is_tensor(
        """
        noise = torch.cat(fake)
        noise = 0.5
        to_numpy(noise)
        """
    )


MOVED = """
import torch

def to_numpy(x):
    if torch.cuda.is_available():
        x = {move}
    return x.data.numpy()

def sample(net, z):
    fake = {passed}
    return to_numpy(fake)
"""


def returned_parameter_is_tensor(move: str, passed: str = "net(z)") -> bool:
    """Whether `x` in `to_numpy`'s `return` is a tensor, `x` rebound to `move` in a branch."""
    source = textwrap.dedent(MOVED).format(move=move, passed=passed)
    context = FileContext("example.py", source, cst.parse_module(source), ALONE)
    (function,) = [f for f in context.function_table.all if f.name.value == "to_numpy"]
    *_, read = [n for n in context.nodes.subtree(function.body) if isinstance(n, cst.Name) and n.value == "x"]
    return context.values.is_tensor(read, function)


@pytest.mark.parametrize("move", ["x.cpu()", "x.to(device)"])
def test_a_parameter_moved_to_another_device_stays_what_its_callers_pass(move):
    assert returned_parameter_is_tensor(move)


@pytest.mark.parametrize(
    ("move", "passed"),
    [("x.type()", "net(z)"), ("x.cpu()", "[1.0, 2.0]"), ("x.cpu().numpy()", "net(z)")],
    ids=["the type's name", "a caller passes a list", "a NumPy array"],
)
def test_a_parameter_rebound_to_something_else_or_passed_no_tensor_is_not_one(move, passed):
    assert not returned_parameter_is_tensor(move, passed)
