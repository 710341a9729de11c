"""Fix builders shared by several rules (each rule stays one small file)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState

from gradlint.analysis.imports import import_anchor, module_level_alias
from gradlint.fix.plan import Change, InsertLineBefore, ReplaceLines

if TYPE_CHECKING:
    from gradlint.context import FileContext


def torch_alias(context: FileContext) -> Optional[tuple[str, list[Change]]]:
    """A top-level name for module `torch`, adding `import torch` when there is none."""
    alias = module_level_alias(context.module, context.imports, "torch")
    if alias is not None:
        return alias, []
    anchor = import_anchor(context.module)
    if anchor is None or "torch" in context.imports.bindings:
        return None
    return "torch", [InsertLineBefore(anchor, "import torch")]


def indentation(context: FileContext, stack: Sequence[cst.CSTNode]) -> str:
    """The indentation of a statement whose ancestors are `stack`, from the tree (no positions)."""
    unit = context.module.default_indent
    # A `match` indents its `case` clauses itself (they are not in an IndentedBlock).
    return "".join(node.indent if node.indent is not None else unit for node in stack if isinstance(node, (cst.IndentedBlock, cst.Match)))


def enclosing_line(stack: Sequence[cst.CSTNode]) -> Optional[tuple[cst.SimpleStatementLine, int]]:
    """The SimpleStatementLine around the current node and its index in `stack`."""
    for index in range(len(stack) - 1, -1, -1):
        if isinstance(stack[index], cst.SimpleStatementLine):
            return stack[index], index
    return None


def wrap_in_no_grad(
    context: FileContext,
    lines: Sequence[cst.SimpleStatementLine],
    outer: Sequence[cst.CSTNode],
    render: Callable[[cst.SimpleStatementLine], cst.SimpleStatementLine],
) -> Optional[list[Change]]:
    """Changes that put consecutive statement `lines` (siblings in an indented block) under one
    `with torch.no_grad():`, each rewritten by `render`. `outer` is the ancestors of the lines."""
    if not outer or not isinstance(outer[-1], cst.IndentedBlock) and not isinstance(outer[-1], cst.Module):
        return None
    found = torch_alias(context)
    if found is None:
        return None
    alias, changes = found
    indent = indentation(context, outer)
    inner = indent + context.module.default_indent
    text = [f"{indent}with {alias}.no_grad():{context.module.default_newline}"]
    for position, line in enumerate(lines):
        rewritten = render(line)
        if position == 0:
            rewritten = rewritten.with_changes(leading_lines=())  # comments above stay above the `with`
        text.append(render_at(context, rewritten, inner))
    changes.append(ReplaceLines(lines[0], lines[-1], "".join(text)))
    return changes


def render_at(context: FileContext, statement: cst.CSTNode, indent: str) -> str:
    """Source of a statement as it reads at `indent` (continuation lines re-indented too)."""
    state = CodegenState(default_indent=context.module.default_indent, default_newline=context.module.default_newline)
    state.increase_indent(indent)
    statement._codegen(state)
    return "".join(state.tokens)


class StripData(cst.CSTTransformer):
    """Drop `.data` from the given Attribute nodes (`p.data` -> `p`, `p.grad.data` -> `p.grad`)."""

    def __init__(self, targets: set[int]) -> None:
        super().__init__()
        self.targets = targets

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if id(original) in self.targets:
            value = updated.value
            if original.lpar:
                value = value.with_changes(lpar=original.lpar, rpar=original.rpar)
            return value
        return updated


def consecutive_runs(body: Sequence[cst.CSTNode], matches: Callable[[cst.CSTNode], bool]) -> list[list[cst.CSTNode]]:
    """Maximal runs of consecutive statements of `body` that match."""
    runs: list[list[cst.CSTNode]] = []
    current: list[cst.CSTNode] = []
    for statement in body:
        if matches(statement):
            current.append(statement)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    return runs


# Where a `not ...` or `a and b` expression can stand without parentheses of its own.
_LOOSE_CONTEXTS = (
    cst.If,
    cst.While,
    cst.Assert,
    cst.Return,
    cst.Expr,
    cst.Assign,
    cst.AnnAssign,
    cst.AugAssign,
    cst.Arg,
    cst.Element,
    cst.IfExp,
    cst.Lambda,
    cst.CompIf,
    cst.GeneratorExp,  # as the element: the `for` clauses have parents of their own
    cst.ListComp,
    cst.SetComp,
)


def as_condition(replacement: cst.BaseExpression, replaced: cst.BaseExpression, parent: Optional[cst.CSTNode]) -> cst.BaseExpression:
    """`replacement` (a boolean test taking the place of `replaced`, whose own parentheses stay)
    parenthesized unless the place binds more loosely than `not` and `and`."""
    if not isinstance(replacement, (cst.UnaryOperation, cst.BooleanOperation)) or replacement.lpar or replaced.lpar:
        return replacement
    if isinstance(parent, _LOOSE_CONTEXTS):
        return replacement
    if isinstance(parent, cst.BooleanOperation) and (
        isinstance(replacement, cst.UnaryOperation) or isinstance(replacement.operator, cst.And) or isinstance(parent.operator, cst.Or)
    ):
        return replacement
    return replacement.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
