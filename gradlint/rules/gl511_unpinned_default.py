from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis.version_fallbacks import in_version_fallback
from gradlint.analysis.syntax import dotted_name, keyword_arg, positional_args
from gradlint.fix.builders import with_keywords
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity


@dataclass(frozen=True)
class _Pin:
    """A keyword whose default torch warns about: the fix writes the current default."""

    keyword: str
    current: str  # the default torch 2.13 applies, as written by the fix
    slot: Optional[int]  # its positional index (None: it cannot be passed positionally)
    deprecated: str
    advice: str  # what the message adds after "pass `keyword=` explicitly"
    needs_torch: str  # the oldest torch release that takes the keyword (older ones raise for it)


_MESHGRID = _Pin("indexing", '"ij"', None, "1.10", '`"ij"` is what it does now; `indexing="xy"` is NumPy\'s order', needs_torch="1.10")
_ALIGN = "`False` is what it does now; `align_corners=True` was the meaning before torch 1.3"
_REENTRANT = "`True` is what it does now; `use_reentrant=False` is the recommended one (a different implementation)"
_PINS = {
    "torch.meshgrid": _MESHGRID,
    "torch.functional.meshgrid": _MESHGRID,
    "torch.nn.functional.grid_sample": _Pin("align_corners", "False", 4, "1.3", _ALIGN, needs_torch="1.3"),
    "torch.nn.functional.affine_grid": _Pin("align_corners", "False", 2, "1.3", _ALIGN, needs_torch="1.3"),
    # `checkpoint` took `use_reentrant=` from 1.11, `checkpoint_sequential` from 2.0.
    "torch.utils.checkpoint.checkpoint": _Pin("use_reentrant", "True", None, "2.1", _REENTRANT, needs_torch="1.11"),
    "torch.utils.checkpoint.checkpoint_sequential": _Pin("use_reentrant", "True", 3, "2.1", _REENTRANT, needs_torch="2.0"),
}
_CROSS = "torch.cross"
_CROSS_DEPRECATED = "(deprecated in torch 2.2)"
# The KL divergence losses, with the number of positional arguments before their legacy flags
# (`size_average`, `reduce`, then `reduction`).
_KL_DIV = {"torch.nn.functional.kl_div": 2, "torch.nn.KLDivLoss": 0, "torch.nn.modules.loss.KLDivLoss": 0}
_TRANSPOSE_DEPRECATED = "(deprecated in torch 1.11)"


class UnpinnedDefault(Rule):
    """
    ## What it does
    Flags torch calls that rely on a default torch warns about, because it changed or will change:
    `torch.meshgrid` without `indexing=`, `F.grid_sample` / `F.affine_grid` without
    `align_corners=`, `torch.utils.checkpoint.checkpoint` / `checkpoint_sequential` without
    `use_reentrant=`, `torch.cross` without `dim=`, `x.T` on a tensor that is not 2-D, and
    `F.kl_div` / `nn.KLDivLoss` with the default `reduction="mean"`.

    ## Why is this bad?
    Each call emits a `UserWarning` under torch 2.13, and each default is a trap:
    `meshgrid`'s will become required (deprecated in torch 1.10); `grid_sample` and `affine_grid`
    changed meaning in torch 1.3 (0.4-era code meant `align_corners=True`); `checkpoint` will
    require `use_reentrant` (deprecated in torch 2.1); `torch.cross` picks the first dimension of
    size 3, which is the batch dimension of a batch of three vectors, and will change to
    `linalg.cross`'s `dim=-1` (deprecated in torch 2.2); `x.T` on a tensor that is not 2-D
    reverses all its dimensions and will raise (deprecated in torch 1.11); `kl_div`'s `"mean"`
    divides by the number of elements, not by the batch size as the KL divergence does
    (deprecated in torch 0.4.1).

    ## Example
    ```python
    import torch
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4))
    warped = F.grid_sample(image, grid)
    hidden = checkpoint(block, hidden)
    normal = torch.cross(torch.randn(4, 3), torch.randn(4, 3))
    ```

    ## Use instead
    ```python
    import torch
    import torch.nn.functional as F
    from torch.utils.checkpoint import checkpoint

    xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")
    warped = F.grid_sample(image, grid, align_corners=False)
    hidden = checkpoint(block, hidden, use_reentrant=True)
    normal = torch.cross(torch.randn(4, 3), torch.randn(4, 3), dim=1)
    ```

    ## Fix safety
    Safe: each fix writes what torch 2.13 does without the argument, measured bitwise equal and
    without the warning: `indexing="ij"`, `align_corners=False`, `use_reentrant=True`;
    `dim=` the first dimension of size 3 when both shapes of `torch.cross` are stated in the code
    and equal; `x.permute(k - 1, ..., 0)` for `x.T` when the rank k of `x` is stated in the
    code and is 1 or at least 3 (`.permute(0)` on a vector: still a view, as `.T` was); unsafe
    where `x` is not evidently a tensor (a numpy array's `.T` has the same shape, and no
    `.permute`). The message names the other choice where it may be what the code means
    (`align_corners=True` for code written before torch 1.3, `use_reentrant=False`), which the
    fix does not write. No fix for `kl_div`'s reduction: `reduction="batchmean"` computes a
    different value (the mathematically correct one).
    Newer torch needed (`target-torch`): `align_corners=` 1.3, `indexing=` 1.10,
    `checkpoint(use_reentrant=)` 1.11, `checkpoint_sequential(use_reentrant=)` 2.0.

    ## Known limits
    A call in the fallback an older torch takes (an `except TypeError:` / `AttributeError:` /
    `ImportError:` handler, a branch of an `if` on the torch version) is not reported.
    Only torch's functions under their imports are recognised; the rank or shape comes from a
    factory with literal sizes or a list literal in the same function, so `x.T` is reported only
    there. A call that passes `**kwargs` is not reported (they may hold the argument).
    """

    code = "GL511"
    name = "unpinned-default"
    summary = "a torch call relies on a default torch warns about (`indexing`, `align_corners`, `use_reentrant`, `dim`, `.T`, `kl_div`)"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("meshgrid", "grid_sample", "affine_grid", "checkpoint", "cross", "kl_div", "KLDivLoss", ".T")

    VALID = (
        # the call a torch older than 1.10 falls back to
        """
        import torch
        try:
            grid = torch.meshgrid(y, x, indexing="ij")
        except TypeError:
            grid = torch.meshgrid(y, x)
        yv, xv = torch.meshgrid(y, x, indexing="ij") if torch_1_10 else torch.meshgrid(y, x)
        """,
        """
        import torch
        xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="xy")
        """,
        """
        import numpy as np
        xs, ys = np.meshgrid(np.arange(3), np.arange(4))
        """,
        """
        import torch.nn.functional as F
        out = F.grid_sample(x, grid, "bilinear", "zeros", True)
        loss = F.kl_div(p, q, reduction="batchmean")
        """,
        """
        from torch.utils.checkpoint import checkpoint, checkpoint_sequential
        out = checkpoint(block, x, **options)
        seq = checkpoint_sequential(blocks, 2, x, False)
        """,
        """
        import torch
        x = torch.randn(2, 3)
        x.unsqueeze_(0)
        y = x.T
        """,
        """
        import torch
        m = torch.randn(4, 3)
        t = m.T
        """,
        """
        def cross(a, b):
            return a
        c = cross(u, v)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4))
            """,
            """
            import torch
            xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")
            """,
            line=2,
            column=10,
            message='`torch.meshgrid` without `indexing=` (deprecated in torch 1.10); pass `indexing="ij"` explicitly',
            fix_title='Add `indexing="ij"`',
        ),
        Invalid(
            """
            import torch.nn.functional as F
            out = F.grid_sample(x, F.affine_grid(theta, size))
            """,
            """
            import torch.nn.functional as F
            out = F.grid_sample(x, F.affine_grid(theta, size, align_corners=False), align_corners=False)
            """,
        ),
        Invalid(
            """
            from torch.utils.checkpoint import checkpoint
            out = checkpoint(block, x)
            """,
            """
            from torch.utils.checkpoint import checkpoint
            out = checkpoint(block, x, use_reentrant=True)
            """,
            message="`use_reentrant=False` is the recommended one",
        ),
        Invalid(
            """
            import torch
            a = torch.randn(4, 3)
            n = torch.cross(a, torch.randn(4, 3))
            """,
            """
            import torch
            a = torch.randn(4, 3)
            n = torch.cross(a, torch.randn(4, 3), dim=1)
            """,
        ),
        Invalid(
            """
            import torch
            n = torch.cross(u, v)
            """,
            message="torch.linalg.cross",
        ),
        Invalid(
            """
            import torch
            x = torch.randn(2, 3, 4)
            y = x.T
            """,
            """
            import torch
            x = torch.randn(2, 3, 4)
            y = x.permute(2, 1, 0)
            """,
            line=3,
            column=5,
        ),
        Invalid(
            """
            import torch.nn.functional as F
            loss = F.kl_div(logp, q)
            """,
            message='`reduction="batchmean"` is the KL divergence',
        ),
        Invalid(
            """
            import torch
            v = torch.randn(3).T
            """,
            """
            import torch
            v = torch.randn(3).permute(0)
            """,
            message="`.T` on a 1-D tensor (deprecated in torch 1.11) is the identity",
        ),
        Invalid(
            """
            import torch
            def channels_first(image):
                return image.reshape(32, 32, 3).T
            """,
            """
            import torch
            def channels_first(image):
                return image.reshape(32, 32, 3).permute(2, 1, 0)
            """,
            line=3,
            fix_title="Replace with `.permute(2, 1, 0)`",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified is None or any(arg.star == "**" for arg in node.args):
            return
        pin = _PINS.get(qualified)
        if pin is not None and not in_version_fallback(self.context.stack, self.context.code_for):
            # not the call an older torch falls back to (`except TypeError:` after `indexing="ij"`)
            self._check_pin(node, qualified, pin)
        elif qualified == _CROSS:
            self._check_cross(node)
        elif qualified in _KL_DIV:
            self._check_kl_div(node, qualified)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value != "T" or isinstance(self.context.parent(), cst.AssignTarget):
            return
        shape = self.context.shape_of(node.value)
        if shape is None or len(shape) == 2:
            return  # unknown, or a matrix: `.T` does not warn
        rank = len(shape)
        if rank == 0:
            self.report(node, f"`.T` on a 0-D tensor {_TRANSPOSE_DEPRECATED} is the identity; drop it")
            return
        dims = ", ".join(str(dim) for dim in reversed(range(rank)))
        if rank == 1:
            message = f"`.T` on a 1-D tensor {_TRANSPOSE_DEPRECATED} is the identity; drop it (`.permute(0)` keeps the view)"
        else:
            message = (
                f"`.T` on a {rank}-D tensor {_TRANSPOSE_DEPRECATED}; use `.permute({dims})` (or `.mT` to transpose the last two dimensions)"
            )
        permute = cst.Attribute(value=node.value, attr=cst.Name("permute"))
        replacement = cst.Call(func=permute, args=[cst.Arg(cst.Integer(str(dim))) for dim in reversed(range(rank))])
        # A numpy array's `.T` has the same shape evidence (`np.arange(24).reshape(2, 3, 4).T`) and no `.permute`.
        make = self.safe_fix if self.context.is_known_tensor(node.value) else self.unsafe_fix
        self.report(node, message, make(f"Replace with `.permute({dims})`", Replace(node, replacement)))

    def _check_pin(self, node: cst.Call, qualified: str, pin: _Pin) -> None:
        if keyword_arg(node, pin.keyword) is not None:
            return
        if pin.slot is not None and (any(arg.star for arg in node.args) or len(positional_args(node)) > pin.slot):
            return
        name = _callee(node, qualified)
        written = f"{pin.keyword}={pin.current}"
        message = f"`{name}` without `{pin.keyword}=` (deprecated in torch {pin.deprecated}); pass `{written}` explicitly: {pin.advice}"
        self.report(
            node,
            message,
            self.safe_fix(
                f"Add `{written}`",
                Replace(node, with_keywords(node, [(pin.keyword, cst.parse_expression(pin.current))])),
                needs_torch=pin.needs_torch,
            ),
        )

    def _check_cross(self, node: cst.Call) -> None:
        positional = positional_args(node)
        if keyword_arg(node, "dim") is not None or len(positional) != 2 or any(arg.star for arg in node.args):
            return
        message = (
            f"`torch.cross` without `dim=` {_CROSS_DEPRECATED} uses the first dimension of size 3, which may be the batch "
            "dimension; pass `dim=` (`torch.linalg.cross` uses `dim=-1`)"
        )
        dim = self._first_dimension_of_size_three(positional[0].value, positional[1].value)
        if dim is None:
            self.report(node, message)
            return
        self.report(node, message, self.safe_fix(f"Add `dim={dim}`", Replace(node, with_keywords(node, [("dim", cst.Integer(str(dim)))]))))

    def _first_dimension_of_size_three(self, first: cst.BaseExpression, second: cst.BaseExpression) -> Optional[int]:
        shape = self.context.shape_of(first)
        if shape is None or None in shape or self.context.shape_of(second) != shape:
            return None
        return shape.index(3) if 3 in shape else None

    def _check_kl_div(self, node: cst.Call, qualified: str) -> None:
        if keyword_arg(node, "reduction") is not None or any(arg.star for arg in node.args):
            return
        if keyword_arg(node, "size_average") is not None or keyword_arg(node, "reduce") is not None:
            return  # the legacy flags decide the reduction
        if len(positional_args(node)) > _KL_DIV[qualified]:
            return  # the flags or the reduction passed positionally
        name = _callee(node, qualified)
        self.report(
            node,
            f'`{name}` with the default `reduction="mean"` (deprecated in torch 0.4.1) divides by the number of elements; '
            '`reduction="batchmean"` is the KL divergence (a different value: choose it deliberately)',
        )


def _callee(call: cst.Call, qualified: str) -> str:
    """The callee as the code spells it (`F.grid_sample`, `checkpoint`)."""
    return dotted_name(call.func) or qualified.rsplit(".", 1)[-1]
