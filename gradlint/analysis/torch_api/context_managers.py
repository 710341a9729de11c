"""torch's grad-mode and autocast context managers: every public path to each class, and what each
does when the call that creates it is left out or it is never entered (measured under torch 2.13;
see `gradlint.analysis.context_managers`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class ContextManagerClass:
    callable_without_arguments: bool  # `X()` is valid (no required argument)
    bare_decorator_error: Optional[str]  # what `@X` without a call does wrong; None when it works
    grad_mode: bool  # a grad-mode manager (not autocast): creating one alone changes nothing
    # What entering it does to autograd: "disables" (`no_grad`, `inference_mode`), "enables",
    # "sets" (to its argument); None for autocast.
    grad: Optional[str] = None


_NO_GRAD = ContextManagerClass(callable_without_arguments=True, bare_decorator_error=None, grad_mode=True, grad="disables")
_ENABLE_GRAD = ContextManagerClass(callable_without_arguments=True, bare_decorator_error=None, grad_mode=True, grad="enables")
_INFERENCE_MODE = ContextManagerClass(callable_without_arguments=True, bare_decorator_error=None, grad_mode=True, grad="disables")
_SET_GRAD_ENABLED = ContextManagerClass(
    callable_without_arguments=False, bare_decorator_error="raises TypeError when the function is defined", grad_mode=True, grad="sets"
)
_AUTOCAST = ContextManagerClass(
    callable_without_arguments=False, bare_decorator_error="raises ValueError when the function is defined", grad_mode=False
)
_LEGACY_CUDA_AUTOCAST = ContextManagerClass(
    callable_without_arguments=True, bare_decorator_error="raises TypeError at every call of the function", grad_mode=False
)
_LEGACY_CPU_AUTOCAST = ContextManagerClass(
    callable_without_arguments=True, bare_decorator_error="raises TypeError at every call of the function", grad_mode=False
)

# Qualified names (every public path to the same class) -> the class.
CONTEXT_MANAGER_CLASSES: dict[str, ContextManagerClass] = {
    "torch.no_grad": _NO_GRAD,
    "torch.autograd.no_grad": _NO_GRAD,
    "torch.autograd.grad_mode.no_grad": _NO_GRAD,
    "torch.enable_grad": _ENABLE_GRAD,
    "torch.autograd.enable_grad": _ENABLE_GRAD,
    "torch.autograd.grad_mode.enable_grad": _ENABLE_GRAD,
    "torch.inference_mode": _INFERENCE_MODE,
    "torch.autograd.inference_mode": _INFERENCE_MODE,
    "torch.autograd.grad_mode.inference_mode": _INFERENCE_MODE,
    "torch.set_grad_enabled": _SET_GRAD_ENABLED,
    "torch.autograd.set_grad_enabled": _SET_GRAD_ENABLED,
    "torch.autograd.grad_mode.set_grad_enabled": _SET_GRAD_ENABLED,
    "torch.autocast": _AUTOCAST,
    "torch.amp.autocast": _AUTOCAST,
    "torch.amp.autocast_mode.autocast": _AUTOCAST,
    "torch.cuda.amp.autocast": _LEGACY_CUDA_AUTOCAST,
    "torch.cuda.amp.autocast_mode.autocast": _LEGACY_CUDA_AUTOCAST,
    "torch.cpu.amp.autocast": _LEGACY_CPU_AUTOCAST,
    "torch.cpu.amp.autocast_mode.autocast": _LEGACY_CPU_AUTOCAST,
}


def grad_mode_managers(grad: str) -> frozenset[str]:
    """Qualified names of the context managers whose `grad` effect is `grad`."""
    return frozenset(name for name, manager in CONTEXT_MANAGER_CLASSES.items() if manager.grad == grad)
