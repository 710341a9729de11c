"""Small, allocation-free helpers over LibCST nodes.

Hot paths test exact node types (`type(node) is cst.Name`): the concrete LibCST node classes have
no subclasses, and `isinstance` against them goes through ABCMeta, which is several times slower.
"""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

import libcst as cst


def iter_statements(body: Sequence[cst.BaseStatement]) -> Iterator[cst.CSTNode]:
    """Every statement (and small statement) in `body`, depth first, in source order.

    Descends into compound statements, including function and class bodies, but not into expressions.
    """
    pending = list(reversed(body))
    while pending:
        statement = pending.pop()
        yield statement
        if type(statement) is cst.SimpleStatementLine:
            yield from statement.body
        else:
            pending.extend(reversed(child_statements(statement)))


def child_statements(statement: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements directly nested in a compound statement, in source order.

    An `elif` is returned as the nested If statement it is in LibCST's tree.
    """
    nested: list[cst.CSTNode] = list(suite_statements(getattr(statement, "body", None)))
    for handler in getattr(statement, "handlers", ()):
        nested.extend(suite_statements(handler.body))
    for case in getattr(statement, "cases", ()):
        nested.extend(suite_statements(case.body))
    for name in ("orelse", "finalbody"):
        block = getattr(statement, name, None)
        if type(block) is cst.If:
            nested.append(block)
        elif block is not None:
            nested.extend(suite_statements(block.body))
    return nested


_SUITES = (cst.IndentedBlock, cst.SimpleStatementSuite)
# Definitions: code inside them runs only where they are called, in a scope of its own.
DEFINITIONS = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def suite_statements(suite: object) -> Sequence[cst.CSTNode]:
    if type(suite) in _SUITES:
        return suite.body
    return ()


def calls_method(node: cst.CSTNode, *methods: str) -> bool:
    """`node` is a call of one of `methods` on some receiver: `x.backward()`, `opt.step()`."""
    # Exact type tests: Call and Attribute have no subclasses, and this runs in hot loops.
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in methods


def dotted_name(node: cst.CSTNode) -> Optional[str]:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def is_none_literal(node: Optional[cst.CSTNode]) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def is_bool_literal(node: Optional[cst.CSTNode], value: bool) -> bool:
    return isinstance(node, cst.Name) and node.value == ("True" if value else "False")


def is_integer_literal(node: cst.CSTNode, value: int) -> bool:
    if type(node) is not cst.Integer or node.lpar:
        return False
    digits = node.value
    # Plain decimal digits are read directly: `evaluated_value` compiles the literal with `ast`.
    return int(digits) == value if digits.isdigit() else node.evaluated_value == value


def keyword_arg(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional_args(call: cst.Call) -> list[cst.Arg]:
    return [arg for arg in call.args if arg.keyword is None and not arg.star]


def parameter_names(params: cst.Parameters) -> list[str]:
    """Every parameter a function binds, in order: positional-only, positional, keyword-only, then `*args` and `**kwargs`."""
    names = [param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)]
    names.extend(star.name.value for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param))
    return names


def is_atom(node: cst.BaseExpression) -> bool:
    """True when `node.attr` needs no parentheses around node."""
    if node.lpar:
        return True
    return isinstance(
        node,
        (
            cst.Name,
            cst.Attribute,
            cst.Call,
            cst.Subscript,
            cst.List,
            cst.Tuple,
            cst.Dict,
            cst.Set,
            cst.ListComp,
            cst.SetComp,
            cst.DictComp,
            cst.GeneratorExp,
            cst.SimpleString,
            cst.ConcatenatedString,
            cst.FormattedString,
        ),
    )


def parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    if is_atom(node):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def method_call_on(receiver: cst.BaseExpression, method: str, *args: cst.Arg) -> cst.Call:
    """`receiver.method(args)`, parenthesizing the receiver where precedence needs it."""
    return cst.Call(
        func=cst.Attribute(value=parenthesized(receiver), attr=cst.Name(method)),
        args=list(args),
    )


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Levenshtein distance, cut off at `limit` (enough to tell near-misses)."""
    if abs(len(a) - len(b)) >= limit:
        return limit
    previous = list(range(len(b) + 1))
    for i, char_a in enumerate(a, start=1):
        current = [i]
        for j, char_b in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b)))
        previous = current
    return min(previous[-1], limit)


def is_docstring(statement: cst.CSTNode) -> bool:
    """A string literal alone on its line (a module's, class's or function's first statement)."""
    return (
        type(statement) is cst.SimpleStatementLine
        and len(statement.body) == 1
        and type(statement.body[0]) is cst.Expr
        and type(statement.body[0].value) in (cst.SimpleString, cst.ConcatenatedString)
    )
