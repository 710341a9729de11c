"""Local stand-ins for `Variable`: a name bound to a lambda that hands all its arguments to
`torch.autograd.Variable` and maybe moves the result, as widely copied 2017-18 code does:

    Variable = lambda *args, **kwargs: autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)

A call of such a name passes `volatile=` on to the constructor unchanged, so it means what the
same call of `Variable` means, followed by the move. The name must have no other binding anywhere
in the file (an import, a parameter, another assignment), so that every use of it is the lambda.
"""

from __future__ import annotations

from typing import Iterator

import libcst as cst
from libcst.helpers import get_full_name_for_node

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap, target_names
from gradlint.analysis.legacy import is_variable
from gradlint.analysis.tree import descendants

# Methods that only move or convert the constructed tensor (`.cuda()`, `.to(device)`, `.float()`).
_CONVERSIONS = torch_api.methods("converts")


def variable_aliases(module: cst.Module, text: str, imports: ImportMap) -> frozenset[str]:
    """The names of the file that are such stand-ins."""
    if "lambda" not in text or "Variable" not in text:
        return frozenset()
    candidates = {}
    bindings: dict[str, int] = {}
    for node in descendants(module):
        for name in _bound_names(node):
            bindings[name] = bindings.get(name, 0) + 1
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            if isinstance(node.value, cst.Lambda) and _forwards_to_variable(node.value, imports):
                candidates[node.targets[0].target.value] = node
    return frozenset(name for name in candidates if bindings.get(name) == 1)


def _forwards_to_variable(function: cst.Lambda, imports: ImportMap) -> bool:
    """`lambda *args, **kwargs: <body>` whose body is `Variable(*args, **kwargs)`, moved, or either
    of two such by a condition."""
    params = function.params
    if params.params or params.posonly_params or params.kwonly_params:
        return False
    if not isinstance(params.star_arg, cst.Param) or params.star_kwarg is None:
        return False
    return _forwarding(function.body, params.star_arg.name.value, params.star_kwarg.name.value, imports)


def _forwarding(body: cst.BaseExpression, args: str, kwargs: str, imports: ImportMap) -> bool:
    if isinstance(body, cst.IfExp):
        return _forwarding(body.body, args, kwargs, imports) and _forwarding(body.orelse, args, kwargs, imports)
    while isinstance(body, cst.Call) and isinstance(body.func, cst.Attribute) and body.func.attr.value in _CONVERSIONS:
        body = body.func.value
    if not (isinstance(body, cst.Call) and is_variable(body.func, imports) and len(body.args) == 2):
        return False
    star, double_star = body.args
    return _is_name(star, "*", args) and _is_name(double_star, "**", kwargs)


def _is_name(arg: cst.Arg, star: str, name: str) -> bool:
    return arg.star == star and isinstance(arg.value, cst.Name) and arg.value.value == name


def _bound_names(node: cst.CSTNode) -> Iterator[str]:
    """The names `node` binds in its scope (any scope: the question is whether a name has one
    binding in the whole file)."""
    if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
        yield from target_names(node.target)
    elif isinstance(node, (cst.For, cst.CompFor)):
        yield from target_names(node.target)
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param)):
        yield node.name.value
    elif isinstance(node, cst.NamedExpr):
        yield from target_names(node.target)
    elif isinstance(node, (cst.AsName)):
        yield from target_names(node.name)
    elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            if alias.asname is None:
                yield (get_full_name_for_node(alias.name) or "").split(".")[0]
    elif isinstance(node, (cst.Global, cst.Nonlocal)):
        yield from (item.name.value for item in node.names)
