from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.legacy import VARIABLE, is_variable
from gradlint.analysis.legacy_types import TypeComparison, type_comparison
from gradlint.analysis.semantic.scope import is_binding_position, is_write_target
from gradlint.analysis.syntax import is_docstring, suite_statements
from gradlint.fix.builders import as_condition, torch_alias
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = "`{test}` is always {value} since PyTorch 0.4 (no object has type `Variable`); use `{fixed}`"
_RAISES_ANYWAY = (
    "; the other branch iterates `{subject}` and recurses on each element, so it raises "
    '"iteration over a 0-d tensor" for every tensor reaching it'
)
_SEQUENCE_BUILDERS = ("tuple", "list")


class VariableTypeComparison(Rule):
    """
    ## What it does
    Flags `type(x) == Variable`, `type(x) is Variable`, `x.__class__ == Variable` and their
    negations (`!=`, `is not`), on either side of the operator, where `Variable` is
    `torch.autograd.Variable` under any import form.

    ## Why is this bad?
    Since PyTorch 0.4 `Variable(t)` returns a plain `torch.Tensor`: no object ever has the type
    `Variable`, so in torch 2.13 `type(x) == Variable` is False for every tensor and Parameter (and
    `!=` is True). Code written for 0.3 silently takes the other branch. The widely copied
    `repackage_hidden` (`if type(h) == Variable: return Variable(h.data)` else recurse into the
    tuple) now recurses into the hidden-state tensor itself, row by row down to its 0-dim elements,
    and raises `TypeError: iteration over a 0-d tensor` for every non-empty hidden state, a tensor
    or a tuple of tensors alike (an empty tensor silently becomes `()`).

    ## Example
    ```python
    from torch.autograd import Variable

    def repackage_hidden(h):
        if type(h) == Variable:
            return Variable(h.data)
        return tuple(repackage_hidden(v) for v in h)
    ```

    ## Use instead
    ```python
    import torch

    def repackage_hidden(h):
        if isinstance(h, torch.Tensor):
            return h.detach()
        return tuple(repackage_hidden(v) for v in h)
    ```

    ## Fix safety
    Safe in `repackage_hidden` and its copies, where the original raises for every tensor that
    reaches the test: the test is the first statement of a plain one-parameter function, and the
    branch taken when it is False is `return tuple(f(v) for v in h)` (or `list(...)`, `[...]`)
    over that parameter, recursing with the function itself on each element (the file's only
    binding of its name) and nothing else: it descends through the tensor's rows to a 0-d element
    and raises `TypeError: iteration over a 0-d tensor`. The rewrite gives what 0.3 computed
    there. The one input that does not raise is a tensor with a zero-size dimension, which becomes
    nested empty tuples (`()` for shape (0, 2), `((), ())` for (2, 0)) where a tensor was meant, and
    raises where it is used as one (`AttributeError: 'tuple' object has no attribute 'dim'` in an
    LSTM); after the fix it is returned as the tensor it was in 0.3.

    Elsewhere unsafe: the rewrite changes what torch 2.13 executes (the legacy test is constant, the rewrite
    is True for tensors), to what the code meant in PyTorch 0.3, where a `Variable` was the
    autograd-carrying wrapper that now is every tensor. `isinstance` also accepts subclasses
    (`nn.Parameter`), which `type(x) == Variable` did not in 0.3; in 0.3 a Parameter was a
    `Variable` subclass and such code usually meant it too. `!=` / `is not` become
    `not isinstance(x, torch.Tensor)`. `import torch` is added when the module lacks it; no fix when
    the name `torch` or `isinstance` is taken otherwise.

    ## Known limits
    `type(x) in (Variable, ...)` and chained comparisons are not reported. A name `Variable` that
    is not `torch.autograd.Variable` (`tf.Variable`, a class of the project) is left alone.
    """

    code = "GL105"
    name = "variable-type-comparison"
    summary = "`type(x) == Variable` (always False)"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("Variable",)
    cleanup_imports = (VARIABLE,)

    VALID = (
        """
        import tensorflow as tf
        ok = type(v) == tf.Variable
        """,
        """
        class MyVariable:
            pass
        ok = type(v) == MyVariable
        """,
        """
        from torch.autograd import Variable
        ok = type(v) in (Variable, list)
        """,
        """
        from torch.autograd import Variable
        type = lambda v: v
        ok = type(v) == Variable
        """,
        """
        import torch
        ok = isinstance(v, torch.Tensor)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            ok = type(h) == Variable
            """,
            """
            import torch
            ok = isinstance(h, torch.Tensor)
            """,
            line=3,
            column=6,
            message="`type(h) == Variable` is always False since PyTorch 0.4",
            fix_title="Replace with `isinstance(h, torch.Tensor)`",
        ),
        Invalid(
            """
            from torch.autograd import Variable
            if h.__class__ is not Variable:
                h = tuple(h)
            """,
            """
            import torch
            if not isinstance(h, torch.Tensor):
                h = tuple(h)
            """,
            message="`h.__class__ is not Variable` is always True since PyTorch 0.4",
        ),
        Invalid(
            """
            import torch as th
            ok = th.autograd.Variable == type(h) and ready
            """,
            """
            import torch as th
            ok = isinstance(h, th.Tensor) and ready
            """,
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            ok = [v for v in h if (type(v) != Variable) == flag]
            """,
            """
            import torch
            ok = [v for v in h if (not isinstance(v, torch.Tensor)) == flag]
            """,
        ),
        # `repackage_hidden`: the original raises for every tensor reaching the test (safe fix).
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def repackage_hidden(h):
                \"\"\"Wraps hidden states in new Variables.\"\"\"
                if type(h) == Variable:
                    return Variable(h.data)
                else:
                    return tuple(repackage_hidden(v) for v in h)
            """,
            """
            import torch
            from torch.autograd import Variable

            def repackage_hidden(h):
                \"\"\"Wraps hidden states in new Variables.\"\"\"
                if isinstance(h, torch.Tensor):
                    return Variable(h.data)
                else:
                    return tuple(repackage_hidden(v) for v in h)
            """,
            line=6,
            message='raises "iteration over a 0-d tensor" for every tensor reaching it',
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def detach(h):
                if type(h) != Variable:
                    return [detach(v) for v in h]
                return Variable(h.data)
            """,
            """
            import torch
            from torch.autograd import Variable

            def detach(h):
                if not isinstance(h, torch.Tensor):
                    return [detach(v) for v in h]
                return Variable(h.data)
            """,
            message="the other branch iterates `h`",
        ),
        # `isinstance` is bound to something else in this file: no fix.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            from checks import isinstance
            ok = type(h) is Variable
            """,
            fixed=None,
            line=4,
            column=6,
        ),
    )

    def visit_Comparison(self, node: cst.Comparison) -> None:
        comparison = type_comparison(node, self.context.imports)
        if comparison is None or not is_variable(comparison.cls, self.context.imports):
            return
        fix = fixed = None
        raises_anyway = self._raises_for_every_tensor(node, comparison)
        replacement = self._replacement(comparison.subject, comparison.negated)
        if replacement is not None:
            tensor_test, changes = replacement
            fixed = as_condition(tensor_test, node, self.context.parent())
            changes.append(Replace(node, fixed))
            make_fix = self.safe_fix if raises_anyway else self.unsafe_fix
            fix = make_fix(f"Replace with `{snippet(self.context.code_for(fixed), 60)}`", *changes)
        test = snippet(self.context.code_for(node), 60)
        value = "True" if comparison.negated else "False"
        suggestion = snippet(self.context.code_for(fixed), 60) if fixed is not None else "isinstance(x, torch.Tensor)"
        message = _MESSAGE.format(test=test, value=value, fixed=suggestion)
        if raises_anyway:
            message += _RAISES_ANYWAY.format(subject=self.context.code_for(comparison.subject))
        self.report(node, message, fix)

    def _raises_for_every_tensor(self, node: cst.Comparison, comparison: TypeComparison) -> bool:
        """The `repackage_hidden` shape: the test opens a one-parameter function on that parameter,
        and its False branch iterates the parameter, recursing with the function on each element."""
        statement, function = self.context.parent(), self.context.enclosing_function()
        if type(statement) is not cst.If or statement.test is not node or function is None:
            return False
        parameter = _sole_parameter(function)
        if parameter is None or function.decorators or _first_statement(function) is not statement:
            return False
        if not (type(comparison.subject) is cst.Name and comparison.subject.value == parameter):
            return False
        iteration = _false_branch_return(statement, function, comparison.negated)
        return iteration is not None and self._recurses_on_each_element(iteration, function, parameter)

    def _recurses_on_each_element(self, iteration: cst.BaseExpression, function: cst.FunctionDef, parameter: str) -> bool:
        """`tuple(f(v) for v in h)`, `list(...)` or `[f(v) for v in h]` where `f` is `function`."""
        if type(iteration) is cst.Call:
            builder = iteration.func
            if not (
                type(builder) is cst.Name and builder.value in _SEQUENCE_BUILDERS and builder.value not in self.context.imports.bindings
            ):
                return False
            if len(iteration.args) != 1 or iteration.args[0].keyword is not None or iteration.args[0].star:
                return False
            iteration = iteration.args[0].value
        if type(iteration) not in (cst.GeneratorExp, cst.ListComp):
            return False
        loop = iteration.for_in
        element, call = loop.target, iteration.elt
        if loop.inner_for_in is not None or loop.ifs or loop.asynchronous is not None or type(element) is not cst.Name:
            return False
        if not (type(loop.iter) is cst.Name and loop.iter.value == parameter and type(call) is cst.Call):
            return False
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return False
        argument = call.args[0].value
        if not (type(argument) is cst.Name and argument.value == element.value):
            return False
        return type(call.func) is cst.Name and call.func.value == function.name.value and self._names_only(function)

    def _names_only(self, function: cst.FunctionDef) -> bool:
        """`function`'s name means `function` wherever it is read: a module-level `def`, the file's
        only `def` of that name, and nothing else binds it (an import, an assignment, a loop)."""
        name, table = function.name.value, self.context.function_table
        if table.module_level.get(name) is not function or sum(other.name.value == name for other in table.all) != 1:
            return False
        if any(imported.local == name for imported in self.context.imports.imports):
            return False
        uses = self.context.scope_uses.of(self.context.module)
        return not any(
            is_write_target(uses, occurrence) or is_binding_position(uses, occurrence) or type(uses.parent(occurrence)) is cst.AsName
            for occurrence in uses.occurrences(name)
        )

    def _replacement(self, subject: cst.BaseExpression, negated: bool):
        if "isinstance" in self.context.imports.bindings:
            return None
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        call = cst.Call(
            func=cst.Name("isinstance"),
            args=[
                cst.Arg(subject, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                cst.Arg(cst.Attribute(value=cst.Name(alias), attr=cst.Name("Tensor"))),
            ],
        )
        test = cst.UnaryOperation(operator=cst.Not(), expression=call) if negated else call
        return test, changes


def _sole_parameter(function: cst.FunctionDef) -> Optional[str]:
    params = function.params
    if params.posonly_params or params.kwonly_params or params.star_kwarg is not None or isinstance(params.star_arg, cst.Param):
        return None
    if len(params.params) != 1 or params.params[0].default is not None:
        return None
    return params.params[0].name.value


def _first_statement(function: cst.FunctionDef) -> Optional[cst.CSTNode]:
    body = list(suite_statements(function.body))
    if body and is_docstring(body[0]):
        body = body[1:]
    return body[0] if body else None


def _false_branch_return(statement: cst.If, function: cst.FunctionDef, negated: bool) -> Optional[cst.BaseExpression]:
    """The value returned by the branch the always-False `type(h) == Variable` takes (the body of
    `!=`), when that branch is one `return`: the `else`, or the statement after an `if` whose body
    returns."""
    if negated:
        return _returned(suite_statements(statement.body))
    if statement.orelse is not None:
        return _returned(suite_statements(statement.orelse.body)) if type(statement.orelse) is cst.Else else None
    body, rest = suite_statements(statement.body), list(suite_statements(function.body))
    if not body or not _ends_in_return(body[-1]):
        return None
    following = rest[rest.index(statement) + 1 :]
    return _returned(following[:1])


def _ends_in_return(statement: cst.CSTNode) -> bool:
    return type(statement) is cst.SimpleStatementLine and type(statement.body[-1]) in (cst.Return, cst.Raise)


def _returned(statements: Sequence[cst.CSTNode]) -> Optional[cst.BaseExpression]:
    """The value of `return value` when `statements` is that one statement alone."""
    if len(statements) != 1 or type(statements[0]) is not cst.SimpleStatementLine or len(statements[0].body) != 1:
        return None
    line = statements[0].body[0]
    return line.value if type(line) is cst.Return else None
