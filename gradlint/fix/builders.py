"""Fix builders shared by several rules (each rule stays one small file)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState

from gradlint.analysis.imports import import_anchor, imported_in_enclosing_function, module_level_alias
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants, iter_children
from gradlint.fix.plan import Change, InsertLineBefore, RemoveLine, Replace, ReplaceLines

if TYPE_CHECKING:
    from gradlint.context import FileContext


def torch_alias(context: FileContext, outer: Sequence[cst.CSTNode] = ()) -> Optional[tuple[str, list[Change]]]:
    """A top-level name for module `torch`, or the `torch` a function around the site (whose
    ancestors are `outer`) imports, adding `import torch` when there is neither."""
    alias = module_level_alias(context.module, context.imports, "torch")
    if alias is not None:
        return alias, []
    if imported_in_enclosing_function(outer, "torch"):
        return "torch", []
    anchor = import_anchor(context.module, near="torch")
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


def remove_line(
    context: FileContext, stack: Sequence[cst.CSTNode], also_removed: Callable[[cst.CSTNode], bool]
) -> Optional[tuple[Change, ...]]:
    """Remove the line of the statement at the end of `stack` (a trailing comment stays on its
    own line), or write `pass` where the block would be left empty; `also_removed(line)` tells
    the lines of the block other findings remove in the same round (the first of them writes
    `pass`). None when the statement shares its line or is not in a block."""
    found = enclosing_line(stack)
    if found is None:
        return None
    line, index = found
    block = stack[index - 1] if index > 0 else None
    if not isinstance(block, (cst.IndentedBlock, cst.Module)) or len(line.body) != 1:
        return None
    removed = [statement for statement in block.body if statement is line or also_removed(statement)]
    comment = line.trailing_whitespace.comment
    indent = indentation(context, stack[:index])
    newline = context.module.default_newline
    kept = f"  {comment.value}" if comment is not None else ""
    if len(removed) == len(block.body) and isinstance(block, cst.IndentedBlock) and removed[0] is line:
        guard = _idle_guard(context, stack[: index - 1])
        if guard is not None and comment is None:
            return (ReplaceLines(guard, line, ""),)
        return (ReplaceLines(line, line, f"{indent}pass{kept}{newline}"),)
    if comment is not None:
        return (ReplaceLines(line, line, f"{indent}{comment.value}{newline}"),)
    return (RemoveLine(line),)


def _idle_guard(context: FileContext, stack: Sequence[cst.CSTNode]) -> Optional[cst.If]:
    """The `if` at the end of `stack` when emptying its body leaves nothing it does: no `else`, a
    test without effects (`isinstance(name, torch.Tensor)`, a name), and a block that keeps other
    statements. `if isinstance(y, torch.Tensor): pass` is what no person writes."""
    if len(stack) < 2 or not isinstance(stack[-1], cst.If) or stack[-1].orelse is not None:
        return None
    guard, block = stack[-1], stack[-2]
    if not isinstance(block, (cst.IndentedBlock, cst.Module)) or len(block.body) < 2 or guard.leading_lines and _has_comment(guard):
        return None
    return guard if _without_effects(guard.test, context) else None


def _has_comment(statement: cst.If) -> bool:
    return any(line.comment is not None for line in statement.leading_lines)


def _without_effects(test: cst.BaseExpression, context: FileContext) -> bool:
    if isinstance(test, cst.Name):
        return True
    if not (isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value == "isinstance"):
        return False
    if "isinstance" in context.imports.bindings or len(test.args) != 2 or any(arg.keyword or arg.star for arg in test.args):
        return False
    subject, classes = (arg.value for arg in test.args)
    kinds = [element.value for element in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
    return isinstance(subject, cst.Name) and all(dotted_name(kind) is not None for kind in kinds)


def wrap_in_no_grad(
    context: FileContext,
    lines: Sequence[cst.BaseStatement],
    outer: Sequence[cst.CSTNode],
    render: Callable[[cst.BaseStatement], cst.BaseStatement],
) -> Optional[list[Change]]:
    """Changes that put consecutive statements `lines` (siblings in an indented block or the
    module; simple or compound) under one `with torch.no_grad():`, each rewritten by `render`.
    `outer` is the ancestors of the lines. Comments and blank lines inside them move with them."""
    if not outer or not isinstance(outer[-1], cst.IndentedBlock) and not isinstance(outer[-1], cst.Module):
        return None
    indent = indentation(context, outer)
    inner = indent + context.module.default_indent
    if not consistent_indentation(inner, lines):
        return None
    found = torch_alias(context, outer)
    if found is None:
        return None
    alias, changes = found
    text = [f"{indent}with {alias}.no_grad():{context.module.default_newline}"]
    for position, line in enumerate(lines):
        rewritten = render(line).visit(_BLANK_LINES)
        if position == 0:
            rewritten = rewritten.with_changes(leading_lines=())  # comments above stay above the `with`
        text.append(render_at(context, rewritten, inner))
    changes.append(ReplaceLines(lines[0], lines[-1], "".join(text)))
    return changes


def decorate_with_no_grad(context: FileContext, function: cst.FunctionDef) -> Optional[list[Change]]:
    """Changes that make `function` run with autograd off: `@torch.no_grad()` right above its
    `def` (under any other decorator, so it wraps the function itself)."""
    found = torch_alias(context)
    if found is None:
        return None
    alias, changes = found
    changes.append(InsertLineBefore(function, f"@{alias}.no_grad()"))
    return changes


def consistent_indentation(indent: str, statements: Sequence[cst.CSTNode]) -> bool:
    """Re-indenting `statements` at `indent` keeps tabs and spaces unmixed (Python rejects
    indentation whose meaning depends on the tab size)."""
    used = set(indent)
    for statement in statements:
        for node in descendants(statement):
            if isinstance(node, cst.IndentedBlock) and node.indent is not None:
                used |= set(node.indent)
    return not {" ", "\t"} <= used


def call_without_argument(call: cst.Call, dropped: cst.Arg) -> cst.Call:
    """`call` without the argument `dropped`, commas and line breaks kept tidy."""
    args = list(call.args)
    position = next(index for index, arg in enumerate(args) if arg is dropped)
    del args[position]
    if position == len(args) and args:
        kept = args[-1].comma
        if _comment_after(kept):
            # The comment stays, after the predecessor's own comma, and `)` keeps its line.
            if isinstance(dropped.comma, cst.Comma) and isinstance(dropped.comma.whitespace_after, cst.ParenthesizedWhitespace):
                closing = dropped.comma.whitespace_after
                whitespace = kept.whitespace_after.with_changes(indent=closing.indent, last_line=closing.last_line)
                args[-1] = args[-1].with_changes(comma=kept.with_changes(whitespace_after=whitespace))
        else:  # the predecessor takes the dropped argument's comma (or none)
            args[-1] = args[-1].with_changes(comma=dropped.comma)
    return call.with_changes(args=args)


def rewrite_within(
    context: FileContext,
    root: cst.CSTNode,
    ancestors: Sequence[cst.CSTNode],
    rewrite: Callable[[cst.CSTNode], Optional[cst.CSTNode]],
) -> list[Change]:
    """A `Replace` for every node under `root` (whose ancestors are `ancestors`) that `rewrite`
    rewrites, rendered at the indentation of its statement so that its continuation lines stay
    where they were."""
    changes: list[Change] = []
    pending = [(root, indentation(context, ancestors))]
    while pending:
        node, indent = pending.pop()
        replacement = rewrite(node)
        if replacement is not None:
            changes.append(Replace(node, render_at(context, replacement, indent)))
            continue
        if isinstance(node, cst.IndentedBlock):
            indent += node.indent if node.indent is not None else context.module.default_indent
        pending.extend((child, indent) for child in iter_children(node))
    return changes


def _comment_after(comma: object) -> bool:
    """A comment follows the comma (on its line or on lines of its own)."""
    if not (isinstance(comma, cst.Comma) and isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)):
        return False
    whitespace = comma.whitespace_after
    return whitespace.first_line.comment is not None or any(line.comment is not None for line in whitespace.empty_lines)


def render_at(context: FileContext, statement: cst.CSTNode, indent: str) -> str:
    """Source of a statement as it reads at `indent` (continuation lines re-indented too)."""
    state = CodegenState(default_indent=context.module.default_indent, default_newline=context.module.default_newline)
    state.increase_indent(indent)
    statement._codegen(state)
    return "".join(state.tokens)


class _BlankLinesStayEmpty(cst.CSTTransformer):
    """Blank lines moved into a deeper block are written empty, not as indentation alone (a form
    feed alone on its line stays alone)."""

    def leave_EmptyLine(self, original: cst.EmptyLine, updated: cst.EmptyLine) -> cst.EmptyLine:
        if updated.comment is None and updated.indent and not updated.whitespace.value.strip(" \t\f"):
            return updated.with_changes(indent=False)
        return updated


_BLANK_LINES = _BlankLinesStayEmpty()


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


def with_keywords(call: cst.Call, keywords: Sequence[tuple[str, cst.BaseExpression]]) -> cst.Call:
    """`call` with `name=value` arguments appended after its own, laid out like them: one a line
    when the call has a trailing comma, the trailing comma staying last."""
    args = list(call.args)
    separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    trailing = args[-1].comma if args else cst.MaybeSentinel.DEFAULT
    if isinstance(trailing, cst.Comma) and len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
        separator = args[-2].comma
    if args:
        args[-1] = args[-1].with_changes(comma=separator)
    no_space = cst.SimpleWhitespace("")
    for name, value in keywords:
        equal = cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space)
        args.append(cst.Arg(value=value, keyword=cst.Name(name), equal=equal, comma=separator))
    args[-1] = args[-1].with_changes(comma=trailing)
    return call.with_changes(args=args)
