from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.legacy_types import LegacyTensorType, legacy_tensor_type, type_comparison, type_string_comparison
from gradlint.analysis.syntax import parenthesized
from gradlint.fix.builders import as_condition, torch_alias
from gradlint.fix.plan import Applicability, Availability, Change, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_ISINSTANCE = "`{test}` tests a legacy tensor type class (False for other devices and layouts); use `{fixed}`"
_TYPE = "`{test}` is always {value} since PyTorch 0.4 (the type of a tensor is `torch.Tensor`); use `{fixed}`"
_TYPE_STRING = "`{test}` compares a legacy type name; use `{fixed}`"


class LegacyTensorTypeCheck(Rule):
    """
    ## What it does
    Flags type tests against the legacy tensor type classes (`torch.FloatTensor`,
    `torch.cuda.FloatTensor`, `torch.LongTensor`, ... for the ten dtypes on CPU and CUDA):
    `isinstance(x.data, torch.cuda.FloatTensor)` (also in a tuple of classes),
    `type(x.data) == torch.FloatTensor` (and `is`, `!=`, `is not`, `x.__class__`), and
    `x.type() == "torch.cuda.FloatTensor"`.

    ## Why is this bad?
    In PyTorch 0.3 these classes were the tensor types; since 0.4 every tensor is a
    `torch.Tensor` and the classes only survive as legacy names. Measured in torch 2.13:
    `type(x) == torch.FloatTensor` is **always False** (also for a float32 CPU tensor, a
    Parameter and `x.data`), so the branch written for 0.3 never runs.
    `isinstance(x, torch.FloatTensor)` still answers through a metaclass hook: True exactly for a
    float32 tensor whose dispatch key is plain CPU; False for float64, int64, float16, meta, sparse
    COO and CSR, nested, `torch._neg_view` and efficient-zero tensors, even when they are float32
    on the CPU. `x.type()` returns a string that spells layout and device
    (`"torch.sparse.FloatTensor"`, `"torch.meta.FloatTensor"`) and raises `RuntimeError` for sparse
    CSR and MKL-DNN tensors. The readable modern form asks for the device and the dtype directly.

    ## Example
    ```python
    import torch

    if isinstance(x.data, torch.cuda.FloatTensor):
        x = x.half()
    if type(y) == torch.LongTensor:
        y = y.float()
    ```

    ## Use instead
    ```python
    import torch

    if x.is_cuda and x.dtype == torch.float32:
        x = x.half()
    if y.device.type == "cpu" and y.dtype == torch.int64:
        y = y.float()
    ```

    ## Fix safety
    Unsafe. A CUDA class becomes `x.is_cuda` and a CPU class `x.device.type == "cpu"`, each with
    `x.dtype == torch.<dtype>` (the device test is dropped when the classes name both devices for
    the same dtypes); `.data` is dropped from the tested value (it has the same device and dtype).
    This equals the `isinstance` form on every dense strided tensor, measured over ten dtypes,
    CPU and meta devices, Parameters, non-leaf and 0-dim tensors, but it differs on sparse,
    nested, negative-view and efficient-zero float32 CPU tensors (the rewrite says True), and it
    raises `AttributeError` where `isinstance` was False for a value that is not a tensor. For
    `type(x) == ...` the rewrite is the meaning of the 0.3 code, not what torch 2.13 executes
    (always False). `import torch` is added when needed; no fix when the tested value is not a
    plain name or attribute (it would be evaluated twice), when a tuple mixes legacy classes with
    other classes, or when the classes name different dtypes per device.

    ## Known limits
    Only the legacy classes of `torch` and `torch.cuda` are recognised, under any import form;
    `torch.Tensor`, `np.ndarray`, `tf.Tensor` are not legacy and are left alone, as is
    `type(x) in (...)`. `x.type(torch.FloatTensor)` (a conversion, exact as `x.to(torch.float32)`
    on the CPU) is not reported.
    """

    code = "GL106"
    name = "legacy-tensor-type-check"
    summary = "`isinstance(x, torch.cuda.FloatTensor)` / `type(x) == torch.FloatTensor`"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("Tensor",)

    VALID = (
        """
        import numpy as np
        ok = isinstance(x, np.ndarray)
        """,
        """
        import torch
        ok = isinstance(x, torch.Tensor) and type(x) is torch.Tensor
        """,
        """
        import tensorflow as tf
        ok = isinstance(x, tf.Tensor)
        """,
        """
        import torch
        y = x.type(torch.FloatTensor)
        """,
        """
        from mylib import FloatTensor
        ok = isinstance(x, FloatTensor)
        """,
        """
        import torch
        ok = x.type() == "float"
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            ok = isinstance(x.data, torch.cuda.FloatTensor)
            """,
            """
            import torch
            ok = x.is_cuda and x.dtype == torch.float32
            """,
            line=2,
            column=6,
            message="tests a legacy tensor type class",
            fix_title="Replace with `x.is_cuda and x.dtype == torch.float32`",
        ),
        Invalid(
            """
            import torch
            if not isinstance(x, torch.LongTensor):
                x = x.long()
            """,
            """
            import torch
            if not (x.device.type == "cpu" and x.dtype == torch.int64):
                x = x.long()
            """,
        ),
        Invalid(
            """
            from torch import FloatTensor, DoubleTensor
            from torch.cuda import FloatTensor as CudaFloat, DoubleTensor as CudaDouble
            ok = isinstance(w, (FloatTensor, DoubleTensor, CudaFloat, CudaDouble))
            """,
            """
            import torch
            from torch import FloatTensor, DoubleTensor
            from torch.cuda import FloatTensor as CudaFloat, DoubleTensor as CudaDouble
            ok = w.dtype in (torch.float32, torch.float64)
            """,
        ),
        Invalid(
            """
            import torch
            if not isinstance(x, (torch.cuda.HalfTensor, torch.HalfTensor)) or cast:
                x = x.half()
            """,
            """
            import torch
            if x.dtype != torch.float16 or cast:
                x = x.half()
            """,
        ),
        Invalid(
            """
            import torch
            ok = type(self.weight.data) == torch.cuda.FloatTensor
            """,
            """
            import torch
            ok = self.weight.is_cuda and self.weight.dtype == torch.float32
            """,
            message="is always False since PyTorch 0.4",
        ),
        Invalid(
            """
            import torch
            if x.__class__ is not torch.ByteTensor:
                x = x.byte()
            """,
            """
            import torch
            if not (x.device.type == "cpu" and x.dtype == torch.uint8):
                x = x.byte()
            """,
            message="is always True since PyTorch 0.4",
        ),
        Invalid(
            """
            import torch
            use_gpu = x.data.type() == 'torch.cuda.FloatTensor'
            """,
            """
            import torch
            use_gpu = x.is_cuda and x.dtype == torch.float32
            """,
            message="compares a legacy type name",
        ),
        Invalid(
            """
            import torch
            ok = isinstance(model(x), torch.cuda.FloatTensor)
            """,
            fixed=None,
            line=2,
            column=6,
        ),
        Invalid(
            """
            import numpy as np
            import torch
            ok = isinstance(x, (torch.FloatTensor, np.ndarray))
            """,
            fixed=None,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Name) and node.func.value == "isinstance"):
            return
        if "isinstance" in self.context.imports.bindings or len(node.args) != 2 or any(arg.keyword or arg.star for arg in node.args):
            return
        classes = node.args[1].value
        elements = [element.value for element in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        legacy = [legacy_tensor_type(self.context.qualified_name(element)) for element in elements]
        if not any(legacy):
            return
        complete = None if None in legacy else legacy
        self._report(node, _ISINSTANCE, node.args[0].value, complete, negated=False)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        comparison = type_comparison(node, self.context.imports)
        if comparison is not None:
            legacy = legacy_tensor_type(self.context.qualified_name(comparison.cls))
            if legacy is not None:
                self._report(node, _TYPE, comparison.subject, [legacy], comparison.negated)
            return
        string = type_string_comparison(node)
        if string is not None:
            self._report(node, _TYPE_STRING, string.subject, [string.legacy], string.negated)

    def _report(
        self,
        node: cst.BaseExpression,
        message: str,
        subject: cst.BaseExpression,
        legacy: Optional[Sequence[LegacyTensorType]],
        negated: bool,
    ) -> None:
        fix = fixed_text = None
        # `not isinstance(...)` is rewritten as a whole: `x.dtype != ...` rather than `not x.dtype == ...`
        target, parent = node, self.context.parent()
        if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not) and not node.lpar:
            target, parent, negated = parent, self.context.parent(2), not negated
        if legacy is not None:
            built = self._condition(_without_data(subject), legacy, negated)
            if built is not None:
                condition, changes = built
                fixed = as_condition(condition, target, parent)
                fixed_text = self.context.code_for(fixed)
                fix = self.unsafe_fix(f"Replace with `{snippet(fixed_text, 80)}`", *changes, Replace(target, fixed))
        test = snippet(self.context.code_for(target), 70)
        value = "True" if negated else "False"
        suggestion = snippet(fixed_text, 80) if fixed_text else "x.is_cuda / x.dtype == torch.float32"
        self.report(node, message.format(test=test, value=value, fixed=suggestion), fix)

    def _condition(
        self, subject: cst.BaseExpression, legacy: Sequence[LegacyTensorType], negated: bool
    ) -> Optional[tuple[cst.BaseExpression, list[Change]]]:
        cpu = list(dict.fromkeys(t.dtype for t in legacy if not t.cuda))
        cuda = list(dict.fromkeys(t.dtype for t in legacy if t.cuda))
        if cpu and cuda and set(cpu) != set(cuda):
            return None
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        value = self.context.code_for(parenthesized(subject))
        dtypes = ", ".join(f"{alias}.{dtype}" for dtype in (cuda or cpu))
        terms = []  # (test, its negation)
        if not (cpu and cuda):
            terms.append(
                (f"{value}.is_cuda", f"not {value}.is_cuda") if cuda else (f'{value}.device.type == "cpu"', f'{value}.device.type != "cpu"')
            )
        if len(cuda or cpu) == 1:
            terms.append((f"{value}.dtype == {dtypes}", f"{value}.dtype != {dtypes}"))
        else:
            terms.append((f"{value}.dtype in ({dtypes})", f"{value}.dtype not in ({dtypes})"))
        if len(terms) > 1 and not _is_plain_reference(subject):
            return None  # the value would be evaluated twice
        if len(terms) == 1:
            text = terms[0][negated]
        else:
            text = " and ".join(test for test, _ in terms)
            text = f"not ({text})" if negated else text
        return cst.parse_expression(text), changes


def _without_data(node: cst.BaseExpression) -> cst.BaseExpression:
    """`x` for `x.data`: same device and dtype."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data" and not node.lpar:
        return node.value
    return node


def _is_plain_reference(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)
