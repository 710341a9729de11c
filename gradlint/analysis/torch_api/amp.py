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


_AUTOCAST = ("enabled", "dtype", "cache_enabled")
_SCALER = ("init_scale", "growth_factor", "backoff_factor", "growth_interval", "enabled")


def _autocast(device: str, dtype: str) -> LegacyAmp:
    return LegacyAmp("autocast", device, _AUTOCAST, pinned=(("dtype", f"{{torch}}.{dtype}"), ("cache_enabled", "True")))


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
            "GradScaler": LegacyAmp("GradScaler", "cuda", _SCALER),
            "custom_fwd": LegacyAmp("custom_fwd", "cuda", ("fwd",), device_keyword="device_type"),
            "custom_bwd": LegacyAmp("custom_bwd", "cuda", ("bwd",), device_keyword="device_type"),
        },
        _SUBMODULES,
    ),
    **_family("cpu", {"autocast": _autocast("cpu", "bfloat16"), "GradScaler": LegacyAmp("GradScaler", "cpu", _SCALER)}, _SUBMODULES),
}


# `sdp_kernel(enable_flash, enable_math, enable_mem_efficient, enable_cudnn)`, each True by default;
# torch builds the backend list in this order from the flags that are set.
SDP_KERNEL = "torch.backends.cuda.sdp_kernel"
SDP_FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
SDP_BACKENDS = (
    ("enable_flash", "FLASH_ATTENTION"),
    ("enable_mem_efficient", "EFFICIENT_ATTENTION"),
    ("enable_math", "MATH"),
    ("enable_cudnn", "CUDNN_ATTENTION"),
)
