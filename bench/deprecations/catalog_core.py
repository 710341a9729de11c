"""The deprecated and removed public APIs of torch's core (tensors, `torch.*`, `torch.nn`, autograd,
optim, testing, serialization, the functions `torch.linalg` and `torch.fft` replaced), each
confirmed under torch 2.13 by probe.py, and the scan sites of this area that are not deprecations
a user can hit through a public API (EXCLUDED).

`since` comes from the warning text when it names a release, else from the docstring's
`.. deprecated::` or the release notes (the `note` says which). Sources name the scan site
(bench/deprecations/scan.json); a C++ warning is named by its library and message.
"""

from __future__ import annotations

from bench.deprecations.records import Deprecation

CPU = "torch/lib/libtorch_cpu.so"
PYTHON = "torch/lib/libtorch_python.so"
REMOVED_LINALG = "removed with the pre-linalg functions (release notes 1.13); raises under 2.13"


def _linalg() -> list[Deprecation]:
    return [
        Deprecation(
            api="torch.qr",
            kind="function",
            call="result = torch.qr(A)",
            since="1.9",
            replacement="torch.linalg.qr(A)",
            replacement_call="result = torch.linalg.qr(A)",
            replacement_since="1.8",
            exact=True,
            note="torch.qr(A, some) calls at::linalg_qr(A, some ? 'reduced' : 'complete'); since: release notes 1.9",
            source=f"{CPU}: torch.qr is deprecated",
        ),
        Deprecation(
            api="torch.cholesky",
            kind="function",
            call="result = torch.cholesky(A)",
            since="1.9",
            replacement="torch.linalg.cholesky(A) (upper=True: torch.linalg.cholesky(A).mH)",
            replacement_call="result = torch.linalg.cholesky(A)",
            replacement_since="1.8",
            exact=True,
            note="lower factor by default in both; since: release notes 1.9",
            source=f"{CPU}: torch.cholesky is deprecated",
        ),
        Deprecation(
            api="torch.lu",
            kind="function",
            call="result = torch.lu(A)",
            since="1.13",
            replacement="torch.linalg.lu_factor(A)",
            replacement_call="result = torch.linalg.lu_factor(A)",
            replacement_since="1.13",
            exact=True,
            note="torch.lu calls torch._lu_with_info, which is linalg_lu_factor_ex; get_infos=True maps to lu_factor_ex",
            source=f"{CPU}: torch.lu is deprecated",
        ),
        Deprecation(
            api="torch.lu_solve",
            kind="function",
            call="LU, pivots = torch.linalg.lu_factor(A)\nresult = torch.lu_solve(B, LU, pivots)",
            since="1.13",
            replacement="torch.linalg.lu_solve(LU, pivots, B) (arguments reordered)",
            replacement_call="LU, pivots = torch.linalg.lu_factor(A)\nresult = torch.linalg.lu_solve(LU, pivots, B)",
            replacement_since="1.13",
            exact=True,
            note="lu_solve(b, LU, piv) calls at::linalg_lu_solve(LU, piv, b); the argument order changes, so no rename fix",
            source=f"{CPU}: torch.lu_solve is deprecated",
        ),
        Deprecation(
            api="torch.triangular_solve",
            kind="function",
            call="result = torch.triangular_solve(B, A.triu())",
            since="1.11",
            replacement="torch.linalg.solve_triangular(A, B, upper=True) (arguments swap; no copy of A returned)",
            replacement_call="result = (torch.linalg.solve_triangular(A.triu(), B, upper=True), A.triu())",
            replacement_since="1.11",
            exact=False,
            note="triangular_solve defaults to upper=True and returns (solution, copy of A); since: release notes 1.11",
            source=f"{CPU}: torch.triangular_solve is deprecated",
        ),
        Deprecation(
            api="torch.chain_matmul",
            kind="function",
            call="result = torch.chain_matmul(A, A, A)",
            since="1.9",
            replacement="torch.linalg.multi_dot([A, A, A])",
            replacement_call="result = torch.linalg.multi_dot([A, A, A])",
            replacement_since="1.9",
            exact=True,
            note="chain_matmul calls linalg_multi_dot for two or more matrices (one matrix: a copy); the tensors become a list",
            source=f"{CPU}: torch.chain_matmul is deprecated",
        ),
        Deprecation(
            api="torch.ger",
            kind="function",
            call="result = torch.ger(v, w)",
            since="1.7",
            replacement="torch.outer(v, w)",
            replacement_call="result = torch.outer(v, w)",
            replacement_since="1.5",
            exact=True,
            note="documented as deprecated (torch.ger docs: use torch.outer), the C++ warning no longer fires; ger is an alias of outer in native_functions.yaml",
            source=f"{CPU}: torch.ger is deprecated",
        ),
        Deprecation(
            api="torch.Tensor.ger",
            kind="method",
            call="result = v.ger(w)",
            since="1.7",
            replacement="v.outer(w)",
            replacement_call="result = v.outer(w)",
            replacement_since="1.5",
            exact=True,
            note="documented as deprecated (Tensor.ger docs), does not warn; alias of outer",
            source=f"{CPU}: torch.ger is deprecated",
        ),
        Deprecation(
            api="torch.cross",
            kind="default",
            keyword="dim",
            call="result = torch.cross(A, A.flip(0))",
            since="1.13",
            replacement="torch.cross(a, b, dim=<the first dimension of size 3>)",
            replacement_call="result = torch.cross(A, A.flip(0), dim=0)",
            replacement_since="1.0",
            exact=False,
            note="without dim torch picks the first dimension of size 3; exact only with that dim, which needs the shape (torch.linalg.cross uses -1)",
            source=f"{CPU}: Using torch.cross without specifying the dim arg is deprecated.",
        ),
        Deprecation(
            api="torch.norm",
            kind="function",
            call="result = torch.norm(x)",
            since="1.12",
            replacement="torch.linalg.vector_norm(x) / torch.linalg.matrix_norm(A)",
            replacement_call="result = torch.linalg.vector_norm(x)",
            replacement_since="1.10",
            exact=False,
            note="documented as deprecated in torch.norm's docstring (warning block), does not warn; the choice between vector and matrix norm depends on p and dim",
            source="torch/functional.py: norm docstring",
        ),
        Deprecation(
            api="torch.svd",
            kind="function",
            call="result = torch.svd(A)",
            since="1.9",
            replacement="torch.linalg.svd(A, full_matrices=False) (returns Vh, not V)",
            replacement_call="U, S, Vh = torch.linalg.svd(A, full_matrices=False)\nresult = (U, S, Vh.mH)",
            replacement_since="1.8",
            exact=False,
            note="documented as deprecated in torch.svd's docs (a note in _torch_docs.py), does not warn",
            source="torch/_torch_docs.py: svd",
        ),
        Deprecation(
            api="torch.range",
            kind="function",
            call="result = torch.range(1, 4)",
            since="0.4",
            replacement="torch.arange(start, end + step, step, dtype=torch.get_default_dtype())",
            replacement_call="result = torch.arange(1, 5, dtype=torch.get_default_dtype())",
            replacement_since="0.4",
            exact=True,
            note="exact with the computed end (start + count * step) and the default float dtype; a plain arange(a, b + 1) gives int64",
            source=f"{PYTHON}: torch.range is deprecated",
        ),
    ]


def _removed_linalg() -> list[Deprecation]:
    rows = [
        ("torch.solve", "result = torch.solve(B, A)", "1.9", "1.13", "torch.linalg.solve(A, B)", "result = torch.linalg.solve(A, B)"),
        (
            "torch.symeig",
            "result = torch.symeig(A, eigenvectors=True)",
            "1.9",
            "1.13",
            'torch.linalg.eigh(A, UPLO="U")',
            'result = torch.linalg.eigh(A, UPLO="U")',
        ),
        ("torch.eig", "result = torch.eig(A)", "1.9", "1.13", "torch.linalg.eig(A) (complex results)", "result = torch.linalg.eig(A)"),
        ("torch.lstsq", "result = torch.lstsq(B, A)", "1.9", "1.13", "torch.linalg.lstsq(A, B)", "result = torch.linalg.lstsq(A, B)"),
        (
            "torch.matrix_rank",
            "result = torch.matrix_rank(A)",
            "1.9",
            "1.13",
            "torch.linalg.matrix_rank(A)",
            "result = torch.linalg.matrix_rank(A)",
        ),
        ("torch.gesv", "result = torch.gesv(B, A)", "1.0", "1.2", "torch.linalg.solve(A, B)", "result = torch.linalg.solve(A, B)"),
        ("torch.potrf", "result = torch.potrf(A)", "1.0", "1.2", "torch.linalg.cholesky(A).mH", "result = torch.linalg.cholesky(A).mH"),
        (
            "torch.potrs",
            "result = torch.potrs(B, torch.linalg.cholesky(A).mH)",
            "1.0",
            "1.2",
            "torch.cholesky_solve(B, U, upper=True)",
            "result = torch.cholesky_solve(B, torch.linalg.cholesky(A).mH, upper=True)",
        ),
        (
            "torch.potri",
            "result = torch.potri(torch.linalg.cholesky(A).mH)",
            "1.0",
            "1.2",
            "torch.cholesky_inverse(U, upper=True)",
            "result = torch.cholesky_inverse(torch.linalg.cholesky(A).mH, upper=True)",
        ),
        (
            "torch.trtrs",
            "result = torch.trtrs(B, A.triu())",
            "1.0",
            "1.2",
            "torch.linalg.solve_triangular(A, B, upper=True)",
            "result = torch.linalg.solve_triangular(A.triu(), B, upper=True)",
        ),
        ("torch.gels", "result = torch.gels(B, A)", "1.0", "1.3", "torch.linalg.lstsq(A, B)", "result = torch.linalg.lstsq(A, B)"),
        (
            "torch.btrifact",
            "result = torch.btrifact(A.unsqueeze(0))",
            "1.0",
            "1.3",
            "torch.linalg.lu_factor(A)",
            "result = torch.linalg.lu_factor(A.unsqueeze(0))",
        ),
        (
            "torch.btrisolve",
            "LU, pivots = torch.linalg.lu_factor(A.unsqueeze(0))\nresult = torch.btrisolve(B.unsqueeze(0), LU, pivots)",
            "1.0",
            "1.3",
            "torch.linalg.lu_solve(LU, pivots, B)",
            "LU, pivots = torch.linalg.lu_factor(A.unsqueeze(0))\nresult = torch.linalg.lu_solve(LU, pivots, B.unsqueeze(0))",
        ),
        (
            "torch.btriunpack",
            "LU, pivots = torch.linalg.lu_factor(A.unsqueeze(0))\nresult = torch.btriunpack(LU, pivots)",
            "1.0",
            "1.3",
            "torch.lu_unpack(LU, pivots)",
            "LU, pivots = torch.linalg.lu_factor(A.unsqueeze(0))\nresult = torch.lu_unpack(LU, pivots)",
        ),
        ("torch.pstrf", "result = torch.pstrf(A)", "1.0", "1.2", "torch.linalg.cholesky (no pivoted variant)", None),
    ]
    return [
        Deprecation(
            api=api,
            kind="function",
            call=call,
            since=since,
            removed=removed,
            replacement=replacement,
            replacement_call=replacement_call,
            replacement_since="1.13" if "lu_" in (replacement or "") else "1.9",
            exact=api == "torch.matrix_rank",  # linalg.matrix_rank is the same function (api-migration-facts M40)
            note=REMOVED_LINALG
            if removed == "1.13"
            else "removed in the 1.2/1.3 linear-algebra renames (release notes); old code still calls it",
        )
        for api, call, since, removed, replacement, replacement_call in rows
    ]


def _removed() -> list[Deprecation]:
    fft = [
        Deprecation(
            api=f"torch.{name}",
            kind="function",
            call=call,
            since="1.7",
            removed="1.8",
            replacement=f"torch.fft.{modern} (complex results; torch.view_as_real gives the old layout)",
            replacement_call=modern_call,
            replacement_since="1.7",
            exact=False,
            note="the function torch.fft became the module torch.fft in 1.8 (release notes); normalisation and layout differ",
        )
        for name, call, modern, modern_call in [
            (
                "fft",
                "result = torch.fft(torch.stack([x, y], -1), 1)",
                "fft",
                "result = torch.view_as_real(torch.fft.fft(torch.complex(x, y)))",
            ),
            (
                "ifft",
                "result = torch.ifft(torch.stack([x, y], -1), 1)",
                "ifft",
                "result = torch.view_as_real(torch.fft.ifft(torch.complex(x, y)))",
            ),
            ("rfft", "result = torch.rfft(x, 1)", "rfft", "result = torch.view_as_real(torch.fft.rfft(x))"),
            ("irfft", "result = torch.irfft(torch.stack([x, y], -1), 1)", "irfft", "result = torch.fft.irfft(torch.complex(x, y))"),
        ]
    ]
    modules = [
        Deprecation(
            api=api,
            kind="module",
            call=f"import {api}\nresult = {api}",
            since="0.4",
            removed="1.0",
            replacement=replacement,
            note="removed by 1.0 (release notes); old code still imports it",
        )
        for api, replacement in [
            ("torch.legacy", "the torch.nn modules"),
            ("torch.utils.trainer", "a plain training loop"),
            ("torch.utils.ffi", "torch.utils.cpp_extension"),
        ]
    ]
    lua = [
        Deprecation(
            api="torch.utils.serialization.load_lua",
            kind="function",
            call="from torch.utils.serialization import load_lua\nresult = load_lua",
            since="0.4",
            removed="1.0",
            replacement="the torchfile package for Lua .t7 files",
            note="removed by 1.0 (release notes); torch.utils.serialization exists again as another module, without load_lua",
        ),
    ]
    six = [
        Deprecation(
            api="torch._six",
            kind="module",
            call="from torch._six import string_classes\nresult = string_classes",
            since="1.13",
            removed="2.0",
            replacement="str / (str, bytes), int, math.inf, collections.abc",
            replacement_call="result = (str, bytes)",
            replacement_since="1.0",
            exact=True,
            note="pytorch#94709 removed torch._six in 2.0; string_classes was (str, bytes) under Python 3",
        ),
    ]
    others = [
        Deprecation(
            api="torch.set_deterministic",
            kind="function",
            call="torch.set_deterministic(False)\nresult = None",
            since="1.8",
            removed="1.10",
            replacement="torch.use_deterministic_algorithms(mode)",
            replacement_call="torch.use_deterministic_algorithms(False)\nresult = None",
            replacement_since="1.8",
            exact=False,
            note="renamed in 1.8 (release notes), the old name removed later",
        ),
        Deprecation(
            api="torch.is_deterministic",
            kind="function",
            call="result = torch.is_deterministic()",
            since="1.8",
            removed="1.10",
            replacement="torch.are_deterministic_algorithms_enabled()",
            replacement_call="result = torch.are_deterministic_algorithms_enabled()",
            replacement_since="1.8",
            exact=False,
            note="renamed in 1.8 (release notes), the old name removed later",
        ),
        Deprecation(
            api="torch.Tensor.backward",
            kind="keyword",
            keyword="retain_variables",
            call="leaf = x.clone().requires_grad_()\n(leaf * 2).sum().backward(retain_variables=True)\nresult = leaf.grad",
            since="0.2",
            removed="0.4",
            replacement="retain_graph=True",
            replacement_call="leaf = x.clone().requires_grad_()\n(leaf * 2).sum().backward(retain_graph=True)\nresult = leaf.grad",
            replacement_since="0.2",
            exact=True,
            note="the keyword was renamed (release notes 0.2); it raises TypeError now",
        ),
        Deprecation(
            api="torch.autograd.Function",
            kind="class",
            call=("class Double(torch.autograd.Function):\n    def forward(self, t):\n        return t * 2\nresult = Double()(x)"),
            since="1.3",
            removed="1.5",
            replacement="@staticmethod forward(ctx, ...) and Function.apply(...)",
            replacement_call=(
                "class Double(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, t):\n"
                "        return t * 2\n"
                "    @staticmethod\n"
                "    def backward(ctx, grad):\n"
                "        return grad * 2\n"
                "result = Double.apply(x)"
            ),
            replacement_since="0.4",
            exact=True,
            note="a legacy (non-static) Function instance warns DeprecationWarning when built and raises RuntimeError when called; static methods and apply are its meaning when the instance holds no state",
            source="torch/autograd/function.py:549",
        ),
    ]
    return fft + modules + lua + six + others


def _overload(api: str, call: str, modern: str, since: str = "1.5") -> Deprecation:
    return Deprecation(
        api=api,
        kind="method" if api.startswith("torch.Tensor.") else "function",
        call=f"result = {call}",
        since=since,
        replacement=modern,
        replacement_call=f"result = {modern}",
        replacement_since="1.5",
        exact=True,
        note="the number-first signature is a deprecated overload (|deprecated in torch's signatures) of the same kernel; the number becomes alpha/beta/value",
        source=f"{PYTHON}: {api.rsplit('.', 1)[1]}(Scalar ...)|deprecated",
    )


def _overloads() -> list[Deprecation]:
    return [
        _overload("torch.Tensor.add", "x.add(2, y)", "x.add(y, alpha=2)"),
        _overload("torch.Tensor.add_", "x.clone().add_(2, y)", "x.clone().add_(y, alpha=2)"),
        _overload("torch.Tensor.sub", "x.sub(2, y)", "x.sub(y, alpha=2)"),
        _overload("torch.Tensor.sub_", "x.clone().sub_(2, y)", "x.clone().sub_(y, alpha=2)"),
        _overload("torch.add", "torch.add(x, 2, y)", "torch.add(x, y, alpha=2)"),
        _overload("torch.sub", "torch.sub(x, 2, y)", "torch.sub(x, y, alpha=2)"),
        _overload("torch.Tensor.addcmul", "x.addcmul(0.5, y, y)", "x.addcmul(y, y, value=0.5)"),
        _overload("torch.Tensor.addcmul_", "x.clone().addcmul_(0.5, y, y)", "x.clone().addcmul_(y, y, value=0.5)"),
        _overload("torch.addcmul", "torch.addcmul(x, 0.5, y, y)", "torch.addcmul(x, y, y, value=0.5)"),
        _overload("torch.Tensor.addcdiv", "x.addcdiv(0.5, y, y)", "x.addcdiv(y, y, value=0.5)"),
        _overload("torch.Tensor.addcdiv_", "x.clone().addcdiv_(0.5, y, y)", "x.clone().addcdiv_(y, y, value=0.5)"),
        _overload("torch.addcdiv", "torch.addcdiv(x, 0.5, y, y)", "torch.addcdiv(x, y, y, value=0.5)"),
        _overload("torch.Tensor.addmm", "x.addmm(0.5, A, y)", "x.addmm(A, y, beta=0.5)"),
        _overload("torch.Tensor.addmm_", "x.clone().addmm_(0.5, A, y)", "x.clone().addmm_(A, y, beta=0.5)"),
        _overload("torch.addmm", "torch.addmm(0.5, x, A, y)", "torch.addmm(x, A, y, beta=0.5)"),
        _overload("torch.Tensor.addmv", "v.addmv(0.5, A, w)", "v.addmv(A, w, beta=0.5)"),
        _overload("torch.addmv", "torch.addmv(0.5, v, A, w)", "torch.addmv(v, A, w, beta=0.5)"),
        _overload("torch.Tensor.addr", "A.addr(0.5, v, w)", "A.addr(v, w, beta=0.5)"),
        _overload("torch.addr", "torch.addr(0.5, A, v, w)", "torch.addr(A, v, w, beta=0.5)"),
        _overload("torch.Tensor.baddbmm", "seq.baddbmm(0.5, seq, torch.ones(2, 4, 4))", "seq.baddbmm(seq, torch.ones(2, 4, 4), beta=0.5)"),
        _overload(
            "torch.baddbmm", "torch.baddbmm(0.5, seq, seq, torch.ones(2, 4, 4))", "torch.baddbmm(seq, seq, torch.ones(2, 4, 4), beta=0.5)"
        ),
        _overload("torch.Tensor.addbmm", "x.addbmm(0.5, seq, torch.ones(2, 4, 4))", "x.addbmm(seq, torch.ones(2, 4, 4), beta=0.5)"),
        _overload("torch.addbmm", "torch.addbmm(0.5, x, seq, torch.ones(2, 4, 4))", "torch.addbmm(x, seq, torch.ones(2, 4, 4), beta=0.5)"),
    ]


def _tensors() -> list[Deprecation]:
    storage = "TypedStorage is deprecated since 2.0 (warning text); UntypedStorage holds bytes, so the values read differ"
    typed = [
        Deprecation(
            api=f"torch.{name}",
            kind="class",
            call=f"result = torch.{name}(3).fill_(1).tolist()",
            since="2.0",
            replacement="torch.UntypedStorage / a tensor",
            replacement_call=f"result = torch.ones(3, dtype=torch.{dtype}).tolist()",
            replacement_since="2.0",
            exact=False,
            note=storage,
            source=f"torch/storage.py:706, torch/__init__.py:{line}",
        )
        for name, dtype, line in [
            ("FloatStorage", "float32", 1971),
            ("DoubleStorage", "float64", 1960),
            ("LongStorage", "int64", 1993),
            ("IntStorage", "int32", 2004),
            ("ByteStorage", "uint8", 1949),
            ("HalfStorage", "float16", 1982),
            ("BoolStorage", "bool", 2037),
        ]
    ]
    return typed + [
        Deprecation(
            api="torch.TypedStorage",
            kind="class",
            call="result = torch.TypedStorage(3, dtype=torch.float32).fill_(1).tolist()",
            since="2.0",
            replacement="torch.UntypedStorage / a tensor",
            replacement_call="result = torch.ones(3).tolist()",
            replacement_since="2.0",
            exact=False,
            note=storage,
            source="torch/storage.py:798",
        ),
        Deprecation(
            api="torch.Tensor.storage",
            kind="method",
            call="result = v.storage().tolist()",
            since="2.0",
            replacement="x.untyped_storage()",
            replacement_call="result = list(v.untyped_storage())",
            replacement_since="2.0",
            exact=False,
            note=storage,
            source="torch/_tensor.py:305",
        ),
        Deprecation(
            api="torch.Tensor.storage_type",
            kind="method",
            call="result = v.storage_type()",
            since="2.0",
            replacement="x.dtype (storages are untyped)",
            replacement_call="result = v.dtype",
            replacement_since="2.0",
            exact=False,
            note=storage,
            source="torch/_tensor.py:1339",
        ),
        Deprecation(
            api="torch.Tensor.resize",
            kind="method",
            call="result = v.resize(3, 1)",
            since="0.4",
            replacement="x.reshape(4, 3) (same number of elements) or x.resize_(...)",
            replacement_call="result = v.reshape(3, 1)",
            replacement_since="0.4",
            exact=False,
            note="non-inplace resize warns; reshape only matches when the element count is unchanged",
            source="torch/_tensor.py:1031",
        ),
        Deprecation(
            api="torch.Tensor.resize_as",
            kind="method",
            call="result = v.resize_as(w)",
            since="0.4",
            replacement="x.reshape(y.shape) / x.resize_as_(y)",
            replacement_call="result = v.reshape(w.shape)",
            replacement_since="0.4",
            exact=False,
            note="non-inplace resize_as warns",
            source="torch/_tensor.py:1039",
        ),
        Deprecation(
            api="torch.Tensor.T",
            kind="attribute",
            call="result = seq.T",
            since="1.11",
            replacement="x.permute(*reversed(range(x.ndim))) (or x.mT for the last two dimensions)",
            replacement_call="result = seq.permute(2, 1, 0)",
            replacement_since="1.0",
            exact=True,
            note="deprecated on tensors that are not 2-D; x.T reverses the dimensions, so the permutation for the input's rank is exact (a fix needs the rank)",
            source=f"{CPU}: The use of `x.T` on tensors of dimension other than 2",
        ),
        Deprecation(
            api="torch.Tensor.__getitem__",
            kind="default",
            keyword="uint8 index",
            call="result = v[mask.to(torch.uint8)]",
            since="1.2",
            replacement="a bool mask: v[mask.bool()]",
            replacement_call="result = v[mask.to(torch.uint8).bool()]",
            replacement_since="1.2",
            exact=True,
            note="a uint8 index is read as a mask (deprecated 1.2, release notes)",
            source=f"{CPU}: indexing with dtype torch.uint8 is now deprecated",
        ),
        Deprecation(
            api="torch.where",
            kind="default",
            keyword="uint8 condition",
            call="result = torch.where(mask.to(torch.uint8), v, w)",
            since="1.2",
            replacement="a bool condition",
            replacement_call="result = torch.where(mask.to(torch.uint8).bool(), v, w)",
            replacement_since="1.2",
            exact=True,
            note="torch.where reads a uint8 condition as bool",
            source=f"{CPU}: where received a uint8 condition tensor",
        ),
        Deprecation(
            api="torch.Tensor.masked_scatter_",
            kind="default",
            keyword="uint8 mask",
            call="result = v.clone().masked_scatter_(mask.to(torch.uint8), w)",
            since="1.2",
            removed="2.0",
            replacement="a bool mask",
            replacement_call="result = v.clone().masked_scatter_(mask.to(torch.uint8).bool(), w)",
            replacement_since="1.2",
            exact=True,
            note="warns, then raises RuntimeError (only boolean masks); the bool mask is the meaning the uint8 mask had",
            source=f"{CPU}: masked_scatter_ received a mask with dtype torch.uint8",
        ),
        Deprecation(
            api="torch.Tensor.masked_fill",
            kind="default",
            keyword="uint8 mask",
            call="result = v.masked_fill(mask.to(torch.uint8), 0.0)",
            since="1.2",
            removed="2.0",
            replacement="a bool mask",
            replacement_call="result = v.masked_fill(mask.to(torch.uint8).bool(), 0.0)",
            replacement_since="1.2",
            exact=True,
            note="a uint8 mask warned from 1.2 and raises now (api-migration-facts M33); the bool mask is the meaning it had",
        ),
        Deprecation(
            api="torch.Tensor.scatter",
            kind="keyword",
            keyword="reduce",
            call='result = v.scatter(0, i, w, reduce="add")',
            since="1.13",
            replacement='v.scatter_reduce(0, i, w, reduce="sum")',
            replacement_call='result = v.scatter_reduce(0, i, w, reduce="sum")',
            replacement_since="1.12",
            exact=False,
            note='the reduce argument of scatter with a tensor src; "multiply" becomes "prod"',
            source=f"{CPU}: The reduce argument of torch.scatter with Tensor src is deprecated",
        ),
        Deprecation(
            api="torch.stft",
            kind="keyword",
            keyword="return_complex",
            call="signal = torch.linspace(-1.0, 1.0, 64)\nresult = torch.stft(signal, 16, window=torch.hann_window(16), return_complex=False)",
            since="1.8",
            replacement="torch.view_as_real(torch.stft(..., return_complex=True))",
            replacement_call="signal = torch.linspace(-1.0, 1.0, 64)\nresult = torch.view_as_real(torch.stft(signal, 16, window=torch.hann_window(16), return_complex=True))",
            replacement_since="1.8",
            exact=True,
            note="return_complex=False is view_as_real of the complex result (both computed by one kernel)",
            source=f"{CPU}: stft with return_complex=False is deprecated",
        ),
        Deprecation(
            api="torch.stft",
            kind="default",
            keyword="return_complex",
            call="signal = torch.linspace(-1.0, 1.0, 64)\nresult = torch.stft(signal, 16, window=torch.hann_window(16))",
            since="1.8",
            removed="2.0",
            replacement="return_complex=True (and torch.view_as_real for the old layout)",
            replacement_call="signal = torch.linspace(-1.0, 1.0, 64)\nresult = torch.view_as_real(torch.stft(signal, 16, window=torch.hann_window(16), return_complex=True))",
            replacement_since="1.8",
            exact=False,
            note="omitting return_complex for real input raises since 2.0 (api-migration-facts M58)",
        ),
        Deprecation(
            api="torch.meshgrid",
            kind="default",
            keyword="indexing",
            call="result = torch.meshgrid(v, w)",
            since="1.10",
            replacement='torch.meshgrid(v, w, indexing="ij")',
            replacement_call='result = torch.meshgrid(v, w, indexing="ij")',
            replacement_since="1.10",
            exact=True,
            note='"ij" is the current default',
            source="torch/functional.py: meshgrid",
        ),
        Deprecation(
            api="torch.set_default_tensor_type",
            kind="function",
            call="torch.set_default_tensor_type(torch.DoubleTensor)\nresult = torch.zeros(2)\ntorch.set_default_tensor_type(torch.FloatTensor)",
            since="2.1",
            replacement="torch.set_default_dtype(...) and torch.set_default_device(...)",
            replacement_call="torch.set_default_dtype(torch.float64)\nresult = torch.zeros(2)\ntorch.set_default_dtype(torch.float32)",
            replacement_since="2.0",
            exact=True,
            note="for a CPU tensor type the dtype is all it sets (a CUDA type also sets the device: then not exact)",
            source="torch/__init__.py:1305",
        ),
        Deprecation(
            api="torch.sparse.FloatTensor",
            kind="class",
            call="result = torch.sparse.FloatTensor(torch.tensor([[0, 2]]), torch.tensor([1.0, 2.0]), torch.Size([3])).to_dense()",
            since="1.0",
            replacement="torch.sparse_coo_tensor(indices, values, size)",
            replacement_call="result = torch.sparse_coo_tensor(torch.tensor([[0, 2]]), torch.tensor([1.0, 2.0]), (3,)).to_dense()",
            replacement_since="1.0",
            exact=False,
            note="the legacy constructor fixes the dtype (float32) where sparse_coo_tensor takes the values' dtype",
            source=f"{PYTHON}: torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated",
        ),
    ]


def _autocast_state() -> list[Deprecation]:
    rows = [
        ("is_autocast_cpu_enabled", "()", "is_autocast_enabled", '("cpu")'),
        ("get_autocast_cpu_dtype", "()", "get_autocast_dtype", '("cpu")'),
        ("set_autocast_cpu_enabled", "(False)", "set_autocast_enabled", '("cpu", False)'),
        ("set_autocast_cpu_dtype", "(torch.bfloat16)", "set_autocast_dtype", '("cpu", torch.bfloat16)'),
        ("get_autocast_gpu_dtype", "()", "get_autocast_dtype", '("cuda")'),
        ("set_autocast_gpu_dtype", "(torch.float16)", "set_autocast_dtype", '("cuda", torch.float16)'),
        ("is_autocast_ipu_enabled", "()", "is_autocast_enabled", '("ipu")'),
        ("get_autocast_ipu_dtype", "()", "get_autocast_dtype", '("ipu")'),
        ("set_autocast_ipu_enabled", "(False)", "set_autocast_enabled", '("ipu", False)'),
        ("set_autocast_ipu_dtype", "(torch.bfloat16)", "set_autocast_dtype", '("ipu", torch.bfloat16)'),
        ("is_autocast_xla_enabled", "()", "is_autocast_enabled", '("xla")'),
        ("get_autocast_xla_dtype", "()", "get_autocast_dtype", '("xla")'),
        ("set_autocast_xla_enabled", "(False)", "set_autocast_enabled", '("xla", False)'),
        ("set_autocast_xla_dtype", "(torch.bfloat16)", "set_autocast_dtype", '("xla", torch.bfloat16)'),
    ]
    return [
        Deprecation(
            api=f"torch.{old}",
            kind="function",
            call=f"result = torch.{old}{old_args}",
            since="2.4",
            replacement=f"torch.{new}{new_args}",
            replacement_call=f"result = torch.{new}{new_args}",
            replacement_since="2.4",
            exact=True,
            note="the device-specific binding reads/writes the same autocast state as the device-generic one with that device (torch/csrc/autograd/init.cpp); the setters set the current default, so the probe does not change it",
            source=f"{PYTHON}: torch.{old}(",
        )
        for old, old_args, new, new_args in rows
    ]


def _backends_flags() -> list[Deprecation]:
    return [
        Deprecation(
            api=f"torch.{name}",
            kind="attribute",
            call=f"result = torch.{name}",
            since="2.1",
            replacement=f"{replacement}()",
            replacement_call=f"result = {replacement}()",
            replacement_since="1.13",
            exact=True,
            note=f"torch.__getattr__ returns {replacement}() for it (torch/__init__.py _deprecated_attrs); an attribute becomes a call",
            source="torch/__init__.py:2946",
        )
        for name, replacement in [
            ("has_cuda", "torch.backends.cuda.is_built"),
            ("has_cudnn", "torch.backends.cudnn.is_available"),
            ("has_mkldnn", "torch.backends.mkldnn.is_available"),
            ("has_mps", "torch.backends.mps.is_built"),
        ]
    ] + [
        Deprecation(
            api="torch.set_vital",
            kind="function",
            call='result = torch.set_vital("Dataloader", "enabled", "True")',
            since="2.1",
            replacement="nothing (remove the call)",
            note="torch.__getattr__ returns a no-op for it",
            source="torch/__init__.py:2960",
        ),
    ]


def _init() -> list[Deprecation]:
    shapes = {"dirac": "torch.empty(2, 2, 3)", "sparse": "torch.empty(4, 3)"}
    arguments = {"constant": ", 0.3", "sparse": ", 0.5"}
    return [
        Deprecation(
            api=f"torch.nn.init.{name}",
            kind="function",
            call=f"t = {shapes.get(name, 'torch.empty(3, 4)')}\nresult = nn.init.{name}(t{arguments.get(name, '')})",
            since="0.4",
            replacement=f"nn.init.{name}_",
            replacement_call=f"t = {shapes.get(name, 'torch.empty(3, 4)')}\nresult = nn.init.{name}_(t{arguments.get(name, '')})",
            replacement_since="0.4",
            exact=True,
            note="torch/nn/init.py _make_deprecate wraps the in-place function",
            source="torch/nn/init.py:770",
        )
        for name in (
            "uniform normal constant xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse eye dirac"
        ).split()
    ]


def _nn() -> list[Deprecation]:
    return [
        Deprecation(
            api="torch.nn.utils.clip_grad_norm",
            kind="function",
            call="model(x).sum().backward()\nresult = nn.utils.clip_grad_norm(model.parameters(), 0.5)",
            since="0.4",
            replacement="nn.utils.clip_grad_norm_",
            replacement_call="model(x).sum().backward()\nresult = nn.utils.clip_grad_norm_(model.parameters(), 0.5)",
            replacement_since="0.4",
            exact=True,
            note="the deprecated function calls clip_grad_norm_",
            source="torch/nn/utils/clip_grad.py:235, torch/nn/utils/clip_grad.py:247",
        ),
        Deprecation(
            api="torch.nn.NLLLoss2d",
            kind="class",
            call="target = (img[:, 0] * 2.9).long()\nresult = nn.NLLLoss2d()(F.log_softmax(img, 1), target)",
            since="0.4",
            replacement="nn.NLLLoss",
            replacement_call="target = (img[:, 0] * 2.9).long()\nresult = nn.NLLLoss()(F.log_softmax(img, 1), target)",
            replacement_since="0.4",
            exact=True,
            note="NLLLoss2d subclasses NLLLoss without changes",
            source="torch/nn/modules/loss.py:269",
        ),
        Deprecation(
            api="torch.nn.functional.upsample",
            kind="function",
            call="result = F.upsample(img, scale_factor=2)",
            since="0.4.1",
            replacement="F.interpolate",
            replacement_call="result = F.interpolate(img, scale_factor=2)",
            replacement_since="0.4.1",
            exact=True,
            note="upsample forwards its arguments to interpolate",
            source="torch/nn/functional.py:4897, torch/nn/functional.py:4839",
        ),
        Deprecation(
            api="torch.nn.functional.upsample_nearest",
            kind="function",
            call="result = F.upsample_nearest(img, scale_factor=2)",
            since="0.4.1",
            replacement='F.interpolate(..., mode="nearest")',
            replacement_call='result = F.interpolate(img, scale_factor=2, mode="nearest")',
            replacement_since="0.4.1",
            exact=True,
            note="upsample_nearest calls interpolate with mode nearest",
            source="torch/nn/functional.py:5373, torch/nn/functional.py:5354",
        ),
        Deprecation(
            api="torch.nn.functional.upsample_bilinear",
            kind="function",
            call="result = F.upsample_bilinear(img, scale_factor=2)",
            since="0.4.1",
            replacement='F.interpolate(..., mode="bilinear", align_corners=True)',
            replacement_call='result = F.interpolate(img, scale_factor=2, mode="bilinear", align_corners=True)',
            replacement_since="0.4.1",
            exact=True,
            note="upsample_bilinear calls interpolate with mode bilinear and align_corners=True",
            source="torch/nn/functional.py:5445, torch/nn/functional.py:5426",
        ),
        Deprecation(
            api="torch.nn.UpsamplingNearest2d",
            kind="class",
            call="result = nn.UpsamplingNearest2d(scale_factor=2)(img)",
            since="0.4.1",
            replacement='nn.Upsample(scale_factor=2, mode="nearest")',
            replacement_call='result = nn.Upsample(scale_factor=2, mode="nearest")(img)',
            replacement_since="0.4.1",
            exact=True,
            note="documented as deprecated in its docstring (torch/nn/modules/upsampling.py); does not warn; a subclass of Upsample fixing the mode",
            source="torch/nn/modules/upsampling.py:202",
        ),
        Deprecation(
            api="torch.nn.UpsamplingBilinear2d",
            kind="class",
            call="result = nn.UpsamplingBilinear2d(scale_factor=2)(img)",
            since="0.4.1",
            replacement='nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)',
            replacement_call='result = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)(img)',
            replacement_since="0.4.1",
            exact=True,
            note="documented as deprecated in its docstring; does not warn; a subclass of Upsample fixing mode and align_corners",
            source="torch/nn/modules/upsampling.py:251",
        ),
        Deprecation(
            api="torch.nn.Container",
            kind="class",
            call="result = nn.Container(linear=nn.Linear(2, 2))",
            since="0.4",
            replacement="nn.Module (subclass it)",
            replacement_call='result = nn.Module()\nresult.add_module("linear", nn.Linear(2, 2))',
            replacement_since="0.4",
            exact=False,
            note="Container's functionality lives in Module",
            source="torch/nn/modules/container.py:47",
        ),
        Deprecation(
            api="torch.nn.utils.weight_norm",
            kind="function",
            call="result = nn.utils.weight_norm(nn.Linear(4, 2))",
            since="2.1",
            replacement="nn.utils.parametrizations.weight_norm",
            replacement_call="result = nn.utils.parametrizations.weight_norm(nn.Linear(4, 2))",
            replacement_since="1.13",
            exact=False,
            note="the state-dict keys change (weight_g/weight_v become parametrizations.weight.original0/1)",
            source="torch/nn/utils/weight_norm.py:32, torch/nn/utils/weight_norm.py:85",
        ),
        Deprecation(
            api="torch.nn.utils.stateless.functional_call",
            kind="function",
            call="result = torch.nn.utils.stateless.functional_call(model, dict(model.named_parameters()), (x,))",
            since="2.0",
            replacement="torch.func.functional_call",
            replacement_call="result = torch.func.functional_call(model, dict(model.named_parameters()), (x,))",
            replacement_since="2.0",
            exact=True,
            note="the same implementation; the second parameter is renamed and also takes a sequence of dicts",
            source="torch/nn/utils/stateless.py:159, torch/nn/utils/stateless.py:174",
        ),
        Deprecation(
            api="torch.nn.Module.register_backward_hook",
            kind="method",
            call="model.register_backward_hook(lambda module, grad_input, grad_output: None)\nresult = model(x).sum()\nresult.backward()",
            since="1.8",
            replacement="register_full_backward_hook",
            replacement_call="model.register_full_backward_hook(lambda module, grad_input, grad_output: None)\nresult = model(x).sum()\nresult.backward()",
            replacement_since="1.8",
            exact=False,
            note="documented as deprecated (Module.register_backward_hook docstring); warns only when the forward has several autograd nodes; grad_input differs",
            source="torch/nn/modules/module.py:1559, torch/nn/modules/module.py:1576, torch/nn/modules/module.py:1593, torch/nn/modules/module.py:1601, torch/nn/modules/module.py:1615",
        ),
        Deprecation(
            api="torch.nn.Module.state_dict",
            kind="method",
            call='result = list(model.state_dict(None, "net."))',
            since="1.13",
            replacement='keyword arguments: model.state_dict(prefix="net.")',
            replacement_call='result = list(model.state_dict(prefix="net."))',
            replacement_since="1.0",
            exact=True,
            note="positional destination/prefix/keep_vars are bound to the same parameters",
            source="torch/nn/modules/module.py:2241, torch/nn/modules/module.py:2195",
        ),
        Deprecation(
            api="torch.nn.Hardtanh",
            kind="keyword",
            keyword="min_value",
            call="result = nn.Hardtanh(min_value=-0.5)(x)",
            since="0.4",
            replacement="min_val",
            replacement_call="result = nn.Hardtanh(min_val=-0.5)(x)",
            replacement_since="0.4",
            exact=True,
            note="the keyword is renamed; Hardtanh copies min_value into min_val",
            source="torch/nn/modules/activation.py:268",
        ),
        Deprecation(
            api="torch.nn.Hardtanh",
            kind="keyword",
            keyword="max_value",
            call="result = nn.Hardtanh(max_value=0.5)(x)",
            since="0.4",
            replacement="max_val",
            replacement_call="result = nn.Hardtanh(max_val=0.5)(x)",
            replacement_since="0.4",
            exact=True,
            note="the keyword is renamed; Hardtanh copies max_value into max_val",
            source="torch/nn/modules/activation.py:275",
        ),
        Deprecation(
            api="torch.nn.functional.gumbel_softmax",
            kind="keyword",
            keyword="eps",
            call="result = F.gumbel_softmax(x, eps=1e-5)",
            since="1.2",
            replacement="drop eps (it has no effect)",
            replacement_call="result = F.gumbel_softmax(x)",
            replacement_since="1.0",
            exact=True,
            note="eps is ignored (torch/nn/functional.py gumbel_softmax); it warns when eps differs from its default 1e-10",
            source="torch/nn/functional.py:2264",
        ),
        Deprecation(
            api="torch.nn.functional.embedding_bag",
            kind="default",
            keyword="argument order",
            call="table = torch.linspace(0.0, 1.0, 20).reshape(5, 4)\nresult = F.embedding_bag(table, torch.tensor([0, 2, 4, 1]), torch.tensor([0, 2]))",
            since="0.4.1",
            replacement="F.embedding_bag(input, weight, ...)",
            replacement_call="table = torch.linspace(0.0, 1.0, 20).reshape(5, 4)\nresult = F.embedding_bag(torch.tensor([0, 2, 4, 1]), table, torch.tensor([0, 2]))",
            replacement_since="0.4.1",
            exact=True,
            note="embedding_bag swaps weight and input back when given in the old order",
            source="torch/nn/functional.py:2732",
        ),
        Deprecation(
            api="torch.nn.functional.grid_sample",
            kind="default",
            keyword="align_corners",
            call="grid = torch.zeros(2, 3, 3, 2)\nresult = F.grid_sample(img, grid)",
            since="1.3",
            replacement="align_corners=False (the current default) or True (the pre-1.3 meaning)",
            replacement_call="grid = torch.zeros(2, 3, 3, 2)\nresult = F.grid_sample(img, grid, align_corners=False)",
            replacement_since="1.3",
            exact=True,
            note="pinning the current default",
            source="torch/nn/functional.py: grid_sample",
        ),
        Deprecation(
            api="torch.nn.functional.affine_grid",
            kind="default",
            keyword="align_corners",
            call="theta = torch.eye(2, 3).expand(2, 2, 3)\nresult = F.affine_grid(theta, [2, 3, 4, 4])",
            since="1.3",
            replacement="align_corners=False",
            replacement_call="theta = torch.eye(2, 3).expand(2, 2, 3)\nresult = F.affine_grid(theta, [2, 3, 4, 4], align_corners=False)",
            replacement_since="1.3",
            exact=True,
            note="pinning the current default",
            source="torch/nn/functional.py: affine_grid",
        ),
        Deprecation(
            api="torch.nn.MultiheadAttention",
            kind="default",
            keyword="mismatched masks",
            call=(
                "attention = nn.MultiheadAttention(4, 1, batch_first=True).eval()\n"
                "padding = torch.tensor([[False, False, True], [False, False, False]])\n"
                "result = attention(seq, seq, seq, key_padding_mask=padding, attn_mask=torch.zeros(3, 3))[0]"
            ),
            since="2.0",
            replacement="masks of one type (both bool or both float)",
            replacement_call=(
                "attention = nn.MultiheadAttention(4, 1, batch_first=True).eval()\n"
                "padding = torch.tensor([[False, False, True], [False, False, False]])\n"
                'padding = torch.zeros(2, 3).masked_fill(padding, float("-inf"))\n'
                "result = attention(seq, seq, seq, key_padding_mask=padding, attn_mask=torch.zeros(3, 3))[0]"
            ),
            replacement_since="1.0",
            exact=False,
            note="a bool key_padding_mask with a float attn_mask",
            source="torch/nn/functional.py:6602",
        ),
        Deprecation(
            api="torch.nn.parallel.DistributedDataParallelCPU",
            kind="class",
            call="result = torch.nn.parallel.DistributedDataParallelCPU(model)",
            since="1.5",
            replacement="torch.nn.parallel.DistributedDataParallel",
            note="a deprecated alias of DistributedDataParallel (it needs a process group to be built)",
            source="torch/nn/parallel/__init__.py:21",
        ),
    ]


def _softmax() -> list[Deprecation]:
    functions = [
        Deprecation(
            api=f"torch.nn.functional.{name}",
            kind="default",
            keyword="dim",
            call=f"result = F.{name}(x)",
            since="0.3",
            replacement="an explicit dim (legacy: 0 for 0-, 1- and 3-D input, else 1)",
            replacement_call=f"result = F.{name}(x, dim=1)",
            replacement_since="0.3",
            exact=True,
            note="the legacy choice (dim 1 for 2-D input) written out is exact; a fix needs the input's rank",
            source="torch/nn/functional.py:2125",
        )
        for name in ("softmax", "log_softmax", "softmin")
    ]
    modules = [
        Deprecation(
            api=f"torch.nn.{name}",
            kind="default",
            keyword="dim",
            call=f"result = nn.{name}()(x)",
            since="0.3",
            replacement="an explicit dim",
            replacement_call=f"result = nn.{name}(dim=1)(x)",
            replacement_since="0.3",
            exact=False,
            note="exact only with the legacy choice for the input's rank",
            source="torch/nn/functional.py:2125",
        )
        for name in ("Softmax", "LogSoftmax", "Softmin")
    ]
    return functions + modules


def _losses() -> list[Deprecation]:
    def keyword_record(api: str, keyword: str, call: str, modern: str) -> Deprecation:
        return Deprecation(
            api=api,
            kind="keyword",
            keyword=keyword,
            call=f"result = {call}",
            since="0.4.1",
            replacement="reduction='sum' / 'none' / 'mean'",
            replacement_call=f"result = {modern}",
            replacement_since="0.4.1",
            exact=True,
            note="torch.nn._reduction.legacy_get_string maps the flags to the reduction the replacement names",
            source="torch/nn/_reduction.py: legacy_get_string",
        )

    target = "(x > 0).float()"
    return [
        keyword_record("torch.nn.MSELoss", "size_average", "nn.MSELoss(size_average=False)(x, y)", 'nn.MSELoss(reduction="sum")(x, y)'),
        keyword_record("torch.nn.MSELoss", "reduce", "nn.MSELoss(reduce=False)(x, y)", 'nn.MSELoss(reduction="none")(x, y)'),
        keyword_record("torch.nn.L1Loss", "size_average", "nn.L1Loss(size_average=False)(x, y)", 'nn.L1Loss(reduction="sum")(x, y)'),
        keyword_record(
            "torch.nn.CrossEntropyLoss",
            "size_average",
            "nn.CrossEntropyLoss(size_average=False)(x, i)",
            'nn.CrossEntropyLoss(reduction="sum")(x, i)',
        ),
        keyword_record(
            "torch.nn.CrossEntropyLoss", "reduce", "nn.CrossEntropyLoss(reduce=False)(x, i)", 'nn.CrossEntropyLoss(reduction="none")(x, i)'
        ),
        keyword_record("torch.nn.NLLLoss", "size_average", "nn.NLLLoss(size_average=False)(x, i)", 'nn.NLLLoss(reduction="sum")(x, i)'),
        keyword_record(
            "torch.nn.BCELoss",
            "reduce",
            f"nn.BCELoss(reduce=False)(torch.sigmoid(x), {target})",
            f'nn.BCELoss(reduction="none")(torch.sigmoid(x), {target})',
        ),
        keyword_record(
            "torch.nn.BCEWithLogitsLoss",
            "size_average",
            f"nn.BCEWithLogitsLoss(size_average=False)(x, {target})",
            f'nn.BCEWithLogitsLoss(reduction="sum")(x, {target})',
        ),
        keyword_record(
            "torch.nn.SmoothL1Loss", "size_average", "nn.SmoothL1Loss(size_average=False)(x, y)", 'nn.SmoothL1Loss(reduction="sum")(x, y)'
        ),
        keyword_record(
            "torch.nn.KLDivLoss",
            "size_average",
            "nn.KLDivLoss(size_average=False)(F.log_softmax(x, 1), F.softmax(y, 1))",
            'nn.KLDivLoss(reduction="sum")(F.log_softmax(x, 1), F.softmax(y, 1))',
        ),
        keyword_record(
            "torch.nn.functional.mse_loss", "size_average", "F.mse_loss(x, y, size_average=False)", 'F.mse_loss(x, y, reduction="sum")'
        ),
        keyword_record("torch.nn.functional.mse_loss", "reduce", "F.mse_loss(x, y, reduce=False)", 'F.mse_loss(x, y, reduction="none")'),
        keyword_record(
            "torch.nn.functional.l1_loss", "size_average", "F.l1_loss(x, y, size_average=False)", 'F.l1_loss(x, y, reduction="sum")'
        ),
        keyword_record(
            "torch.nn.functional.cross_entropy",
            "size_average",
            "F.cross_entropy(x, i, size_average=False)",
            'F.cross_entropy(x, i, reduction="sum")',
        ),
        keyword_record(
            "torch.nn.functional.cross_entropy", "reduce", "F.cross_entropy(x, i, reduce=False)", 'F.cross_entropy(x, i, reduction="none")'
        ),
        keyword_record(
            "torch.nn.functional.nll_loss", "size_average", "F.nll_loss(x, i, size_average=False)", 'F.nll_loss(x, i, reduction="sum")'
        ),
        keyword_record(
            "torch.nn.functional.binary_cross_entropy",
            "size_average",
            f"F.binary_cross_entropy(torch.sigmoid(x), {target}, size_average=False)",
            f'F.binary_cross_entropy(torch.sigmoid(x), {target}, reduction="sum")',
        ),
        keyword_record(
            "torch.nn.functional.binary_cross_entropy_with_logits",
            "reduce",
            f"F.binary_cross_entropy_with_logits(x, {target}, reduce=False)",
            f'F.binary_cross_entropy_with_logits(x, {target}, reduction="none")',
        ),
        keyword_record(
            "torch.nn.functional.smooth_l1_loss",
            "size_average",
            "F.smooth_l1_loss(x, y, size_average=False)",
            'F.smooth_l1_loss(x, y, reduction="sum")',
        ),
        keyword_record(
            "torch.nn.functional.kl_div",
            "size_average",
            "F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), size_average=False)",
            'F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction="sum")',
        ),
        Deprecation(
            api="torch.nn.functional.kl_div",
            kind="default",
            keyword="reduction",
            call="result = F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1))",
            since="0.4.1",
            replacement="reduction='batchmean' (the mathematical KL divergence); 'mean' keeps today's value",
            replacement_call='result = F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction="mean")',
            replacement_since="0.4.1",
            exact=False,
            note="the default 'mean' warns that it averages over elements, not batches",
            source="torch/nn/functional.py: kl_div",
        ),
        Deprecation(
            api="torch.nn.functional.mse_loss",
            kind="default",
            keyword="reduction='elementwise_mean'",
            call='result = F.mse_loss(x, y, reduction="elementwise_mean")',
            since="0.4.1",
            replacement="reduction='mean'",
            replacement_call='result = F.mse_loss(x, y, reduction="mean")',
            replacement_since="0.4.1",
            exact=True,
            note="get_enum maps elementwise_mean to mean",
            source="torch/nn/_reduction.py:13",
        ),
    ]


def _autograd() -> list[Deprecation]:
    square = (
        "class Square(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, t):\n"
        "        ctx.save_for_backward(t)\n"
        "        return t * t\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        (t,) = ctx.{saved}\n"
        "        return 2 * t * grad\n"
        "leaf = x.clone().requires_grad_()\n"
        "Square.apply(leaf).sum().backward()\n"
        "result = leaf.grad"
    )
    profiled = "with torch.autograd.profiler.profile() as prof:\n    torch.mm(A, A)\nevent = prof.function_events[0]\nresult = event.{name}"
    events = [
        Deprecation(
            api=f"torch.autograd.profiler_util.FunctionEvent.{old}",
            kind="attribute",
            call=profiled.format(name=old),
            since="2.4",
            replacement=new,
            replacement_call=profiled.format(name=new),
            replacement_since="2.4",
            exact=old != "metadata_json",
            note=f"{old} returns {new} (torch/autograd/profiler_util.py)"
            if old != "metadata_json"
            else "metadata_json is a JSON string, event_metadata a dict",
            source=f"torch/autograd/profiler_util.py:{line}",
        )
        for old, new, line in [
            ("cuda_time_total", "device_time_total", 943),
            ("self_cuda_time_total", "self_device_time_total", 972),
            ("self_cuda_memory_usage", "self_device_memory_usage", 894),
            ("cuda_time", "device_time", 532),
            ("metadata_json", "event_metadata", 886),
        ]
    ]
    return events + [
        Deprecation(
            api="torch.autograd.function.FunctionCtx.saved_variables",
            kind="attribute",
            call=square.format(saved="saved_variables"),
            since="0.4",
            replacement="ctx.saved_tensors",
            replacement_call=square.format(saved="saved_tensors"),
            replacement_since="0.4",
            exact=True,
            note="saved_variables returns saved_tensors (torch/csrc/autograd/python_function.cpp)",
            source=f"{PYTHON}: 'saved_variables' is deprecated; use 'saved_tensors'",
        ),
        Deprecation(
            api="torch.autograd.function.FunctionCtx.mark_shared_storage",
            kind="method",
            call=(
                "class Same(torch.autograd.Function):\n"
                "    @staticmethod\n"
                "    def forward(ctx, t):\n"
                "        ctx.mark_shared_storage((t, t))\n"
                "        return t * 1\n"
                "    @staticmethod\n"
                "    def backward(ctx, grad):\n"
                "        return grad\n"
                "result = Same.apply(x)"
            ),
            since="0.4",
            replacement="nothing (shared storages are tracked automatically)",
            note="the method only warns",
            source="torch/autograd/function.py:194",
        ),
        Deprecation(
            api="torch.autograd.backward",
            kind="keyword",
            keyword="grad_variables",
            call="leaf = x.clone().requires_grad_()\nout = leaf * 2\ntorch.autograd.backward([out], grad_variables=[torch.ones_like(out)])\nresult = leaf.grad",
            since="0.4",
            replacement="grad_tensors",
            replacement_call="leaf = x.clone().requires_grad_()\nout = leaf * 2\ntorch.autograd.backward([out], grad_tensors=[torch.ones_like(out)])\nresult = leaf.grad",
            replacement_since="0.4",
            exact=True,
            note="grad_variables is assigned to grad_tensors",
            source="torch/autograd/__init__.py:330",
        ),
        Deprecation(
            api="torch.autograd.grad",
            kind="keyword",
            keyword="only_inputs",
            call="leaf = x.clone().requires_grad_()\nresult = torch.autograd.grad((leaf * 2).sum(), leaf, only_inputs=False)",
            since="0.4",
            replacement="drop only_inputs (ignored, always True)",
            replacement_call="leaf = x.clone().requires_grad_()\nresult = torch.autograd.grad((leaf * 2).sum(), leaf)",
            replacement_since="0.4",
            exact=True,
            note="only_inputs is ignored; it warns when given False",
            source="torch/autograd/__init__.py:558",
        ),
        Deprecation(
            api="torch.autograd.Variable",
            kind="class",
            call="result = torch.autograd.Variable(x)",
            since="0.4",
            replacement="the tensor itself (x.detach() for a new leaf)",
            replacement_call="result = x.detach()",
            replacement_since="0.4",
            exact=True,
            note="documented as deprecated (docs/source/autograd.rst: Variable (deprecated)); does not warn",
            source="docs: autograd.rst Variable (deprecated)",
        ),
        Deprecation(
            api="torch.autograd.Variable",
            kind="keyword",
            keyword="volatile",
            call="result = torch.autograd.Variable(x, volatile=True)",
            since="0.4",
            replacement="with torch.no_grad():",
            replacement_call="with torch.no_grad():\n    result = x.detach()",
            replacement_since="0.4",
            exact=True,
            note="volatile has no effect in 2.13, so dropping it keeps today's behaviour; the no-grad meaning it had needs torch.no_grad()",
            source=f"{PYTHON}: volatile was removed",
        ),
        Deprecation(
            api="torch.Tensor.volatile",
            kind="attribute",
            call="result = x.volatile",
            since="0.4",
            replacement="torch.is_grad_enabled() / no_grad",
            replacement_call="result = False",
            replacement_since="0.4",
            exact=False,
            note="always False",
            source=f"{PYTHON}: volatile was removed",
        ),
        Deprecation(
            api="torch.autograd.gradcheck.get_numerical_jacobian",
            kind="function",
            call="from torch.autograd.gradcheck import get_numerical_jacobian\nresult = get_numerical_jacobian(torch.sin, (v.double(),))",
            since="1.9",
            replacement="torch.autograd.functional.jacobian",
            replacement_call="result = torch.autograd.functional.jacobian(torch.sin, (v.double(),))",
            replacement_since="1.5",
            exact=False,
            note="numerical vs analytical Jacobian",
            source="torch/autograd/gradcheck.py:314",
        ),
        Deprecation(
            api="torch.autograd.gradcheck.get_analytical_jacobian",
            kind="function",
            call="from torch.autograd.gradcheck import get_analytical_jacobian\nleaf = v.double().requires_grad_()\nresult = get_analytical_jacobian((leaf,), torch.sin(leaf))",
            since="1.9",
            replacement="torch.autograd.functional.jacobian",
            replacement_call="result = torch.autograd.functional.jacobian(torch.sin, (v.double(),))",
            replacement_since="1.5",
            exact=False,
            note="returns (jacobians, reentrant, correct_grad_sizes, correct_grad_types)",
            source="torch/autograd/gradcheck.py:846",
        ),
        Deprecation(
            api="torch.autograd.profiler.profile",
            kind="keyword",
            keyword="use_cuda",
            call="with torch.autograd.profiler.profile(use_cuda=True) as prof:\n    torch.mm(A, A)\nresult = len(prof.function_events) > 0",
            since="2.4",
            replacement="use_device='cuda'",
            replacement_call="with torch.autograd.profiler.profile() as prof:\n    torch.mm(A, A)\nresult = len(prof.function_events) > 0",
            replacement_since="2.1",
            exact=False,
            note="use_cuda=True means use_device='cuda' (it warns when True; without CUDA the profile then fails)",
            source="torch/autograd/profiler.py:237",
        ),
        Deprecation(
            api="torch.autograd.profiler_legacy.profile",
            kind="class",
            call="with torch.autograd.profiler_legacy.profile() as prof:\n    torch.mm(A, A)\nresult = len(prof.function_events) > 0",
            since="2.0",
            replacement="torch.profiler.profile",
            replacement_call="with torch.profiler.profile() as prof:\n    torch.mm(A, A)\nresult = len(prof.events()) > 0",
            replacement_since="1.8",
            exact=False,
            note="marked @deprecated(category=None) in torch/autograd/profiler_legacy.py: type checkers report it, no runtime warning",
            source="torch/autograd/profiler_legacy.py:28",
        ),
    ]


def _optim() -> list[Deprecation]:
    schedule = "scheduler = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)\nopt.step()\n"
    return [
        Deprecation(
            api="torch.optim.lr_scheduler.LRScheduler.step",
            kind="keyword",
            keyword="epoch",
            call=schedule + "scheduler.step(1)\nresult = scheduler.get_last_lr()",
            since="1.4",
            replacement="scheduler.step()",
            replacement_call=schedule + "scheduler.step()\nresult = scheduler.get_last_lr()",
            replacement_since="1.4",
            exact=False,
            note="an epoch uses the closed form when the scheduler has one; equal only when the epoch is the next one",
            source="torch/optim/lr_scheduler.py:281, torch/optim/lr_scheduler.py:239",
        ),
        Deprecation(
            api="torch.optim.lr_scheduler.ReduceLROnPlateau.step",
            kind="keyword",
            keyword="epoch",
            call="scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\nscheduler.step(1.0, 1)\nresult = scheduler.get_last_lr()",
            since="1.4",
            replacement="scheduler.step(metrics)",
            replacement_call="scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\nscheduler.step(1.0)\nresult = scheduler.get_last_lr()",
            replacement_since="1.4",
            exact=False,
            note="the epoch sets last_epoch",
            source="torch/optim/lr_scheduler.py:1703",
        ),
        Deprecation(
            api="torch.optim.lr_scheduler.LRScheduler.get_lr",
            kind="method",
            call=schedule + "scheduler.step()\nresult = scheduler.get_lr()",
            since="1.4",
            replacement="scheduler.get_last_lr()",
            replacement_call=schedule + "scheduler.step()\nresult = scheduler.get_last_lr()",
            replacement_since="1.4",
            exact=False,
            note="get_lr outside step computes the next chainable value, not the current one",
            source="torch/optim/lr_scheduler.py: _warn_get_lr_called_within_step",
        ),
        Deprecation(
            api="torch.optim.lr_scheduler.StepLR",
            kind="keyword",
            keyword="verbose",
            call="scheduler = torch.optim.lr_scheduler.StepLR(opt, 1, verbose=False)\nresult = scheduler.get_last_lr()",
            since="2.2",
            removed="2.7",
            replacement="drop verbose (print get_last_lr() yourself)",
            replacement_call="scheduler = torch.optim.lr_scheduler.StepLR(opt, 1)\nresult = scheduler.get_last_lr()",
            replacement_since="1.4",
            exact=True,
            note="deprecated in 2.2 (release notes), raises TypeError under 2.13; the removal release (2.7) is from the release notes, not checked here",
            source="torch/optim/lr_scheduler.py: verbose",
        ),
    ]


def _misc() -> list[Deprecation]:
    return [
        Deprecation(
            api="torch.testing.assert_allclose",
            kind="function",
            call="result = torch.testing.assert_allclose(x, x)",
            since="1.12",
            replacement="torch.testing.assert_close",
            replacement_call="result = torch.testing.assert_close(x, x)",
            replacement_since="1.9",
            exact=False,
            note="assert_close checks dtypes and treats NaN as unequal by default",
            source="torch/testing/_comparison.py:1634, torch/testing/_comparison.py:1648",
        ),
        Deprecation(
            api="torch.testing.make_tensor",
            kind="default",
            keyword="low==high",
            call='result = torch.testing.make_tensor((2,), dtype=torch.float32, device="cpu", low=1.0, high=1.0)',
            since="2.1",
            replacement="torch.full(shape, low)",
            replacement_call="result = torch.full((2,), 1.0)",
            replacement_since="1.0",
            exact=True,
            note="low == high gives a tensor filled with low",
            source="torch/testing/_creation.py:152, torch/testing/_creation.py:56",
        ),
        Deprecation(
            api="torch.load",
            kind="default",
            keyword="weights_only",
            call="import io\nbuffer = io.BytesIO()\ntorch.save(model, buffer)\nbuffer.seek(0)\nresult = torch.load(buffer)",
            since="2.4",
            replacement="weights_only=False for a trusted full pickle (or save the state_dict)",
            replacement_call="import io\nbuffer = io.BytesIO()\ntorch.save(model, buffer)\nbuffer.seek(0)\nresult = torch.load(buffer, weights_only=False)",
            replacement_since="1.13",
            exact=True,
            note="the default flipped to weights_only=True in 2.6: full-object pickles raise; weights_only=False is the old behaviour",
            source="torch/serialization.py: load",
        ),
        Deprecation(
            api="torch.distributions.Distribution.sample_n",
            kind="method",
            call="result = torch.distributions.Normal(0.0, 1.0).sample_n(3)",
            since="1.0",
            replacement="sample((n,))",
            replacement_call="result = torch.distributions.Normal(0.0, 1.0).sample((3,))",
            replacement_since="0.4",
            exact=True,
            note="sample_n(n) returns sample(torch.Size((n,)))",
            source="torch/distributions/distribution.py:183",
        ),
        Deprecation(
            api="torch.overrides.TorchFunctionMode.push",
            kind="method",
            call="result = torch.overrides.TorchFunctionMode.push()",
            since="1.13",
            replacement="with Mode():",
            note="push is no longer necessary",
            source="torch/overrides.py:2097",
        ),
        Deprecation(
            api="torch.Tensor.__torch_function__",
            kind="method",
            call=(
                "class Wrapper:\n"
                "    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
                "        return 1\n"
                "result = torch.add(Wrapper(), 1)"
            ),
            since="1.12",
            replacement="@classmethod def __torch_function__(cls, func, types, args=(), kwargs=None)",
            replacement_call=(
                "class Wrapper:\n"
                "    @classmethod\n"
                "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n"
                "        return 1\n"
                "result = torch.add(Wrapper(), 1)"
            ),
            replacement_since="1.7",
            exact=True,
            note="a plain-method __torch_function__ is called as if it were a classmethod",
            source="torch/overrides.py:1785",
        ),
    ]


RECORDS: list[Deprecation] = [
    *_linalg(),
    *_removed_linalg(),
    *_removed(),
    *_overloads(),
    *_tensors(),
    *_autocast_state(),
    *_backends_flags(),
    *_init(),
    *_nn(),
    *_softmax(),
    *_losses(),
    *_autograd(),
    *_optim(),
    *_misc(),
]

_STORAGE_METHOD = (
    "a method of TypedStorage: reached only through a typed storage, whose constructors and `Tensor.storage()` are the records"
)
_STORAGE_CLASS = "the dtype of a rarely used typed-storage class; the common ones (Float, Double, Long, Int, Byte, Half, Bool) and torch.TypedStorage are records"
_PRIVATE = "private name (leading underscore or a private module), not public API"

EXCLUDED: dict[str, str] = {
    **{
        f"torch/storage.py:{line}": _STORAGE_METHOD
        for line in (
            693,
            882,
            887,
            892,
            912,
            942,
            981,
            1029,
            1037,
            1049,
            1062,
            1075,
            1088,
            1105,
            1113,
            1117,
            1129,
            1133,
            1137,
            1141,
            1149,
            1154,
            1159,
            1164,
            1177,
            1190,
            1197,
            1223,
            1227,
            1237,
            1253,
            1261,
            1265,
            1281,
            1331,
            1336,
            1341,
            1346,
            1351,
            1356,
            1361,
            1366,
            1371,
            1376,
            1381,
            1386,
            1391,
            1396,
            1401,
            1406,
            1429,
            1455,
        )
    },
    **{f"torch/__init__.py:{line}": _STORAGE_CLASS for line in (2015, 2026, 2048, 2059, 2070, 2081, 2092, 2103, 2114, 2125)},
    "torch/_tensor.py:291": "the docstring of Tensor.storage, whose warning (torch/_tensor.py:305) is the record",
    "torch/__init__.py:1771": _PRIVATE,
    "torch/_prims_common/__init__.py:2020": _PRIVATE,
    "torch/_streambase.py:7": _PRIVATE,
    "torch/_streambase.py:15": _PRIVATE,
    "torch/_utils.py:966": _PRIVATE,
    "torch/_utils.py:979": _PRIVATE,
    "torch/_vmap_internals.py:202": _PRIVATE,
    "torch/autograd/_functions/tensor.py:13": _PRIVATE,
    "torch/hub.py:801": _PRIVATE + ": the fallback loader for pre-1.6 checkpoints inside torch.hub",
    "torch/nn/modules/conv.py:1410": _PRIVATE,
    "torch/nn/modules/rnn.py:40": "an internal helper of the RNN modules, not exported by torch.nn",
    "torch/nn/parallel/scatter_gather.py:13": "an internal helper of DataParallel, not exported by torch.nn.parallel",
    "torch/optim/optimizer.py:491": "an internal method of Optimizer (CUDA-graph capture check)",
    "torch/nested/_internal/sdpa.py:103": "not a deprecation: explains why a fused attention kernel is not used",
    "torch/nested/_internal/sdpa.py:129": "not a deprecation: explains why a fused attention kernel is not used",
    "torch/nested/_internal/sdpa.py:176": "not a deprecation: explains why a fused attention kernel is not used",
    "torch/nn/functional.py:1611": "warns on misuse (3-D input to dropout2d), not a deprecated API",
    "torch/nn/modules/module.py:2453": "not a deprecation: loading into meta parameters is a no-op",
    "torch/nn/modules/module.py:2958": "warns on misuse (zero_grad on a DataParallel replica), not a deprecated API",
    "torch/nn/parallel/_functions.py:96": "not a deprecation: gathering scalars unsqueezes them",
    "torch/nn/attention/flex_attention.py:2481": "not a deprecation: flex_attention without torch.compile is slow",
    "torch/nn/attention/flex_attention.py:1912": "a private keyword (`_compile`) of create_block_mask",
    "torch/nn/attention/flex_attention.py:2184": "return_lse of flex_attention: flex_attention needs torch.compile-sized inputs; its deprecation (2.9) post-dates the code gradlint targets",
    "torch/nn/attention/flex_attention.py:2408": "the same return_lse deprecation as flex_attention.py:2184",
    "torch/hub.py:439": "an environment variable (TORCH_HUB), not an API call a linter can see",
    "torch/hub.py:872": "an environment variable (TORCH_MODEL_ZOO), not an API call a linter can see",
    "torch/_utils.py:127": "`async=` is a SyntaxError since Python 3.7: only `**{'async': ...}` reaches this warning (GL501 reports the keyword)",
    "torch/nn/parallel/comm.py:251": "needs CUDA tensors to reach (comm.gather with destination=-1)",
    "torch/sparse/semi_structured.py:362": "needs CUDA (semi-structured sparsity) to reach",
    "torch/nn/parallel/distributed.py:963": "needs a process group (DistributedDataParallel's broadcast_buffers); distributed set-ups are the libs area's probes",
    "torch/nn/parallel/distributed.py:971": "needs a process group (DistributedDataParallel's broadcast_buffers)",
    "torch/nn/parallel/distributed.py:1004": "needs a process group (DistributedDataParallel's check_reduction)",
}
