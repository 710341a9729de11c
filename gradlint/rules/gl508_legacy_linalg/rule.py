from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import libcst as cst

from gradlint.analysis.torch_api.legacy_linalg import CHOLESKY_UPPER_SINCE, LEGACY_LINALG, MATRIX_TRANSPOSE_SINCE, LegacyLinalg
from gradlint.analysis.syntax import is_bool_literal, parenthesized
from gradlint.fix.builders import enclosing_line, indentation, torch_alias
from gradlint.fix.plan import Applicability, Availability, Change, FixPlan, Replace, ReplaceLines
from gradlint.fix.target import newer_than
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl508_legacy_linalg.name_reads import is_never_read
from gradlint.rules.gl508_legacy_linalg.reordering import bind_arguments, evaluates_without_effects

# The module paths under which torch defines the legacy functions.
_QUALIFIED = {path: api.name for api in LEGACY_LINALG.values() for path in api.paths}


@dataclass(frozen=True)
class ResultUse:
    """How the legacy call's result is read: `call[index]`, `call.field`, or `a, b = call`."""

    node: cst.CSTNode  # the expression (or statement line) a fix replaces
    index: Optional[int] = None
    field: Optional[str] = None
    targets: tuple[str, ...] = ()
    target: Optional[cst.BaseAssignTargetExpression] = None  # of the unpacking assignment


# The node a fix replaces, its new text, how safe that is, and further changes (the targets of `X, _ = ...`).
Built = Optional[tuple[cst.CSTNode, str, Applicability, tuple[Change, ...]]]
Flag = Union[bool, str]  # a literal flag, or the source of an expression known at run time only


class LegacyLinalgApi(Rule):
    """
    ## What it does
    Flags the linear-algebra functions that `torch.linalg` replaced: the removed `torch.solve`,
    `torch.symeig`, `torch.eig`, `torch.lstsq` and `torch.matrix_rank`, and the deprecated
    `torch.qr`, `torch.cholesky`, `torch.chain_matmul`, `torch.triangular_solve`, `torch.lu`,
    `torch.lu_solve`, `torch.svd` and `torch.norm`, under any import spelling; and the methods of
    an evident tensor with the same meaning (`A.symeig(...)`, `B.solve(A)`, `A.qr()`,
    `S.cholesky()`, `B.triangular_solve(A)`, `A.lu()`, `B.lu_solve(LU, piv)`).

    ## Why is this bad?
    Measured in torch 2.13: the five removed functions raise `RuntimeError` ("deprecated since
    version 1.9 and is now removed"); `qr`, `cholesky`, `chain_matmul`, `triangular_solve`, `lu`
    and `lu_solve` warn (`UserWarning`, "will be removed in a future PyTorch release"); `svd` and
    `norm` are deprecated in the documentation. The replacements are not drop-in: `linalg.solve`,
    `lstsq`, `solve_triangular` and `lu_solve` take their arguments in the reverse order,
    `linalg.eigh` reads the lower triangle by default where `symeig` read the upper one,
    `linalg.svd` returns `Vh` instead of `V`, `linalg.eig` returns complex tensors,
    `linalg.multi_dot` raises for a single matrix, and `linalg.norm(A, 1)` is the induced matrix
    norm where `torch.norm(A, 1)` summed the absolute values.

    ## Example
    ```python
    import torch

    Q, R = torch.qr(A, some=False)
    L = torch.cholesky(S, True)
    X = torch.triangular_solve(B, L, upper=False).solution
    ```

    ## Use instead
    ```python
    import torch

    Q, R = torch.linalg.qr(A, mode="complete")
    L = torch.linalg.cholesky(S, upper=True)
    X = torch.linalg.solve_triangular(L, B, upper=False)
    ```

    ## Fix safety
    Safe where the rewrite was measured bitwise equal under torch 2.13 (values, dtype, shape,
    strides, `requires_grad`; square, wide, tall and batched inputs; only the deprecation warning
    goes): `qr` (`some` becomes `mode=`; a flag known at run time only becomes
    `mode="reduced" if some else "complete"`, exact for a `bool`, the only type `torch.qr`
    accepts), `cholesky` (`upper` becomes `upper=`, also for a flag known at run time only;
    `.mH` gives the same values as a transposed view, a different layout, so it is not used),
    `chain_matmul` of two or more matrices (`multi_dot([...])`, also with `out=`: chain_matmul
    then calls multi_dot's out variant, which resizes, type-checks and returns the same tensor)
    and of one (`m.clone()`, which is what it returns; `multi_dot([m])` raises), `triangular_solve(...).solution` / `[0]`
    (`transpose=True` becomes `A.mT` with the other triangle), `lu` (`lu_factor_ex(A)[:2]`, a
    plain pair as before, and `lu_factor_ex(A)` for `get_infos=True`; not `lu_factor`, which
    raises for a singular matrix where `torch.lu` returned its factors), `lu_solve`, and `svd`
    read as `U, S, V = ...`, `[i]` or `.U` / `.S` / `.V`. For the removed functions the legacy
    call raises, so the fix restores the 1.x meaning: safe for `solve(...).solution` / `[0]` and
    `matrix_rank` (torch's documented one-to-one replacements); unsafe for `symeig` (eigenvectors
    are defined up to sign, and the 1.x result cannot be reproduced to compare) and `lstsq` (the
    solution has n rows where 1.x returned max(m, n); the LAPACK driver differs, and
    `linalg.lstsq` on CPU is not even bitwise reproducible between two identical calls).
    `norm` is unsafe: `torch.norm` calls `linalg.vector_norm` for dense tensors on CPU, CUDA
    and XPU, but keeps its legacy kernel for sparse and MPS tensors (a sparse tensor makes
    `vector_norm` raise), which gradlint cannot see. Arguments that change places are moved only
    when their evaluation has no effects (names, attributes, subscripts, literals).
    Newer torch needed (`target-torch`): `torch.linalg` 1.8 (`multi_dot`, `lstsq`, `vector_norm`
    1.9), `cholesky(upper=)` 1.10, `solve_triangular`, `lu_factor_ex`, `.mT` / `.mH` 1.11,
    `lu_solve` 1.13.

    ## Known limits
    No fix where the mapping is not exact: `eig` (complex results); a result whose arity changes
    unpacked into two names (`X, LU = torch.solve(B, A)`; the copy of `A` that
    `triangular_solve` returned is column-major, which `A.clone()` does not reproduce), while
    `X, _ = ...` becomes `X = ...` when nothing in the module reads `_`; `symeig` without
    eigenvectors unpacked into two names; `chain_matmul(*matrices)`; `norm` with `'nuc'` or a
    `p` that is not a literal; `svd(compute_uv=False)`; `matrix_rank(tol=)`; `out=` (except for `chain_matmul` of two or more
    matrices; `chain_matmul(m, out=o)` copies `m` into `o`, where `multi_dot([m], out=o)` raises). `A.svd()`
    and `A.norm()` (methods, very common, deprecated in the documentation only) are not
    reported; the other methods only on an evident tensor. A method that passes `self` to the
    legacy function of its own name (`def norm(self, ...): return torch.norm(self, ...)`,
    torch's own `Tensor.norm`) defines the legacy method rather than using it, and is not
    reported.
    """

    code = "GL508"
    name = "legacy-linalg"
    summary = "`torch.solve` / `symeig` / `qr` / `cholesky` / `svd` / `norm` ...: linear algebra replaced by `torch.linalg`"
    severity = Severity.WARNING
    migration = "api"
    cleanup_imports = tuple(sorted(_QUALIFIED))
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = tuple(sorted(LEGACY_LINALG))
    _torch = "torch"  # the name of module torch the fix being built writes (set per fix)

    VALID = (
        """
        import numpy as np
        import scipy.linalg
        x = np.linalg.solve(A, b) + scipy.linalg.solve(A, b) + np.linalg.norm(v)
        q, r = np.linalg.qr(M)
        """,
        """
        def solve(b, a):
            return b / a
        x = solve(b, a)
        """,
        """
        import torch
        x = torch.linalg.solve(A, B)
        L = torch.linalg.cholesky(S)
        n = torch.linalg.vector_norm(v)
        """,
        """
        import torch
        class Wrapped(torch.Tensor):
            def norm(self, p="fro", dim=None):
                return torch.norm(self, p, dim)
        """,
        """
        solver.solve(b, a)
        model.norm(x)
        """,
        """
        import torch
        n = torch.randn(3).norm()
        """,
        """
        from numpy.linalg import norm, svd, qr
        from scipy.linalg import cholesky, lu
        import tensorflow as tf
        n = norm(v) + tf.linalg.norm(w)
        U, S, Vh = svd(M)
        L = cholesky(S, lower=True)
        P, L, U = lu(M)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            X = torch.solve(B, A).solution
            """,
            """
            import torch
            X = torch.linalg.solve(A, B)
            """,
            line=2,
            column=5,
            message="`torch.solve` was removed in favour of `torch.linalg`: `torch.solve(B, A).solution` is `torch.linalg.solve(A, B)`",
            fix_title="Replace with `torch.linalg.solve(A, B)`",
        ),
        Invalid(
            """
            import torch
            X, LU = torch.solve(B, A)
            """,
            fixed=None,
            message="(removed in torch 1.13)",
        ),
        Invalid(
            """
            import torch
            L = torch.cholesky(S, True)
            """,
            """
            import torch
            L = torch.linalg.cholesky(S, upper=True)
            """,
            message="(deprecated in torch 1.9)",
        ),
        Invalid(
            """
            import torch
            Q, R = torch.qr(A, some)
            """,
            """
            import torch
            Q, R = torch.linalg.qr(A, mode="reduced" if some else "complete")
            """,
        ),
        Invalid(
            """
            import torch as th
            y = th.chain_matmul(a)
            z = th.chain_matmul(a, b, c)
            th.chain_matmul(a, b, out=product)
            """,
            """
            import torch as th
            y = a.clone()
            z = th.linalg.multi_dot([a, b, c])
            th.linalg.multi_dot([a, b], out=product)
            """,
        ),
        Invalid(
            """
            import torch
            e, v = torch.symeig(A, eigenvectors=True)
            """,
            """
            import torch
            e, v = torch.linalg.eigh(A, UPLO="U")
            """,
            fix_title='Replace with `torch.linalg.eigh(A, UPLO="U")`',
        ),
        Invalid(
            """
            import torch
            U, S, V = torch.svd(A)
            """,
            """
            import torch
            U, S, V = torch.linalg.svd(A, full_matrices=False)
            V = V.mH
            """,
        ),
        Invalid(
            """
            import torch
            n = torch.norm(x, 1, dim=1)
            """,
            """
            import torch
            n = torch.linalg.vector_norm(x, 1, dim=1)
            """,
        ),
        Invalid(
            """
            import torch
            LU, pivots = torch.lu(A)
            X = torch.lu_solve(B, LU, pivots)
            """,
            """
            import torch
            LU, pivots = torch.linalg.lu_factor_ex(A)[:2]
            X = torch.linalg.lu_solve(LU, pivots, B)
            """,
        ),
        # `_` is read nowhere: the unpacking becomes `X = ...`.
        Invalid(
            """
            import torch
            X, _ = torch.triangular_solve(B, A, upper=False)
            """,
            """
            import torch
            X = torch.linalg.solve_triangular(A, B, upper=False)
            """,
        ),
        # The copy of A the second result held (in another layout) is used, `_` is read, and
        # reordering `load()` would move its effects.
        Invalid(
            """
            import torch
            X, copy = torch.triangular_solve(B, A)
            Y, _ = torch.triangular_solve(B, A)
            print(_)
            Z = torch.triangular_solve(load(), A).solution
            n = torch.norm(A, p="nuc")
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch
            e = torch.eig(A)
            """,
            fixed=None,
            message="complex",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = self._legacy(node)
        if found is None:
            return
        api, bound = found
        if self._defines_legacy_method(api, bound):
            return
        verb = "was removed" if api.removed is not None else "is deprecated"
        message = f"`{self.context.code_for(node.func)}` {verb} in favour of `torch.linalg`: {api.replacement} ({api.status})"
        self.report(node, message, self._fix(node, api, bound))

    def _defines_legacy_method(self, api: LegacyLinalg, bound: Optional[dict[str, cst.BaseExpression]]) -> bool:
        """`def norm(self, ...): return torch.norm(self, ...)` in a class: the definition of the
        legacy tensor method itself (torch's `Tensor.norm`), not a use of it."""
        function = self.context.enclosing_function()
        if function is None or function.name.value != api.name or self.context.enclosing_class() is None:
            return False
        receiver = function.params.params[0].name.value if function.params.params else None
        first = next(iter(bound.values()), None) if bound else None
        return isinstance(first, cst.Name) and first.value == receiver

    def _legacy(self, node: cst.Call) -> Optional[tuple[LegacyLinalg, Optional[dict[str, cst.BaseExpression]]]]:
        name = _QUALIFIED.get(self.context.qualified_name(node.func) or "")
        if name is not None:
            api = LEGACY_LINALG[name]
            return api, bind_arguments(node, api.parameters)
        func = node.func
        if not isinstance(func, cst.Attribute) or self.context.qualified_name(func) is not None:
            return None
        api = LEGACY_LINALG.get(func.attr.value)
        if api is None or not api.method or not self.context.is_tensor(func.value):
            return None
        return api, bind_arguments(node, api.parameters, receiver=func.value)

    # ---- fixes ---------------------------------------------------------------------------------

    def _fix(self, node: cst.Call, api: LegacyLinalg, bound: Optional[dict[str, cst.BaseExpression]]) -> Optional[FixPlan]:
        found = torch_alias(self.context)
        if found is None:
            return None
        self._torch, imports = found
        self._needs = api.replacement_since
        if api.name == "chain_matmul":
            built = self._chain_matmul(node)
        elif bound is None or "input" not in bound and "A" not in bound:
            return None
        else:
            built = getattr(self, f"_{api.name}")(node, bound)
        if built is None:
            return None
        target, text, applicability, others = built
        changes: tuple[Change, ...] = (*imports, self._change(target, text), *others)
        title = f"Replace with `{snippet(text.strip().splitlines()[0], 70)}`"
        return FixPlan(applicability, title, changes, self._needs)

    def _also_needs(self, release: str) -> None:
        """The fix writes something newer than the `torch.linalg` function (`.mH`, a keyword)."""
        if self._needs is None or newer_than(release, self._needs):
            self._needs = release

    def _change(self, target: cst.CSTNode, text: str) -> Change:
        if isinstance(target, cst.SimpleStatementLine):
            return ReplaceLines(target, target, text)
        return Replace(target, text)

    def _code(self, node: cst.BaseExpression) -> str:
        return self.context.code_for(node)

    def _use(self, node: cst.Call) -> Optional[ResultUse]:
        parent = self.context.parent()
        if isinstance(parent, cst.Subscript) and parent.value is node and len(parent.slice) == 1:
            index = parent.slice[0].slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and not index.value.lpar:
                return ResultUse(parent, index=int(index.value.value, 0))
            return None
        if isinstance(parent, cst.Attribute) and parent.value is node:
            return ResultUse(parent, field=parent.attr.value)
        line = self.context.parent(2)
        if isinstance(parent, cst.Assign) and parent.value is node and isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            targets = parent.targets[0].target if len(parent.targets) == 1 else None
            if isinstance(targets, (cst.Tuple, cst.List)) and all(
                isinstance(element.value, cst.Name) and isinstance(element, cst.Element) for element in targets.elements
            ):
                names = tuple(element.value.value for element in targets.elements)
                return ResultUse(line, targets=names, target=targets)
        return None

    def _first(self, node: cst.Call, field: str) -> Optional[tuple[cst.CSTNode, tuple[Change, ...]]]:
        """What to replace when only the first result is used: `call[0]` / `call.<field>`, or the
        call of `X, _ = call` (the target becoming `X`) when nothing in the module reads `_`."""
        use = self._use(node)
        if use is not None and (use.index == 0 or use.field == field):
            return use.node, ()
        if use is not None and len(use.targets) == 2 and use.targets[1] == "_" and is_never_read(self.context.module, "_"):
            return node, (Replace(use.target, use.targets[0]),)
        return None

    def _solve(self, node: cst.Call, bound: dict) -> Built:
        first = self._first(node, "solution")
        if first is None or not _reorderable(bound, "input", "A"):
            return None
        text = f"{self._torch}.linalg.solve({self._code(bound['A'])}, {self._code(bound['input'])})"
        return first[0], text, Applicability.SAFE, first[1]

    def _lstsq(self, node: cst.Call, bound: dict) -> Built:
        first = self._first(node, "solution")
        if first is None or not _reorderable(bound, "input", "A"):
            return None
        text = f"{self._torch}.linalg.lstsq({self._code(bound['A'])}, {self._code(bound['input'])}).solution"
        return first[0], text, Applicability.UNSAFE, first[1]

    def _symeig(self, node: cst.Call, bound: dict) -> Built:
        vectors = _flag(self, bound.get("eigenvectors"), False)
        upper = _flag(self, bound.get("upper"), True)
        if upper is True or upper is False:
            uplo = '"U"' if upper else '"L"'
        else:
            uplo = f'"U" if {upper} else "L"'
        matrix = self._code(bound["input"])
        if vectors is True:
            return node, f"{self._torch}.linalg.eigh({matrix}, UPLO={uplo})", Applicability.UNSAFE, ()
        first = self._first(node, "eigenvalues") if vectors is False else None
        if first is None:
            return None  # the eigenvectors read: 1.x returned an empty tensor, eigh returns them
        return first[0], f"{self._torch}.linalg.eigvalsh({matrix}, UPLO={uplo})", Applicability.UNSAFE, first[1]

    def _eig(self, node: cst.Call, bound: dict) -> Built:
        return None  # complex results: the code that reads the real (n, 2) layout needs rewriting

    def _matrix_rank(self, node: cst.Call, bound: dict) -> Built:
        if "tol" in bound:
            return None
        symmetric = bound.get("symmetric")
        hermitian = "" if symmetric is None or is_bool_literal(symmetric, False) else f", hermitian={self._code(symmetric)}"
        return node, f"{self._torch}.linalg.matrix_rank({self._code(bound['input'])}{hermitian})", Applicability.SAFE, ()

    def _qr(self, node: cst.Call, bound: dict) -> Built:
        some = _flag(self, bound.get("some"), True)
        if some is True:
            mode = ""
        elif some is False:
            mode = ', mode="complete"'
        else:
            mode = f', mode="reduced" if {some} else "complete"'
        return node, f"{self._torch}.linalg.qr({self._code(bound['input'])}{mode})", Applicability.SAFE, ()

    def _cholesky(self, node: cst.Call, bound: dict) -> Built:
        upper = _flag(self, bound.get("upper"), False)
        keyword = "" if upper is False else f", upper={upper}"
        if keyword:
            self._also_needs(CHOLESKY_UPPER_SINCE)
        return node, f"{self._torch}.linalg.cholesky({self._code(bound['input'])}{keyword})", Applicability.SAFE, ()

    def _chain_matmul(self, node: cst.Call) -> Built:
        keywords = [arg for arg in node.args if arg.keyword is not None]
        if any(arg.star for arg in node.args) or any(arg.keyword.value != "out" for arg in keywords) or len(keywords) > 1:
            return None
        matrices = [self._code(arg.value) for arg in node.args if arg.keyword is None]
        if not matrices or len(matrices) == 1 and keywords:
            return None  # chain_matmul(m, out=o) copies m into o; multi_dot([m], out=o) raises
        if len(matrices) == 1:
            self._needs = None  # a copy, in any torch
            return node, self._code(parenthesized(node.args[0].value)) + ".clone()", Applicability.SAFE, ()
        # chain_matmul with two or more matrices calls multi_dot, into `out` as well (measured bitwise).
        out = f", out={self._code(keywords[0].value)}" if keywords else ""
        return node, f"{self._torch}.linalg.multi_dot([{', '.join(matrices)}]{out})", Applicability.SAFE, ()

    def _triangular_solve(self, node: cst.Call, bound: dict) -> Built:
        first = self._first(node, "solution")
        upper = _flag(self, bound.get("upper"), True)
        transpose = _flag(self, bound.get("transpose"), False)
        if first is None or not _reorderable(bound, "input", "A") or transpose not in (True, False):
            return None
        matrix = self._code(bound["A"])
        if transpose is True:
            # Solving with Aᵀ: the transposed matrix has its nonzeros in the other triangle.
            matrix = self._code(parenthesized(bound["A"])) + ".mT"
            self._also_needs(MATRIX_TRANSPOSE_SINCE)
            upper = (not upper) if isinstance(upper, bool) else f"not {upper}"
        unit = bound.get("unitriangular")
        unitriangular = "" if unit is None or is_bool_literal(unit, False) else f", unitriangular={self._code(unit)}"
        text = f"{self._torch}.linalg.solve_triangular({matrix}, {self._code(bound['input'])}, upper={upper}{unitriangular})"
        return first[0], text, Applicability.SAFE, first[1]

    def _lu(self, node: cst.Call, bound: dict) -> Built:
        infos = _flag(self, bound.get("get_infos"), False)
        if infos not in (True, False):
            return None
        pivot = bound.get("pivot")
        keyword = "" if pivot is None or is_bool_literal(pivot, True) else f", pivot={self._code(pivot)}"
        # Not `lu_factor`: it raises for a singular matrix, whose factors torch.lu returns (measured).
        first_two = "" if infos else "[:2]"
        return node, f"{self._torch}.linalg.lu_factor_ex({self._code(bound['A'])}{keyword}){first_two}", Applicability.SAFE, ()

    def _lu_solve(self, node: cst.Call, bound: dict) -> Built:
        if not _reorderable(bound, "input", "LU_data", "LU_pivots"):
            return None
        arguments = ", ".join(self._code(bound[name]) for name in ("LU_data", "LU_pivots", "input"))
        return node, f"{self._torch}.linalg.lu_solve({arguments})", Applicability.SAFE, ()

    def _svd(self, node: cst.Call, bound: dict) -> Built:
        some = _flag(self, bound.get("some"), True)
        if _flag(self, bound.get("compute_uv"), True) is not True:
            return None  # 1.x filled U and V with zeros
        full = (not some) if isinstance(some, bool) else f"not {some}"
        call = f"{self._torch}.linalg.svd({self._code(bound['input'])}, full_matrices={full})"
        use = self._use(node)
        if use is None:
            return None
        fields = ("U", "S", "Vh.mH")
        if use.index == 2 or use.field == "V" or (len(use.targets) == 3 and use.targets[2] != "_"):
            self._also_needs(MATRIX_TRANSPOSE_SINCE)
        if use.index is not None and 0 <= use.index < 3:
            return use.node, f"{call}.{fields[use.index]}", Applicability.SAFE, ()
        if use.field in ("U", "S", "V"):
            return use.node, f"{call}.{fields['USV'.index(use.field)]}", Applicability.SAFE, ()
        if len(use.targets) == 3 and isinstance(use.node, cst.SimpleStatementLine):
            indent = indentation(self.context, self.context.stack[: self._line_index()])
            newline = self.context.module.default_newline
            comment = use.node.trailing_whitespace.comment
            kept = f"  {comment.value}" if comment is not None else ""
            lines = f"{indent}{', '.join(use.targets)} = {call}{kept}{newline}"
            if use.targets[2] != "_":
                lines += f"{indent}{use.targets[2]} = {use.targets[2]}.mH{newline}"
            return use.node, lines, Applicability.SAFE, ()
        return None

    def _line_index(self) -> int:
        found = enclosing_line(self.context.stack)
        return found[1] if found is not None else 0

    def _norm(self, node: cst.Call, bound: dict) -> Built:
        if "out" in bound:
            return None
        p = bound.get("p")
        parts = [self._code(bound["input"])]
        # `'fro'` (the default) is the flattened 2-norm over `dim`; over three or more dimensions
        # torch.norm raises (it calls matrix_norm), so any `dim` is exact or raised before.
        fro = p is None or isinstance(p, cst.SimpleString) and p.evaluated_value == "fro"
        if not fro and not (isinstance(p, cst.Name) and p.value == "None"):
            if not _numeric_literal(p):
                return None  # 'nuc', or a value known at run time only (a string there means a matrix norm)
            parts.append(self._code(p))
        for name in ("dim", "keepdim", "dtype"):
            if name in bound:
                parts.append(f"{name}={self._code(bound[name])}")
        return node, f"{self._torch}.linalg.vector_norm({', '.join(parts)})", Applicability.UNSAFE, ()


def _flag(rule: LegacyLinalgApi, node: Optional[cst.BaseExpression], default: bool) -> Flag:
    """The literal value of a boolean flag (its default when absent), else its source."""
    if node is None:
        return default
    if is_bool_literal(node, True):
        return True
    if is_bool_literal(node, False):
        return False
    # Parenthesized unless atomic: it is written after `not` and in a conditional expression.
    return rule.context.code_for(parenthesized(node))


def _reorderable(bound: dict, *names: str) -> bool:
    """The arguments can change places: all present and evaluated without effects."""
    return all(name in bound and evaluates_without_effects(bound[name]) for name in names)


def _numeric_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _numeric_literal(node.expression)
    # float("inf") / float("-inf")
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "float"
        and len(node.args) == 1
        and isinstance(node.args[0].value, cst.SimpleString)
        and node.args[0].value.evaluated_value.strip().lower() in ("inf", "-inf", "+inf")
    )
