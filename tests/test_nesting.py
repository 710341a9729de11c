"""The scan that spares most files CPython's compile check: it must clear ordinary code and never
clear a text that CPython refuses for its nesting."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from gradlint.deepstack import run_deep
from gradlint.nesting import may_exceed_nesting_limits
from gradlint.pipeline import PYTHON_RECURSION_LIMIT

ROOT = Path(__file__).resolve().parent.parent
NESTING_REASONS = ("too many nested parentheses", "too many levels of indentation", "too many statically nested blocks")


def refused_for_nesting(text: str) -> bool:
    def compiled() -> bool:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(text, "<test>", "exec", dont_inherit=True)
        except SyntaxError as error:
            return (error.msg or "").startswith(NESTING_REASONS)
        except (RecursionError, MemoryError):
            return True
        return False

    return run_deep(compiled, PYTHON_RECURSION_LIMIT)


def indented(lines: list[str], unit: str = " ") -> str:
    return "".join(unit * depth + line + "\n" for depth, line in enumerate(lines))


def nested_try(depth: int) -> str:
    out = []
    for level in range(depth):
        pad = "  " * level
        out += [f"{pad}try:", f"{pad} pass", f"{pad}except E as e:"]
    return "\n".join(out) + "\n" + "  " * depth + "pass\n"


CONSTRUCTS = {
    "binary chain": lambda n: "x = a" + " + a" * n + "\n",
    "unary chain": lambda n: "x = " + "-" * n + "a\n",
    "attribute chain": lambda n: "x = a" + ".b" * n + "\n",
    "power chain": lambda n: "x = a" + " ** a" * n + "\n",
    "lambdas": lambda n: "x = " + "lambda: " * n + "a\n",
    "conditional chain": lambda n: "x = a" + " if a else a" * n + "\n",
    "chain across lines in brackets": lambda n: "x = (a\n" + "    + a\n" * n + ")\n",
    "chain across backslashes": lambda n: "x = a" + " \\\n    + a" * n + "\n",
    "chain in an f-string": lambda n: 'x = f"{a' + " + a" * n + '}"\n',
    "parentheses": lambda n: "x = " + "(" * n + "a" + ")" * n + "\n",
    "calls": lambda n: "x = " + "f(" * n + "a" + ")" * n + "\n",
    "brackets over lines": lambda n: "x = " + "[\n" * n + "a" + "]\n" * n,
    "brackets in an f-string": lambda n: 'x = f"{' + "(" * n + "a" + ")" * n + '}"\n',
    "if blocks": lambda n: indented(["if x:"] * n + ["pass"]),
    "if blocks with tabs": lambda n: indented(["if x:"] * n + ["pass"], "\t"),
    "for loops": lambda n: indented(["for x in y:"] * n + ["pass"]),
    "for loops, CRLF": lambda n: indented(["for x in y:"] * n + ["pass"]).replace("\n", "\r\n"),
    "while loops, four spaces": lambda n: indented(["while x:"] * n + ["pass"], "    "),
    "with items": lambda n: "with " + ", ".join(["a"] * n) + ":\n    pass\n",
    "parenthesized with items": lambda n: "with (\n" + "".join("    a,\n" for _ in range(n)) + "):\n    pass\n",
    "nested withs of three": lambda n: indented(["with a, b, c:"] * n + ["pass"]),
    "try-except as": nested_try,
    "elif chain": lambda n: "if a:\n pass\n" + "elif a:\n pass\n" * n,
    "definitions": lambda n: indented(["def f():"] * n + ["pass"]),
}
SIZES = (5, 9, 10, 11, 20, 21, 22, 60, 99, 100, 101, 149, 199, 200, 201, 400, 1000, 2983, 2995, 3100)


@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_nothing_cpython_refuses_for_its_nesting_is_cleared(construct):
    refused = 0
    for size in SIZES:
        text = CONSTRUCTS[construct](size)
        if refused_for_nesting(text):
            refused += 1
            assert may_exceed_nesting_limits(text), (construct, size)
    assert refused, f"{construct}: no size probed is refused by CPython"


@pytest.mark.parametrize(
    "text",
    [
        'x = "(((" + """\n)))\n""" + ")"  # (\n',
        "x = (\n",
        "x = )\n",
        "if x:\n\tpass\n",
        "if x:\n\fpass\n",
    ],
)
def test_what_the_scan_does_not_follow_goes_to_the_compiler(text):
    assert may_exceed_nesting_limits(text) is (text.count("(") != text.count(")") or "\t" in text or "\f" in text)


def test_ordinary_code_is_cleared():
    """Strings and comments hold no code: brackets and long docstrings there do not count."""
    ordinary = sorted((ROOT / "fixtures").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))
    assert len(ordinary) > 100
    gated = [path for path in ordinary if may_exceed_nesting_limits(path.read_text(encoding="utf-8", errors="replace"))]
    assert gated == []
    docstring = 'def f():\n    """' + "(" * 500 + "x" * 5000 + '"""\n    # ' + "[" * 300 + "\n    return 1\n"
    assert not may_exceed_nesting_limits(docstring)
    assert not may_exceed_nesting_limits('print(count("{"), f"{x}{{", \'}\')\n')
