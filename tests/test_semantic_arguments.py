"""The call binder: which argument each parameter receives, for a `def` of the file and for a
signature given as parameter names."""

from __future__ import annotations

import libcst as cst
import pytest

from gradlint.analysis.semantic.arguments import UNKNOWN, Signature, bind


def _call(code: str) -> cst.Call:
    call = cst.parse_expression(code)
    assert isinstance(call, cst.Call)
    return call


def _def(code: str) -> cst.FunctionDef:
    function = cst.parse_statement(code)
    assert isinstance(function, cst.FunctionDef)
    return function


def _code(value) -> object:
    if value is None or value is UNKNOWN:
        return value
    return cst.Module([]).code_for_node(value)


F = _def("def f(a, b=2, *, c, d=4):\n    pass\n")


@pytest.mark.parametrize(
    "call, expected",
    [
        ("f(1, 3, c=5)", {"a": "1", "b": "3", "c": "5", "d": "4"}),  # positional, keyword, default
        ("f(c=5, a=1)", {"a": "1", "b": "2", "c": "5", "d": "4"}),  # keywords in any order
        ("f(1)", {"a": "1", "b": "2", "c": None, "d": "4"}),  # a keyword-only without default, left out
        ("f(*xs)", {"a": UNKNOWN, "b": UNKNOWN, "c": None, "d": "4"}),  # `*args` fills positional slots only
        ("f(1, *xs, c=5)", {"a": "1", "b": UNKNOWN, "c": "5", "d": "4"}),
        ("f(1, **kw)", {"a": "1", "b": UNKNOWN, "c": UNKNOWN, "d": UNKNOWN}),
        ("f(**kw, b=3)", {"a": UNKNOWN, "b": "3", "c": UNKNOWN, "d": UNKNOWN}),
    ],
)
def test_values_of_a_local_function(call, expected):
    bound = bind(_call(call), Signature.of(F))
    assert {name: _code(bound.value(name)) for name in expected} == expected


def test_a_positional_argument_after_star_args_fills_no_known_slot():
    bound = bind(_call("f(*xs, 9)"), Signature.of(F))
    assert bound.argument("a") is None and bound.argument("b") is None
    assert bound.value("a") is UNKNOWN and bound.starred and bound.fits


def test_the_receiver_of_a_method_binds_its_first_parameter():
    method = _def("def scale(self, x, factor=1.0):\n    pass\n")
    call = _call("model.scale(t, factor=2)")
    bound = bind(call, Signature.of(method), receiver=call.func.value)
    assert bound.receiver_parameter == "self"
    assert _code(bound.value("self")) == "model" and _code(bound.value("x")) == "t" and _code(bound.value("factor")) == "2"
    assert bound.argument("self") is None  # no argument of the call passes it
    assert list(bound.values()) == ["self", "x", "factor"]
    assert not bind(_call("model.scale(t, self=u)"), Signature.of(method), receiver=call.func.value).fits


def test_a_receiver_with_no_parameter_to_take_it_does_not_fit():
    assert not bind(_call("x.f()"), Signature.of_names(()), receiver=cst.Name("x")).fits


def test_a_signature_from_names_with_markers():
    signature = Signature.of_names(("input", "/", "dim", "*", "out"))
    assert (signature.positional_only, signature.positional, signature.keyword_only) == (("input",), ("dim",), ("out",))
    assert not signature.takes_args and not signature.takes_kwargs
    variadic = Signature.of_names(("a", "*args", "b", "**kwargs"))
    assert (variadic.positional, variadic.keyword_only, variadic.takes_args, variadic.takes_kwargs) == (("a",), ("b",), True, True)


@pytest.mark.parametrize(
    "call, fits",
    [
        ("torch.sum(x, 1, out=y)", True),
        ("torch.sum(x, dim=1)", True),
        ("torch.sum(input=x)", False),  # positional-only by keyword
        ("torch.sum(x, 1, y)", False),  # `out` is keyword-only: one positional argument too many
        ("torch.sum(x, keepdim=True)", False),  # not a parameter
        ("torch.sum(x, 1, dim=2)", False),  # twice
    ],
)
def test_what_fits_a_torch_signature(call, fits):
    bound = bind(_call(call), Signature.of_names(("input", "/", "dim", "*", "out")))
    assert bound.fits is fits


def test_arguments_a_signature_does_not_take_are_kept_by_their_names():
    bound = bind(_call("loss(w, 1, 2, 3, extra=4)"), Signature.of_names(("weight", "size_average")))
    assert [_code(arg.value) for arg in bound.extra_positional] == ["2", "3"]
    assert [_code(arg.value) for arg in bound.unknown_keywords] == ["4"]
    assert list(bound.named) == ["weight", "size_average", "extra"]
    assert bound.argument("extra") is None  # not a parameter
    assert bound.values() == {"weight": bound.named["weight"].value, "size_average": bound.named["size_average"].value}


def test_star_args_of_a_function_take_extra_positional_arguments():
    variadic = _def("def g(a, *rest, flag=False, **options):\n    pass\n")
    bound = bind(_call("g(1, 2, 3, flag=True, other=4)"), Signature.of(variadic))
    assert bound.fits and _code(bound.value("flag")) == "True" and _code(bound.value("a")) == "1"
