from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.torch_api.amp import (
    AMP_DEPRECATED_SINCE,
    LEGACY_AMP,
    SDP_BACKEND_SINCE,
    SDP_BACKENDS,
    SDP_FLAGS,
    SDP_KERNEL,
    SDP_KERNEL_DEPRECATED_SINCE,
    SDPA_KERNEL_SINCE,
    LegacyAmp,
)
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.version_fallbacks import in_version_fallback
from gradlint.fix.builders import indentation, render_at, torch_alias
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace, torch_release
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity


_DECORATORS = frozenset(qualified for qualified, entry in LEGACY_AMP.items() if entry.device_keyword is not None)

_AMP_DEPRECATED = f"(deprecated in torch {AMP_DEPRECATED_SINCE})"

_SDP_DEPRECATED = f"(deprecated in torch {SDP_KERNEL_DEPRECATED_SINCE})"


class LegacyAmpApi(Rule):
    """
    ## What it does
    Flags the device-specific mixed-precision entry points: `torch.cuda.amp.autocast`,
    `torch.cuda.amp.GradScaler`, `torch.cuda.amp.custom_fwd` / `custom_bwd`,
    `torch.cpu.amp.autocast` and `torch.cpu.amp.GradScaler`, under any import spelling
    (`from torch.cuda.amp import autocast`, `from torch.cuda import amp`), called, used as context
    managers or as decorators; and `torch.backends.cuda.sdp_kernel(...)`, the old context manager
    that selects the attention backends with boolean flags.

    ## Why is this bad?
    Measured in torch 2.13: each emits a `FutureWarning` and forwards to `torch.amp.autocast`,
    `torch.amp.GradScaler`, `torch.amp.custom_fwd` / `custom_bwd` with the device, and
    `sdp_kernel` forwards to `torch.nn.attention.sdpa_kernel` with a list of backends. The
    positional orders differ: the legacy `autocast(enabled, dtype, cache_enabled)` against
    `torch.amp.autocast(device_type, dtype, enabled, cache_enabled)`, so moving the arguments over
    as they are breaks the call (`torch.amp.autocast("cuda", False)` sets the dtype to `False` and
    raises `TypeError` when entered, measured).

    ## Example
    ```python
    import torch
    from torch.cuda.amp import GradScaler, autocast

    scaler = GradScaler(enabled=use_amp)
    with autocast(use_amp):
        loss = model(x).sum()
    with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):
        out = attention(q, k, v)
    ```

    ## Use instead
    ```python
    import torch

    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    with torch.amp.autocast("cuda", enabled=use_amp, dtype=torch.float16, cache_enabled=True):
        loss = model(x).sum()
    with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH, torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):
        out = attention(q, k, v)
    ```

    ## Fix safety
    Safe. The device comes first (`"cuda"` / `"cpu"`; `device_type="cuda"` for `custom_fwd` and
    `custom_bwd`) and every other argument is passed by keyword, positional ones named after the
    legacy signature. The legacy autocast classes pass `dtype` (`float16` for CUDA, `bfloat16` for
    the CPU) and `cache_enabled=True` to `torch.amp.autocast` themselves, whereas `torch.amp.autocast`
    given neither reads them from the autocast state, which an enclosing autocast region changes
    (measured: inside `torch.amp.autocast("cpu", dtype=torch.float16, cache_enabled=False)`,
    `torch.cpu.amp.autocast()` computes in `bfloat16` with the cache on, `torch.amp.autocast("cpu")`
    in `float16` with it off). The fix therefore writes the two values the legacy call fixed;
    drop them where no autocast region encloses the code. What was proven under torch 2.13 (CPU):
    `torch.cpu.amp.autocast` and its rewrite compute bitwise equal results (forward and gradients)
    and construct equal state; for the CUDA forms, which cannot run here, the constructed objects
    were compared (the autocast's device, `fast_dtype`, enabled flag and cache flag, the
    `GradScaler`'s attributes, and for `custom_fwd` / `custom_bwd` the legacy function calls the
    modern one with `device_type="cuda"`). `sdp_kernel` builds the list
    `[FLASH_ATTENTION, EFFICIENT_ATTENTION, MATH, CUDNN_ATTENTION]` from the flags that are true
    and enters `sdpa_kernel` with it, so the rewrite writes that list (the backend flags inside
    the region were compared). The only difference is the `FutureWarning` no longer emitted.
    Newer torch needed (`target-torch`): `torch.amp.autocast` 1.12, `sdpa_kernel` 2.2
    (`CUDNN_ATTENTION` 2.3), `torch.amp.GradScaler` 2.3, `torch.amp.custom_fwd` / `custom_bwd` 2.4.

    ## Known limits
    A call in the fallback an older torch takes (an `except AttributeError:` / `TypeError:` /
    `ImportError:` handler, a branch of an `if` on the torch version or `hasattr`) is not reported:
    the modern API already runs on a current torch.
    Only calls and decorators are rewritten: a legacy class used as an object
    (`isinstance(s, torch.cuda.amp.GradScaler)`, `functools.partial(autocast, ...)`) is a different
    class from its replacement and is left alone, as are calls with `*args` or too many arguments.
    `sdp_kernel` with a flag that is not a literal `True` / `False` is reported without a fix:
    write the backend list by hand.
    """

    code = "GL509"
    name = "legacy-amp-api"
    summary = "`torch.cuda.amp.autocast` / `GradScaler` / `custom_fwd`, `torch.backends.cuda.sdp_kernel`: legacy AMP and attention APIs"
    severity = Severity.WARNING
    migration = "api"
    # `from torch.cuda import amp` too: the fix reaches `torch.amp` through the torch alias.
    cleanup_imports = (*sorted(LEGACY_AMP), "torch.cuda.amp", "torch.cpu.amp")
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("amp", "autocast", "GradScaler", "custom_fwd", "custom_bwd", "sdp_kernel")

    VALID = (
        # what an older torch falls back to: the modern API runs on a current one
        """
        import torch
        scaler = torch.amp.GradScaler(device=device) if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()
        try:
            scaler = torch.amp.GradScaler(device=device)
        except (AttributeError, TypeError):
            scaler = torch.cuda.amp.GradScaler()
        if is_torch_version(">=", "2.3"):
            scaler = torch.amp.GradScaler("cuda")
        else:
            scaler = torch.cuda.amp.GradScaler()
        """,
        """
        import torch
        with torch.amp.autocast("cuda", enabled=False):
            scaler = torch.amp.GradScaler("cuda")
        with torch.autocast("cpu"):
            pass
        """,
        """
        from apex import amp
        model, optimizer = amp.initialize(model, optimizer)
        with amp.scale_loss(loss, optimizer) as scaled:
            scaled.backward()
        """,
        """
        def autocast(enabled=True):
            return contextlib.nullcontext()
        with autocast(False):
            pass
        """,
        """
        import jax
        import torch
        policy = jax.amp.autocast(True)
        ok = isinstance(scaler, torch.cuda.amp.GradScaler)
        """,
        """
        import torch
        with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
            pass
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            with torch.cuda.amp.autocast(False):
                pass
            """,
            """
            import torch
            with torch.amp.autocast("cuda", enabled=False, dtype=torch.float16, cache_enabled=True):
                pass
            """,
            line=2,
            column=6,
            message='`torch.cuda.amp.autocast(...)` is `torch.amp.autocast("cuda", ...)` with keyword arguments (deprecated in torch 2.4)',
            fix_title='Replace with `torch.amp.autocast("cuda", enabled=False, dtype=torch.float16, cache_enabled=True)`',
        ),
        Invalid(
            """
            import torch as th
            from torch.cuda.amp import GradScaler, autocast
            scaler = GradScaler(1024.0, enabled=use_amp)
            with autocast(dtype=th.bfloat16):
                pass
            """,
            """
            import torch as th
            scaler = th.amp.GradScaler("cuda", init_scale=1024.0, enabled=use_amp)
            with th.amp.autocast("cuda", dtype=th.bfloat16, cache_enabled=True):
                pass
            """,
        ),
        # One argument a line stays one argument a line; `**kwargs` may repeat a pinned argument: no fix.
        Invalid(
            """
            from torch.cuda.amp import autocast
            with autocast(
                enabled=True,
            ):
                pass
            with autocast(**amp_arguments):
                pass
            """,
            """
            import torch
            from torch.cuda.amp import autocast
            with torch.amp.autocast(
                "cuda",
                enabled=True,
                dtype=torch.float16,
                cache_enabled=True,
            ):
                pass
            with autocast(**amp_arguments):
                pass
            """,
        ),
        Invalid(
            """
            import torch
            from torch.cpu import amp
            @amp.autocast(True, torch.float16, False)
            def forward(x):
                return x
            """,
            """
            import torch
            @torch.amp.autocast("cpu", enabled=True, dtype=torch.float16, cache_enabled=False)
            def forward(x):
                return x
            """,
        ),
        Invalid(
            """
            import torch
            from torch.cuda.amp import custom_bwd, custom_fwd
            class Scale(torch.autograd.Function):
                @staticmethod
                @custom_fwd(cast_inputs=torch.float32)
                def forward(ctx, x):
                    return x
                @staticmethod
                @custom_bwd
                def backward(ctx, grad):
                    return grad
            """,
            """
            import torch
            class Scale(torch.autograd.Function):
                @staticmethod
                @torch.amp.custom_fwd(cast_inputs=torch.float32, device_type="cuda")
                def forward(ctx, x):
                    return x
                @staticmethod
                @torch.amp.custom_bwd(device_type="cuda")
                def backward(ctx, grad):
                    return grad
            """,
            message='`custom_bwd` is `torch.amp.custom_bwd(device_type="cuda")`',
        ),
        Invalid(
            """
            import torch
            with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_math=True, enable_mem_efficient=False):
                pass
            """,
            """
            import torch
            with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH, torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):
                pass
            """,
            line=2,
            column=6,
            message="`torch.backends.cuda.sdp_kernel(...)` is `torch.nn.attention.sdpa_kernel([...])` with the enabled backends (deprecated in torch 2.2)",
        ),
        Invalid(
            """
            import torch
            with torch.backends.cuda.sdp_kernel(enable_flash=use_flash):
                pass
            """,
            fixed=None,
            message="flags that are not literals",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.context.qualified_name(node.func)
        if qualified is None:
            return
        legacy = LEGACY_AMP.get(qualified)
        if (legacy is not None or qualified == SDP_KERNEL) and self._in_version_fallback():
            return
        if legacy is not None:
            self._report_amp(node, self.context.code_for(node.func), legacy)
        elif qualified == SDP_KERNEL:
            self._report_sdp_kernel(node)

    def visit_Decorator(self, node: cst.Decorator) -> None:
        """`@custom_fwd` / `@custom_bwd` without parentheses: the modern ones need the device."""
        qualified = self.context.qualified_name(node.decorator)
        if qualified in _DECORATORS and not self._in_version_fallback():
            legacy = LEGACY_AMP[qualified]
            bare = cst.Call(func=node.decorator, args=())
            old = self.context.code_for(node.decorator)
            self.report(node.decorator, self._amp_message(old, legacy, called=False), self._amp_fix(node.decorator, bare, legacy))

    def _in_version_fallback(self) -> bool:
        """The legacy entry point is what an older torch falls back to (`except AttributeError:`
        after `torch.amp.GradScaler(...)`, `new if TORCH_GREATER_EQUAL_2_4 else old`)."""
        return in_version_fallback(self.context.stack, self.context.code_for)

    # -- torch.cuda.amp / torch.cpu.amp ---------------------------------------------------------

    def _report_amp(self, node: cst.Call, old: str, legacy: LegacyAmp) -> None:
        self.report(node, self._amp_message(old, legacy, called=True), self._amp_fix(node, node, legacy))

    @staticmethod
    def _amp_message(old: str, legacy: LegacyAmp, called: bool) -> str:
        if legacy.device_keyword is not None:
            shown = f'`{old}{"(...)" if called else ""}` is `torch.amp.{legacy.modern}({"..., " if called else ""}device_type="{legacy.device}")`'
            return f"{shown} {_AMP_DEPRECATED}"
        return f'`{old}(...)` is `torch.amp.{legacy.modern}("{legacy.device}", ...)` with keyword arguments {_AMP_DEPRECATED}'

    def _amp_fix(self, replaced: cst.BaseExpression, call: cst.Call, legacy: LegacyAmp) -> Optional[FixPlan]:
        keywords = _by_keyword(call, legacy.parameters)
        found = torch_alias(self.context)
        if keywords is None or found is None:
            return None
        alias, changes = found
        given = {arg.keyword.value for arg in keywords if arg.keyword is not None}
        pinned = [_keyword(name, cst.parse_expression(value.format(torch=alias))) for name, value in legacy.pinned if name not in given]
        device = cst.SimpleString(f'"{legacy.device}"')
        if legacy.device_keyword is None:
            args = [cst.Arg(device), *keywords, *pinned]
        else:
            args = [*keywords, *pinned, _keyword(legacy.device_keyword, device)]
        func = cst.Attribute(value=cst.Attribute(value=cst.Name(alias), attr=cst.Name("amp")), attr=cst.Name(legacy.modern))
        replacement = call.with_changes(func=func, args=_with_commas(args, call))
        rendered = render_at(self.context, replacement, indentation(self.context, self.context.stack))
        title = f"Replace with `{snippet(self.context.code_for(replacement), 100)}`"
        return self.safe_fix(title, *changes, Replace(replaced, rendered), needs_torch=legacy.needs_torch)

    # -- torch.backends.cuda.sdp_kernel ------------------------------------------------------------

    def _report_sdp_kernel(self, node: cst.Call) -> None:
        message = f"`{self.context.code_for(node.func)}(...)` is `torch.nn.attention.sdpa_kernel([...])` with the enabled backends {_SDP_DEPRECATED}"
        flags = _sdp_flags(node)
        if flags is None:
            self.report(node, f"{message}; flags that are not literals: list the backends by hand")
            return
        self.report(node, message, self._sdp_fix(node, flags))

    def _sdp_fix(self, node: cst.Call, flags: dict[str, bool]) -> Optional[FixPlan]:
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        enabled = [backend for flag, backend in SDP_BACKENDS if flags[flag]]
        backends = [f"{alias}.nn.attention.SDPBackend.{backend}" for backend in enabled]
        replacement = node.with_changes(
            func=cst.parse_expression(f"{alias}.nn.attention.sdpa_kernel"), args=[cst.Arg(cst.parse_expression(f"[{', '.join(backends)}]"))]
        )
        needs = max((SDPA_KERNEL_SINCE, *(SDP_BACKEND_SINCE.get(backend, SDPA_KERNEL_SINCE) for backend in enabled)), key=torch_release)
        title = f"Replace with `{snippet(self.context.code_for(replacement), 100)}`"
        return self.safe_fix(title, *changes, Replace(node, replacement), needs_torch=needs)


def _by_keyword(call: cst.Call, parameters: tuple[str, ...]) -> Optional[list[cst.Arg]]:
    """The arguments with the positional ones named after the legacy signature; None when that
    cannot be done (`*args`, `**kwargs`, more positional arguments than the signature has). The
    decorated function of `custom_fwd(f)` stays positional: it is first in both signatures."""
    bound = bind(call, Signature.of_names(parameters))
    if bound.starred or bound.extra_positional:
        return None
    slot_of = {id(arg): name for name, arg in bound.named.items()}
    named: list[cst.Arg] = []
    for arg in call.args:
        if arg.keyword is not None or slot_of[id(arg)] in ("fwd", "bwd"):
            named.append(arg)
        else:
            named.append(arg.with_changes(keyword=cst.Name(slot_of[id(arg)]), equal=_EQUAL))
    return named


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))


def _keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    return cst.Arg(value=value, keyword=cst.Name(name), equal=_EQUAL)


def _with_commas(args: list[cst.Arg], call: cst.Call) -> list[cst.Arg]:
    """`args` separated as `call` separates its own: one argument a line when its arguments start
    on a line of their own, a trailing comma kept on the last argument."""
    trailing = call.args[-1].comma if call.args and isinstance(call.args[-1].comma, cst.Comma) else cst.MaybeSentinel.DEFAULT
    opening = call.whitespace_before_args
    if isinstance(opening, cst.ParenthesizedWhitespace):
        separator = cst.Comma(whitespace_after=opening)
    else:
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    separated = []
    for index, arg in enumerate(args):
        if index == len(args) - 1:
            separated.append(arg.with_changes(comma=trailing))
        elif isinstance(arg.comma, cst.Comma) and arg.comma is not trailing:
            separated.append(arg)
        else:
            separated.append(arg.with_changes(comma=separator))
    return separated


def _sdp_flags(node: cst.Call) -> Optional[dict[str, bool]]:
    """The four flags of an `sdp_kernel(...)` call when each is a literal or left to its default."""
    flags = dict.fromkeys(SDP_FLAGS, True)
    bound = bind(node, Signature.of_names(SDP_FLAGS))
    if bound.starred or bound.extra_positional or bound.unknown_keywords:
        return None
    for name, arg in bound.named.items():
        value = arg.value
        if not (isinstance(value, cst.Name) and value.value in ("True", "False")):
            return None
        flags[name] = value.value == "True"
    return flags
