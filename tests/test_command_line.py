"""What the options of a file's argparse namespace hold: which are Python ints."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.command_line import BOOL, INT, NUMBER
from gradlint.analysis.tree import descendants
from gradlint.context import FileContext

PARSER = """
import argparse
import torch
parser = argparse.ArgumentParser(description="x")
parser.add_argument('--batchSize', type=int, default=64, help='input batch size')
parser.add_argument('--lr', type=float, default=0.0002)
parser.add_argument('--steps', type=float, default=3)
parser.add_argument('--seed', type=int, help='manual seed')
parser.add_argument('--workers', default=2)
parser.add_argument('--image-size', type=int, default='32')
parser.add_argument('--bad', type=int, default='x')
parser.add_argument('--half', type=int, default=0.5)
parser.add_argument('--cuda', action='store_true')
parser.add_argument('--sizes', type=int, nargs='+', default=[1])
parser.add_argument('-n', '--num-layers', dest='layers', type=int, required=True)
parser.add_argument('hidden', type=int)
{extra}
opt = parser.parse_args()
print(opt)
{after}
"""


def option_types(extra: str = "", after: str = "", scope_of: str = "") -> dict[str, object]:
    text = textwrap.dedent(PARSER.format(extra=extra, after=after))
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    found = {}
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef) and node.name.value == scope_of:
            scope = node
            for inner in descendants(node):
                if isinstance(inner, cst.Attribute) and isinstance(inner.value, cst.Name) and inner.value.value == "opt":
                    found[inner.attr.value] = context.command_line.option_type(inner, scope)
    if not scope_of:
        for name in ("batchSize", "lr", "steps", "seed", "workers", "image_size", "bad", "half", "cuda", "sizes", "layers", "hidden"):
            found[name] = context.command_line.option_type(cst.Attribute(cst.Name("opt"), cst.Name(name)), module)
    return found


def test_the_declared_types():
    assert option_types() == {
        "batchSize": INT,
        "lr": NUMBER,
        "steps": NUMBER,
        "seed": None,  # None when left out
        "workers": None,  # text when given on the command line
        "image_size": INT,  # a text default goes through `type`
        "bad": None,
        "half": None,  # `type=int, default=0.5` keeps the float
        "cuda": BOOL,
        "sizes": None,
        "layers": INT,
        "hidden": INT,
    }


def test_read_in_a_function_of_the_module():
    types = option_types(after="def f():\n    return torch.FloatTensor(opt.batchSize)\n", scope_of="f")
    assert types == {"batchSize": INT}


def test_a_function_with_its_own_opt():
    types = option_types(after="def f(opt):\n    return torch.FloatTensor(opt.batchSize)\n", scope_of="f")
    assert types == {"batchSize": None}


@pytest.mark.parametrize(
    "extra, after",
    [
        ("parser.set_defaults(batchSize='x')", ""),
        ("group = parser.add_argument_group()", ""),
        ("configure(parser)", ""),
        ("", "train(opt)"),
        ("", "setattr(opt, 'batchSize', 2.5)"),
        ("", "opt = other()"),
        ("parser.add_argument('--batch', dest='batchSize', type=float, default=1.5)", ""),
        ("parser.add_argument(*flags)", ""),
        ("int = float", ""),
    ],
)
def test_what_can_change_an_option_makes_it_unknown(extra, after):
    assert option_types(extra, after)["batchSize"] is None


def test_an_option_written_through_the_namespace_is_unknown_the_others_stay():
    types = option_types(after="opt.batchSize = opt.batchSize * 1.5\nopt.seed = 3")
    assert types["batchSize"] is None and types["lr"] == NUMBER


def test_a_parser_with_parents_is_unknown():
    text = PARSER.replace('argparse.ArgumentParser(description="x")', "argparse.ArgumentParser(parents=[base])")
    module = cst.parse_module(textwrap.dedent(text.format(extra="", after="")))
    context = FileContext("probe.py", module.code, module)
    assert context.command_line.option_type(cst.Attribute(cst.Name("opt"), cst.Name("batchSize")), module) is None


def test_the_value_model_asks_it():
    text = textwrap.dedent(PARSER.format(extra="", after="n = opt.batchSize\nr = opt.lr\n"))
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    size = cst.Attribute(cst.Name("opt"), cst.Name("batchSize"))
    rate = cst.Attribute(cst.Name("opt"), cst.Name("lr"))
    assert context.values.is_python_int(size, module) and context.values.is_python_number(size, module)
    assert not context.values.is_python_int(rate, module) and context.values.is_python_number(rate, module)
