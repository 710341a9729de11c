"""The device-specific automatic mixed precision entry points (`torch.cuda.amp.autocast`...) and
`torch.backends.cuda.sdp_kernel`: their legacy signatures, their `torch.amp` / `sdpa_kernel`
replacements, and the releases that deprecated them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

AMP_DEPRECATED_SINCE = "2.4"
SDP_KERNEL_DEPRECATED_SINCE = "2.2"


@dataclass(frozen=True)
class LegacyAmp:
    """A device-specific AMP entry point and its device-generic replacement in `torch.amp`."""

    modern: str  # the name in `torch.amp`
    device: str
    parameters: tuple[str, ...]  # the legacy signature's positional order
    # Arguments the legacy constructor passes explicitly where `torch.amp` would read the current
    # autocast state (keyword -> value; `{torch}` is the torch alias).
    pinned: tuple[tuple[str, str], ...] = ()
    device_keyword: Optional[str] = None  # the device is passed as this keyword, else first and positional
    # The oldest torch release whose `torch.amp.<modern>` takes the device (and `pinned`) as the fix writes them.
    needs_torch: Optional[str] = None


_AUTOCAST = ("enabled", "dtype", "cache_enabled")
_SCALER = ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled")


# `torch.autocast(device_type, ...)` came with 1.10, under the `torch.amp` path the fix writes with
# 1.12; `torch.amp.GradScaler` with 2.3, the `device_type=` of `torch.amp.custom_fwd` / `custom_bwd`
# with 2.4.
AUTOCAST_SINCE = "1.12"
GRAD_SCALER_SINCE = "2.3"
CUSTOM_FUNCTION_SINCE = "2.4"


def _autocast(device: str, dtype: str) -> LegacyAmp:
    pinned = (("dtype", f"{{torch}}.{dtype}"), ("cache_enabled", "True"))
    return LegacyAmp("autocast", device, _AUTOCAST, pinned=pinned, needs_torch=AUTOCAST_SINCE)


def _family(device: str, entries: dict[str, LegacyAmp], submodules: dict[str, str]) -> dict[str, LegacyAmp]:
    """Each entry under `torch.<device>.amp` and under the submodule that defines it."""
    table: dict[str, LegacyAmp] = {}
    for name, entry in entries.items():
        table[f"torch.{device}.amp.{name}"] = entry
        table[f"torch.{device}.amp.{submodules[name]}.{name}"] = entry
    return table


_SUBMODULES = {"autocast": "autocast_mode", "GradScaler": "grad_scaler", "custom_fwd": "autocast_mode", "custom_bwd": "autocast_mode"}

LEGACY_AMP: dict[str, LegacyAmp] = {
    **_family(
        "cuda",
        {
            "autocast": _autocast("cuda", "float16"),
            "GradScaler": LegacyAmp("GradScaler", "cuda", _SCALER, needs_torch=GRAD_SCALER_SINCE),
            "custom_fwd": LegacyAmp("custom_fwd", "cuda", ("fwd",), device_keyword="device_type", needs_torch=CUSTOM_FUNCTION_SINCE),
            "custom_bwd": LegacyAmp("custom_bwd", "cuda", ("bwd",), device_keyword="device_type", needs_torch=CUSTOM_FUNCTION_SINCE),
        },
        _SUBMODULES,
    ),
    **_family(
        "cpu",
        {"autocast": _autocast("cpu", "bfloat16"), "GradScaler": LegacyAmp("GradScaler", "cpu", _SCALER, needs_torch=GRAD_SCALER_SINCE)},
        _SUBMODULES,
    ),
}


# `sdp_kernel(enable_flash, enable_math, enable_mem_efficient, enable_cudnn)`, each True by default;
# torch builds the backend list in this order from the flags that are set.
SDP_KERNEL = "torch.backends.cuda.sdp_kernel"
SDP_FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
# `torch.nn.attention.sdpa_kernel` came with 2.2 (when `sdp_kernel` was deprecated), its
# `SDPBackend.CUDNN_ATTENTION` with 2.3.
SDPA_KERNEL_SINCE = "2.2"
SDP_BACKEND_SINCE = {"CUDNN_ATTENTION": "2.3"}
SDP_BACKENDS = (
    ("enable_flash", "FLASH_ATTENTION"),
    ("enable_mem_efficient", "EFFICIENT_ATTENTION"),
    ("enable_math", "MATH"),
    ("enable_cudnn", "CUDNN_ATTENTION"),
)
