"""Deprecated public APIs of torch's core: tensors, `torch.*` functions, `torch.nn`, autograd, optim, testing, confirmed under
torch 2.13 by bench/deprecations/probe.py (one record each in bench/deprecations/catalog_core.py)."""

from __future__ import annotations

from gradlint.analysis.torch_api.deprecations.record import Deprecated

_TYPED_STORAGE = "torch.UntypedStorage"
_NOT_THE_SAME_STORAGE = "an untyped storage holds bytes: indexing, length and `tolist()` read bytes, not elements"
_PROFILER_RESULTS = "the profiler's results are read through other objects"


def _autocast_state(device: str, new: str, leading: str) -> Deprecated:
    # The device-specific bindings read and write the same state as the generic ones given the
    # device (torch/csrc/autograd/init.cpp); the probe compares both under torch 2.13.
    return Deprecated("2.4", f"torch.{new}({leading}, ...)", new=f"torch.{new}", leading=(leading,), needs_torch="2.4")


_AUTOCAST_STATE = {
    f"torch.{verb}_autocast_{device}_{what}": _autocast_state(device_name, f"{verb}_autocast_{what}", f'"{device_name}"')
    for device, device_name in (("cpu", "cpu"), ("gpu", "cuda"), ("ipu", "ipu"), ("xla", "xla"))
    for verb, what in (("is", "enabled"), ("get", "dtype"), ("set", "enabled"), ("set", "dtype"))
    if not (device == "gpu" and (verb, what) in (("is", "enabled"), ("set", "enabled")))
}

_BACKEND_FLAGS = {
    "torch.has_cuda": "torch.backends.cuda.is_built()",
    "torch.has_cudnn": "torch.backends.cudnn.is_available()",
    "torch.has_mkldnn": "torch.backends.mkldnn.is_available()",
    "torch.has_mps": "torch.backends.mps.is_built()",
}

_STORAGES = ("Float", "Double", "Long", "Int", "Byte", "Half", "Bool")

# Dotted names of functions, classes, attributes and modules: "torch.cuda.amp.GradScaler".
CALLABLES: dict[str, Deprecated] = {
    **_AUTOCAST_STATE,
    # `torch.__getattr__` returns the call's value for each (torch/__init__.py `_deprecated_attrs`).
    **{
        name: Deprecated("2.1", call, new=call.removesuffix("()"), read_as_call=True, needs_torch="1.13")
        for name, call in _BACKEND_FLAGS.items()
    },
    "torch.set_vital": Deprecated("2.1", why_no_fix="it does nothing: remove the call"),
    "torch.potri": Deprecated(
        "1.0", "torch.cholesky_inverse(U, upper=True)", removed="1.2", why_no_fix="renamed with a new default (`upper`)"
    ),
    "torch.btriunpack": Deprecated(
        "1.0", "torch.lu_unpack(LU, pivots)", removed="1.3", why_no_fix="removed: check the unpacked factors' layout"
    ),
    "torch.pstrf": Deprecated("1.0", "torch.linalg.cholesky", removed="1.2", why_no_fix="no pivoted replacement"),
    "torch.set_deterministic": Deprecated(
        "1.8",
        "torch.use_deterministic_algorithms(mode)",
        removed="1.10",
        why_no_fix="the replacement also raises on nondeterministic ops it did not cover",
    ),
    "torch.is_deterministic": Deprecated(
        "1.8", "torch.are_deterministic_algorithms_enabled()", removed="1.10", why_no_fix="renamed together with `set_deterministic`"
    ),
    **{f"torch.{kind}Storage": Deprecated("2.0", _TYPED_STORAGE, why_no_fix=_NOT_THE_SAME_STORAGE) for kind in _STORAGES},
    "torch.TypedStorage": Deprecated("2.0", _TYPED_STORAGE, why_no_fix=_NOT_THE_SAME_STORAGE),
    "torch.sparse.FloatTensor": Deprecated(
        "1.0",
        "torch.sparse_coo_tensor(indices, values, size)",
        why_no_fix="the legacy constructor fixes the dtype; `sparse_coo_tensor` takes the values'",
    ),
    "torch.nn.Container": Deprecated(
        "0.4", "torch.nn.Module", why_no_fix="`Container(**modules)` registers its keyword arguments as children"
    ),
    "torch.nn.utils.weight_norm": Deprecated(
        "2.1",
        "torch.nn.utils.parametrizations.weight_norm",
        why_no_fix="the state-dict keys change (`weight_g`/`weight_v` become `parametrizations.weight.original0/1`)",
    ),
    "torch.nn.parallel.DistributedDataParallelCPU": Deprecated(
        "1.5", "torch.nn.parallel.DistributedDataParallel", why_no_fix="check the process group and device placement"
    ),
    "torch.autograd.gradcheck.get_numerical_jacobian": Deprecated(
        "1.9", "torch.autograd.functional.jacobian", why_no_fix="a private helper with another signature and result"
    ),
    "torch.autograd.gradcheck.get_analytical_jacobian": Deprecated(
        "1.9", "torch.autograd.functional.jacobian", why_no_fix="a private helper with another signature and result"
    ),
    "torch.autograd.profiler_legacy.profile": Deprecated("2.0", "torch.profiler.profile", why_no_fix=_PROFILER_RESULTS),
    "torch.testing.assert_allclose": Deprecated(
        "1.12", "torch.testing.assert_close", why_no_fix="`assert_close` checks dtypes and treats NaN as unequal by default"
    ),
    "torch.overrides.TorchFunctionMode.push": Deprecated("1.13", "with Mode():", why_no_fix="a context manager replaces the call"),
}
# (dotted callable, keyword): a keyword argument that is deprecated, "new" names its replacement keyword.
KEYWORDS: dict[tuple[str, str], Deprecated] = {
    ("torch.nn.Hardtanh", "min_value"): Deprecated("0.4", "min_val", new="min_val", needs_torch="0.4"),
    ("torch.nn.Hardtanh", "max_value"): Deprecated("0.4", "max_val", new="max_val", needs_torch="0.4"),
    ("torch.autograd.backward", "grad_variables"): Deprecated("0.4", "grad_tensors", new="grad_tensors", needs_torch="0.4"),
    # Both are read only to decide whether to warn (torch/autograd/__init__.py, torch/nn/functional.py).
    ("torch.autograd.grad", "only_inputs"): Deprecated("0.4", dropped=True),
    ("torch.nn.functional.gumbel_softmax", "eps"): Deprecated("1.2", dropped=True),
    # `verbose=False` printed nothing, so the call without it is the same; `verbose=True` printed
    # each new rate, which the call without it does not.
    ("torch.optim.lr_scheduler.StepLR", "verbose"): Deprecated(
        "2.2", "", removed="2.7", dropped_when=(False,), why_no_fix="`verbose=True` printed each new rate: print `get_last_lr()` instead"
    ),
    # `_Reduction.get_enum` maps "elementwise_mean" to "mean" (torch/nn/_reduction.py).
    ("torch.nn.functional.mse_loss", "reduction"): Deprecated(
        "0.4.1",
        values=("elementwise_mean",),
        new_value="mean",
        needs_torch="0.4.1",
        record="torch.nn.functional.mse_loss:reduction='elementwise_mean'",
    ),
    # One kernel computes both: the real layout is `view_as_real` of the complex result, strides
    # and autograd node included (fixtures/GL517_deprecated_api/test_runtime.py).
    ("torch.stft", "return_complex"): Deprecated(
        "1.8",
        "torch.view_as_real(torch.stft(..., return_complex=True))",
        values=(False,),
        new_value=True,
        wrapped_in="torch.view_as_real",
        needs_torch="1.8",
        record="torch.stft:return_complex",
    ),
    ("torch.autograd.profiler.profile", "use_cuda"): Deprecated(
        "2.4", "use_device", why_no_fix="a boolean becomes a device name (`use_cuda=False` means no device)"
    ),
}
# Tensor methods (the receiver must be a tensor): "resize" -> "new" names the replacement method.
METHODS: dict[str, Deprecated] = {
    # `ger` is an alias of `outer` (native_functions.yaml).
    "ger": Deprecated("1.7", ".outer(...)", new="outer", needs_torch="1.5"),
    "storage": Deprecated("2.0", ".untyped_storage()", why_no_fix=_NOT_THE_SAME_STORAGE),
    "storage_type": Deprecated("2.0", ".dtype", why_no_fix="a storage class becomes a dtype"),
    # Reported only on a tensor built in view: PIL images have a `resize` of their own.
    "resize": Deprecated(
        "0.4",
        ".reshape(...)` or `.resize_(...)",
        built_receiver=True,
        why_no_fix="`reshape` matches only when the element count is unchanged",
    ),
    # Only with a tensor `src`: a number `value` with `reduce=` is not deprecated.
    "scatter": Deprecated(
        "1.13",
        ".scatter_reduce(...)",
        given="reduce",
        tensor_argument=(2, "src"),
        built_receiver=True,
        form="`.scatter(..., reduce=)` with a tensor source",
        why_no_fix='`scatter_reduce` names the reductions "sum" and "prod"',
        record="torch.Tensor.scatter:reduce",
    ),
    "resize_as": Deprecated("0.4", ".reshape(other.shape)", why_no_fix="`reshape` matches only when the element count is unchanged"),
}
# Attributes and methods of torch objects other than dotted names, keyed `Class.member`: those of
# `torch.Tensor` on a value known to be a tensor, the others (names no other library uses) on any
# value of a file that imports torch and defines no member of that name itself.
MEMBERS: dict[str, Deprecated] = {
    "torch.Tensor.volatile": Deprecated(
        "0.4", "torch.is_grad_enabled()", built_receiver=True, why_no_fix="it is always False: the code it guards is dead"
    ),
    # `nn.Module.state_dict(*args, destination=None, prefix="", keep_vars=False)` binds the
    # positional arguments to those names in order.
    "torch.nn.Module.state_dict": Deprecated(
        "1.13",
        ".state_dict(destination=..., prefix=..., keep_vars=...)",
        new="state_dict",
        over_positional=0,
        positional=3,
        by_keyword=("destination", "prefix", "keep_vars"),
        form="`.state_dict(...)` with positional arguments",
        needs_torch="1.0",
    ),
    # The properties return the `device_*` ones (torch/autograd/profiler_util.py).
    **{
        f"torch.autograd.profiler_util.FunctionEvent.{old}": Deprecated(
            "2.4", f".{new}", new=new, elements_of="function_events", needs_torch="2.4"
        )
        for old, new in (
            ("cuda_time_total", "device_time_total"),
            ("self_cuda_time_total", "self_device_time_total"),
            ("self_cuda_memory_usage", "self_device_memory_usage"),
        )
    },
    "torch.autograd.function.FunctionCtx.mark_shared_storage": Deprecated(
        "0.4", why_no_fix="it only warns: tensors sharing storage are tracked, remove the call"
    ),
    # `sample_n(n)` returns `self.sample(torch.Size((n,)))` (torch/distributions/distribution.py),
    # which no distribution of torch overrides.
    "torch.distributions.Distribution.sample_n": Deprecated(
        "1.0",
        ".sample((n,))",
        new="sample",
        new_arguments="torch.Size(({},))",
        built_by="torch.distributions.",
        needs_torch="0.4",
    ),
    # torch calls it on the class either way (torch/csrc/utils/python_arg_parser.cpp); a call of
    # the method on an instance would pass the instance: no fix.
    "torch.Tensor.__torch_function__": Deprecated(
        "1.12",
        "@classmethod",
        plain_method=True,
        form="`__torch_function__` defined as a plain method",
        why_no_fix="a direct call on an instance would pass the class instead",
    ),
}
