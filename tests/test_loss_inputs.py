"""Which loss a call computes and what it is fed (GL601's `loss_inputs`), and which methods are
an `nn.Module`'s own (`NnModuleEvidence.instance_of_method` / `consults_mode`)."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst

from gradlint.analysis.tree import iter_children
from gradlint.context import FileContext
from gradlint.rules.gl601_activation_before_logits_loss.loss_inputs import Activation, Loss
from gradlint.rules.gl601_activation_before_logits_loss.rule import ActivationBeforeLogitsLoss


def context_of(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source))


def stack_to(context: FileContext, code: str, which: int = -1) -> list[cst.CSTNode]:
    """The ancestors of a call whose source is `code` (the last one by default), the call last."""
    found: list[list[cst.CSTNode]] = []

    def walk(node: cst.CSTNode, path: list[cst.CSTNode]) -> None:
        path = [*path, node]
        if isinstance(node, cst.Call) and context.code_for(node) == code:
            found.append(path)
        for child in iter_children(node):
            walk(child, path)

    walk(context.module, [])
    return found[which]


def fed(source: str, loss_call: str, which: int = -1) -> tuple[Optional[Loss], Optional[Activation]]:
    context = context_of(source)
    stack = stack_to(context, loss_call, which)
    inputs = ActivationBeforeLogitsLoss(context).loss_inputs
    produced = inputs.produced(inputs.input_of(stack[-1]), stack)
    return inputs.loss_of(stack[-1], stack), produced.activation if produced is not None else None


def test_losses_by_function_module_and_bound_criterion():
    source = """
        import torch.nn as nn
        import torch.nn.functional as F
        criterion = nn.NLLLoss()
        class M(nn.Module):
            def __init__(self):
                super().__init__()
                self.loss = nn.BCEWithLogitsLoss()
            def step(self, x, y):
                return self.loss(x, y) + criterion(x, y) + nn.CrossEntropyLoss()(x, y) + F.binary_cross_entropy(x, y)
        def other(criterion, x, y):
            return criterion(x, y)
    """
    context = context_of(source)
    expected = {
        "self.loss(x, y)": Loss.BCE_WITH_LOGITS,
        "criterion(x, y)": None,  # the last one: a parameter of `other`
        "nn.CrossEntropyLoss()(x, y)": Loss.CROSS_ENTROPY,
        "F.binary_cross_entropy(x, y)": Loss.BCE,
    }
    for code, loss in expected.items():
        stack = stack_to(context, code)
        assert ActivationBeforeLogitsLoss(context).loss_inputs.loss_of(stack[-1], stack) is loss, code
    bound_at_module_level = stack_to(context, "criterion(x, y)", which=0)
    assert ActivationBeforeLogitsLoss(context).loss_inputs.loss_of(bound_at_module_level[-1], bound_at_module_level) is Loss.NLL


def test_inline_named_and_reshaped_activations():
    source = """
        import torch
        import torch.nn.functional as F
        def f(out, y):
            probs = F.softmax(out, dim=1)
            a = F.cross_entropy(probs.view(-1, 3), y)
            b = F.nll_loss(out.log_softmax(1), y)
            c = F.binary_cross_entropy_with_logits(torch.nn.Sigmoid()(out), y)
            return a + b + c
    """
    assert fed(source, "F.cross_entropy(probs.view(-1, 3), y)") == (Loss.CROSS_ENTROPY, Activation.SOFTMAX)
    assert fed(source, "F.nll_loss(out.log_softmax(1), y)") == (Loss.NLL, Activation.LOG_SOFTMAX)
    assert fed(source, "F.binary_cross_entropy_with_logits(torch.nn.Sigmoid()(out), y)") == (Loss.BCE_WITH_LOGITS, Activation.SIGMOID)


def test_a_name_bound_to_two_kinds_of_value_is_unknown():
    source = """
        import torch.nn.functional as F
        def f(out, y, flag):
            probs = out
            if flag:
                probs = F.softmax(out, dim=1)
            return F.cross_entropy(probs, y)
    """
    assert fed(source, "F.cross_entropy(probs, y)") == (Loss.CROSS_ENTROPY, None)


def test_a_name_is_read_as_the_assignment_before_it():
    source = """
        import torch.nn.functional as F
        def f(logits, y):
            logits = F.softmax(logits, dim=-1)
            a = F.cross_entropy(logits, y)
            logits = F.log_softmax(logits, dim=-1)
            return a + F.cross_entropy(logits, y)
    """
    assert fed(source, "F.cross_entropy(logits, y)", which=0) == (Loss.CROSS_ENTROPY, Activation.SOFTMAX)
    assert fed(source, "F.cross_entropy(logits, y)") == (Loss.CROSS_ENTROPY, Activation.LOG_SOFTMAX)


def test_model_outputs_through_sequential_forward_and_to():
    source = """
        import torch.nn as nn
        import torch.nn.functional as F
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.head = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))
            def forward(self, x):
                return self.head(x)
        class Mixed(nn.Module):
            def forward(self, x):
                if self.training:
                    return self.fc(x)
                return F.softmax(self.fc(x), 1)
        net = Net().to("cpu")
        mixed = Mixed()
        linear = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).cuda()
        a = F.cross_entropy(net(x), y)
        b = F.cross_entropy(mixed(x), y)
        c = F.binary_cross_entropy(linear(x).squeeze(1), t)
    """
    assert fed(source, "F.cross_entropy(net(x), y)") == (Loss.CROSS_ENTROPY, Activation.SOFTMAX)
    assert fed(source, "F.cross_entropy(mixed(x), y)") == (Loss.CROSS_ENTROPY, None)
    assert fed(source, "F.binary_cross_entropy(linear(x).squeeze(1), t)") == (Loss.BCE, Activation.LOGITS)


def test_inline_activation_is_marked_for_the_fix_and_names_are_not():
    source = """
        import torch.nn.functional as F
        probs = F.softmax(z, dim=1)
        a = F.cross_entropy(F.softmax(z, dim=1), y)
        b = F.cross_entropy(probs, y)
    """
    context = context_of(source)
    inputs = ActivationBeforeLogitsLoss(context).loss_inputs
    inline = stack_to(context, "F.cross_entropy(F.softmax(z, dim=1), y)")
    produced = inputs.produced(inputs.input_of(inline[-1]), inline)
    assert produced.inline is not None and context.code_for(inputs.applied_to(produced.inline)) == "z"
    named = stack_to(context, "F.cross_entropy(probs, y)")
    assert inputs.produced(inputs.input_of(named[-1]), named).inline is None


def test_module_methods_and_their_instance():
    source = """
        import torch.nn as nn
        import torch.nn.functional as F
        class Base(nn.Module):
            pass
        class Block(Base):
            def forward(me, x):
                def inner(h):
                    return F.dropout(h, 0.1)
                return inner(x)
            @staticmethod
            def helper(x):
                return F.dropout(x, 0.2)
            def guarded(self, x):
                if not self.training:
                    return x
                return F.dropout(x, 0.3)
        class Plain:
            def forward(self, x):
                return F.dropout(x, 0.4)
    """
    context = context_of(source)
    modules = context.nn_modules
    assert modules.instance_of_method(stack_to(context, "F.dropout(h, 0.1)")) == "me"
    assert not modules.consults_mode(stack_to(context, "F.dropout(h, 0.1)"), "me")
    assert modules.instance_of_method(stack_to(context, "F.dropout(x, 0.2)")) is None
    guarded = stack_to(context, "F.dropout(x, 0.3)")
    assert modules.instance_of_method(guarded) == "self" and modules.consults_mode(guarded, "self")
    assert modules.instance_of_method(stack_to(context, "F.dropout(x, 0.4)")) is None


def test_a_sequential_grown_after_construction_is_unknown():
    source = """
        import torch.nn as nn
        import torch.nn.functional as F
        model = nn.Sequential(nn.Linear(4, 1))
        model.append(nn.Sigmoid())
        loss = F.binary_cross_entropy(model(x), t)
    """
    assert fed(source, "F.binary_cross_entropy(model(x), t)") == (Loss.BCE, None)
