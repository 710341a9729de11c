"""The pre-`torch.linalg` linear-algebra functions: their legacy signatures, the versions that
deprecated and removed them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class LegacyLinalg:
    """A legacy function of `torch` (and method of `Tensor`) that `torch.linalg` replaces."""

    name: str
    parameters: tuple[str, ...]  # in legacy positional order; the first is the tensor (the receiver of the method)
    deprecated: str  # the torch version that deprecated it
    removed: Optional[str] = None  # the torch version since which it raises
    method: bool = True  # `Tensor.<name>` exists with the same meaning

    @property
    def status(self) -> str:
        if self.removed is not None:
            return f"removed in torch {self.removed}"
        return f"deprecated in torch {self.deprecated}"


LEGACY_LINALG: dict[str, LegacyLinalg] = {
    api.name: api
    for api in (
        LegacyLinalg("solve", ("input", "A"), "1.9", "1.13"),
        LegacyLinalg("symeig", ("input", "eigenvectors", "upper"), "1.9", "1.13"),
        LegacyLinalg("eig", ("input", "eigenvectors"), "1.9", "1.13"),
        LegacyLinalg("lstsq", ("input", "A"), "1.9", "1.13"),
        LegacyLinalg("matrix_rank", ("input", "tol", "symmetric"), "1.9", "1.13", method=False),
        LegacyLinalg("qr", ("input", "some"), "1.9"),
        LegacyLinalg("cholesky", ("input", "upper"), "1.9"),
        LegacyLinalg("chain_matmul", (), "1.9", method=False),
        LegacyLinalg("triangular_solve", ("input", "A", "upper", "transpose", "unitriangular"), "1.11"),
        LegacyLinalg("lu", ("A", "pivot", "get_infos"), "1.13"),
        LegacyLinalg("lu_solve", ("input", "LU_data", "LU_pivots"), "1.13"),
        # Deprecated in the documentation only (no warning), and common as methods: functions only.
        LegacyLinalg("svd", ("input", "some", "compute_uv"), "1.9", method=False),
        LegacyLinalg("norm", ("input", "p", "dim", "keepdim", "out", "dtype"), "1.9", method=False),
    )
}
