"""Deprecated public APIs of torch's libraries: cuda, amp, backends, distributed, utils, jit, onnx, fx, export, quantization, functorch, confirmed under
torch 2.13 by bench/deprecations/probe.py (one record each in bench/deprecations/catalog_libs.py).

A row has an exact fix only where torch's own source shows the deprecated API forwarding every
argument to the replacement (the catalog's note quotes the body); `needs_torch` is the oldest
release with the replacement."""

from __future__ import annotations

from gradlint.analysis.torch_api.deprecations.record import Deprecated

_JIT = "2.5"
_JIT_REPLACEMENT = "torch.compile` or `torch.export"
_JIT_WHY = "TorchScript has no drop-in successor: `torch.compile` and `torch.export` trace Python differently"
_AO = "2.8"
# GL517 quotes a replacement whole: the text closes and reopens the quotes around its prose.
_AO_REPLACEMENT = "torchao.quantization.quantize_` or torchao's pt2e `prepare_pt2e`/`convert_pt2e"
_AO_WHY = "the replacement lives in the separate torchao package"
_QUANTIZED_WHY = "quantized (quint8) tensors are deprecated too: `interpolate` still warns"
_FUNCOL = "torch.distributed._functional_collectives"
_DIST_NN = "torch.distributed.nn.functional"
_DIST_NN_WHY = "the functional collectives take the reduce op and group explicitly and return async tensors"
# The `*_single` collectives: not in the 2.9 docs, the release that added them is not stated; 2.13
# is the oldest release the harvest ran.
_SINGLE = "2.13"


def _forwarded(since: str, new: str, needs_torch: str, **fields) -> Deprecated:
    """A deprecated name whose body calls `new` with the same arguments: an exact rename."""
    return Deprecated(since, new, new=new, needs_torch=needs_torch, **fields)


def _ao(*names: str) -> dict[str, Deprecated]:
    return {name: Deprecated(_AO, _AO_REPLACEMENT, why_no_fix=_AO_WHY, subsystem="quantization") for name in names}


def _jit(*names: str) -> dict[str, Deprecated]:
    return {f"torch.jit.{name}": Deprecated(_JIT, _JIT_REPLACEMENT, why_no_fix=_JIT_WHY, subsystem="TorchScript") for name in names}


# Dotted names of functions, classes, attributes and modules: "torch.cuda.amp.GradScaler".
CALLABLES: dict[str, Deprecated] = {
    # `_register_pytree_node` forwards to the same registration; its string functions have no counterpart.
    "torch.utils._pytree._register_pytree_node": Deprecated(
        "2.2",
        "torch.utils._pytree.register_pytree_node",
        new="torch.utils._pytree.register_pytree_node",
        positional=3,
        without=("to_str_fn", "maybe_from_str_fn"),
        needs_torch="2.2",
    ),
    "torch.utils._pytree._is_leaf": _forwarded("2.8", "torch.utils._pytree.tree_is_leaf", "2.8"),
    "torch.utils._pytree._is_namedtuple_instance": _forwarded("2.8", "torch.utils._pytree.is_namedtuple_instance", "2.8"),
    "torch.utils._pytree.pytree_to_str": _forwarded("2.2", "torch.utils._pytree.treespec_dumps", "2.2", positional=1),
    "torch.utils._pytree.str_to_pytree": _forwarded("2.2", "torch.utils._pytree.treespec_loads", "2.2", positional=1),
    "torch.utils._pytree.LeafSpec": Deprecated(
        "2.8",
        "torch.utils._pytree.treespec_leaf()",
        why_no_fix="`treespec_leaf()` returns one shared leaf spec where `LeafSpec()` made a new one: equal, of the same type, not the same object",
    ),
    # cuda memory: both call `reset_peak_memory_stats(device=device)`, which resets every peak statistic.
    "torch.cuda.reset_max_memory_allocated": _forwarded("1.4", "torch.cuda.reset_peak_memory_stats", "1.4"),
    "torch.cuda.reset_max_memory_cached": _forwarded("1.4", "torch.cuda.reset_peak_memory_stats", "1.4"),
    # torch.utils.data
    "torch.utils.data.backward_compatibility.worker_init_fn": Deprecated("1.13", why_no_fix="DataLoader shards DataPipes itself: drop it"),
    "torch.utils.data.graph_settings.apply_shuffle_seed": _forwarded("1.12", "torch.utils.data.graph_settings.apply_random_seed", "1.13"),
    "torch.utils.data.graph.traverse": Deprecated(
        "1.13", "torch.utils.data.graph.traverse_dps", why_no_fix="`traverse` also walks every attribute unless `only_datapipe=True`"
    ),
    "torch.utils.data.dataloader.numpy_type_map": Deprecated(
        "1.1", "torch.as_tensor` / `torch.from_numpy", removed="1.1", why_no_fix="collate code of its own to rewrite"
    ),
    "torch.utils.data.dataloader.DataLoaderIter": Deprecated(
        "1.1", "iter(loader)", removed="1.1", why_no_fix="a class to stop subclassing"
    ),
    "torch.utils.hipify.constants": Deprecated("2.0", why_no_fix="hipify 2.0 does not use it"),
    "torch.utils.hipify.hipify_python.is_pytorch_file": Deprecated("2.0", why_no_fix="hipify 2.0 does not classify files this way"),
    # torch.jit: TorchScript as a whole
    **_jit("script", "trace", "trace_module", "save", "load", "freeze", "optimize_for_inference", "fork", "wait"),
    **_jit("set_fusion_strategy", "interface", "script_method"),
    # documented as deprecated (2.5) without a warning
    **_jit("annotate", "script_if_tracing", "isinstance", "strict_fusion", "enable_onednn_fusion", "onednn_fusion_enabled"),
    "torch.jit.get_trace_graph": Deprecated(
        "1.3", "torch.jit.trace(model, args).graph", removed="1.4", why_no_fix="renamed to the private `torch.jit._get_trace_graph`"
    ),
    # torch.onnx
    "torch.onnx.dynamo_export": Deprecated(
        "2.6", "torch.onnx.export(..., dynamo=True)", removed="2.9", why_no_fix="`export` takes the arguments as one tuple"
    ),
    # helpers of the legacy TorchScript exporter, public in torch.onnx.utils
    **{
        f"torch.onnx.utils.{name}": Deprecated("2.7", why_no_fix="remove the call: nothing replaces it")
        for name in (
            "select_model_mode_for_export",
            "disable_apex_o2_state_dict_hook",
            "setup_onnx_logging",
            "exporter_context",
            "unconvertible_ops",
        )
    },
    # torch.distributed: the renamed collectives forward every argument unchanged.
    "torch.distributed.all_gather_into_tensor": _forwarded(_SINGLE, "torch.distributed.all_gather_single", _SINGLE),
    "torch.distributed.reduce_scatter_tensor": _forwarded(_SINGLE, "torch.distributed.reduce_scatter_single", _SINGLE),
    "torch.distributed._all_gather_base": Deprecated(
        "1.13", "torch.distributed.all_gather_single", why_no_fix="the private predecessor runs the collective itself"
    ),
    "torch.distributed._reduce_scatter_base": Deprecated(
        "1.13", "torch.distributed.reduce_scatter_single", why_no_fix="the private predecessor runs the collective itself"
    ),
    "torch.distributed.all_reduce_coalesced": Deprecated("2.4", "torch.distributed.all_reduce", why_no_fix="one call per tensor"),
    "torch.distributed.all_gather_coalesced": Deprecated("2.4", "torch.distributed.all_gather", why_no_fix="one call per tensor"),
    # `reduce_op`'s members are the very objects of `ReduceOp.RedOpType` (distributed_c10d.py `_reduce_op`),
    # which `ReduceOp` exposes under the same names; `reduce_op` itself is another object.
    "torch.distributed.reduce_op": Deprecated(
        "1.0",
        "torch.distributed.ReduceOp",
        new="torch.distributed.ReduceOp",
        members=("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"),
        needs_torch="1.0",
    ),
    "torch.distributed.distributed_c10d._get_global_rank": _forwarded("2.0", "torch.distributed.get_global_rank", "2.0"),
    f"{_FUNCOL}.all_gather_tensor": _forwarded(_SINGLE, f"{_FUNCOL}.all_gather_single", _SINGLE),
    f"{_FUNCOL}.all_gather_tensor_autograd": _forwarded(_SINGLE, f"{_FUNCOL}.all_gather_single_autograd", _SINGLE),
    f"{_FUNCOL}.reduce_scatter_tensor": _forwarded(_SINGLE, f"{_FUNCOL}.reduce_scatter_single", _SINGLE),
    f"{_FUNCOL}.reduce_scatter_tensor_autograd": _forwarded(_SINGLE, f"{_FUNCOL}.reduce_scatter_single_autograd", _SINGLE),
    f"{_FUNCOL}.all_gather_into_tensor_coalesced": _forwarded(_SINGLE, f"{_FUNCOL}.all_gather_single_coalesced", _SINGLE),
    f"{_FUNCOL}.reduce_scatter_tensor_coalesced": _forwarded(_SINGLE, f"{_FUNCOL}.reduce_scatter_single_coalesced", _SINGLE),
    f"{_DIST_NN}.all_reduce": Deprecated(_SINGLE, f"{_FUNCOL}.all_reduce", why_no_fix=_DIST_NN_WHY),
    f"{_DIST_NN}.all_gather": Deprecated(_SINGLE, f"{_FUNCOL}.all_gather_single", why_no_fix="returns one gathered tensor, not a tuple"),
    f"{_DIST_NN}.broadcast": Deprecated(_SINGLE, f"{_FUNCOL}.broadcast", why_no_fix=_DIST_NN_WHY),
    f"{_DIST_NN}.reduce_scatter": Deprecated(_SINGLE, f"{_FUNCOL}.reduce_scatter_single", why_no_fix="takes one input tensor, not a list"),
    f"{_DIST_NN}.all_to_all_single": Deprecated(_SINGLE, f"{_FUNCOL}.all_to_all_single", why_no_fix=_DIST_NN_WHY),
    "torch.distributed._shard.checkpoint": Deprecated("2.0", "torch.distributed.checkpoint", why_no_fix="a different checkpoint API"),
    "torch.distributed._sharding_spec": Deprecated("1.13", "torch.distributed._shard.sharding_spec", why_no_fix="imports to move"),
    "torch.distributed._sharded_tensor": Deprecated("1.13", "torch.distributed._shard.sharded_tensor", why_no_fix="imports to move"),
    "torch.distributed.checkpoint.save_state_dict": Deprecated(
        "2.2", "torch.distributed.checkpoint.save", why_no_fix="`save` takes the storage writer as a keyword and picks `no_dist` itself"
    ),
    # `_api_bc_check` (torch/distributed/checkpoint/utils.py) moves a second positional argument to
    # `storage_writer=`, and raises when that keyword is given too.
    "torch.distributed.checkpoint.save": Deprecated(
        "2.2",
        "save(state_dict, storage_writer=writer)",
        new="torch.distributed.checkpoint.save",
        over_positional=1,
        positional=2,
        by_keyword=("", "storage_writer"),
        without=("storage_writer",),
        form="`save(state_dict, writer)`",
        needs_torch="2.2",
        record="torch.distributed.checkpoint.save:storage_writer",
    ),
    "torch.distributed.checkpoint.load_state_dict": Deprecated(
        "2.2", "torch.distributed.checkpoint.load", why_no_fix="`load` takes the storage reader as a keyword"
    ),
    "torch.distributed.launch": Deprecated(
        "1.9", "torchrun", why_no_fix="torchrun passes LOCAL_RANK in the environment, not `--local-rank`"
    ),
    "torch.distributed.elastic.metrics.profile": Deprecated(
        "2.4", "torch.distributed.elastic.metrics.prof", why_no_fix="`prof` publishes other metric names"
    ),
    # Both add the value to `getStream(group)` (torch/distributed/elastic/metrics/api.py) and name
    # their parameters alike; only the order differs.
    "torch.distributed.elastic.metrics.publish_metric": Deprecated(
        "2.4",
        "torch.distributed.elastic.metrics.put_metric",
        new="torch.distributed.elastic.metrics.put_metric",
        by_keyword=("metric_group", "metric_name", "metric_value"),
        needs_torch="1.9",
    ),
    # torch.library / dynamo / fx
    # `impl_abstract(qualname, func=None, *, lib=None)` returns `register_fake(qualname, func, lib=lib)`,
    # whose first two parameters are positional-only.
    "torch.library.impl_abstract": _forwarded("2.4", "torch.library.register_fake", "2.4", without=("qualname", "func", "_stacklevel")),
    "torch._dynamo.config.inline_inbuilt_nn_modules": Deprecated("2.13", why_no_fix="it does nothing: drop the setting", setting=True),
    "torch._dynamo.config.skip_code_recursive_on_cache_limit_hit": Deprecated(
        "2.13", why_no_fix="it does nothing: drop the setting", setting=True
    ),
    # With arguments after `f`, `explain` returns `explain(f)(*args, **kwargs)` (torch/_dynamo/eval_frame.py);
    # the legacy form runs it while `symbolic_convert.explain` is patched, which only mutes a debug log.
    "torch._dynamo.explain": Deprecated(
        "2.1",
        "torch._dynamo.explain(f)(*args)",
        new="torch._dynamo.explain",
        over_positional=1,
        curried=1,
        form="`explain(f, *args)`",
        needs_torch="2.1",
    ),
    "torch.fx.experimental.symbolic_shapes.guard_size_oblivious": Deprecated(
        "2.9", "guard_or_false` / `guard_or_true` / `statically_known_true", why_no_fix="which one depends on the unbacked case"
    ),
    # profiler / multiprocessing
    "torch.multiprocessing.SpawnContext": Deprecated(
        "1.4", "torch.multiprocessing.ProcessContext", why_no_fix="a different class name (SpawnContext is a subclass)"
    ),
    # torch.ao / torch.quantization: eager and FX quantization moved to torchao.
    **_ao(
        *(
            f"torch.{package}.{name}"
            for package in ("ao.quantization", "quantization")
            for name in ("quantize_dynamic", "prepare", "convert", "quantize", "prepare_qat")
        )
    ),
    **_ao("torch.ao.quantization.quantize_qat"),
    **_ao(*(f"torch.ao.quantization.quantize_fx.{name}" for name in ("prepare_fx", "prepare_qat_fx", "convert_fx"))),
    "torch.ao.quantization.QConfigDynamic": Deprecated("1.12", "torch.ao.quantization.QConfig", why_no_fix="QConfig has no defaults"),
    "torch.ao.quantization.get_default_qconfig_dict": Deprecated(
        "1.13", "torch.ao.quantization.get_default_qconfig_mapping", why_no_fix="returns a QConfigMapping, not a dict"
    ),
    "torch.ao.quantization.get_default_qat_qconfig_dict": Deprecated(
        "1.13", "torch.ao.quantization.get_default_qat_qconfig_mapping", why_no_fix="returns a QConfigMapping, not a dict"
    ),
    # `interpolate` is what the three call (the catalog quotes their bodies), but it still makes a
    # quint8 tensor, which torch 2.13 deprecates as well: the migration is off torch.ao quantization.
    **{
        f"torch.ao.nn.quantized.functional.{name}": Deprecated(
            "1.3", f"torch.ao.nn.quantized.functional.interpolate{mode}", why_no_fix=_QUANTIZED_WHY
        )
        for name, mode in (
            ("upsample", ""),
            ("upsample_nearest", "(..., mode='nearest')"),
            ("upsample_bilinear", "(..., mode='bilinear', align_corners=True)"),
        )
    },
    # functorch's stateful-module helpers: torch.func has a different calling convention.
    "functorch.make_functional": Deprecated("2.0", "torch.func.functional_call", why_no_fix="takes the parameters as a dict"),
    "functorch.make_functional_with_buffers": Deprecated(
        "2.0", "torch.func.functional_call", why_no_fix="takes the parameters and buffers as dicts"
    ),
    "functorch.combine_state_for_ensemble": Deprecated("2.0", "torch.func.stack_module_state", why_no_fix="returns dicts and no function"),
}
# (dotted callable, keyword): a keyword argument that is deprecated, "new" names its replacement keyword.
KEYWORDS: dict[tuple[str, str], Deprecated] = {
    ("torch.jit.trace", "optimize"): Deprecated(
        "1.4", why_no_fix="it has no effect: drop it (`with torch.jit.optimized_execution(...)` sets the mode)"
    ),
    ("torch.jit.script", "optimize"): Deprecated(
        "1.4", why_no_fix="it has no effect: drop it (`with torch.jit.optimized_execution(...)` sets the mode)"
    ),
    ("torch.onnx.export", "training"): Deprecated(
        "2.9", why_no_fix="set the mode on the model (`model.train()` / `model.eval()`) before exporting"
    ),
    ("torch.onnx.export", "operator_export_type"): Deprecated("2.9", why_no_fix="only the default ONNX export stays"),
    ("torch.onnx.export", "example_outputs"): Deprecated("1.10", removed="2.13", why_no_fix="the exporter infers the outputs: drop it"),
    ("torch.onnx.export", "enable_onnx_checker"): Deprecated(
        "1.10", removed="1.11", why_no_fix="the checker always runs: drop it (catch `torch.onnx.errors.CheckerError`)"
    ),
    ("torch.onnx.export", "strip_doc_string"): Deprecated("1.10", "verbose", removed="1.11", why_no_fix="`verbose` inverts its meaning"),
    ("torch.onnx.export", "use_external_data_format"): Deprecated(
        "1.10", "external_data", removed="2.13", why_no_fix="the default exporter changed too (dynamo=True since 2.9)"
    ),
    ("torch.utils.data.DataLoader", "pin_memory_device"): Deprecated("2.9", why_no_fix="ignored: the current accelerator is used"),
    ("torch.distributed.checkpoint.state_dict.get_model_state_dict", "submodules"): Deprecated(
        "2.4", why_no_fix="filter the returned state dict by key prefix"
    ),
    # Read only to log the deprecation (torch/distributed/checkpoint/default_planner.py).
    ("torch.distributed.checkpoint.DefaultSavePlanner", "dedup_replicated_tensors"): Deprecated("2.3", dropped=True),
    ("torch.distributed.elastic.agent.server.WorkerSpec", "fn"): Deprecated(
        "1.9", "entrypoint", why_no_fix="a `fn` spec keeps `entrypoint` None and the agent calls it differently"
    ),
    ("torch.profiler.profile", "use_cuda"): Deprecated(
        "2.3", "activities", why_no_fix="`activities` takes a list of ProfilerActivity values, not a flag"
    ),
    ("torch.multiprocessing.spawn", "start_method"): Deprecated(
        "1.5", why_no_fix="spawn ignores it: another start method needs `torch.multiprocessing.start_processes`"
    ),
    ("torch.ao.quantization.observer.MinMaxObserver", "reduce_range"): Deprecated(
        "1.9", "quant_min=` / `quant_max", why_no_fix="the reduced range depends on the dtype"
    ),
}
# Tensor methods (the receiver must be a tensor): "resize" -> "new" names the replacement method.
METHODS: dict[str, Deprecated] = {}
# Attributes and methods of torch objects, keyed `Class.member` (see core.MEMBERS).
MEMBERS: dict[str, Deprecated] = {
    # The property returns `self.cumulative_sizes` (torch/utils/data/dataset.py).
    "torch.utils.data.ConcatDataset.cummulative_sizes": Deprecated("0.4", ".cumulative_sizes", new="cumulative_sizes", needs_torch="0.4"),
    # `Sampler` has no `__init__` of its own since 2.2: `object.__init__` raises on the argument.
    "torch.utils.data.Sampler.__init__": Deprecated(
        "2.1",
        "super().__init__()",
        removed="2.2",
        super_arguments=True,
        form="`super().__init__(data_source)` of a `Sampler`",
        needs_torch="1.0",
        record="torch.utils.data.Sampler:data_source",
    ),
    "torch.utils._pytree.TreeSpec.children_specs": Deprecated(
        "2.8", ".children()` or `.child(i)", why_no_fix="an attribute becomes a method call"
    ),
    "torch.profiler.profile.export_memory_timeline": Deprecated(
        "2.9",
        "torch.cuda.memory._record_memory_history` and `torch.cuda.memory._export_memory_snapshot",
        why_no_fix="a memory snapshot replaces the timeline",
    ),
}
