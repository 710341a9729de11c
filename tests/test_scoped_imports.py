"""Imports resolve per scope and in source order: what each call of `Variable` refers to where it is."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.imports import ImportMap
from support import lint

TORCH = "torch.autograd.Variable"
SYMPY = "sympy.Variable"


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def resolved_calls(source: str, name: str = "Variable") -> list:
    """What the callee of each call spelt `name` resolves to, in source order."""
    module = cst.parse_module(textwrap.dedent(source))
    collector = _Calls()
    module.visit(collector)
    imports = ImportMap.build(module)
    return [imports.qualified_name(call.func) for call in collector.calls if _spelt(call.func, name)]


def _spelt(func: cst.BaseExpression, name: str) -> bool:
    return (type(func) is cst.Name and func.value == name) or (type(func) is cst.Attribute and func.attr.value == name)


CASES = {
    "a function-local import alone": (
        """
        def f(x):
            from torch.autograd import Variable
            return Variable(x)
        """,
        [TORCH],
    ),
    "a function-local import on one line": (
        "def f(x): from torch.autograd import Variable; return Variable(x)\n",
        [TORCH],
    ),
    "a local import shadows another library's Variable imported at the top": (
        """
        from sympy import Variable
        def f(x):
            from torch.autograd import Variable
            return Variable(x)
        s = Variable("s")
        """,
        [TORCH, SYMPY],
    ),
    "a function importing another library's Variable under torch's at the top": (
        """
        from torch.autograd import Variable
        def f(x):
            from sympy import Variable
            return Variable(x)
        def g(x):
            return Variable(x)
        """,
        [SYMPY, TORCH],
    ),
    "a class body import is seen in the class body, not in its methods": (
        """
        class Model:
            from torch.autograd import Variable
            zero = Variable(t)
            def forward(self, x):
                return Variable(x)
        """,
        [TORCH, None],
    ),
    "a class body reads the module's name until it binds its own": (
        """
        from torch.autograd import Variable
        class Model:
            zero = Variable(t)
            from sympy import Variable
            symbol = Variable("s")
        """,
        [TORCH, SYMPY],
    ),
    "a nested function reads the enclosing function's import": (
        """
        def f(x):
            from torch.autograd import Variable
            def wrap(y):
                return Variable(y)
            return wrap(x), (lambda z: Variable(z))(x)
        """,
        [TORCH, TORCH],
    ),
    "a read before the function's own import names that local (and raises UnboundLocalError)": (
        """
        from sympy import Variable
        def f(x):
            y = Variable(x)
            from torch.autograd import Variable
            return Variable(y)
        """,
        [TORCH, TORCH],
    ),
    "a read before two different bindings of the function's own name": (
        """
        def f(x):
            y = Variable(x)
            if x:
                from torch.autograd import Variable
            else:
                from sympy import Variable
            return y
        """,
        [None],
    ),
    "a module-level name rebound after use resolves by position": (
        """
        from torch.autograd import Variable
        a = Variable(t)
        Variable = make_variable
        b = Variable(t)
        def f(x):
            return Variable(x)
        """,
        [TORCH, None, None],
    ),
    "a module-level import after another library's": (
        """
        from sympy import Variable
        s = Variable("s")
        from torch.autograd import Variable
        v = Variable(t)
        """,
        [SYMPY, TORCH],
    ),
    "imports of two libraries in branches are not told apart": (
        """
        if legacy:
            from torch.autograd import Variable
        else:
            from sympy import Variable
        v = Variable(t)
        """,
        [None],
    ),
    "a fallback in an except clause is not torch's": (
        """
        try:
            from torch.autograd import Variable
        except ImportError:
            Variable = None
        v = Variable(t)
        """,
        [None],
    ),
    "a rebinding later in a loop reaches the next iteration": (
        """
        from torch.autograd import Variable
        for batch in loader:
            v = Variable(batch)
            Variable = make_variable
        """,
        [None],
    ),
    "an import in the loop body reaches the reads after it": (
        """
        def f(loader):
            for batch in loader:
                from torch.autograd import Variable
                v = Variable(batch)
        """,
        [TORCH],
    ),
    "a local assignment shadows the name in its function only": (
        """
        from torch.autograd import Variable
        def f(x):
            Variable = make_variable
            return Variable(x)
        v = Variable(t)
        """,
        [None, TORCH],
    ),
    "a parameter shadows the module's import": (
        """
        from torch.autograd import Variable
        def f(x, Variable):
            return Variable(x)
        """,
        [None],
    ),
    "a function rebinding the global makes every binding count": (
        """
        from torch.autograd import Variable
        def patch():
            global Variable
            Variable = make_variable
        v = Variable(t)
        """,
        [None],
    ),
    "a nested function rebinding it with nonlocal": (
        """
        def f(x):
            from torch.autograd import Variable
            def patch():
                nonlocal Variable
                Variable = make_variable
            return Variable(x)
        """,
        [None],
    ),
    "tf.Variable stays TensorFlow's next to a local torch import": (
        """
        import tensorflow as tf
        def f(x):
            from torch.autograd import Variable
            return tf.Variable(x)
        """,
        ["tensorflow.Variable"],
    ),
    "a star import gives the name where nothing binds it": (
        """
        from torch.autograd import *
        v = Variable(t)
        def f(x):
            return Variable(x)
        def g(Variable, x):
            return Variable(x)
        """,
        [TORCH, TORCH, None],
    ),
}


@pytest.mark.parametrize("source, expected", CASES.values(), ids=CASES.keys())
def test_each_read_resolves_to_the_binding_that_reaches_it(source, expected):
    assert resolved_calls(source) == expected


def test_an_alias_in_a_function_follows_the_function_import():
    source = """
        from sympy import autograd
        def f(x):
            from torch import autograd
            V = autograd.Variable
            return V(x)
        W = autograd.Variable
        w = W(x)
        """
    assert resolved_calls(source, "V") == [TORCH]
    assert resolved_calls(source, "W") == ["sympy.autograd.Variable"]


@pytest.mark.parametrize(
    "source, line",
    [
        ("def f(x):\n    from torch.autograd import Variable\n    return Variable(x)\n", 3),
        ("from sympy import Variable\ndef f(x):\n    from torch.autograd import Variable\n    return Variable(x)\ns = Variable('s')\n", 4),
    ],
)
def test_gl101_reports_the_call_of_a_function_local_import(source, line):
    assert [(f.code, f.location.row) for f in lint(source, "GL101")] == [("GL101", line)]


def test_a_read_before_the_binding_is_told_apart():
    module = cst.parse_module("def f(x):\n    y = Variable(x)\n    from torch.autograd import Variable\n    return Variable(y)\n")
    collector = _Calls()
    module.visit(collector)
    imports = ImportMap.build(module)
    assert [imports.reads_before_binding(call.func) for call in collector.calls] == [True, False]


def test_gl101_reports_a_call_before_the_function_import_without_a_fix():
    source = "def f(x):\n    y = Variable(x)\n    from torch.autograd import Variable\n    return y\n"
    findings = lint(source, "GL101")
    assert [(f.code, f.location.row, f.fix) for f in findings] == [("GL101", 2, None)]


def test_gl101_ignores_another_library_imported_in_the_function():
    source = "from torch.autograd import Variable\ndef f(x):\n    from sympy import Variable\n    return Variable(x)\n"
    assert lint(source, "GL101") == []


@pytest.mark.parametrize(
    "code, test",
    [("GL104", "isinstance(x, Variable)"), ("GL105", "type(x) == Variable")],
)
def test_variable_type_checks_follow_the_function_local_import(code, test):
    source = f"from sympy import Variable\ndef f(x):\n    from torch.autograd import Variable\n    return {test}\nok = {test.replace('x', 'y')}\n"
    assert [(f.code, f.location.row) for f in lint(source, code)] == [(code, 4)]
    other = f"from torch.autograd import Variable\ndef f(x):\n    from sympy import Variable\n    return {test}\n"
    assert lint(other, code) == []


def test_only_names_with_local_or_conflicting_bindings_are_followed():
    """The common case pays nothing: a name bound once at module level resolves file-wide."""
    source = """
        import torch
        from torch.autograd import Variable
        try:
            import cPickle as pickle
        except ImportError:
            import pickle
        def f(x, torch_module):
            import numpy as np
            return Variable(x)
        """
    imports = ImportMap.build(cst.parse_module(textwrap.dedent(source)))
    assert imports.followed_names == {"np", "pickle"}


def test_an_alias_of_itself_under_a_star_import_resolves_without_recursion():
    """`model = model.data` makes `model` an alias of an attribute of itself; a class that binds
    `model` too makes the name followed per read, and its read in the alias went round forever."""
    source = "from torch.autograd import *\nmodel = model.data\nclass Trainer:\n    model = x\nVariable(model)\n"
    module = cst.parse_module(source)
    imports = ImportMap.build(module)
    alias_value = module.body[1].body[0].value
    assert imports.qualified_name(alias_value) is None
    assert [(f.code, f.location.row) for f in lint(source)] == [("GL101", 5)]
