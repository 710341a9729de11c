"""The pre-`torch.linalg` linear-algebra functions: their legacy signatures, the versions that
deprecated and removed them, and the release that brought each replacement."""

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
    replacement: str = ""  # what replaces it in `torch.linalg`, and how the call changes
    also_in_functional: bool = False  # `torch.functional.<name>` defines it (`torch.<name>` re-exports it)
    replacement_since: Optional[str] = None  # the oldest torch release that has the `torch.linalg` replacement

    @property
    def paths(self) -> tuple[str, ...]:
        """The qualified names of the function."""
        return (f"torch.{self.name}", f"torch.functional.{self.name}") if self.also_in_functional else (f"torch.{self.name}",)

    @property
    def status(self) -> str:
        if self.removed is not None:
            return f"removed in torch {self.removed}"
        return f"deprecated in torch {self.deprecated}"


# What some replacements add to the `torch.linalg` function: `.mT` / `.mH` (a transposed matrix, the
# `V` of `svd`), and `upper=` of `linalg.cholesky`.
MATRIX_TRANSPOSE_SINCE = "1.11"
CHOLESKY_UPPER_SINCE = "1.10"

LEGACY_LINALG: dict[str, LegacyLinalg] = {
    api.name: api
    for api in (
        LegacyLinalg(
            "solve",
            ("input", "A"),
            "1.9",
            "1.13",
            replacement_since="1.8",
            replacement="`torch.solve(B, A).solution` is `torch.linalg.solve(A, B)` (arguments reversed, no LU returned)",
        ),
        LegacyLinalg(
            "symeig",
            ("input", "eigenvectors", "upper"),
            "1.9",
            "1.13",
            replacement_since="1.8",
            replacement='`torch.linalg.eigh(A, UPLO="U")` / `eigvalsh` (symeig read the upper triangle; linalg reads the lower by default)',
        ),
        LegacyLinalg(
            "eig",
            ("input", "eigenvectors"),
            "1.9",
            "1.13",
            replacement_since="1.9",
            replacement="`torch.linalg.eig` / `eigvals` return complex tensors, not the real (n, 2) layout: rewrite the code that reads them",
        ),
        LegacyLinalg(
            "lstsq",
            ("input", "A"),
            "1.9",
            "1.13",
            replacement_since="1.9",
            replacement="`torch.linalg.lstsq(A, B).solution` (arguments reversed; the solution has n rows, not max(m, n))",
        ),
        LegacyLinalg(
            "matrix_rank",
            ("input", "tol", "symmetric"),
            "1.9",
            "1.13",
            replacement_since="1.8",
            method=False,
            replacement="`torch.linalg.matrix_rank(A)` (`symmetric=` became `hermitian=`)",
        ),
        LegacyLinalg(
            "qr",
            ("input", "some"),
            "1.9",
            replacement_since="1.8",
            replacement='`torch.linalg.qr(A, mode="reduced" if some else "complete")`',
        ),
        LegacyLinalg("cholesky", ("input", "upper"), "1.9", replacement_since="1.8", replacement="`torch.linalg.cholesky(A, upper=upper)`"),
        LegacyLinalg(
            "chain_matmul",
            (),
            "1.9",
            replacement_since="1.9",
            method=False,
            replacement="`torch.linalg.multi_dot([...])` takes a list of two or more matrices (of one matrix, chain_matmul returns a copy)",
            also_in_functional=True,
        ),
        LegacyLinalg(
            "triangular_solve",
            ("input", "A", "upper", "transpose", "unitriangular"),
            "1.11",
            replacement_since="1.11",
            replacement="`torch.triangular_solve(B, A).solution` is `torch.linalg.solve_triangular(A, B, upper=True)` (arguments reversed)",
        ),
        LegacyLinalg(
            "lu",
            ("A", "pivot", "get_infos"),
            "1.13",
            replacement_since="1.11",  # `lu_factor_ex`
            replacement="`torch.linalg.lu_factor_ex(A)[:2]` (`torch.linalg.lu_factor(A)` if A is invertible: it raises for a singular matrix; `lu_factor_ex(A)` for `get_infos=True`)",
            also_in_functional=True,
        ),
        LegacyLinalg(
            "lu_solve",
            ("input", "LU_data", "LU_pivots"),
            "1.13",
            replacement_since="1.13",
            replacement="`torch.linalg.lu_solve(LU, pivots, B)` (arguments reversed)",
        ),
        # Deprecated in the documentation only (no warning), and common as methods: functions only.
        LegacyLinalg(
            "svd",
            ("input", "some", "compute_uv"),
            "1.9",
            replacement_since="1.8",
            method=False,
            replacement="`torch.linalg.svd(A, full_matrices=not some)` returns `Vh`: `V` is `Vh.mH`",
        ),
        LegacyLinalg(
            "norm",
            ("input", "p", "dim", "keepdim", "out", "dtype"),
            "1.9",
            replacement_since="1.9",  # `vector_norm`
            method=False,
            replacement="`torch.linalg.vector_norm` for a numeric `p` or `'fro'`, `torch.linalg.matrix_norm` for `'nuc'` and other matrix norms (`torch.linalg.norm(A, 1)` is the induced norm: not the same)",
            also_in_functional=True,
        ),
    )
}
