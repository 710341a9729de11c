"""What the argument of a legacy tensor constructor evidently is: a size, data, or unknown."""

from __future__ import annotations

import libcst as cst

from gradlint.analysis.tree import descendants
from gradlint.rules.gl507_legacy_tensor_constructor.evidence import (
    ArgumentEvidence,
    Evidence,
    changes_default_device,
    factory_without_device,
)
from test_function_summaries import context_of, function


def argument_of(context, scope, constructor):
    """The single argument of the `torch.<constructor>(...)` call in `scope`."""
    for node in descendants(scope):
        if isinstance(node, cst.Call) and context.code_for(node.func) == f"torch.{constructor}":
            return node, node.args[0].value
    raise LookupError(constructor)


def evidence(source, constructor, kind="size", name="f"):
    context = context_of(source)
    scope = function(context, name)
    call, value = argument_of(context, scope, constructor)
    arguments = ArgumentEvidence(context.imports, context.scopes, context.module, context.values.is_python_int)
    if kind == "size":
        return arguments.size(value, scope)
    line = context.line_of(call)
    return arguments.data(value, scope, lambda binding: context.line_of(binding) < line)


def test_ints_from_literals_len_size_and_module_constants_are_exact_sizes():
    source = """\
        import torch
        N = 4
        def f(x, words):
            n = len(words)
            m = n * 2 + N
            m += 1
            torch.FloatTensor(m)
            torch.LongTensor(x.size(0))
            torch.DoubleTensor(x.shape[1] // 2)
    """
    assert evidence(source, "FloatTensor") is Evidence.EXACT
    assert evidence(source, "LongTensor") is Evidence.EXACT
    assert evidence(source, "DoubleTensor") is Evidence.EXACT


def test_a_command_line_option_declared_int_is_an_exact_size_and_a_float_one_none():
    source = """\
        import argparse
        import torch
        parser = argparse.ArgumentParser()
        parser.add_argument("--batchSize", type=int, default=64)
        parser.add_argument("--scale", type=float, default=1.0)
        opt = parser.parse_args()
        def f():
            torch.FloatTensor(opt.batchSize)
            torch.LongTensor(opt.scale)
    """
    assert evidence(source, "FloatTensor") is Evidence.EXACT
    assert evidence(source, "LongTensor") is None


def test_a_parameter_is_a_likely_size_only_with_an_int_default_or_an_int_use():
    assert evidence("import torch\nB = 5\ndef f(size=B):\n    torch.LongTensor(size)\n", "LongTensor") is Evidence.LIKELY
    used = "import torch\ndef f(n):\n    for i in range(n):\n        pass\n    torch.LongTensor(n)\n"
    assert evidence(used, "LongTensor") is Evidence.LIKELY
    assert evidence("import torch\ndef f(n):\n    torch.LongTensor(n)\n", "LongTensor") is None
    rebound = "import torch\ndef f(n=3):\n    n = g(n)\n    torch.LongTensor(n)\n"
    assert evidence(rebound, "LongTensor") is None


def test_floats_and_unknown_calls_are_not_sizes():
    assert evidence("import torch\ndef f(x):\n    k = 2.0\n    torch.FloatTensor(k)\n", "FloatTensor") is None
    assert evidence("import torch\ndef f(x):\n    torch.FloatTensor(x.item())\n", "FloatTensor") is None
    assert evidence("import torch\ndef f(x):\n    torch.FloatTensor(x.size())\n", "FloatTensor") is None


def test_displays_and_comprehensions_are_exact_data_whatever_their_elements():
    source = """\
        import torch
        SOS = 0
        def f(ni, digits):
            torch.LongTensor([[SOS, -1, 2**3]])
            torch.FloatTensor([ni, 1.0])
            torch.DoubleTensor([d / 2 for d in digits])
    """
    assert evidence(source, "LongTensor", "data") is Evidence.EXACT
    assert evidence(source, "FloatTensor", "data") is Evidence.EXACT
    assert evidence(source, "DoubleTensor", "data") is Evidence.EXACT


def test_a_display_of_any_elements_is_exact_data_and_a_slice_of_one_is_not_a_display():
    source = """\
        import torch
        import torch.nn as nn
        w = nn.Parameter(torch.ones(2))
        def f(x, model):
            rows = torch.randn(3)
            for r in rows:
                torch.FloatTensor([r, x.size(0)])
            torch.DoubleTensor([model(x).sum().item(), 2.0])
            torch.LongTensor([model(x).sum()])
            torch.ByteTensor([w[0]])
            torch.IntTensor([x])
            g = torch.ones(2, requires_grad=True)
            torch.HalfTensor([g.sum(), [1.0]][:1])
            torch.ShortTensor([[g.sum()], (1, 2.0)])
    """
    assert evidence(source, "FloatTensor", "data") is Evidence.EXACT  # a row of a history-free tensor, an int
    assert evidence(source, "DoubleTensor", "data") is Evidence.EXACT  # Python numbers
    assert evidence(source, "LongTensor", "data") is Evidence.EXACT  # a model's output: any object
    assert evidence(source, "ByteTensor", "data") is Evidence.EXACT  # a parameter's element
    assert evidence(source, "ShortTensor", "data") is Evidence.EXACT  # a tensor requiring grad, in nested displays
    assert evidence(source, "HalfTensor", "data") is None  # a slice of a display: not a display
    assert evidence(source, "IntTensor", "data") is Evidence.EXACT  # a parameter of unknown callers


def test_a_display_repeated_by_an_int_is_data_as_exact_as_its_display_and_count():
    source = """\
        import torch
        def f(x, n, c):
            torch.FloatTensor([3] * x.size(0))
            torch.DoubleTensor(x.size(0) * [c])
            torch.LongTensor([3] * n)
            torch.IntTensor([3] + [4])
    """
    assert evidence(source, "FloatTensor", "data") is Evidence.EXACT
    assert evidence(source, "DoubleTensor", "data") is Evidence.EXACT  # `c` may be anything: a list all the same
    assert evidence(source, "LongTensor", "data") is None  # `n` may be anything
    assert evidence(source, "IntTensor", "data") is None


def test_a_name_is_data_when_the_bindings_before_the_call_are_lists():
    rebound_after = """\
        import torch
        def f(values):
            rewards = []
            for v in values:
                rewards.insert(0, v)
            rewards = torch.Tensor(rewards)
            rewards = rewards - rewards.mean()
    """
    assert evidence(rebound_after, "Tensor", "data") is Evidence.EXACT
    unpacked = "import torch\ndef f():\n    a, b = [], []\n    torch.LongTensor(b)\n"
    assert evidence(unpacked, "LongTensor", "data") is Evidence.EXACT
    mixed = "import torch\ndef f(t):\n    a = []\n    if t:\n        a = t\n    torch.LongTensor(a)\n"
    assert evidence(mixed, "LongTensor", "data") is None


def test_default_device_setters_and_factories_without_device():
    context = context_of("import torch\nwith torch.device('meta'):\n    m = torch.nn.Linear(2, 2)\n")
    assert changes_default_device(context.module, context.imports)
    cpu_type = context_of("import torch\ntorch.set_default_tensor_type(torch.DoubleTensor)\n")
    assert not changes_default_device(cpu_type.module, cpu_type.imports)
    cuda_type = context_of("import torch\ntorch.set_default_tensor_type('torch.cuda.FloatTensor')\n")
    assert changes_default_device(cuda_type.module, cuda_type.imports)
    factories = context_of("import torch\na = torch.randn(2).view(1, 2)\nb = torch.randn(2, device='cuda')\nc = x.view(2)\n")
    values = [statement.body[0].value for statement in factories.module.body[1:]]
    assert [factory_without_device(value, factories.imports) for value in values] == [True, False, False]
