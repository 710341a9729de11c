from __future__ import annotations

import re
from functools import cached_property
from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.autograd_functions import AUTOGRAD_FUNCTION
from gradlint.analysis.imports import import_anchor, module_level_alias
from gradlint.analysis.torch_api.removed import (
    BACKEND_FUNCTIONS,
    REMOVED_FFT_FUNCTIONS,
    REMOVED_FUNCTIONS,
    REMOVED_MODULE_ATTRIBUTES,
    REMOVED_MODULES,
    SIX_BINDINGS,
    BackendFunction,
    SIX_BUILTIN_VALUES,
    SIX_MATH_VALUES,
    SIX_MODULE,
    removed_module,
    six_binding,
)
from gradlint.analysis.syntax import dotted_name, keyword_arg, method_call_on, positional_args
from gradlint.analysis.version_fallbacks import in_compatibility_layer
from gradlint.fix.builders import enclosing_line, indentation, remove_line, torch_alias
from gradlint.fix.plan import Applicability, Availability, Change, FixPlan, InsertLineBefore, Replace, ReplaceLines
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl502_removed_api.byte_masks import is_byte_mask, is_byte_tensor

_TENSOR_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
_LEGACY_DATASET_KEYWORDS = ("data_tensor", "target_tensor")  # the 0.3 signature, in its order
_MASKED_METHODS = frozenset({"masked_fill", "masked_fill_", "masked_select", "masked_scatter", "masked_scatter_"})
_MASKED_FUNCTIONS = frozenset({"torch.masked_fill", "torch.masked_select", "torch.masked_scatter"})
# `torch.stft(input, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex)`
_STFT_RETURN_COMPLEX_POSITION = 9
# What the fixes write needs: `stft(..., return_complex=)` 1.7 (`view_as_real` 1.6), the bool dtype 1.2.
_RETURN_COMPLEX_SINCE = "1.7"
_BOOL_SINCE = "1.2"
_STATIC_DECORATORS = frozenset({"staticmethod"})
_FFT_MODULE = "torch.fft"
_FUNCTIONAL = "torch.nn.functional"
_BACKEND = "_backend"
# A class of the file giving its objects a `_backend` of their own: `x._backend.Y` may be that.
_OWN_BACKEND = re.compile(r"\._backend\s*(=[^=]|:)")


_RETAIN = "`retain_variables=` was renamed `retain_graph=` (removed in torch 0.4)"
_SAVED = "`{receiver}.saved_variables` was renamed `saved_tensors` (deprecated in torch 0.4)"
_SIX = "`torch._six` no longer exists (removed in torch 2.0): {advice}"
_DATASET = "`TensorDataset(data_tensor=..., target_tensor=...)` raises TypeError: the tensors are positional (removed in torch 0.4)"
_GONE = "`{name}` no longer exists (removed in torch {version}): use {replacement}"
_STFT = (
    "`stft` without `return_complex=` raises RuntimeError on real input (removed in torch 2.0): "
    "`return_complex=True` is the modern form; `torch.view_as_real(...)` of it keeps the old real layout"
)
_BYTE_MASK = "`{use}` with a uint8 mask {effect}; pass a bool mask (`.bool()`) (deprecated in torch 1.2)"


class RemovedApi(Rule):
    """
    ## What it does
    Flags PyTorch APIs removed since 0.3 that raise under torch 2.x: `backward(retain_variables=...)`
    (also `torch.autograd.backward`), `ctx.saved_variables` in a `torch.autograd.Function`,
    imports from `torch._six`, `TensorDataset(data_tensor=..., target_tensor=...)`, the removed
    linear algebra functions `torch.gesv` / `potrf` / `potrs` / `gels` / `trtrs` / `btrifact` /
    `btrisolve`, `torch.fft` / `ifft` / `rfft` / `irfft` called as functions, the `torch.legacy`,
    `torch.utils.trainer` and `torch.utils.ffi` packages and `torch.utils.serialization.load_lua`,
    `stft` without `return_complex=`, uint8 (byte) masks given to `masked_fill` /
    `masked_select` / `masked_scatter` or used as an index, and the THNN backend of 0.3 modules
    (`embed._backend.Embedding.apply(...)`).

    ## Why is this bad?
    Measured in torch 2.13: `retain_variables=` and `TensorDataset(data_tensor=...)` raise
    `TypeError`; `import torch._six`, `torch.legacy`, `torch.utils.trainer` and `torch.utils.ffi`
    raise `ModuleNotFoundError`, `load_lua` and the removed functions `ImportError` /
    `AttributeError` (`torch.fft(x, 1)` a `TypeError`: `torch.fft` is a module now); `stft` of a
    real signal without `return_complex=` raises `RuntimeError`; a uint8 mask makes
    `masked_fill` / `masked_select` / `masked_scatter` and `x[mask] = v` raise `RuntimeError`, and
    `x[mask]` warns. `ctx.saved_variables` still works but warns that it is deprecated.
    `m._backend` raises `AttributeError` (removed in torch 1.3): the awd-lstm-lm
    `embedded_dropout`, copied into many language models, calls
    `embed._backend.Embedding.apply(words, weight, padding_idx, ...)`.

    ## Example
    ```python
    import torch
    from torch._six import string_classes

    loss.backward(retain_variables=True)
    scores = scores.masked_fill((lengths == 0).byte(), -1e9)
    ```

    ## Use instead
    ```python
    import torch
    string_classes = (str, bytes)

    loss.backward(retain_graph=True)
    scores = scores.masked_fill((lengths == 0).bool(), -1e9)
    ```

    ## Fix safety
    Safe where the rewrite computes exactly what the legacy call meant and the legacy call raises
    under torch 2.13 (or only warns): `retain_variables=` becomes `retain_graph=`,
    `saved_variables` `saved_tensors` (the same tensors, without the warning), the
    `data_tensor=` / `target_tensor=` values become positional in that order, and a `torch._six`
    import becomes the standard-library binding torch 1.x made under Python 3
    (`string_classes = (str, bytes)`, `int_classes = int`, `from math import inf`,
    `import collections.abc as container_abcs`, ...), which keeps every use of the name as it was;
    `torch._six.X` spelled in full becomes its value, and `import torch._six` `import torch`.
    A uint8 mask gets `.bool()` (`(a > b).byte()` becomes `(a > b).bool()`): torch treats a
    uint8 index as the mask of its non-zero entries, which is what the bool mask selects.
    `stft` becomes `torch.view_as_real(stft(..., return_complex=True))`, bitwise the old layout for
    a real signal; the fix is unsafe because a complex signal does not raise today and would
    change layout. `m._backend.Embedding.apply(indices, weight, padding_idx, max_norm, norm_type,
    scale_grad_by_freq, sparse)` becomes `F.embedding(...)` with the same arguments, safe: the
    backend read a padding index of -1 as "no padding" (the 0.3 `nn.Embedding` passed -1 for None,
    and THNN compared each index with it), which `F.embedding` reads as the last row, whose
    gradient it would then zero. So -1 becomes None, and the 0.3 idiom `p = m.padding_idx;
    if p is None: p = -1` right before the call becomes `m.padding_idx`; the outputs and gradients
    are bitwise those of the 0.3 lookup. Any other padding argument, and the other backend
    functions, are reported without a fix. The removed linear algebra, FFT and packages have no exact replacement (argument
    order, defaults, normalisation or return types differ): the message names what to use.
    Newer torch needed (`target-torch`): `.bool()` 1.2, `stft(..., return_complex=True)` 1.7.

    ## Known limits
    A mask is known to be uint8 only from its own expression (`.byte()`, `.to(torch.uint8)`,
    `dtype=torch.uint8`, `torch.ByteTensor`) or from a local name every assignment of which is one;
    masks from parameters or attributes are not reported. `saved_variables` is reported on the
    context parameter of a static method of a `torch.autograd.Function` subclass (old-style
    Functions are GL107's). `x.stft(...)` is reported only when `x` is known to be a tensor, and the
    removed tensor methods (`x.rfft(1)`, `b.gesv(A)`) are not reported. Code under `try:` or under
    an `if` that tests the torch version or `hasattr` is a compatibility layer and is not reported.
    Names of `torch._six` without a standard-library equivalent (`with_metaclass`, `raise_from`,
    ...) are reported without a fix. `x._backend` is reported only as the receiver of an attribute
    (`x._backend.Embedding`), not on an imported module (`torch.distributed._backend`), and not in
    a file that assigns a `_backend` attribute of its own.
    """

    code = "GL502"
    name = "removed-api"
    summary = "`retain_variables=`, `saved_variables`, `torch._six`, `torch.gesv`, uint8 masks, `m._backend` and other removed APIs"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = (
        "retain_variables",
        "saved_variables",
        "_six",
        "data_tensor",
        "target_tensor",
        *(name.rsplit(".", 1)[1] for name in REMOVED_FUNCTIONS),
        "fft",
        "legacy",
        "trainer",
        "ffi",
        "load_lua",
        "stft",
        "byte",
        "uint8",
        "ByteTensor",
        _BACKEND,
    )

    VALID = (
        """
        import torch.distributed as dist
        half = dist._backend == dist.dist_backend.GLOO
        name = self._backend
        """,
        """
        class Lookup:
            def __init__(self, backend):
                self._backend = backend

            def find(self, words):
                return self._backend.Embedding.apply(words)
        """,
        """
        import torch
        loss.backward(retain_graph=True)
        string_classes = (str, bytes)
        spectrum = torch.view_as_real(torch.stft(x, 64, return_complex=True))
        """,
        """
        import numpy as np
        import scipy.linalg
        spectrum = np.fft.rfft(x) + np.fft.fft(x)
        solution = scipy.linalg.solve(a, b)
        """,
        """
        def gesv(b, a):
            return b
        x = gesv(b, a)
        """,
        """
        import torch
        from torch import fft
        y = torch.fft.rfft(x) + fft.irfft(x)
        z = torch.linalg.solve(a, b)
        """,
        # An old-style Function: GL107 migrates it whole, `saved_variables` included.
        """
        import torch

        class Double(torch.autograd.Function):
            def backward(self, grad):
                (x,) = self.saved_variables
                return grad * 2
        """,
        """
        import torch
        if hasattr(torch, "gesv"):
            x, _ = torch.gesv(b, a)
        else:
            x = torch.linalg.solve(a, b)
        """,
        # numpy reads a uint8 array as indices, not as a mask
        """
        import numpy as np
        import torch
        image = (torch.rand(4, 4) * 255).to(torch.uint8)
        colours = palette[image]
        """,
        """
        try:
            from torch._six import string_classes
        except ImportError:
            string_classes = str
        """,
        """
        import torch
        if torch.__version__ < "1.8":
            from torch._six import container_abcs
        """,
        """
        import torch
        mask = lengths > 0
        y = x.masked_fill(mask, 0.0) + x[mask].sum() + x.masked_fill(other, 0.0)
        """,
        """
        import torch

        class Double(torch.autograd.Function):
            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return grad * 2
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch

            def embedded_dropout(embed, words, weight):
                padding_idx = embed.padding_idx
                if padding_idx is None:
                    padding_idx = -1
                return embed._backend.Embedding.apply(words, weight,
                    padding_idx, embed.max_norm, embed.norm_type,
                    embed.scale_grad_by_freq, embed.sparse
                )
            """,
            """
            import torch

            def embedded_dropout(embed, words, weight):
                padding_idx = embed.padding_idx
                if padding_idx is None:
                    padding_idx = -1
                return torch.nn.functional.embedding(words, weight, embed.padding_idx, embed.max_norm, embed.norm_type, embed.scale_grad_by_freq, embed.sparse)
            """,
            line=7,
            column=12,
            message="`embed._backend` no longer exists (removed in torch 1.3): use the functions of `torch.nn.functional`",
            fix_title="Replace with `torch.nn.functional.embedding(words, weight, embed.paddin...`",
        ),
        Invalid(
            """
            import torch.nn.functional as F
            out = self._backend.Embedding.apply(words, self.weight, -1, None, 2, False)
            """,
            """
            import torch.nn.functional as F
            out = F.embedding(words, self.weight, None, None, 2, False)
            """,
        ),
        # a padding the backend got from elsewhere: -1 or an index, not known which
        Invalid(
            """
            out = embed._backend.Embedding.apply(words, weight, padding, None, 2, False, False)
            grad = self._backend.SpatialFullConvolution_updateOutput
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch
            loss.backward(retain_variables=True)
            torch.autograd.backward([loss], retain_variables=True)
            """,
            """
            import torch
            loss.backward(retain_graph=True)
            torch.autograd.backward([loss], retain_graph=True)
            """,
            line=2,
            column=15,
            message=_RETAIN,
            fix_title="Rename to `retain_graph=`",
        ),
        Invalid(
            """
            import torch

            class Scale(torch.autograd.Function):
                @staticmethod
                def backward(ctx, grad):
                    (x,) = ctx.saved_variables
                    return grad * x
            """,
            """
            import torch

            class Scale(torch.autograd.Function):
                @staticmethod
                def backward(ctx, grad):
                    (x,) = ctx.saved_tensors
                    return grad * x
            """,
            line=6,
            message="`ctx.saved_variables` was renamed `saved_tensors` (deprecated in torch 0.4)",
        ),
        Invalid(
            """
            from torch._six import string_classes, int_classes as ints, inf, container_abcs
            ok = isinstance(key, string_classes) or isinstance(n, ints) or x == inf
            """,
            """
            string_classes = (str, bytes)
            ints = int
            from math import inf
            import collections.abc as container_abcs
            ok = isinstance(key, string_classes) or isinstance(n, ints) or x == inf
            """,
            line=1,
            message="`torch._six` no longer exists (removed in torch 2.0): use the standard library",
            fix_title="Bind the same names from the standard library",
        ),
        Invalid(
            """
            import torch._six
            ok = isinstance(key, torch._six.string_classes)
            """,
            """
            import torch
            ok = isinstance(key, (str, bytes))
            """,
        ),
        Invalid(
            """
            from torch._six import with_metaclass
            """,
            fixed=None,
        ),
        Invalid(
            """
            from torch.utils.data import TensorDataset
            dataset = TensorDataset(data_tensor=inputs, target_tensor=labels)
            """,
            """
            from torch.utils.data import TensorDataset
            dataset = TensorDataset(inputs, labels)
            """,
            message=_DATASET,
            fix_title="Pass the tensors positionally",
        ),
        Invalid(
            """
            import torch as th
            x, lu = th.gesv(b, a)
            """,
            fixed=None,
            message="`th.gesv` no longer exists (removed in torch 1.2): use `torch.linalg.solve(A, B)`",
        ),
        Invalid(
            """
            import torch
            spectrum = torch.rfft(signal, 1)
            """,
            fixed=None,
            message="`torch.rfft` no longer exists (removed in torch 1.8): use `torch.fft.rfft`",
        ),
        Invalid(
            """
            from torch.utils.serialization import load_lua
            """,
            fixed=None,
            message="`torch.utils.serialization.load_lua` no longer exists (removed in torch 1.0)",
        ),
        Invalid(
            """
            import torch.legacy.nn as lnn
            """,
            fixed=None,
            message="`torch.legacy` no longer exists (removed in torch 1.0): use the `torch.nn` modules",
        ),
        Invalid(
            """
            import torch
            spec = torch.stft(signal, 400, hop_length=160)
            """,
            """
            import torch
            spec = torch.view_as_real(torch.stft(signal, 400, hop_length=160, return_complex=True))
            """,
            message="`return_complex=True` is the modern form",
            fix_title="Pass `return_complex=True` and keep the old layout with `torch.view_as_real`",
        ),
        Invalid(
            """
            import torch
            mask = (lengths == 0).byte()
            scores = scores.masked_fill(mask, -1e9)
            picked = x[(x > 0).byte()]
            """,
            """
            import torch
            mask = (lengths == 0).byte()
            scores = scores.masked_fill(mask.bool(), -1e9)
            picked = x[(x > 0).bool()]
            """,
            line=3,
            column=29,
            message="`masked_fill` with a uint8 mask raises RuntimeError",
            fix_title="Pass `mask.bool()`",
        ),
    )

    # -- compatibility layers -----------------------------------------------------------------------

    def report(self, node: cst.CSTNode, message: str, fix: Optional[FixPlan] = None) -> None:
        """Legacy code kept for older torch releases is not reported. Asked only when there is
        something to report: walking the stack at every call and attribute is what it costs."""
        if not in_compatibility_layer(self.context.stack, self.context.code_for):
            super().report(node, message, fix)

    # -- calls --------------------------------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.imports.qualified_name(node.func)
        self._retain_variables(node, qualified)
        if qualified in _TENSOR_DATASETS:
            self._tensor_dataset(node)
        elif qualified in REMOVED_FFT_FUNCTIONS and (isinstance(node.func, cst.Attribute) or qualified == _FFT_MODULE):
            # `from torch import rfft` is reported at its import; `torch.fft` is a module now.
            removed = REMOVED_FFT_FUNCTIONS[qualified]
            self.report(node.func, _GONE.format(name=qualified, version=removed.version, replacement=removed.replacement))
        self._stft(node, qualified)
        self._masked_call(node, qualified)

    def _retain_variables(self, node: cst.Call, qualified: Optional[str]) -> None:
        legacy = keyword_arg(node, "retain_variables")
        if legacy is None:
            return
        is_backward = qualified == "torch.autograd.backward" or (
            qualified is None and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward"
        )
        if not is_backward:
            return
        fix = None
        if keyword_arg(node, "retain_graph") is None:
            fix = self.safe_fix("Rename to `retain_graph=`", Replace(legacy.keyword, cst.Name("retain_graph")))
        self.report(legacy, _RETAIN, fix)

    def _tensor_dataset(self, node: cst.Call) -> None:
        legacy = {arg.keyword.value: arg for arg in node.args if arg.keyword is not None and arg.keyword.value in _LEGACY_DATASET_KEYWORDS}
        if not legacy:
            return
        self.report(node, _DATASET, self._positional_dataset_fix(node, legacy))

    def _positional_dataset_fix(self, node: cst.Call, legacy: dict[str, cst.Arg]) -> Optional[FixPlan]:
        if any(arg.star or (arg.keyword is not None and arg.keyword.value not in legacy) for arg in node.args):
            return None
        positional = positional_args(node)
        if len(positional) + len(legacy) > len(_LEGACY_DATASET_KEYWORDS) or any(
            keyword in legacy for keyword in _LEGACY_DATASET_KEYWORDS[: len(positional)]
        ):
            return None  # the call raises for a reason the rename does not remove
        ordered = [*positional, *(legacy[keyword] for keyword in _LEGACY_DATASET_KEYWORDS if keyword in legacy)]
        values = [self.context.code_for(arg.value) for arg in ordered]
        call = f"{self.context.code_for(node.func)}({', '.join(values)})"
        return self.safe_fix("Pass the tensors positionally", Replace(node, call))

    def _stft(self, node: cst.Call, qualified: Optional[str]) -> None:
        if qualified == "torch.stft":
            positions = _STFT_RETURN_COMPLEX_POSITION
        elif (
            qualified is None
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "stft"
            and self.context.is_tensor(node.func.value)
        ):
            positions = _STFT_RETURN_COMPLEX_POSITION - 1  # the tensor is the receiver
        else:
            return
        if keyword_arg(node, "return_complex") is not None or any(arg.star for arg in node.args) or len(positional_args(node)) > positions:
            return
        self.report(node, _STFT, self._stft_fix(node))

    def _stft_fix(self, node: cst.Call) -> Optional[FixPlan]:
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        arguments = ", ".join(self.context.code_for(arg.value) if arg.keyword is None else _keyword_code(self, arg) for arg in node.args)
        call = f"{self.context.code_for(node.func)}({arguments}, return_complex=True)"
        return self.unsafe_fix(
            "Pass `return_complex=True` and keep the old layout with `torch.view_as_real`",
            *changes,
            Replace(node, f"{alias}.view_as_real({call})"),
            needs_torch=_RETURN_COMPLEX_SINCE,
        )

    # -- uint8 masks --------------------------------------------------------------------------------

    @cached_property
    def _may_hold_byte_masks(self) -> bool:
        """Every uint8 tensor `byte_masks` recognises spells `byte`, `Byte` (`ByteTensor`) or `uint8`,
        in the file or in a name it imports through another file: without them, no index or mask
        needs the scope's bindings looked up."""
        return any(self.context.spells(word) for word in ("byte", "Byte", "uint8"))

    def _masked_call(self, node: cst.Call, qualified: Optional[str]) -> None:
        if qualified in _MASKED_FUNCTIONS:
            name, position = qualified.rsplit(".", 1)[1], 1
        elif qualified is None and isinstance(node.func, cst.Attribute) and node.func.attr.value in _MASKED_METHODS:
            name, position = node.func.attr.value, 0
        else:
            return
        mask = keyword_arg(node, "mask")
        if mask is None:
            positional = positional_args(node)
            mask = positional[position] if len(positional) > position else None
        if mask is not None and self._may_hold_byte_masks and self._is_byte_mask(mask.value):
            self.report(mask.value, _BYTE_MASK.format(use=name, effect="raises RuntimeError"), self._bool_mask_fix(mask.value))

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self._may_hold_byte_masks:
            return
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index) and index.star is None and self._is_indexing_mask(node.value, index.value):
                stored = self._is_assigned(node)
                effect = "raises RuntimeError when assigned to" if stored else "is deprecated and warns"
                self.report(index.value, _BYTE_MASK.format(use="x[mask]", effect=effect), self._bool_mask_fix(index.value))

    def _is_assigned(self, node: cst.Subscript) -> bool:
        parent = self.context.parent()
        if isinstance(parent, cst.AssignTarget) or isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is node:
            return True
        return False

    def _is_indexing_mask(self, indexed: cst.BaseExpression, index: cst.BaseExpression) -> bool:
        """A uint8 index of a tensor, or a `.byte()` mask (numpy reads a uint8 array as indices)."""
        if type(index) is not cst.Name and type(index) is not cst.Call:
            return False  # only a name or a call can hold a mask: no scope to look up for `x[0]`
        if is_byte_mask(index, self.context.scopes.of(self.context.scope())):
            return True
        return self._is_byte_mask(index) and self.context.is_tensor(indexed)

    def _is_byte_mask(self, node: cst.BaseExpression) -> bool:
        scope = self.context.scope()
        return is_byte_tensor(node, self.context.imports, self.context.scopes.of(scope))

    def _bool_mask_fix(self, mask: cst.BaseExpression) -> FixPlan:
        if (
            isinstance(mask, cst.Call)
            and isinstance(mask.func, cst.Attribute)
            and mask.func.attr.value == "byte"
            and _is_comparison(mask.func.value)
        ):
            # `(a > b).byte()` holds 0/1: its bool twin is the comparison's own result.
            return self.safe_fix("Replace `.byte()` with `.bool()`", Replace(mask.func.attr, cst.Name("bool")), needs_torch=_BOOL_SINCE)
        return self.safe_fix(
            f"Pass `{self.context.code_for(mask)}.bool()`", Replace(mask, method_call_on(mask, "bool")), needs_torch=_BOOL_SINCE
        )

    # -- names --------------------------------------------------------------------------------------

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "saved_variables":
            self._saved_variables(node)
            return
        if node.attr.value == _BACKEND:
            self._module_backend(node)
            return
        qualified = self.context.imports.qualified_name(node)
        if qualified is None or not _may_be_removed(qualified):
            return
        if any(isinstance(ancestor, (cst.Import, cst.ImportFrom)) for ancestor in self.context.stack):
            return  # an import is reported as a whole
        if qualified in REMOVED_FUNCTIONS:
            removed = REMOVED_FUNCTIONS[qualified]
            self.report(node, _GONE.format(name=self.context.code_for(node), version=removed.version, replacement=removed.replacement))
        elif qualified in REMOVED_MODULES:
            removed = REMOVED_MODULES[qualified]
            self.report(node, _GONE.format(name=qualified, version=removed.version, replacement=removed.replacement))
        elif qualified.startswith(SIX_MODULE + ".") and self.context.imports.qualified_name(node.value) == SIX_MODULE:
            self._six_attribute(node, node.attr.value)

    def _module_backend(self, node: cst.Attribute) -> None:
        """`m._backend.X`: the THNN backend of a 0.3 module (`torch.distributed._backend`, an
        imported module's, is another thing)."""
        used = self.context.parent()
        if type(used) is not cst.Attribute or used.value is not node or self.context.imports.qualified_name(node.value) is not None:
            return
        if self.context.file_text.search(_OWN_BACKEND):
            return
        removed = REMOVED_MODULE_ATTRIBUTES[_BACKEND]
        message = _GONE.format(name=self.context.code_for(node), version=removed.version, replacement=removed.replacement)
        function, apply, call = BACKEND_FUNCTIONS.get(used.attr.value), self.context.parent(2), self.context.parent(3)
        fix = None
        if (
            function is not None
            and type(apply) is cst.Attribute
            and apply.attr.value == "apply"
            and type(call) is cst.Call
            and call.func is apply
        ):
            fix = self._functional_fix(call, node.value, function)
        self.report(node, message, fix)

    def _functional_fix(self, call: cst.Call, module: cst.BaseExpression, function: BackendFunction) -> Optional[FixPlan]:
        """`F.embedding(...)` with the backend's arguments, its "no padding" -1 turned into None."""
        args = call.args
        if any(arg.keyword is not None or arg.star for arg in args) or not function.optional <= len(args) <= function.arguments:
            return None
        values = [self.context.code_for(arg.value) for arg in args]
        if function.padding_position is not None:
            padding = self._padding_index(call, module, args[function.padding_position].value)
            if padding is None:
                return None
            values[function.padding_position] = padding
        found = self._functional_name(function.functional)
        if found is None:
            return None
        name, changes = found
        replacement = f"{name}({', '.join(values)})"
        return self.safe_fix(f"Replace with `{snippet(replacement, 60)}`", *changes, Replace(call, replacement))

    def _functional_name(self, qualified: str) -> Optional[tuple[str, list[Change]]]:
        attribute = qualified.rsplit(".", 1)[1]
        alias = module_level_alias(self.context.module, self.context.imports, _FUNCTIONAL)
        if alias is not None:
            return f"{alias}.{attribute}", []
        found = torch_alias(self.context)
        if found is None:
            return None
        torch_name, changes = found
        return f"{torch_name}{qualified[len('torch') :]}", changes

    def _padding_index(self, call: cst.Call, module: cst.BaseExpression, padding: cst.BaseExpression) -> Optional[str]:
        """What `F.embedding` needs for the padding the backend was given: None for "no padding"
        (-1), an index as it is, and `m.padding_idx` for the 0.3 idiom that replaced its None with -1
        (`p = m.padding_idx`, then `if p is None: p = -1`, right before the call)."""
        literal = _integer(padding)
        if literal is not None:
            return "None" if literal < 0 else self.context.code_for(padding)
        if type(padding) is not cst.Name:
            return None
        positions = self.context.nodes.positions_in_body(call)
        earlier = list(positions[0].earlier[:2]) if positions else []
        if len(earlier) != 2 or not _replaces_none_with(earlier[0], padding.value, -1):
            return None
        source = f"{self.context.code_for(module)}.padding_idx"
        assigned = _assigned_value(earlier[1], padding.value)
        return source if assigned is not None and self.context.code_for(assigned) == source else None

    def _saved_variables(self, node: cst.Attribute) -> None:
        receiver = node.value
        function = self.context.enclosing_function()
        if not isinstance(receiver, cst.Name) or function is None or not _is_static(function):
            return
        params = (*function.params.posonly_params, *function.params.params)
        if not params or params[0].name.value != receiver.value or not self._in_autograd_function(function):
            return
        fix = self.safe_fix("Rename to `saved_tensors`", Replace(node.attr, cst.Name("saved_tensors")))
        super().report(node, _SAVED.format(receiver=receiver.value), fix)  # no release has both names

    def _in_autograd_function(self, function: cst.FunctionDef) -> bool:
        owner = self.context.function_table.class_of(function)
        return owner is not None and any(self.context.imports.qualified_name(base.value) in AUTOGRAD_FUNCTION for base in owner.bases)

    def _six_attribute(self, node: cst.Attribute, name: str) -> None:
        self.report(node, _SIX.format(advice=_six_advice([name])), self._six_value_fix(node, name))

    def _six_value_fix(self, node: cst.Attribute, name: str) -> Optional[FixPlan]:
        if name in SIX_BUILTIN_VALUES:
            value = SIX_BUILTIN_VALUES[name]
            return self.safe_fix(f"Replace with `{value}`", Replace(node, value))
        if name not in SIX_MATH_VALUES:
            return None
        alias = module_level_alias(self.context.module, self.context.imports, "math")
        changes: list[Change] = []
        if alias is None:
            anchor = import_anchor(self.context.module)
            if anchor is None or "math" in self.context.imports.bindings:
                return None
            alias, changes = "math", [InsertLineBefore(anchor, "import math")]
        return self.safe_fix(f"Replace with `{alias}.{name}`", *changes, Replace(node, f"{alias}.{name}"))

    # -- imports ------------------------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if full == SIX_MODULE:
                self.report(alias, _SIX.format(advice=_six_advice(())), self._six_module_fix(node, alias))
            elif removed_module(full) is not None:
                self._report_module(alias, removed_module(full))

    def _six_module_fix(self, node: cst.Import, alias: cst.ImportAlias) -> Optional[FixPlan]:
        """`import torch._six` bound `torch`: import `torch` itself, or nothing when another import does."""
        if alias.asname is not None:
            return None
        if len(node.names) == 1 and sum(imported.local == "torch" for imported in self.context.imports.imports) > 1:
            changes = remove_line(self.context, self.context.stack, lambda statement: False)
            if changes is not None:
                return self.safe_fix("Remove the import (`torch` is imported already)", *changes)
        return self.safe_fix("Import `torch` instead", Replace(alias.name, cst.Name("torch")))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module) or ""
        if module == SIX_MODULE:
            self._six_import(node)
            return
        if removed_module(module) is not None:
            self._report_module(node, removed_module(module))
            return
        if isinstance(node.names, cst.ImportStar):
            return
        for alias in node.names:
            qualified = f"{module}.{dotted_name(alias.name)}"
            removed = REMOVED_FUNCTIONS.get(qualified) or (REMOVED_FFT_FUNCTIONS.get(qualified) if qualified != _FFT_MODULE else None)
            if removed is not None:
                self.report(alias, _GONE.format(name=qualified, version=removed.version, replacement=removed.replacement))
            elif removed_module(qualified) is not None:
                self._report_module(alias, removed_module(qualified))

    def _report_module(self, node: cst.CSTNode, name: str) -> None:
        removed = REMOVED_MODULES[name]
        self.report(node, _GONE.format(name=name, version=removed.version, replacement=removed.replacement))

    def _six_import(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            self.report(node, _SIX.format(advice=_six_advice(())))
            return
        names = [(dotted_name(alias.name) or "", _local(alias)) for alias in node.names]
        self.report(node, _SIX.format(advice=_six_advice([name for name, _ in names])), self._six_import_fix(names))

    def _six_import_fix(self, names: Sequence[tuple[str, str]]) -> Optional[FixPlan]:
        bindings = [six_binding(name, local) for name, local in names]
        found = enclosing_line(self.context.stack)
        if None in bindings or found is None or len(found[0].body) != 1:
            return None
        line, index = found
        lines = [binding for binding in bindings if binding]
        title = "Bind the same names from the standard library"
        if not lines:
            changes = remove_line(self.context, self.context.stack[: index + 1], lambda statement: False)
            return self.safe_fix(title, *changes) if changes is not None else None
        indent = indentation(self.context, self.context.stack[:index])
        newline = self.context.module.default_newline
        comment = line.trailing_whitespace.comment
        lines[-1] += f"  {comment.value}" if comment is not None else ""
        text = "".join(f"{indent}{binding}{newline}" for binding in lines)
        return self.safe_fix(title, ReplaceLines(line, line, text))


def _local(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return dotted_name(alias.name) or ""


def _may_be_removed(qualified: str) -> bool:
    return qualified in REMOVED_FUNCTIONS or qualified in REMOVED_MODULES or qualified.startswith(SIX_MODULE + ".")


def _six_advice(names: Sequence[str]) -> str:
    known = [f"`{name}` is {_six_equivalent(name)}" for name in names if name in SIX_BINDINGS]
    advice = "use the standard library"
    return f"{advice} ({', '.join(known)})" if known else advice


def _six_equivalent(name: str) -> str:
    if name in SIX_BUILTIN_VALUES:
        return f"`{SIX_BUILTIN_VALUES[name]}`"
    if name == "container_abcs":
        return "`collections.abc`"
    if name in SIX_MATH_VALUES:
        return f"`math.{name}`"
    return f"the module `{name}`"


def _is_static(function: cst.FunctionDef) -> bool:
    return any(isinstance(d.decorator, cst.Name) and d.decorator.value in _STATIC_DECORATORS for d in function.decorators)


def _is_comparison(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Comparison)


def _integer(node: cst.BaseExpression) -> Optional[int]:
    """The value of an integer literal, `-1` included."""
    if type(node) is cst.Integer:
        return int(node.value, 0)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and type(node.expression) is cst.Integer:
        return -int(node.expression.value, 0)
    return None


def _assigned_value(statement: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """`value` of the line `name = value`."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    return assign.value if type(target) is cst.Name and target.value == name else None


def _replaces_none_with(statement: cst.CSTNode, name: str, value: int) -> bool:
    """`if name is None: name = value`, without `else`."""
    if type(statement) is not cst.If or statement.orelse is not None:
        return False
    test = statement.test
    if not (type(test) is cst.Comparison and len(test.comparisons) == 1 and type(test.comparisons[0].operator) is cst.Is):
        return False
    if not (type(test.left) is cst.Name and test.left.value == name and type(test.comparisons[0].comparator) is cst.Name):
        return False
    if test.comparisons[0].comparator.value != "None":
        return False
    suite = statement.body
    lines = suite.body if type(suite) is cst.IndentedBlock else [cst.SimpleStatementLine(body=suite.body)]
    assigned = _assigned_value(lines[0], name) if len(lines) == 1 else None
    return assigned is not None and _integer(assigned) == value


def _keyword_code(rule: Rule, arg: cst.Arg) -> str:
    return f"{arg.keyword.value}={rule.context.code_for(arg.value)}"
