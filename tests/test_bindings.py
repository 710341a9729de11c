"""The binding analysis: attributes, dict entries, unpacked targets and aliases are bindings."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.analysis.tree import descendants
from support import lint
from test_function_summaries import context_of, function


def test_attributes_entries_and_unpacked_targets_are_bindings():
    context = context_of("""\
        def f(self, x):
            self.opt = make()
            state["lr"] = 0.1
            state[key] = 1
            loss, acc = step(x)
            a, b = 1, 2
            opt = self.opt
    """)
    bindings = context.scopes.of(function(context, "f"))
    assert [context.code_for(v) for v in bindings.attributes["self.opt"]] == ["make()"]
    assert [context.code_for(v) for v in bindings.entries[("state", "lr")]] == ["0.1"]
    assert list(bindings.entries) == [("state", "lr")]
    assert [(context.code_for(v), p) for v, p in bindings.unpacked["acc"]] == [("step(x)", 1)]
    assert "loss" in bindings.opaque and "a" not in bindings.unpacked
    assert context.code_for(bindings.alias_of("opt")) == "self.opt"
    assert bindings.alias_of("a") is None and bindings.alias_of("loss") is None


def test_instance_attributes_bound_in_one_method_are_read_in_another():
    context = context_of("""\
        class Net:
            def __init__(self):
                self.w = torch.randn(3, requires_grad=True)
            def reset(this):
                this.w = torch.zeros(3)
            def forward(self, x):
                return x * self.w
        class Other:
            def forward(self, x):
                return self.w
    """)
    forward, other = [f for f in context.function_table.all if f.name.value == "forward"]
    (read,) = [n for n in descendants(forward) if isinstance(n, cst.Attribute)]
    values = context.scopes.instance_attribute_values(read, forward)
    assert [(context.code_for(v), scope.name.value) for v, scope in values] == [
        ("torch.randn(3, requires_grad=True)", "__init__"),
        ("torch.zeros(3)", "reset"),
    ]
    (other_read,) = [n for n in descendants(other) if isinstance(n, cst.Attribute)]
    assert context.scopes.instance_attribute_values(other_read, other) == []


def test_an_instance_attribute_bound_to_a_grad_tensor_is_a_tensor_with_history_in_other_methods():
    source = textwrap.dedent("""\
        import torch
        class Probe:
            def __init__(self, model):
                self.model = model
                self.w = torch.randn(3, requires_grad=True)
                self.count = 0
            @torch.no_grad()
            def cache(self, x):
                self.features = self.model(x)
            def report(self, lr):
                print(self.w.numpy(), self.features.numpy(), self.count.numpy())
                self.w.data -= lr * self.w.grad.data
    """)
    found = [(f.code, f.location.row, f.location.column) for f in lint(source, "GL301", "GL303", "GL404")]
    assert found == [("GL404", 11, 15), ("GL301", 12, 9)]


def test_an_alias_of_the_imported_variable_is_reported_and_fixed():
    (finding,) = lint("from torch import autograd\nV = autograd.Variable\nx = V(t)\n", "GL101")
    assert (finding.location.row, finding.location.column) == (3, 5)
    assert finding.fix is not None
