"""The deprecated and removed public APIs of torch's libraries (cuda, amp, backends, distributed,
utils, jit, onnx, fx, export, library, compiler, quantization, functorch, profiler,
multiprocessing), each written as a user calls it and confirmed under torch 2.13 by probe.py.

`EXCLUDED` names the scan sites of these packages that are not a deprecation a user reaches
through a public API, and why."""

from __future__ import annotations

from bench.deprecations.records import Deprecation

# A one-process gloo group: enough for every collective to run (and warn) on a CPU machine. A
# record runs in a fresh interpreter, but probe_all.py runs every case in one, hence the guard.
PROCESS_GROUP = """\
import tempfile
import torch.distributed as dist
if not dist.is_initialized():
    dist.init_process_group("gloo", init_method="file://" + tempfile.mktemp(), rank=0, world_size=1)
"""

# A custom operator with a kernel, registered once per interpreter.
CUSTOM_OP = """\
if not hasattr(torch.ops, "gradlint_probe") or not hasattr(torch.ops.gradlint_probe, "twice"):
    torch.library.define("gradlint_probe::twice", "(Tensor x) -> Tensor")
    torch.library.impl("gradlint_probe::twice", "CPU", lambda t: t * 2)
"""

_JIT_SINCE = "release from the docstrings (`.. deprecated:: 2.5`); the warning names none and came later (the 2.11 release blog announces the deprecation)"
_AO_SINCE = "the warning names the removal release (2.10), not the deprecation; the warning was added by pytorch#153892 (May 2025), first released in 2.8"
_NEW_NAME = (
    "the *_single names are not in the 2.9 docs and the release that added them is not stated; 2.13 is the oldest release checked here"
)


def _functorch(name: str, call: str, new: str) -> Deprecation:
    """A `functorch.<name>` wrapper: it warns, then forwards every argument unchanged to the
    `torch.func` function (torch/_functorch/deprecated.py), so the replacement is exact."""
    return Deprecation(
        api=f"functorch.{name}",
        kind="function",
        call=f"import functorch\n{call.format(api=f'functorch.{name}')}",
        since="2.0",
        replacement=f"`{new}`",
        replacement_call=call.format(api=new),
        replacement_since="2.0",
        exact=True,
        note=f"torch/_functorch/deprecated.py: `functorch.{name}` warns, then calls the implementation `{new}` is with the same arguments",
        source="torch/_functorch/deprecated.py:49",
    )


def _ao(
    api: str, call: str, source: str, replacement: str = "torchao.quantization.quantize_` or torchao's pt2e `prepare_pt2e`/`convert_pt2e"
) -> Deprecation:
    return Deprecation(
        api=api,
        kind="function",
        call=call,
        since="2.8",
        replacement=replacement,
        note=f"no replacement inside torch: the warning points to the separate torchao package; {_AO_SINCE}",
        source=source,
    )


_QUANTIZE_DYNAMIC = "result = {api}(nn.Sequential(nn.Linear(4, 2)), {{nn.Linear}}, dtype=torch.qint8)"
_PREPARE = """\
model = nn.Sequential(torch.ao.quantization.QuantStub(), nn.Linear(4, 2), torch.ao.quantization.DeQuantStub()).eval()
model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
result = {api}(model)"""
_CONVERT = """\
model = nn.Sequential(torch.ao.quantization.QuantStub(), nn.Linear(4, 2), torch.ao.quantization.DeQuantStub()).eval()
model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
prepared = torch.ao.quantization.prepare(model)
prepared(x)
result = {api}(prepared)"""
_QUANTIZE = """\
model = nn.Sequential(torch.ao.quantization.QuantStub(), nn.Linear(4, 2), torch.ao.quantization.DeQuantStub()).eval()
model.qconfig = torch.ao.quantization.get_default_qconfig("x86")
result = {api}(model, lambda m, data: m(data), (x,))"""
_PREPARE_QAT = """\
model = nn.Sequential(torch.ao.quantization.QuantStub(), nn.Linear(4, 2), torch.ao.quantization.DeQuantStub()).train()
model.qconfig = torch.ao.quantization.get_default_qat_qconfig("x86")
result = {api}(model)"""
_QUANTIZE_QAT = """\
model = nn.Sequential(torch.ao.quantization.QuantStub(), nn.Linear(4, 2), torch.ao.quantization.DeQuantStub()).train()
model.qconfig = torch.ao.quantization.get_default_qat_qconfig("x86")
result = {api}(model, lambda m, data: m(data), (x,))"""
_PREPARE_FX = """\
import torch.ao.quantization.quantize_fx as quantize_fx
mapping = torch.ao.quantization.get_default_qconfig_mapping("x86")
result = {api}(nn.Sequential(nn.Linear(4, 2)).eval(), mapping, (x,))"""
_PREPARE_QAT_FX = """\
import torch.ao.quantization.quantize_fx as quantize_fx
mapping = torch.ao.quantization.get_default_qat_qconfig_mapping("x86")
result = {api}(nn.Sequential(nn.Linear(4, 2)).train(), mapping, (x,))"""
_CONVERT_FX = """\
import torch.ao.quantization.quantize_fx as quantize_fx
mapping = torch.ao.quantization.get_default_qconfig_mapping("x86")
prepared = quantize_fx.prepare_fx(nn.Sequential(nn.Linear(4, 2)).eval(), mapping, (x,))
prepared(x)
result = {api}(prepared)"""


RECORDS: list[Deprecation] = [
    # ---------------------------------------------------------------- torch.cuda / torch.cpu amp
    Deprecation(
        api="torch.cuda.amp.autocast",
        kind="class",
        call="with torch.cuda.amp.autocast(enabled=False):\n    result = x @ x.T",
        since="2.4",
        replacement="`torch.amp.autocast('cuda', ...)`",
        replacement_call="with torch.amp.autocast('cuda', enabled=False):\n    result = x @ x.T",
        replacement_since="1.10",
        exact=True,
        note="exact with keyword arguments (the positional order differs); constructing it warns before any device use",
        source="torch/cuda/amp/autocast_mode.py:13",
    ),
    Deprecation(
        api="torch.cuda.amp.GradScaler",
        kind="class",
        call="result = torch.cuda.amp.GradScaler(enabled=False).get_scale()",
        since="2.4",
        replacement="`torch.amp.GradScaler('cuda', ...)`",
        replacement_call="result = torch.amp.GradScaler('cuda', enabled=False).get_scale()",
        replacement_since="2.3",
        exact=True,
        note="torch/cuda/amp/grad_scaler.py: the class subclasses torch.amp.GradScaler and passes 'cuda' and its arguments in the same order; the warning fires in __init__ before any device use",
        source="torch/cuda/amp/grad_scaler.py:18",
    ),
    Deprecation(
        api="torch.cuda.amp.custom_fwd",
        kind="function",
        call="result = torch.cuda.amp.custom_fwd(torch.sin)(x)",
        since="2.4",
        replacement="`torch.amp.custom_fwd(..., device_type='cuda')`",
        replacement_call="result = torch.amp.custom_fwd(torch.sin, device_type='cuda')(x)",
        replacement_since="2.4",
        exact=True,
        note="torch/cuda/amp/autocast_mode.py: forwards to torch.amp.custom_fwd with device_type='cuda'",
        source="torch/cuda/amp/autocast_mode.py:85",
    ),
    Deprecation(
        api="torch.cuda.amp.custom_bwd",
        kind="function",
        call=(
            "class Square(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    @torch.amp.custom_fwd(device_type='cuda')\n"
            "    def forward(ctx, t):\n"
            "        ctx.save_for_backward(t)\n"
            "        return t * t\n"
            "    @staticmethod\n"
            "    @torch.cuda.amp.custom_bwd\n"
            "    def backward(ctx, grad):\n"
            "        (t,) = ctx.saved_tensors\n"
            "        return 2 * t * grad\n"
            "leaf = x.clone().requires_grad_()\n"
            "Square.apply(leaf).sum().backward()\n"
            "result = leaf.grad"
        ),
        since="2.4",
        replacement="`torch.amp.custom_bwd(..., device_type='cuda')`",
        replacement_call=(
            "class Square(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    @torch.amp.custom_fwd(device_type='cuda')\n"
            "    def forward(ctx, t):\n"
            "        ctx.save_for_backward(t)\n"
            "        return t * t\n"
            "    @staticmethod\n"
            "    @torch.amp.custom_bwd(device_type='cuda')\n"
            "    def backward(ctx, grad):\n"
            "        (t,) = ctx.saved_tensors\n"
            "        return 2 * t * grad\n"
            "leaf = x.clone().requires_grad_()\n"
            "Square.apply(leaf).sum().backward()\n"
            "result = leaf.grad"
        ),
        replacement_since="2.4",
        exact=True,
        note="torch/cuda/amp/autocast_mode.py: forwards to torch.amp.custom_bwd with device_type='cuda'; the backward reads what custom_fwd stored on ctx, hence the Function",
        source="torch/cuda/amp/autocast_mode.py:100",
    ),
    Deprecation(
        api="torch.cpu.amp.autocast",
        kind="class",
        call="with torch.cpu.amp.autocast():\n    result = x @ x.T",
        since="2.4",
        replacement="`torch.amp.autocast('cpu', ...)`",
        replacement_call="with torch.amp.autocast('cpu', dtype=torch.bfloat16, cache_enabled=True):\n    result = x @ x.T",
        replacement_since="1.10",
        exact=True,
        note="the legacy class pins dtype=bfloat16 and cache_enabled=True where torch.amp.autocast reads the current state; exact when those are written out",
        source="torch/cpu/amp/autocast_mode.py:12",
    ),
    Deprecation(
        api="torch.cpu.amp.GradScaler",
        kind="class",
        call="result = torch.cpu.amp.GradScaler().get_scale()",
        since="2.4",
        replacement="`torch.amp.GradScaler('cpu', ...)`",
        replacement_call="result = torch.amp.GradScaler('cpu').get_scale()",
        replacement_since="2.3",
        exact=True,
        note="torch/cpu/amp/grad_scaler.py: subclass passing 'cpu' and the arguments in the same order",
        source="torch/cpu/amp/grad_scaler.py:15",
    ),
    # ---------------------------------------------------------------- torch.cuda memory
    Deprecation(
        api="torch.cuda.memory_cached",
        kind="function",
        call="result = torch.cuda.memory_cached()",
        since="1.4",
        replacement="`torch.cuda.memory_reserved`",
        replacement_call="result = torch.cuda.memory_reserved()",
        replacement_since="1.4",
        exact=True,
        note="torch/cuda/memory.py: the body is `return memory_reserved(device=device)`; returns 0 without CUDA",
        source="torch/cuda/memory.py:607",
    ),
    Deprecation(
        api="torch.cuda.max_memory_cached",
        kind="function",
        call="result = torch.cuda.max_memory_cached()",
        since="1.4",
        replacement="`torch.cuda.max_memory_reserved`",
        replacement_call="result = torch.cuda.max_memory_reserved()",
        replacement_since="1.4",
        exact=True,
        note="torch/cuda/memory.py: the body is `return max_memory_reserved(device=device)`",
        source="torch/cuda/memory.py:616",
    ),
    Deprecation(
        api="torch.cuda.reset_max_memory_allocated",
        kind="function",
        call="try:\n    torch.cuda.reset_max_memory_allocated()\nexcept (AttributeError, RuntimeError):  # no CUDA on this machine: the warning comes first\n    pass\nresult = None",
        since="1.4",
        replacement="`torch.cuda.reset_peak_memory_stats` (resets every peak statistic)",
        replacement_call="try:\n    torch.cuda.reset_peak_memory_stats()\nexcept (AttributeError, RuntimeError):\n    pass\nresult = None",
        replacement_since="1.4",
        exact=True,
        note="torch/cuda/memory.py: warns, then `return reset_peak_memory_stats(device=device)`; without CUDA both raise after the warning, hence the try",
        source="torch/cuda/memory.py:497",
    ),
    Deprecation(
        api="torch.cuda.reset_max_memory_cached",
        kind="function",
        call="try:\n    torch.cuda.reset_max_memory_cached()\nexcept (AttributeError, RuntimeError):  # no CUDA on this machine: the warning comes first\n    pass\nresult = None",
        since="1.4",
        replacement="`torch.cuda.reset_peak_memory_stats` (resets every peak statistic)",
        replacement_call="try:\n    torch.cuda.reset_peak_memory_stats()\nexcept (AttributeError, RuntimeError):\n    pass\nresult = None",
        replacement_since="1.4",
        exact=True,
        note="torch/cuda/memory.py: warns, then `return reset_peak_memory_stats(device=device)`",
        source="torch/cuda/memory.py:524",
    ),
    # ---------------------------------------------------------------- torch.backends
    Deprecation(
        api="torch.backends.cuda.sdp_kernel",
        kind="function",
        call="with torch.backends.cuda.sdp_kernel(enable_flash=False):\n    result = F.scaled_dot_product_attention(seq, seq, seq)",
        since="2.2",
        replacement="`torch.nn.attention.sdpa_kernel([...backends])`",
        replacement_call=(
            "from torch.nn.attention import SDPBackend, sdpa_kernel\n"
            "with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION]):\n"
            "    result = F.scaled_dot_product_attention(seq, seq, seq)"
        ),
        replacement_since="2.3",
        exact=True,
        note="the flags map onto the backend list sdp_kernel builds (torch/backends/cuda/__init__.py)",
        source="torch/backends/cuda/__init__.py:670",
    ),
    # ---------------------------------------------------------------- torch.utils.checkpoint
    Deprecation(
        api="torch.utils.checkpoint.checkpoint",
        kind="default",
        keyword="use_reentrant",
        call="import torch.utils.checkpoint as checkpoint_utils\nx.requires_grad_()\nresult = checkpoint_utils.checkpoint(torch.sin, x)",
        since="2.1",
        replacement="pass `use_reentrant` explicitly (`True` is today's default; `False` is recommended)",
        replacement_call="import torch.utils.checkpoint as checkpoint_utils\nx.requires_grad_()\nresult = checkpoint_utils.checkpoint(torch.sin, x, use_reentrant=True)",
        replacement_since="1.11",
        exact=True,
        note="exact with use_reentrant=True (the default when omitted: torch/utils/checkpoint.py sets it); False changes which inputs get gradients",
        source="torch/utils/checkpoint.py:487",
    ),
    Deprecation(
        api="torch.utils.checkpoint.checkpoint_sequential",
        kind="default",
        keyword="use_reentrant",
        call="import torch.utils.checkpoint as checkpoint_utils\nx.requires_grad_()\nresult = checkpoint_utils.checkpoint_sequential(nn.Sequential(nn.Tanh(), nn.ReLU()), 1, x)",
        since="2.1",
        replacement="pass `use_reentrant` explicitly",
        replacement_call="import torch.utils.checkpoint as checkpoint_utils\nx.requires_grad_()\nresult = checkpoint_utils.checkpoint_sequential(nn.Sequential(nn.Tanh(), nn.ReLU()), 1, x, use_reentrant=True)",
        replacement_since="1.11",
        exact=True,
        note="exact with use_reentrant=True, the value checkpoint_sequential sets when it is omitted",
        source="torch/utils/checkpoint.py:591",
    ),
    # ---------------------------------------------------------------- torch.utils._pytree
    Deprecation(
        api="torch.utils._pytree._register_pytree_node",
        kind="function",
        call=(
            "import collections\n"
            "import torch.utils._pytree as pytree\n"
            "Pair = collections.namedtuple('PairA', 'a b')\n"
            "class Box:\n"
            "    def __init__(self, value):\n"
            "        self.value = value\n"
            "pytree._register_pytree_node(Box, lambda box: ([box.value], None), lambda values, context: Box(values[0]))\n"
            "result = pytree.tree_flatten(Box(x))[0]"
        ),
        since="2.2",
        replacement="`torch.utils._pytree.register_pytree_node`",
        replacement_call=(
            "import collections\n"
            "import torch.utils._pytree as pytree\n"
            "class Box:\n"
            "    def __init__(self, value):\n"
            "        self.value = value\n"
            "pytree.register_pytree_node(Box, lambda box: ([box.value], None), lambda values, context: Box(values[0]))\n"
            "result = pytree.tree_flatten(Box(x))[0]"
        ),
        replacement_since="2.2",
        exact=True,
        note="exact only without to_str_fn/maybe_from_str_fn (the keywords the public function does not take); torch/utils/_pytree.py forwards the rest to the same registration",
        source="torch/utils/_pytree.py:533",
    ),
    Deprecation(
        api="torch.utils._pytree._register_pytree_node",
        kind="keyword",
        keyword="to_str_fn",
        call=(
            "import torch.utils._pytree as pytree\n"
            "class Crate:\n"
            "    def __init__(self, value):\n"
            "        self.value = value\n"
            "pytree._register_pytree_node(Crate, lambda box: ([box.value], None), lambda values, context: Crate(values[0]), to_str_fn=str, maybe_from_str_fn=lambda s: None)\n"
            "result = pytree.tree_flatten(Crate(x))[0]"
        ),
        since="2.2",
        replacement="`register_pytree_node(..., to_dumpable_context=..., from_dumpable_context=...)`",
        note="the string hooks have no exact counterpart: to_dumpable_context/from_dumpable_context take the context, not the tree",
        source="torch/utils/_pytree.py:575",
    ),
    Deprecation(
        api="torch.utils._pytree._is_leaf",
        kind="function",
        call="import torch.utils._pytree as pytree\nresult = pytree._is_leaf(x)",
        since="2.8",
        replacement="`torch.utils._pytree.tree_is_leaf`",
        replacement_call="import torch.utils._pytree as pytree\nresult = pytree.tree_is_leaf(x)",
        replacement_since="2.8",
        exact=True,
        note="torch/utils/_pytree.py: the body is `return tree_is_leaf(tree, is_leaf=is_leaf)`; the release is not stated: the rename came with the public torch.utils.pytree work (pytorch#148328, spring 2025), so 2.8 is assumed for both",
        source="torch/utils/_pytree.py:1110",
    ),
    Deprecation(
        api="torch.utils._pytree._is_namedtuple_instance",
        kind="function",
        call="import collections\nimport torch.utils._pytree as pytree\nresult = pytree._is_namedtuple_instance(collections.namedtuple('P', 'a')(1))",
        since="2.8",
        replacement="`torch.utils._pytree.is_namedtuple_instance`",
        replacement_call="import collections\nimport torch.utils._pytree as pytree\nresult = pytree.is_namedtuple_instance(collections.namedtuple('P', 'a')(1))",
        replacement_since="2.8",
        exact=True,
        note="torch/utils/_pytree.py: the body is `return is_namedtuple_instance(obj)`; release assumed 2.8 as for _is_leaf",
        source="torch/utils/_pytree.py:1065",
    ),
    Deprecation(
        api="torch.utils._pytree.pytree_to_str",
        kind="function",
        call="import torch.utils._pytree as pytree\nspec = pytree.tree_flatten([x, (x, x)])[1]\nresult = pytree.pytree_to_str(spec)",
        since="2.2",
        replacement="`torch.utils._pytree.treespec_dumps`",
        replacement_call="import torch.utils._pytree as pytree\nspec = pytree.tree_flatten([x, (x, x)])[1]\nresult = pytree.treespec_dumps(spec)",
        replacement_since="2.2",
        exact=True,
        note="torch/utils/_pytree.py: the body is `return treespec_dumps(treespec)`",
        source="torch/utils/_pytree.py:2116",
    ),
    Deprecation(
        api="torch.utils._pytree.str_to_pytree",
        kind="function",
        call="import torch.utils._pytree as pytree\ntext = pytree.treespec_dumps(pytree.tree_flatten([x, (x, x)])[1])\nresult = str(pytree.str_to_pytree(text))",
        since="2.2",
        replacement="`torch.utils._pytree.treespec_loads`",
        replacement_call="import torch.utils._pytree as pytree\ntext = pytree.treespec_dumps(pytree.tree_flatten([x, (x, x)])[1])\nresult = str(pytree.treespec_loads(text))",
        replacement_since="2.2",
        exact=True,
        note="torch/utils/_pytree.py: the body is `return treespec_loads(json)`",
        source="torch/utils/_pytree.py:2125",
    ),
    Deprecation(
        api="torch.utils._pytree.LeafSpec",
        kind="class",
        call="import torch.utils._pytree as pytree\nresult = pytree.LeafSpec().is_leaf()",
        since="2.8",
        replacement="`isinstance(spec, TreeSpec) and spec.is_leaf()`; a leaf spec is `tree_flatten(x)[1]`",
        replacement_call="import torch.utils._pytree as pytree\nresult = pytree.tree_flatten(x)[1].is_leaf()",
        replacement_since="2.0",
        exact=False,
        note="a class test, not a call: rewriting isinstance needs the value, so no fix; release not stated in the warning: the LeafSpec rework is pytorch#138214 (reviewed January 2025), 2.8 assumed",
        source="torch/utils/_pytree.py:1364",
    ),
    Deprecation(
        api="torch.utils._pytree.TreeSpec.children_specs",
        kind="attribute",
        call="import torch.utils._pytree as pytree\nresult = len(pytree.tree_flatten([x, x])[1].children_specs)",
        since="2.8",
        replacement="`spec.children()` (or `spec.child(i)`)",
        replacement_call="import torch.utils._pytree as pytree\nresult = len(pytree.tree_flatten([x, x])[1].children())",
        replacement_since="2.8",
        exact=False,
        note="an attribute of a TreeSpec value: gradlint does not know which values are TreeSpecs; release not stated in the warning",
        source="torch/utils/_pytree.py:1204",
    ),
    # ---------------------------------------------------------------- torch.utils.data
    Deprecation(
        api="torch.utils.data.ConcatDataset.cummulative_sizes",
        kind="attribute",
        call="result = torch.utils.data.ConcatDataset([[1, 2], [3]]).cummulative_sizes",
        since="0.4",
        replacement="`.cumulative_sizes`",
        replacement_call="result = torch.utils.data.ConcatDataset([[1, 2], [3]]).cumulative_sizes",
        replacement_since="0.4",
        exact=True,
        note="torch/utils/data/dataset.py: the property returns self.cumulative_sizes; an attribute of a dataset value, not a dotted name gradlint resolves",
        source="torch/utils/data/dataset.py:348",
    ),
    Deprecation(
        api="torch.utils.data.backward_compatibility.worker_init_fn",
        kind="function",
        call="import torch.utils.data.backward_compatibility as backward_compatibility\nresult = backward_compatibility.worker_init_fn(0)",
        since="1.13",
        replacement="nothing: DataLoader shards DataPipes in every worker itself; drop the argument",
        note="release from the DataPipe sharding change (DataLoader applies sharding since 1.13)",
        source="torch/utils/data/backward_compatibility.py:5",
    ),
    Deprecation(
        api="torch.utils.data.graph_settings.apply_shuffle_seed",
        kind="function",
        call=(
            "import torch.utils.data.graph_settings as graph_settings\n"
            "from torch.utils.data.datapipes.iter import IterableWrapper\n"
            "result = list(graph_settings.apply_shuffle_seed(IterableWrapper([1, 2, 3]), torch.Generator().manual_seed(0)))"
        ),
        since="1.12",
        replacement="`torch.utils.data.graph_settings.apply_random_seed`",
        replacement_call=(
            "import torch.utils.data.graph_settings as graph_settings\n"
            "from torch.utils.data.datapipes.iter import IterableWrapper\n"
            "result = list(graph_settings.apply_random_seed(IterableWrapper([1, 2, 3]), torch.Generator().manual_seed(0)))"
        ),
        replacement_since="1.13",
        exact=True,
        note="torch/utils/data/graph_settings.py: the body is `return apply_random_seed(datapipe, rng)`",
        source="torch/utils/data/graph_settings.py:131",
    ),
    Deprecation(
        api="torch.utils.data.graph.traverse",
        kind="function",
        call=(
            "import torch.utils.data.graph as graph\n"
            "from torch.utils.data.datapipes.iter import IterableWrapper\n"
            "result = len(graph.traverse(IterableWrapper([1, 2]), only_datapipe=True))"
        ),
        since="1.13",
        replacement="`torch.utils.data.graph.traverse_dps`",
        replacement_call=(
            "import torch.utils.data.graph as graph\n"
            "from torch.utils.data.datapipes.iter import IterableWrapper\n"
            "result = len(graph.traverse_dps(IterableWrapper([1, 2])))"
        ),
        replacement_since="1.13",
        exact=False,
        note="same graph only with only_datapipe=True; the default (False) also walks every attribute",
        source="torch/utils/data/graph.py:135",
    ),
    Deprecation(
        api="torch.utils.data.DataLoader",
        kind="keyword",
        keyword="pin_memory_device",
        call="loader = torch.utils.data.DataLoader([x[0], x[1]], pin_memory=True, pin_memory_device='cpu')\nresult = next(iter(loader))",
        since="2.9",
        replacement="drop `pin_memory_device`: the current accelerator is used",
        note="UserWarning when pin_memory is also set (torch/utils/data/dataloader.py); the keyword is ignored; release from the warning's introduction (not stated in it)",
        source="torch/utils/data/dataloader.py:651",
    ),
    Deprecation(
        api="torch.utils.data.Sampler",
        kind="keyword",
        keyword="data_source",
        call=(
            "class IndexSampler(torch.utils.data.Sampler):\n"
            "    def __init__(self, data_source):\n"
            "        super().__init__(data_source)\n"
            "        self.data_source = data_source\n"
            "result = IndexSampler([1, 2]).data_source"
        ),
        since="2.1",
        removed="2.2",
        replacement="`super().__init__()` without the data source",
        replacement_call=(
            "class IndexSampler(torch.utils.data.Sampler):\n"
            "    def __init__(self, data_source):\n"
            "        super().__init__()\n"
            "        self.data_source = data_source\n"
            "result = IndexSampler([1, 2]).data_source"
        ),
        replacement_since="1.0",
        exact=True,
        note="2.1 warned that data_source is unused and would be removed in 2.2; Sampler has no __init__ now, so object.__init__ raises TypeError on the argument",
    ),
    Deprecation(
        api="torch.utils.data.dataloader.numpy_type_map",
        kind="attribute",
        call="import torch.utils.data.dataloader as dataloader\nresult = dataloader.numpy_type_map['float64']",
        since="1.1",
        removed="1.1",
        replacement="`torch.as_tensor` / `torch.from_numpy` pick the dtype of a numpy array",
        note="custom collate functions of 2018 copied `numpy_type_map` from the 1.0 dataloader; the collate code moved to torch.utils.data._utils in 1.1",
    ),
    Deprecation(
        api="torch.utils.data.dataloader.DataLoaderIter",
        kind="class",
        call="import torch.utils.data.dataloader as dataloader\nresult = dataloader.DataLoaderIter",
        since="1.1",
        removed="1.1",
        replacement="`iter(loader)`",
        note="the 1.0 iterator class; subclassed by 2018 code to customise loading",
    ),
    # ---------------------------------------------------------------- torch.utils: misc
    Deprecation(
        api="torch.utils.hipify.constants",
        kind="import",
        call="import torch.utils.hipify.constants as hipify_constants\nresult = None",
        since="2.0",
        replacement="nothing: hipify 2.0 does not use the constants module",
        note="the module warns on import",
        source="torch/utils/hipify/constants.py:11",
    ),
    Deprecation(
        api="torch.utils.hipify.hipify_python.is_pytorch_file",
        kind="function",
        call="import torch.utils.hipify.hipify_python as hipify_python\nresult = hipify_python.is_pytorch_file('torch/x.cu')",
        since="2.0",
        replacement="nothing: hipify 2.0 no longer classifies files this way",
        source="torch/utils/hipify/hipify_python.py:633",
    ),
    # ---------------------------------------------------------------- torch.jit
    Deprecation(
        api="torch.jit.script",
        kind="function",
        call="result = torch.jit.script(nn.Linear(4, 2))(x)",
        since="2.5",
        replacement="`torch.compile` (or `torch.export.export` to serialise)",
        replacement_call="result = torch.compile(nn.Linear(4, 2), backend='eager')(x)",
        replacement_since="2.0",
        exact=False,
        note=f"not the same object (a ScriptModule against an OptimizedModule); {_JIT_SINCE}",
        source="torch/jit/_script.py:1488",
    ),
    Deprecation(
        api="torch.jit.trace",
        kind="function",
        call="result = torch.jit.trace(nn.Linear(4, 2), x)(x)",
        since="2.5",
        replacement="`torch.compile` or `torch.export.export`",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_trace.py:1006",
    ),
    Deprecation(
        api="torch.jit.trace_module",
        kind="function",
        call="result = torch.jit.trace_module(nn.Linear(4, 2), {'forward': x})(x)",
        since="2.5",
        replacement="`torch.compile` or `torch.export.export`",
        exact=False,
        note=f"the warning says torch.jit.trace_method; {_JIT_SINCE}",
        source="torch/jit/_trace.py:1145",
    ),
    Deprecation(
        api="torch.jit.trace",
        kind="keyword",
        keyword="optimize",
        call="result = torch.jit.trace(nn.Linear(4, 2), x, optimize=True)(x)",
        since="1.4",
        replacement="drop `optimize` (no effect); `with torch.jit.optimized_execution(...)`",
        note="FutureWarning says it has no effect; the keyword call also warns for torch.jit.trace itself",
        source="torch/jit/_trace.py:1013",
    ),
    Deprecation(
        api="torch.jit.script",
        kind="keyword",
        keyword="optimize",
        call="result = torch.jit.script(nn.Linear(4, 2), optimize=True)(x)",
        since="1.4",
        replacement="drop `optimize` (no effect); `with torch.jit.optimized_execution(...)`",
        note="FutureWarning says it has no effect",
        source="torch/jit/_script.py:1144",
    ),
    Deprecation(
        api="torch.jit.save",
        kind="function",
        call="import io\nbuffer = io.BytesIO()\ntorch.jit.save(torch.jit.script(nn.Linear(4, 2)), buffer)\nresult = buffer.tell() > 0",
        since="2.5",
        replacement="`torch.export.save` of an exported program",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_serialization.py:89",
    ),
    Deprecation(
        api="torch.jit.load",
        kind="function",
        call="import io\nbuffer = io.BytesIO()\ntorch.jit.save(torch.jit.script(nn.Linear(4, 2)), buffer)\nbuffer.seek(0)\nresult = torch.jit.load(buffer)(x).shape",
        since="2.5",
        replacement="`torch.export.load`",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_serialization.py:176",
    ),
    Deprecation(
        api="torch.jit.freeze",
        kind="function",
        call="result = torch.jit.freeze(torch.jit.script(nn.Linear(4, 2)).eval())(x)",
        since="2.5",
        replacement="`torch.compile`",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_freeze.py:106, torch/jit/_freeze.py:17",
    ),
    Deprecation(
        api="torch.jit.optimize_for_inference",
        kind="function",
        call="result = torch.jit.optimize_for_inference(torch.jit.script(nn.Linear(4, 2)).eval())(x)",
        since="2.5",
        replacement="`torch.compile`",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_freeze.py:230, torch/jit/_freeze.py:195",
    ),
    Deprecation(
        api="torch.jit.fork",
        kind="function",
        call="future = torch.jit.fork(torch.sin, x)\nresult = future.wait()",
        since="2.5",
        replacement="`torch.compile` (or plain calls)",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_async.py:104, torch/jit/_async.py:24",
    ),
    Deprecation(
        api="torch.jit.wait",
        kind="function",
        call="future = torch.futures.Future()\nfuture.set_result(x)\nresult = torch.jit.wait(future)",
        since="2.5",
        replacement="`future.wait()` / plain calls",
        exact=False,
        note=_JIT_SINCE,
        source="torch/jit/_async.py:124, torch/jit/_async.py:112",
    ),
    Deprecation(
        api="torch.jit.set_fusion_strategy",
        kind="function",
        call="result = torch.jit.set_fusion_strategy([('STATIC', 2)])",
        since="2.5",
        replacement="`torch.compile`",
        note=_JIT_SINCE,
        source="torch/jit/_fuser.py:169, torch/jit/_fuser.py:137",
    ),
    Deprecation(
        api="torch.jit.interface",
        kind="function",
        call=(
            "@torch.jit.interface\n"
            "class Scaler(nn.Module):\n"
            "    def forward(self, value: torch.Tensor) -> torch.Tensor:\n"
            "        pass\n"
            "result = Scaler.__name__"
        ),
        since="2.5",
        replacement="`typing.Protocol` with `torch.compile`",
        note=f"TorchScript reads the source of what it compiles: code run without a source file (exec of a string, as probe.py runs a record) raises before or after the warning, a script file (probe_all.py) warns and runs; {_JIT_SINCE}",
        source="torch/jit/_script.py:1640, torch/jit/_script.py:1590",
    ),
    Deprecation(
        api="torch.jit.script_method",
        kind="function",
        call=(
            "class Doubler(torch.jit.ScriptModule):\n"
            "    @torch.jit.script_method\n"
            "    def forward(self, value):\n"
            "        return value * 2\n"
            "result = Doubler()(x)"
        ),
        since="2.5",
        replacement="a plain `nn.Module` with `torch.compile`",
        note=f"TorchScript reads the source of what it compiles: code run without a source file (exec of a string, as probe.py runs a record) raises before or after the warning, a script file (probe_all.py) warns and runs; {_JIT_SINCE}",
        source="torch/jit/_script.py:365",
    ),
    Deprecation(
        api="torch.jit.ScriptModule._save_for_lite_interpreter",
        kind="method",
        call="import os\nimport tempfile\ntorch.jit.script(nn.Linear(4, 2))._save_for_lite_interpreter(os.path.join(tempfile.mkdtemp(), 'model.ptl'))\nresult = None",
        since="2.5",
        replacement="ExecuTorch (`torch.export` then `executorch.exir`)",
        note="a method of a scripted module; the warning names ExecuTorch, outside torch",
        source="torch/jit/_script.py:791",
    ),
    Deprecation(
        api="torch.jit.annotate",
        kind="function",
        call="result = torch.jit.annotate(list[int], [])",
        since="2.5",
        replacement="`torch.compile`",
        note="documented deprecation that does not warn in 2.13: the docstring says `.. deprecated:: 2.5` (TorchScript)",
        source="torch/jit/__init__.py:130",
    ),
    Deprecation(
        api="torch.jit.script_if_tracing",
        kind="function",
        call="result = torch.jit.script_if_tracing(torch.sin)(x)",
        since="2.5",
        replacement="`torch.compile`",
        note="documented deprecation that does not warn in 2.13: the docstring says `.. deprecated:: 2.5` (TorchScript)",
        source="torch/jit/__init__.py:181",
    ),
    Deprecation(
        api="torch.jit.isinstance",
        kind="function",
        call="result = torch.jit.isinstance([1], list[int])",
        since="2.5",
        replacement="`torch.compile`",
        note="documented deprecation that does not warn in 2.13: the docstring says `.. deprecated:: 2.5` (TorchScript)",
        source="torch/jit/__init__.py:206",
    ),
    Deprecation(
        api="torch.jit.strict_fusion",
        kind="function",
        call="with torch.jit.strict_fusion():\n    result = torch.sin(x)",
        since="2.5",
        replacement="`torch.compile`",
        note="documented deprecation that does not warn in 2.13: the docstring says `.. deprecated:: 2.5` (TorchScript)",
        source="torch/jit/__init__.py:252",
    ),
    Deprecation(
        api="torch.jit.enable_onednn_fusion",
        kind="function",
        call="torch.jit.enable_onednn_fusion(False)\nresult = None",
        since="2.5",
        replacement="`torch.compile`",
        note="documented deprecation that does not warn in 2.13: the docstring says `.. deprecated:: 2.5` (TorchScript)",
        source="torch/jit/__init__.py:295",
    ),
    Deprecation(
        api="torch.jit.onednn_fusion_enabled",
        kind="function",
        call="result = torch.jit.onednn_fusion_enabled()",
        since="2.5",
        replacement="`torch.compile`",
        note="documented deprecation that does not warn in 2.13: the docstring says `.. deprecated:: 2.5` (TorchScript)",
        source="torch/jit/__init__.py:304",
    ),
    Deprecation(
        api="torch.jit.get_trace_graph",
        kind="function",
        call="result = torch.jit.get_trace_graph(nn.Linear(4, 2), (x,))",
        since="1.3",
        removed="1.4",
        replacement="`torch.jit.trace(model, args).graph` (the private `torch.jit._get_trace_graph` remains)",
        note="tensorboardX and 2018-2019 graph exporters called it; renamed to the private `_get_trace_graph` in 1.4",
    ),
    # ---------------------------------------------------------------- torch.onnx
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="dynamo",
        call=(
            "import io\n"
            "try:\n"
            "    torch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), dynamo=False)\n"
            "except torch.onnx.OnnxExporterError:  # the onnx package is not installed here; the warning comes first\n"
            "    pass\n"
            "result = None"
        ),
        since="2.9",
        replacement="the torch.export-based exporter (`dynamo=True`, the default since 2.9)",
        note="DeprecationWarning for the legacy TorchScript exporter; dynamo=True needs onnxscript, which this machine lacks, so no replacement run",
        source="torch/onnx/__init__.py:318",
    ),
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="training",
        call=(
            "import io\n"
            "try:\n"
            "    torch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), dynamo=False, training=torch.onnx.TrainingMode.TRAINING)\n"
            "except torch.onnx.OnnxExporterError:  # the onnx package is not installed here; the warnings come first\n"
            "    pass\n"
            "result = None"
        ),
        since="2.9",
        replacement="set the mode on the model (`model.train()` / `model.eval()`) before exporting",
        note="warns for any value other than the default EVAL (torch/onnx/_internal/torchscript_exporter/utils.py)",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:535",
    ),
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="operator_export_type",
        call=(
            "import io\n"
            "try:\n"
            "    torch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), dynamo=False, operator_export_type=torch.onnx.OperatorExportTypes.ONNX_ATEN_FALLBACK)\n"
            "except torch.onnx.OnnxExporterError:  # the onnx package is not installed here; the warnings come first\n"
            "    pass\n"
            "result = None"
        ),
        since="2.9",
        replacement="drop `operator_export_type` (only the default ONNX stays)",
        note="warns for any value other than the default (torch/onnx/_internal/torchscript_exporter/utils.py)",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:528",
    ),
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="example_outputs",
        call="import io\ntorch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), example_outputs=x)\nresult = None",
        since="1.10",
        removed="2.13",
        replacement="drop `example_outputs` (the exporter infers the outputs)",
        note="deprecated by pytorch#62815 (1.10); the release that dropped it is not confirmed here, 2.13 raises TypeError",
    ),
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="enable_onnx_checker",
        call="import io\ntorch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), enable_onnx_checker=False)\nresult = None",
        since="1.10",
        removed="1.11",
        replacement="drop it; catch `torch.onnx.errors.CheckerError` to keep an invalid graph",
        note="deprecated by pytorch#61708 (1.10), removed by pytorch#66611 (1.11)",
    ),
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="strip_doc_string",
        call="import io\ntorch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), strip_doc_string=True)\nresult = None",
        since="1.10",
        removed="1.11",
        replacement="`verbose=` controls the doc strings",
        note="deprecated by pytorch#61712 (1.10), removed by pytorch#66615 (1.11)",
    ),
    Deprecation(
        api="torch.onnx.export",
        kind="keyword",
        keyword="use_external_data_format",
        call="import io\ntorch.onnx.export(nn.Linear(4, 2), (x,), io.BytesIO(), use_external_data_format=False)\nresult = None",
        since="1.10",
        removed="2.13",
        replacement="`external_data=`",
        note="deprecated by pytorch#62257 (1.10); the release that dropped it is not confirmed here, 2.13 raises TypeError",
    ),
    Deprecation(
        api="torch.onnx.utils.select_model_mode_for_export",
        kind="function",
        call="with torch.onnx.utils.select_model_mode_for_export(model, torch.onnx.TrainingMode.EVAL):\n    result = model.training",
        since="2.7",
        replacement="nothing: remove the call (set the model's mode yourself where it mattered)",
        note="a helper of the legacy TorchScript exporter, public as torch.onnx.utils.select_model_mode_for_export; deprecated with category=None, so it does not warn; the docstring says `.. deprecated:: 2.7`",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:94",
    ),
    Deprecation(
        api="torch.onnx.utils.disable_apex_o2_state_dict_hook",
        kind="function",
        call="with torch.onnx.utils.disable_apex_o2_state_dict_hook(model):\n    result = sorted(model.state_dict())",
        since="2.7",
        replacement="nothing: remove the call (set the model's mode yourself where it mattered)",
        note="a helper of the legacy TorchScript exporter, public as torch.onnx.utils.disable_apex_o2_state_dict_hook; deprecated with category=None, so it does not warn; the docstring says `.. deprecated:: 2.7`",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:150",
    ),
    Deprecation(
        api="torch.onnx.utils.setup_onnx_logging",
        kind="function",
        call="with torch.onnx.utils.setup_onnx_logging(False):\n    result = None",
        since="2.7",
        replacement="nothing: remove the call (set the model's mode yourself where it mattered)",
        note="a helper of the legacy TorchScript exporter, public as torch.onnx.utils.setup_onnx_logging; warns DeprecationWarning",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:187",
    ),
    Deprecation(
        api="torch.onnx.utils.exporter_context",
        kind="function",
        call="with torch.onnx.utils.exporter_context(model, torch.onnx.TrainingMode.EVAL, False):\n    result = model.training",
        since="2.7",
        replacement="nothing: remove the call (set the model's mode yourself where it mattered)",
        note="a helper of the legacy TorchScript exporter, public as torch.onnx.utils.exporter_context; deprecated with category=None, so it does not warn; the docstring says `.. deprecated:: 2.7`",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:209",
    ),
    Deprecation(
        api="torch.onnx.utils.unconvertible_ops",
        kind="function",
        call="result = torch.onnx.utils.unconvertible_ops(model, (x,))[1]",
        since="2.7",
        replacement="nothing: remove the call (set the model's mode yourself where it mattered)",
        note="a helper of the legacy TorchScript exporter, public as torch.onnx.utils.unconvertible_ops; warns DeprecationWarning",
        source="torch/onnx/_internal/torchscript_exporter/utils.py:1216",
    ),
    Deprecation(
        api="torch.onnx.dynamo_export",
        kind="function",
        call="result = torch.onnx.dynamo_export(nn.Linear(4, 2), x)",
        since="2.6",
        removed="2.9",
        replacement="`torch.onnx.export(..., dynamo=True)`",
        note="deprecated in 2.6 in favour of export(dynamo=True) (2.5+); gone in 2.13 (AttributeError); the removal release is from the 2.9 exporter switch",
    ),
    # ---------------------------------------------------------------- torch.distributed (c10d)
    Deprecation(
        api="torch.distributed.all_gather_into_tensor",
        kind="function",
        call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed.all_gather_into_tensor(output, v)\nresult = output",
        since="2.13",
        replacement="`torch.distributed.all_gather_single`",
        replacement_call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed.all_gather_single(output, v)\nresult = output",
        replacement_since="2.13",
        exact=True,
        note=f"torch/distributed/distributed_c10d.py: the body is `return all_gather_single(output_tensor, input_tensor, group, async_op)`; {_NEW_NAME}",
        source="torch/distributed/distributed_c10d.py:4399, torch/distributed/distributed_c10d.py:4405",
    ),
    Deprecation(
        api="torch.distributed._all_gather_base",
        kind="function",
        call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed._all_gather_base(output, v)\nresult = output",
        since="1.13",
        replacement="`torch.distributed.all_gather_single`",
        replacement_call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed.all_gather_single(output, v)\nresult = output",
        replacement_since="2.13",
        exact=False,
        note="the private predecessor of all_gather_into_tensor (warning since 1.13); its body runs the collective itself, so no claim of identity beyond the same result",
        source="torch/distributed/distributed_c10d.py:4417",
    ),
    Deprecation(
        api="torch.distributed.reduce_scatter_tensor",
        kind="function",
        call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed.reduce_scatter_tensor(output, v)\nresult = output",
        since="2.13",
        replacement="`torch.distributed.reduce_scatter_single`",
        replacement_call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed.reduce_scatter_single(output, v)\nresult = output",
        replacement_since="2.13",
        exact=True,
        note=f"torch/distributed/distributed_c10d.py: the body is `return reduce_scatter_single(output, input, op, group, async_op)`; {_NEW_NAME}",
        source="torch/distributed/distributed_c10d.py:4948, torch/distributed/distributed_c10d.py:4954",
    ),
    Deprecation(
        api="torch.distributed._reduce_scatter_base",
        kind="function",
        call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed._reduce_scatter_base(output, v)\nresult = output",
        since="1.13",
        replacement="`torch.distributed.reduce_scatter_single`",
        replacement_call=PROCESS_GROUP + "output = torch.empty(3)\ntorch.distributed.reduce_scatter_single(output, v)\nresult = output",
        replacement_since="2.13",
        exact=False,
        note="the private predecessor of reduce_scatter_tensor (warning since 1.13)",
        source="torch/distributed/distributed_c10d.py:4965",
    ),
    Deprecation(
        api="torch.distributed.all_reduce_coalesced",
        kind="function",
        call=PROCESS_GROUP + "tensors = [v.clone()]\ntorch.distributed.all_reduce_coalesced(tensors)\nresult = tensors",
        since="2.4",
        replacement="`torch.distributed.all_reduce` per tensor (or inside `_coalescing_manager`)",
        note="the warning names no replacement; release from the 2.4 source where the decorator appears",
        source="torch/distributed/distributed_c10d.py:3257",
    ),
    Deprecation(
        api="torch.distributed.all_gather_coalesced",
        kind="function",
        call=PROCESS_GROUP + "outputs = [[torch.empty(3)]]\ntorch.distributed.all_gather_coalesced(outputs, [v])\nresult = outputs",
        since="2.4",
        replacement="`torch.distributed.all_gather` per tensor",
        note="the warning names no replacement; release from the 2.4 source where the decorator appears",
        source="torch/distributed/distributed_c10d.py:4447",
    ),
    Deprecation(
        api="torch.distributed.reduce_op",
        kind="attribute",
        call="result = torch.distributed.reduce_op.SUM",
        since="1.0",
        replacement="`torch.distributed.ReduceOp`",
        replacement_call="result = torch.distributed.ReduceOp.SUM",
        replacement_since="1.0",
        exact=True,
        note="reduce_op copies the members of ReduceOp.RedOpType (torch/distributed/distributed_c10d.py), the values ReduceOp.SUM ... are",
        source="torch/distributed/distributed_c10d.py:551",
    ),
    Deprecation(
        api="torch.distributed.distributed_c10d._get_global_rank",
        kind="function",
        call=PROCESS_GROUP + "result = torch.distributed.distributed_c10d._get_global_rank(torch.distributed.group.WORLD, 0)",
        since="2.0",
        replacement="`torch.distributed.get_global_rank`",
        replacement_call=PROCESS_GROUP + "result = torch.distributed.get_global_rank(torch.distributed.group.WORLD, 0)",
        replacement_since="2.0",
        exact=True,
        note="torch/distributed/distributed_c10d.py: the body is `return get_global_rank(group, rank)`",
        source="torch/distributed/distributed_c10d.py:1167",
    ),
    # ---------------------------------------------------------------- functional collectives
    Deprecation(
        api="torch.distributed._functional_collectives.all_gather_tensor",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.all_gather_tensor(v, 0, dist.group.WORLD).wait()",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.all_gather_single`",
        replacement_call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.all_gather_single(v, 0, dist.group.WORLD).wait()",
        replacement_since="2.13",
        exact=True,
        note=f"the body is `return all_gather_single(self, gather_dim, group, tag)`; {_NEW_NAME}",
        source="torch/distributed/_functional_collectives.py:324",
    ),
    Deprecation(
        api="torch.distributed._functional_collectives.all_gather_tensor_autograd",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.all_gather_tensor_autograd(v, 0, dist.group.WORLD).wait()",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.all_gather_single_autograd`",
        replacement_call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.all_gather_single_autograd(v, 0, dist.group.WORLD).wait()",
        replacement_since="2.13",
        exact=True,
        note=f"the body is `return all_gather_single_autograd(self, gather_dim, group, tag)`; {_NEW_NAME}",
        source="torch/distributed/_functional_collectives.py:340",
    ),
    Deprecation(
        api="torch.distributed._functional_collectives.reduce_scatter_tensor",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.reduce_scatter_tensor(v, 'sum', 0, dist.group.WORLD).wait()",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.reduce_scatter_single`",
        replacement_call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.reduce_scatter_single(v, 'sum', 0, dist.group.WORLD).wait()",
        replacement_since="2.13",
        exact=True,
        note=f"the body is `return reduce_scatter_single(self, reduceOp, scatter_dim, group, tag)`; {_NEW_NAME}",
        source="torch/distributed/_functional_collectives.py:357",
    ),
    Deprecation(
        api="torch.distributed._functional_collectives.reduce_scatter_tensor_autograd",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.reduce_scatter_tensor_autograd(v, 'sum', 0, dist.group.WORLD).wait()",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.reduce_scatter_single_autograd`",
        replacement_call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = funcol.reduce_scatter_single_autograd(v, 'sum', 0, dist.group.WORLD).wait()",
        replacement_since="2.13",
        exact=True,
        note=f"the body is `return reduce_scatter_single_autograd(self, reduceOp, scatter_dim, group, tag)`; {_NEW_NAME}",
        source="torch/distributed/_functional_collectives.py:374",
    ),
    Deprecation(
        api="torch.distributed._functional_collectives.all_gather_into_tensor_coalesced",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = [t.wait() for t in funcol.all_gather_into_tensor_coalesced([v], dist.group.WORLD)]",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.all_gather_single_coalesced`",
        replacement_call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = [t.wait() for t in funcol.all_gather_single_coalesced([v], dist.group.WORLD)]",
        replacement_since="2.13",
        exact=True,
        note=f"the body is `return all_gather_single_coalesced(self, group, tag)`; {_NEW_NAME}",
        source="torch/distributed/_functional_collectives.py:495",
    ),
    Deprecation(
        api="torch.distributed._functional_collectives.reduce_scatter_tensor_coalesced",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = [t.wait() for t in funcol.reduce_scatter_tensor_coalesced([v], 'sum', [0], dist.group.WORLD)]",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.reduce_scatter_single_coalesced`",
        replacement_call=PROCESS_GROUP
        + "import torch.distributed._functional_collectives as funcol\nresult = [t.wait() for t in funcol.reduce_scatter_single_coalesced([v], 'sum', [0], dist.group.WORLD)]",
        replacement_since="2.13",
        exact=True,
        note=f"the body is `return reduce_scatter_single_coalesced(inputs, reduceOp, scatter_dim, group, tag)`; {_NEW_NAME}",
        source="torch/distributed/_functional_collectives.py:512",
    ),
    # ---------------------------------------------------------------- torch.distributed.nn
    Deprecation(
        api="torch.distributed.nn.functional.all_reduce",
        kind="function",
        call=PROCESS_GROUP + "import torch.distributed.nn.functional as dist_fn\nresult = dist_fn.all_reduce(v)",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.all_reduce`",
        note="different signature (reduceOp and group are required) and an async tensor result: not a drop-in; release not stated in the warning",
        source="torch/distributed/nn/functional.py:290",
    ),
    Deprecation(
        api="torch.distributed.nn.functional.all_gather",
        kind="function",
        call=PROCESS_GROUP + "import torch.distributed.nn.functional as dist_fn\nresult = dist_fn.all_gather(v)",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.all_gather_single`",
        note="returns a tuple of tensors; the replacement one gathered tensor",
        source="torch/distributed/nn/functional.py:165",
    ),
    Deprecation(
        api="torch.distributed.nn.functional.broadcast",
        kind="function",
        call=PROCESS_GROUP + "import torch.distributed.nn.functional as dist_fn\nresult = dist_fn.broadcast(v, 0)",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.broadcast`",
        note="different signature (group required)",
        source="torch/distributed/nn/functional.py:54",
    ),
    Deprecation(
        api="torch.distributed.nn.functional.reduce_scatter",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed.nn.functional as dist_fn\noutput = torch.empty(3)\nresult = dist_fn.reduce_scatter(output, [v])",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.reduce_scatter_single`",
        note="list input against one tensor input",
        source="torch/distributed/nn/functional.py:141",
    ),
    Deprecation(
        api="torch.distributed.nn.functional.all_to_all_single",
        kind="function",
        call=PROCESS_GROUP
        + "import torch.distributed.nn.functional as dist_fn\noutput = torch.empty(3)\nresult = dist_fn.all_to_all_single(output, v)",
        since="2.13",
        replacement="`torch.distributed._functional_collectives.all_to_all_single`",
        note="different signature (split sizes and group required)",
        source="torch/distributed/nn/functional.py:258",
    ),
    # ---------------------------------------------------------------- distributed: sharding modules
    Deprecation(
        api="torch.distributed._shard.checkpoint",
        kind="import",
        call="import torch.distributed._shard.checkpoint as shard_checkpoint\nresult = None",
        since="2.0",
        replacement="`torch.distributed.checkpoint`",
        note="the module warns on import; release from the 2.0 source",
        source="torch/distributed/_shard/checkpoint/__init__.py:12",
    ),
    Deprecation(
        api="torch.distributed._sharding_spec",
        kind="import",
        call="import torch.distributed._sharding_spec as sharding_spec\nresult = None",
        since="1.13",
        replacement="`torch.distributed._shard.sharding_spec`",
        note="the module warns on import",
        source="torch/distributed/_sharding_spec/__init__.py:12",
    ),
    Deprecation(
        api="torch.distributed._sharded_tensor",
        kind="import",
        call="import torch.distributed._sharded_tensor as sharded_tensor\nresult = None",
        since="1.13",
        replacement="`torch.distributed._shard.sharded_tensor`",
        note="the module warns on import",
        source="torch/distributed/_sharded_tensor/__init__.py:12",
    ),
    # ---------------------------------------------------------------- distributed.checkpoint
    Deprecation(
        api="torch.distributed.checkpoint.save_state_dict",
        kind="function",
        call=(
            "import tempfile\n"
            "import torch.distributed.checkpoint as dcp\n"
            "path = tempfile.mkdtemp()\n"
            "result = dcp.save_state_dict({'w': x}, dcp.FileSystemWriter(path), no_dist=True).state_dict_metadata['w'].size"
        ),
        since="2.2",
        replacement="`torch.distributed.checkpoint.save`",
        replacement_call=(
            "import tempfile\n"
            "import torch.distributed.checkpoint as dcp\n"
            "path = tempfile.mkdtemp()\n"
            "result = dcp.save({'w': x}, storage_writer=dcp.FileSystemWriter(path), no_dist=True).state_dict_metadata['w'].size"
        ),
        replacement_since="2.2",
        exact=False,
        note="save takes the storage writer as a keyword (positional use warns about the changed order) and chooses no_dist itself when no group exists",
        source="torch/distributed/checkpoint/state_dict_saver.py:59",
    ),
    Deprecation(
        api="torch.distributed.checkpoint.load_state_dict",
        kind="function",
        call=(
            "import tempfile\n"
            "import torch.distributed.checkpoint as dcp\n"
            "path = tempfile.mkdtemp()\n"
            "dcp.save({'w': x}, storage_writer=dcp.FileSystemWriter(path), no_dist=True)\n"
            "state = {'w': torch.zeros(3, 4)}\n"
            "dcp.load_state_dict(state, dcp.FileSystemReader(path), no_dist=True)\n"
            "result = state['w']"
        ),
        since="2.2",
        replacement="`torch.distributed.checkpoint.load`",
        replacement_call=(
            "import tempfile\n"
            "import torch.distributed.checkpoint as dcp\n"
            "path = tempfile.mkdtemp()\n"
            "dcp.save({'w': x}, storage_writer=dcp.FileSystemWriter(path), no_dist=True)\n"
            "state = {'w': torch.zeros(3, 4)}\n"
            "dcp.load(state, storage_reader=dcp.FileSystemReader(path), no_dist=True)\n"
            "result = state['w']"
        ),
        replacement_since="2.2",
        exact=False,
        note="load takes the storage reader as a keyword; positional use warns about the changed order",
        source="torch/distributed/checkpoint/state_dict_loader.py:31",
    ),
    Deprecation(
        api="torch.distributed.checkpoint.save",
        kind="keyword",
        keyword="storage_writer",
        call=(
            "import tempfile\n"
            "import torch.distributed.checkpoint as dcp\n"
            "path = tempfile.mkdtemp()\n"
            "result = dcp.save({'w': x}, dcp.FileSystemWriter(path), no_dist=True).state_dict_metadata['w'].size"
        ),
        since="2.2",
        replacement="pass the storage writer as `storage_writer=`",
        replacement_call=(
            "import tempfile\n"
            "import torch.distributed.checkpoint as dcp\n"
            "path = tempfile.mkdtemp()\n"
            "result = dcp.save({'w': x}, storage_writer=dcp.FileSystemWriter(path), no_dist=True).state_dict_metadata['w'].size"
        ),
        replacement_since="2.2",
        exact=True,
        note="torch/distributed/checkpoint/utils.py _api_bc_check: with two positional arguments it warns and moves the second to the keyword storage_writer; a positional argument, not a keyword in the call",
        source="torch/distributed/checkpoint/utils.py:464",
    ),
    Deprecation(
        api="torch.distributed.checkpoint.DefaultSavePlanner",
        kind="keyword",
        keyword="dedup_replicated_tensors",
        call="import torch.distributed.checkpoint as dcp\nresult = type(dcp.DefaultSavePlanner(dedup_replicated_tensors=True)).__name__",
        since="2.3",
        replacement="drop it: it has no effect",
        replacement_call="import torch.distributed.checkpoint as dcp\nresult = type(dcp.DefaultSavePlanner()).__name__",
        replacement_since="2.0",
        exact=True,
        note="the deprecation is logged (logger.warning), not a Python warning, so the probe sees no warning; the argument is ignored (torch/distributed/checkpoint/default_planner.py); release from the 2.3 source",
        source="torch/distributed/checkpoint/default_planner.py:86",
    ),
    Deprecation(
        api="torch.distributed.checkpoint.state_dict.get_model_state_dict",
        kind="keyword",
        keyword="submodules",
        call=(
            "import torch.distributed.checkpoint.state_dict as dcp_state_dict\n"
            "model = nn.Sequential(nn.Linear(4, 2), nn.Linear(2, 1))\n"
            "result = dcp_state_dict.get_model_state_dict(model, submodules={model[0]})"
        ),
        since="2.4",
        replacement="filter the returned state dict by key prefix",
        note="the warning says it will be removed in 2.5 but 2.13 still warns",
        source="torch/distributed/checkpoint/state_dict.py:287",
    ),
    # ---------------------------------------------------------------- distributed: elastic / launch
    Deprecation(
        api="torch.distributed.launch",
        kind="module",
        call=(
            "import torch.distributed.launch as launch\n"
            "try:\n"
            "    launch.main(['--help'])\n"
            "except SystemExit:  # argparse exits after printing the help; the warning comes first\n"
            "    pass\n"
            "result = None"
        ),
        since="1.9",
        replacement="`torchrun` (reads LOCAL_RANK from the environment instead of `--local-rank`)",
        note="python -m torch.distributed.launch runs main(), which warns; torchrun passes no --local-rank argument, so not a drop-in",
        source="torch/distributed/launch.py:191, torch/distributed/launch.py:1",
    ),
    Deprecation(
        api="torch.distributed.elastic.metrics.profile",
        kind="function",
        call="import torch.distributed.elastic.metrics as metrics\nresult = metrics.profile('group')(torch.sin)(x)",
        since="2.4",
        replacement="`torch.distributed.elastic.metrics.prof`",
        replacement_call="import torch.distributed.elastic.metrics as metrics\nresult = metrics.prof(torch.sin, group='group')(x)",
        replacement_since="1.9",
        exact=False,
        note="prof publishes other metric names (duration and success counts differ), the wrapped result is the same; release from the 2.4 source",
        source="torch/distributed/elastic/metrics/api.py:151",
    ),
    Deprecation(
        api="torch.distributed.elastic.metrics.publish_metric",
        kind="function",
        call="import torch.distributed.elastic.metrics as metrics\nresult = metrics.publish_metric('group', 'name', 1)",
        since="2.4",
        replacement="`torch.distributed.elastic.metrics.put_metric(name, value, group)`",
        replacement_call="import torch.distributed.elastic.metrics as metrics\nresult = metrics.put_metric('name', 1, 'group')",
        replacement_since="1.9",
        exact=True,
        note="both add the value to getStream(group) (torch/distributed/elastic/metrics/api.py); the arguments reorder, so no dotted-name fix",
        source="torch/distributed/elastic/metrics/api.py:204",
    ),
    Deprecation(
        api="torch.distributed.elastic.agent.server.WorkerSpec",
        kind="keyword",
        keyword="fn",
        call="from torch.distributed.elastic.agent.server import WorkerSpec\nresult = WorkerSpec(role='trainer', local_world_size=1, fn=print, rdzv_handler=None).entrypoint is None",
        since="1.9",
        replacement="`entrypoint=`",
        replacement_call="from torch.distributed.elastic.agent.server import WorkerSpec\nresult = WorkerSpec(role='trainer', local_world_size=1, entrypoint=print, rdzv_handler=None).entrypoint is None",
        replacement_since="1.9",
        exact=False,
        note="a fn spec keeps entrypoint None; the agent then calls fn in the worker",
        source="torch/distributed/elastic/agent/server/api.py:114",
    ),
    # ---------------------------------------------------------------- torch.library / compiler / dynamo
    Deprecation(
        api="torch.library.impl_abstract",
        kind="function",
        call=CUSTOM_OP
        + "torch.library.impl_abstract('gradlint_probe::twice')(lambda t: torch.empty_like(t))\nresult = torch.ops.gradlint_probe.twice(x)",
        since="2.4",
        replacement="`torch.library.register_fake`",
        replacement_call=CUSTOM_OP
        + "torch.library.register_fake('gradlint_probe::twice')(lambda t: torch.empty_like(t))\nresult = torch.ops.gradlint_probe.twice(x)",
        replacement_since="2.4",
        exact=True,
        note="torch/library.py: the body is `return register_fake(qualname, func, lib=lib, _stacklevel=...)`; the docstring says renamed in 2.4",
        source="torch/library.py:964",
    ),
    Deprecation(
        api="torch._dynamo.explain",
        kind="function",
        call="result = torch._dynamo.explain(torch.sin, x).graph_count",
        since="2.1",
        replacement="`torch._dynamo.explain(f)(*args)`",
        replacement_call="result = torch._dynamo.explain(torch.sin)(x).graph_count",
        replacement_since="2.1",
        exact=True,
        note="only the form with the example arguments after f is deprecated; torch/_dynamo/eval_frame.py: with extra arguments it warns and returns inner(*extra_args) of the same closure explain(f) returns",
        source="torch/_dynamo/eval_frame.py:1874",
    ),
    Deprecation(
        api="torch._dynamo.config.inline_inbuilt_nn_modules",
        kind="attribute",
        call="torch._dynamo.config.inline_inbuilt_nn_modules = True\nresult = None",
        since="2.13",
        replacement="nothing: inlining built-in modules is always on; drop the setting",
        note="the config entry warns on read and write (torch/utils/_config_module.py); release not stated",
        source="torch/_dynamo/config.py:576",
    ),
    Deprecation(
        api="torch._dynamo.config.skip_code_recursive_on_cache_limit_hit",
        kind="attribute",
        call="torch._dynamo.config.skip_code_recursive_on_cache_limit_hit = True\nresult = None",
        since="2.13",
        replacement="nothing: the flag does nothing; drop the setting",
        note="alias of skip_code_recursive_on_recompile_limit_hit, both deprecated (torch/_dynamo/config.py)",
        source="torch/_dynamo/config.py:144",
    ),
    # ---------------------------------------------------------------- torch.fx
    Deprecation(
        api="torch.fx.experimental.symbolic_shapes.guard_size_oblivious",
        kind="function",
        call="import torch.fx.experimental.symbolic_shapes as symbolic_shapes\nresult = symbolic_shapes.guard_size_oblivious(True)",
        since="2.9",
        replacement="`guard_or_false` / `guard_or_true` / `statically_known_true`",
        note="which replacement depends on what the guard should do for unbacked sizes: no fix; release not stated",
        source="torch/fx/experimental/symbolic_shapes.py:525",
    ),
    # ---------------------------------------------------------------- torch.profiler / multiprocessing
    Deprecation(
        api="torch.profiler.profile",
        kind="keyword",
        keyword="use_cuda",
        call="with torch.profiler.profile(use_cuda=False) as prof:\n    torch.sin(x)\nresult = None",
        since="2.3",
        replacement="`activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]`",
        note="any value warns, False included; release from the 2.3 source",
        source="torch/profiler/profiler.py:951, torch/profiler/profiler.py:774",
    ),
    Deprecation(
        api="torch.profiler.profile.export_memory_timeline",
        kind="method",
        call=(
            "import os\n"
            "import tempfile\n"
            "with torch.profiler.profile(profile_memory=True, record_shapes=True, with_stack=True) as prof:\n"
            "    torch.sin(x)\n"
            "try:\n"
            "    prof.export_memory_timeline(os.path.join(tempfile.mkdtemp(), 'memory.json'))\n"
            "except Exception:  # the timeline needs CUDA memory events; the warning comes first\n"
            "    pass\n"
            "result = None"
        ),
        since="2.9",
        replacement="`torch.cuda.memory._record_memory_history` and `torch.cuda.memory._export_memory_snapshot`",
        note="a method of a profiler value; release not stated in the warning",
        source="torch/profiler/profiler.py:586, torch/profiler/profiler.py:592",
    ),
    Deprecation(
        api="torch.multiprocessing.SpawnContext",
        kind="class",
        call="import torch.multiprocessing as mp\nresult = type(mp.SpawnContext([], [])).__name__",
        since="1.4",
        replacement="`torch.multiprocessing.ProcessContext`",
        replacement_call="import torch.multiprocessing as mp\nresult = type(mp.ProcessContext([], [])).__name__",
        replacement_since="1.4",
        exact=False,
        note="SpawnContext subclasses ProcessContext and only warns in __init__; the type name differs",
        source="torch/multiprocessing/spawn.py:216",
    ),
    Deprecation(
        api="torch.multiprocessing.spawn",
        kind="keyword",
        keyword="start_method",
        call="import torch.multiprocessing as mp\ntorch.multiprocessing.spawn(abs, nprocs=1, start_method='fork')\nresult = None",
        since="1.5",
        replacement="`torch.multiprocessing.start_processes(..., start_method=...)`",
        note="any start_method other than spawn warns and is ignored (spawn is used)",
        source="torch/multiprocessing/spawn.py:339",
    ),
    # ---------------------------------------------------------------- torch.ao / torch.quantization
    _ao(
        "torch.ao.quantization.quantize_dynamic",
        _QUANTIZE_DYNAMIC.format(api="torch.ao.quantization.quantize_dynamic"),
        "torch/ao/quantization/quantize.py:483",
    ),
    _ao(
        "torch.quantization.quantize_dynamic",
        _QUANTIZE_DYNAMIC.format(api="torch.quantization.quantize_dynamic"),
        "torch/ao/quantization/quantize.py:483",
    ),
    _ao("torch.ao.quantization.prepare", _PREPARE.format(api="torch.ao.quantization.prepare"), "torch/ao/quantization/quantize.py:343"),
    _ao("torch.quantization.prepare", _PREPARE.format(api="torch.quantization.prepare"), "torch/ao/quantization/quantize.py:343"),
    _ao("torch.ao.quantization.convert", _CONVERT.format(api="torch.ao.quantization.convert"), "torch/ao/quantization/quantize.py:629"),
    _ao("torch.quantization.convert", _CONVERT.format(api="torch.quantization.convert"), "torch/ao/quantization/quantize.py:629"),
    _ao("torch.ao.quantization.quantize", _QUANTIZE.format(api="torch.ao.quantization.quantize"), "torch/ao/quantization/quantize.py:453"),
    _ao("torch.quantization.quantize", _QUANTIZE.format(api="torch.quantization.quantize"), "torch/ao/quantization/quantize.py:453"),
    _ao(
        "torch.ao.quantization.prepare_qat",
        _PREPARE_QAT.format(api="torch.ao.quantization.prepare_qat"),
        "torch/ao/quantization/quantize.py:574",
    ),
    _ao(
        "torch.quantization.prepare_qat", _PREPARE_QAT.format(api="torch.quantization.prepare_qat"), "torch/ao/quantization/quantize.py:574"
    ),
    _ao(
        "torch.ao.quantization.quantize_qat",
        _QUANTIZE_QAT.format(api="torch.ao.quantization.quantize_qat"),
        "torch/ao/quantization/quantize.py:605",
    ),
    _ao(
        "torch.ao.quantization.quantize_fx.prepare_fx",
        _PREPARE_FX.format(api="quantize_fx.prepare_fx"),
        "torch/ao/quantization/quantize_fx.py:253",
        "torchao pt2e (`prepare_pt2e`)",
    ),
    _ao(
        "torch.ao.quantization.quantize_fx.prepare_qat_fx",
        _PREPARE_QAT_FX.format(api="quantize_fx.prepare_qat_fx"),
        "torch/ao/quantization/quantize_fx.py:405",
        "torchao pt2e (`prepare_qat_pt2e`)",
    ),
    _ao(
        "torch.ao.quantization.quantize_fx.convert_fx",
        _CONVERT_FX.format(api="quantize_fx.convert_fx"),
        "torch/ao/quantization/quantize_fx.py:566",
        "torchao pt2e (`convert_pt2e`)",
    ),
    Deprecation(
        api="torch.ao.quantization.QConfigDynamic",
        kind="class",
        call="result = torch.ao.quantization.QConfigDynamic().weight",
        since="1.12",
        replacement="`torch.ao.quantization.QConfig`",
        replacement_call="result = torch.ao.quantization.QConfig(activation=torch.ao.quantization.PlaceholderObserver.with_args(dtype=torch.float), weight=torch.ao.quantization.default_weight_observer).weight",
        replacement_since="1.10",
        exact=False,
        note="QConfig has no defaults; the QConfigDynamic defaults have to be written out",
        source="torch/ao/quantization/qconfig.py:119",
    ),
    Deprecation(
        api="torch.ao.quantization.get_default_qconfig_dict",
        kind="function",
        call="result = sorted(torch.ao.quantization.get_default_qconfig_dict('x86'))",
        since="1.13",
        replacement="`torch.ao.quantization.get_default_qconfig_mapping`",
        replacement_call="result = sorted(torch.ao.quantization.get_default_qconfig_mapping('x86').to_dict())",
        replacement_since="1.13",
        exact=False,
        note="returns a QConfigMapping, not a dict (`.to_dict()` gives the dict)",
        source="torch/ao/quantization/qconfig.py:526",
    ),
    Deprecation(
        api="torch.ao.quantization.get_default_qat_qconfig_dict",
        kind="function",
        call="result = sorted(torch.ao.quantization.get_default_qat_qconfig_dict('x86'))",
        since="1.13",
        replacement="`torch.ao.quantization.get_default_qat_qconfig_mapping`",
        replacement_call="result = sorted(torch.ao.quantization.get_default_qat_qconfig_mapping('x86').to_dict())",
        replacement_since="1.13",
        exact=False,
        note="returns a QConfigMapping, not a dict",
        source="torch/ao/quantization/qconfig.py:535",
    ),
    Deprecation(
        api="torch.ao.nn.quantized.functional.upsample",
        kind="function",
        call="with warnings.catch_warnings():  # quint8 tensors are deprecated themselves (torch.quantize_per_tensor warns)\n    warnings.simplefilter('ignore')\n    q = torch.quantize_per_tensor(img, 0.1, 0, torch.quint8)\nresult = torch.ao.nn.quantized.functional.upsample(q, scale_factor=2)",
        since="1.3",
        replacement="`torch.ao.nn.quantized.functional.interpolate`",
        replacement_call="with warnings.catch_warnings():  # quint8 tensors are deprecated themselves (torch.quantize_per_tensor warns)\n    warnings.simplefilter('ignore')\n    q = torch.quantize_per_tensor(img, 0.1, 0, torch.quint8)\nresult = torch.ao.nn.quantized.functional.interpolate(q, scale_factor=2)",
        replacement_since="1.13",
        exact=True,
        note="torch/ao/nn/quantized/functional.py: the body is `return interpolate(input, size, scale_factor, mode, align_corners)`; it warned since quantized functional was added (1.3); torch.ao.nn is 1.13 (the AO migration tracker, pytorch#81667); the replacement still warns: the quint8 output is itself deprecated in 2.13",
        source="torch/ao/nn/quantized/functional.py:726, torch/ao/nn/quantized/functional.py:677",
    ),
    Deprecation(
        api="torch.ao.nn.quantized.functional.upsample_nearest",
        kind="function",
        call="with warnings.catch_warnings():  # quint8 tensors are deprecated themselves (torch.quantize_per_tensor warns)\n    warnings.simplefilter('ignore')\n    q = torch.quantize_per_tensor(img, 0.1, 0, torch.quint8)\nresult = torch.ao.nn.quantized.functional.upsample_nearest(q, scale_factor=2)",
        since="1.3",
        replacement="`torch.ao.nn.quantized.functional.interpolate(..., mode='nearest')`",
        replacement_call="with warnings.catch_warnings():  # quint8 tensors are deprecated themselves (torch.quantize_per_tensor warns)\n    warnings.simplefilter('ignore')\n    q = torch.quantize_per_tensor(img, 0.1, 0, torch.quint8)\nresult = torch.ao.nn.quantized.functional.interpolate(q, scale_factor=2, mode='nearest')",
        replacement_since="1.13",
        exact=True,
        note="the body is `return interpolate(input, size, scale_factor, mode='nearest')`; the replacement still warns: the quint8 output is itself deprecated in 2.13",
        source="torch/ao/nn/quantized/functional.py:778, torch/ao/nn/quantized/functional.py:760",
    ),
    Deprecation(
        api="torch.ao.nn.quantized.functional.upsample_bilinear",
        kind="function",
        call="with warnings.catch_warnings():  # quint8 tensors are deprecated themselves (torch.quantize_per_tensor warns)\n    warnings.simplefilter('ignore')\n    q = torch.quantize_per_tensor(img, 0.1, 0, torch.quint8)\nresult = torch.ao.nn.quantized.functional.upsample_bilinear(q, scale_factor=2)",
        since="1.3",
        replacement="`torch.ao.nn.quantized.functional.interpolate(..., mode='bilinear', align_corners=True)`",
        replacement_call="with warnings.catch_warnings():  # quint8 tensors are deprecated themselves (torch.quantize_per_tensor warns)\n    warnings.simplefilter('ignore')\n    q = torch.quantize_per_tensor(img, 0.1, 0, torch.quint8)\nresult = torch.ao.nn.quantized.functional.interpolate(q, scale_factor=2, mode='bilinear', align_corners=True)",
        replacement_since="1.13",
        exact=True,
        note="the body is `return interpolate(input, size, scale_factor, mode='bilinear', align_corners=True)`; the replacement still warns: the quint8 output is itself deprecated in 2.13",
        source="torch/ao/nn/quantized/functional.py:752, torch/ao/nn/quantized/functional.py:734",
    ),
    Deprecation(
        api="torch.ao.quantization.observer.MinMaxObserver",
        kind="keyword",
        keyword="reduce_range",
        call="result = torch.ao.quantization.observer.MinMaxObserver(reduce_range=True).quant_max",
        since="1.9",
        replacement="`quant_min=` / `quant_max=`",
        replacement_call="result = torch.ao.quantization.observer.MinMaxObserver(quant_min=0, quant_max=127).quant_max",
        replacement_since="1.9",
        exact=False,
        note="the range reduce_range picks depends on dtype; 0..127 for the default quint8",
        source="torch/ao/quantization/observer.py:246",
    ),
    # ---------------------------------------------------------------- functorch
    _functorch("vmap", "result = {api}(torch.sum)(x)", "torch.vmap"),
    _functorch("grad", "result = {api}(lambda t: (t ** 2).sum())(v)", "torch.func.grad"),
    _functorch("grad_and_value", "result = {api}(lambda t: (t ** 2).sum())(v)", "torch.func.grad_and_value"),
    _functorch("vjp", "out, pullback = {api}(torch.sin, v)\nresult = pullback(torch.ones(3))", "torch.func.vjp"),
    _functorch(
        "jvp",
        # The first forward-AD use scripts torch's jvp decompositions, and torch.jit.script warns.
        "with warnings.catch_warnings():\n"
        "    warnings.simplefilter('ignore')\n"
        "    with torch.autograd.forward_ad.dual_level():\n"
        "        torch.autograd.forward_ad.make_dual(v, v)\n"
        "result = {api}(torch.sin, (v,), (torch.ones(3),))",
        "torch.func.jvp",
    ),
    _functorch("jacrev", "result = {api}(torch.sin)(v)", "torch.func.jacrev"),
    _functorch("jacfwd", "result = {api}(torch.sin)(v)", "torch.func.jacfwd"),
    _functorch("hessian", "result = {api}(lambda t: (t ** 3).sum())(v)", "torch.func.hessian"),
    _functorch("functionalize", "result = {api}(lambda t: t.add_(1))(v.clone())", "torch.func.functionalize"),
    Deprecation(
        api="functorch.make_functional",
        kind="function",
        call="import functorch\nfunction, params = functorch.make_functional(model)\nresult = function(params, x)",
        since="2.0",
        replacement="`torch.func.functional_call(model, params, args)`",
        replacement_call="params = dict(model.named_parameters())\nresult = torch.func.functional_call(model, params, (x,))",
        replacement_since="2.0",
        exact=False,
        note="a different calling convention (a dict of parameters against a stateless function and a tuple)",
        source="torch/_functorch/deprecated.py:155",
    ),
    Deprecation(
        api="functorch.make_functional_with_buffers",
        kind="function",
        call="import functorch\nfunction, params, buffers = functorch.make_functional_with_buffers(model)\nresult = function(params, buffers, x)",
        since="2.0",
        replacement="`torch.func.functional_call(model, (params, buffers), args)`",
        replacement_call="result = torch.func.functional_call(model, (dict(model.named_parameters()), dict(model.named_buffers())), (x,))",
        replacement_since="2.0",
        exact=False,
        note="a different calling convention",
        source="torch/_functorch/deprecated.py:162",
    ),
    Deprecation(
        api="functorch.combine_state_for_ensemble",
        kind="function",
        call="import functorch\nfunction, params, buffers = functorch.combine_state_for_ensemble([nn.Linear(4, 2), nn.Linear(4, 2)])\nresult = [p.shape for p in params]",
        since="2.0",
        replacement="`torch.func.stack_module_state`",
        replacement_call="params, buffers = torch.func.stack_module_state([nn.Linear(4, 2), nn.Linear(4, 2)])\nresult = [p.shape for p in params.values()]",
        replacement_since="2.0",
        exact=False,
        note="returns dicts and no stateless function",
        source="torch/_functorch/deprecated.py:167",
    ),
]

EXCLUDED: dict[str, str] = {
    "torch/cuda/_memory_viz.py:440": "private CLI helper module (_memory_viz); the device argument of its plotting functions",
    "torch/cuda/tunable.py:638": "not a deprecation: offline tuning of an unsupported GEMM falls back to online tuning",
    "torch/cuda/tunable.py:657": "not a deprecation: offline tuning of an unsupported GEMM falls back to online tuning",
    "torch/cuda/memory.py:1191": "private torch.cuda._set_allocator_settings; its replacement is private too (torch._C)",
    "torch/cuda/nccl.py:101": "torch.cuda.nccl.reduce with an output list: needs CUDA tensors and NCCL before the warning can fire",
    "torch/cuda/nccl.py:112": "torch.cuda.nccl.reduce with an output list: needs CUDA tensors and NCCL before the warning can fire",
    "torch/cuda/amp/autocast_mode.py:76": "private torch.cuda.amp.autocast_mode._cast",
    "torch/amp/grad_scaler.py:435": "warns only for an optimizer that declares _step_supports_amp_scaling and takes grad_scaler: torch's own fused optimizers no longer do",
    "torch/distributed/distributed_c10d.py:957": "private _get_pg_default_device",
    "torch/distributed/distributed_c10d.py:891": "warns only on misuse: a Backend object passed where a ProcessGroup is expected",
    "torch/distributed/distributed_c10d.py:971": "warns only on misuse: a Backend object passed where a ProcessGroup is expected",
    "torch/distributed/device_mesh.py:110": "private _MeshEnv.get_root_mesh",
    "torch/distributed/device_mesh.py:134": "private _MeshEnv._get_all_submeshes",
    "torch/distributed/device_mesh.py:996": "slicing a dimension made by the private DeviceMesh._flatten",
    "torch/distributed/optim/_deprecation_warning.py:10": "raised by the private _Functional* optimizers' __init__, built only by torch's own RPC/DDP overlap code",
    "torch/distributed/optim/functional_adadelta.py:36": "private _FunctionalAdadelta (see _deprecation_warning.py)",
    "torch/distributed/optim/functional_rprop.py:35": "private _FunctionalRprop",
    "torch/distributed/optim/functional_adagrad.py:41": "private _FunctionalAdagrad",
    "torch/distributed/optim/functional_adamw.py:38": "private _FunctionalAdamW",
    "torch/distributed/optim/functional_adam.py:38": "private _FunctionalAdam",
    "torch/distributed/optim/functional_sgd.py:38": "private _FunctionalSGD",
    "torch/distributed/optim/functional_adamax.py:36": "private _FunctionalAdamax",
    "torch/distributed/optim/functional_rmsprop.py:38": "private _FunctionalRMSprop",
    "torch/distributed/nn/functional.py:24": "the helper that words the warnings of the torch.distributed.nn.functional records",
    "torch/distributed/_shard/sharded_tensor/api.py:834": "ShardedTensor internals (_init_from_local_tensor); the whole _shard package is private",
    "torch/distributed/_shard/sharded_tensor/api.py:1083": "ShardedTensor.reshard of the private _shard package: needs a multi-rank sharding spec",
    "torch/distributed/_shard/sharded_tensor/api.py:1204": "ShardedTensor.__torch_function__ of the private _shard package",
    "torch/distributed/_shard/sharded_tensor/api.py:421": "ShardedTensor.gather(enforce_dtype=) of the private _shard package",
    "torch/distributed/_shard/sharded_tensor/api.py:675": "not a deprecation: ShardedTensor.to to another device is unsupported",
    "torch/distributed/_symmetric_memory/__init__.py:25": "private _symmetric_memory; needs CUDA symmetric memory",
    "torch/distributed/fsdp/_init_utils.py:432": "not a deprecation: FSDP switches to NO_SHARD at world size 1",
    "torch/distributed/fsdp/_init_utils.py:440": "NO_SHARD deprecation fires only with world size > 1 (at world size 1 the strategy is clamped silently); not reachable in one process",
    "torch/distributed/fsdp/fully_sharded_data_parallel.py:674": "FSDP1 state_dict_type needs an FSDP-wrapped model on an accelerator device (CPU FSDP1 is not supported for flat parameters here)",
    "torch/distributed/fsdp/fully_sharded_data_parallel.py:1247": "FSDP1 legacy optimizer-state functions need an FSDP-wrapped model on an accelerator device",
    "torch/distributed/fsdp/fully_sharded_data_parallel.py:1227": "FSDP1 optim_input needs an FSDP-wrapped model on an accelerator device",
    "torch/distributed/fsdp/_fully_shard/_fully_shard.py:641": "FSDPModule.set_reduce_scatter_divide_factor: a method of a fully_shard module, which needs an accelerator mesh",
    "torch/distributed/pipelining/_utils.py:797": "not a deprecation: metadata mismatch falls back to inferred metadata",
    "torch/distributed/pipelining/_utils.py:812": "not a deprecation: metadata mismatch falls back to inferred metadata",
    "torch/distributed/checkpoint/state_dict.py:1370": "a value form: set_state_dict with a dict keyed by modules (the keyword itself is not deprecated)",
    "torch/distributed/checkpoint/staging.py:88": "AsyncStager.synchronize_staging: a protocol method stager implementations override; torch calls it",
    "torch/distributed/tensor/_api.py:1031": "private _shard_tensor",
    "torch/distributed/tensor/_api.py:1176": "a value form: distribute_module with a two-argument input_fn",
    "torch/distributed/tensor/_api.py:1199": "a value form: distribute_module with a two-argument output_fn",
    "torch/distributed/tensor/_op_schema.py:305": "private _op_schema (DTensor sharding propagation internals)",
    "torch/distributed/_functional_collectives.py:1298": "a value form: a rank list (+ tag) as the group of a functional collective; the group argument itself is not deprecated",
    "torch/ao/quantization/fx/prepare.py:2005": "a value form: a dict as qconfig_mapping of prepare_fx (prepare_fx itself is recorded)",
    "torch/distributed/checkpoint/utils.py:464": "the positional-order check behind the torch.distributed.checkpoint.save storage_writer record",
    "torch/utils/_contextlib.py:134": "torch.no_grad()/enable_grad() decorating a class: grad mode belongs to the core area",
    "torch/utils/_pytree.py:1364": "LeafSpec: recorded as torch.utils._pytree.LeafSpec",
    "torch/utils/_config_module.py:767": "config.to_dict() of torch's private config modules (torch._dynamo.config ...)",
    "torch/utils/_config_module.py:776": "config.shallow_copy_dict() of torch's private config modules",
    "torch/utils/_config_module.py:415": "the helper behind the torch._dynamo.config records",
    "torch/utils/_config_module.py:444": "the helper behind the torch._dynamo.config records",
    "torch/utils/_config_module.py:426": "the helper behind the torch._dynamo.config records",
    "torch/utils/_python_dispatch.py:200": "TorchDispatchMode.push of the private _python_dispatch module",
    "torch/utils/cpp_extension.py:1943": "private _get_pybind11_abi_build_flags",
    "torch/utils/_cxx_pytree.py:194": "torch.utils._cxx_pytree needs the optree package, not a torch dependency (import fails without it)",
    "torch/utils/_cxx_pytree.py:1048": "torch.utils._cxx_pytree needs the optree package",
    "torch/utils/model_dump/__init__.py:432": "the main() of the python -m torch.utils.model_dump command-line tool, not an API",
    "torch/utils/hipify/hipify_python.py:46": "the helper behind the hipify records",
    "torch/utils/hipify/hipify_python.py:656": "is_cusparse_file: same helper as the is_pytorch_file record, internal to hipify",
    "torch/utils/hipify/hipify_python.py:663": "is_special_file: same helper as the is_pytorch_file record, internal to hipify",
    "torch/utils/hipify/hipify_python.py:675": "is_caffe2_gpu_file: same helper as the is_pytorch_file record, internal to hipify",
    "torch/utils/data/datapipes/gen_pyi.py:32": "build-time stub generator, not an API",
    "torch/utils/data/datapipes/gen_pyi.py:46": "build-time stub generator, not an API",
    "torch/utils/data/datapipes/datapipe.py:145": "warns through DataPipe functional names registered as deprecated; none is registered in 2.13",
    "torch/utils/data/datapipes/datapipe.py:293": "warns through DataPipe functional names registered as deprecated; none is registered in 2.13",
    "torch/utils/data/datapipes/iter/routeddecoder.py:51": "RoutedDecoderIterDataPipe (removal announced for 1.13 and torchdata's); not exported by torch.utils.data.datapipes.iter",
    "torch/utils/data/datapipes/utils/common.py:315": "the helper behind DataPipe deprecations",
    "torch/utils/data/datapipes/utils/common.py:150": "not a deprecation: local functions do not pickle",
    "torch/utils/data/datapipes/utils/common.py:159": "not a deprecation: lambdas do not pickle",
    "torch/jit/_serialization.py:83": "the Python >= 3.14 variant of the torch.jit.save warning",
    "torch/jit/_serialization.py:170": "the Python >= 3.14 variant of the torch.jit.load warning",
    "torch/jit/_script.py:359": "the Python >= 3.14 variant of the torch.jit.script_method warning",
    "torch/jit/_script.py:1482": "the Python >= 3.14 variant of the torch.jit.script warning",
    "torch/jit/_script.py:774": "the decorator of the _save_for_lite_interpreter record",
    "torch/jit/_script.py:799": "_save_to_buffer_for_lite_interpreter: the in-memory twin of the recorded _save_for_lite_interpreter",
    "torch/jit/_script.py:804": "_save_to_buffer_for_lite_interpreter: the in-memory twin of the recorded _save_for_lite_interpreter",
    "torch/jit/_decompositions.py:51": "not a deprecation: an internal signature check of decompositions",
    "torch/jit/_check.py:188": "not a deprecation: TorchScript annotation advice",
    "torch/jit/_check.py:254": "not a deprecation: TorchScript annotation advice",
    "torch/jit/_trace.py:1000": "the Python >= 3.14 variant of the torch.jit.trace warning",
    "torch/jit/_trace.py:1139": "the Python >= 3.14 variant of the torch.jit.trace_module warning",
    "torch/jit/_trace.py:1152": "trace_module(optimize=): the same keyword as the torch.jit.trace optimize record",
    "torch/onnx/_internal/torchscript_exporter/utils.py:91": "the decorator of the torch.onnx.utils.select_model_mode_for_export record",
    "torch/onnx/_internal/torchscript_exporter/utils.py:144": "the decorator of the torch.onnx.utils.disable_apex_o2_state_dict_hook record",
    "torch/onnx/_internal/torchscript_exporter/utils.py:184": "the decorator of the torch.onnx.utils.setup_onnx_logging record",
    "torch/onnx/_internal/torchscript_exporter/utils.py:202": "the decorator of the torch.onnx.utils.exporter_context record",
    "torch/onnx/_internal/torchscript_exporter/utils.py:1207": "the decorator of the torch.onnx.utils.unconvertible_ops record",
    "torch/onnx/_internal/exporter/_compat.py:103": "not a deprecation: dynamic_axes advice for the dynamo exporter",
    "torch/onnx/_internal/exporter/_compat.py:187": "the dynamo exporter writing to BytesIO: needs onnxscript, which the probe machine lacks; a value form of f",
    "torch/onnx/_internal/exporter/_dynamic_shapes.py:43": "private converter called by the exporter",
    "torch/onnx/_internal/exporter/_dynamic_shapes.py:246": "not a deprecation",
    "torch/fx/graph_module.py:762": "not a deprecation: to_folder pickles modules it cannot print",
    "torch/fx/experimental/symbolic_shapes.py:2943": "ShapeGuardPrinter: compiler-internal printer class",
    "torch/fx/experimental/symbolic_shapes.py:5804": "ShapeEnv.var_to_val: compiler-internal state",
    "torch/fx/experimental/symbolic_shapes.py:5812": "ShapeEnv.add_var_to_val: compiler-internal state",
    "torch/fx/experimental/symbolic_shapes.py:7312": "ShapeEnv.size_hint: compiler-internal",
    "torch/fx/experimental/unification/multipledispatch/dispatcher.py:60": "vendored multipledispatch internals of fx's unification",
    "torch/fx/experimental/unification/multipledispatch/dispatcher.py:68": "vendored multipledispatch internals of fx's unification",
    "torch/fx/experimental/unification/multipledispatch/dispatcher.py:370": "vendored multipledispatch internals of fx's unification",
    "torch/export/exported_program.py:1770": "not a deprecation: a graph module that cannot be recompiled",
    "torch/export/__init__.py:401": "a data condition: loading a file written by an older serialisation version",
    "torch/export/__init__.py:404": "a data condition: loading a file written by an older serialisation version",
    "torch/export/_unlift.py:541": "not a deprecation: a tensor attribute requiring grad that is not a parameter",
    "torch/export/_unlift.py:561": "not a deprecation: a tensor attribute requiring grad that is not a parameter",
    "torch/compiler/__init__.py:548": "private torch.compiler._patch_autograd_grad",
    "torch/_dynamo/eval_frame.py:2637": "torch._dynamo.export(f, *args): the old dynamo export entry point; users call torch.export.export (recorded: explain)",
    "torch/_dynamo/eval_frame.py:501": "not a deprecation: global module hooks with torch.compile",
    "torch/ao/nn/quantized/dynamic/modules/rnn.py:32": "apply_permutation: module-level helper of the quantized dynamic RNN",
    "torch/ao/nn/quantizable/modules/activation.py:447": "a value form: a uint8 key_padding_mask (same as nn.MultiheadAttention's, core area)",
    "torch/ao/nn/quantizable/modules/activation.py:417": "a value form: a uint8 attn_mask (same as nn.MultiheadAttention's, core area)",
    "torch/ao/nn/quantized/dynamic/modules/conv.py:70": "not a deprecation: dynamic quantized conv accuracy advice",
    "torch/ao/nn/quantized/dynamic/modules/conv.py:157": "not a deprecation: dynamic quantized conv accuracy advice",
    "torch/ao/nn/quantized/dynamic/modules/conv.py:243": "not a deprecation: dynamic quantized conv accuracy advice",
    "torch/ao/nn/quantized/dynamic/modules/conv.py:336": "not a deprecation: dynamic quantized conv accuracy advice",
    "torch/ao/nn/quantized/dynamic/modules/conv.py:419": "not a deprecation: dynamic quantized conv accuracy advice",
    "torch/ao/nn/quantized/dynamic/modules/conv.py:502": "not a deprecation: dynamic quantized conv accuracy advice",
    "torch/ao/quantization/observer.py:1519": "PlaceholderObserver(compute_dtype=): observer internals built by qconfigs",
    "torch/ao/quantization/quantize_fx.py:117": "a value form: a dict prepare_custom_config (recorded for qconfig_mapping)",
    "torch/ao/quantization/quantize_fx.py:229": "a value form: a dict fuse_custom_config",
    "torch/ao/quantization/quantize_fx.py:534": "a value form: a dict convert_custom_config",
    "torch/ao/quantization/fx/fuse.py:43": "a value form: a dict fuse_custom_config",
    "torch/ao/quantization/fx/fuse.py:52": "a value form: a dict backend_config",
    "torch/ao/quantization/fx/prepare.py:2014": "a value form: a dict equalization qconfig",
    "torch/ao/quantization/fx/prepare.py:2023": "a value form: a dict prepare_custom_config",
    "torch/ao/quantization/fx/prepare.py:2032": "a value form: a dict backend_config",
    "torch/ao/quantization/fx/convert.py:1075": "a value form: a dict convert_custom_config",
    "torch/ao/quantization/fx/convert.py:1084": "a value form: a dict qconfig_mapping to convert",
    "torch/ao/quantization/fx/convert.py:1098": "a value form: a dict backend_config",
    "functorch/einops/_parsing.py:190": "not a deprecation of an API: an axis named 'axis' in an einops pattern",
    "functorch/einops/_parsing.py:185": "not a deprecation: axis names that are keywords",
    "torch/_functorch/deprecated.py:49": "the helper behind the functorch records",
    "torch/_library/custom_ops.py:595": "not a deprecation: an unneeded fake registration",
    "torch/_library/fake_impl.py:156": "FakeImplCtx.create_unbacked_symint: a method of the context torch passes to fake kernels; renamed new_dynamic_size",
    "torch/_dynamo/convert_frame.py:553": "not a deprecation: profile output falls back to stats",
    "torch/_dynamo/debug_utils.py:825": "not a deprecation: repro input generation",
    "torch/_dynamo/external_utils.py:44": "declared under TYPE_CHECKING only: the runtime function does not warn and is not deprecated at run time",
    "torch/_dynamo/external_utils.py:118": "internal FakeBackwardCFunction used by compiled autograd",
    "torch/_dynamo/repro/after_aot.py:1147": "not a deprecation: repro script generation",
    "torch/_dynamo/repro/after_aot.py:1495": "repro tooling internals (patch_code)",
    "torch/_export/__init__.py:74": "private torch._export.aot_compile/aot_load; running it needs a C++ toolchain (AOTInductor), not reachable in the probe",
    "torch/backends/xeon/run_cpu.py:580": "not a deprecation: launcher falls back to taskset",
    "torch/backends/xeon/run_cpu.py:587": "not a deprecation: launcher option advice",
    "torch/distributed/elastic/utils/distributed.py:40": "internal store helper of torchelastic (create_c10d_store), not a public API",
    "torch/distributed/optim/zero_redundancy_optimizer.py:440": "not a deprecation: an option ignored with overlap_with_ddp",
    "torch/distributed/pipelining/schedules.py:1808": "PipelineScheduleMulti(use_full_backward=): building a schedule needs pipeline stages over several ranks",
    "torch/distributed/rpc/__init__.py:160": "not a deprecation: backend inferred from options",
    "torch/distributed/tensor/_random.py:215": "private DTensor RNG tracker behaviour, needs a multi-rank mesh",
    "torch/export/__init__.py:365": "a data condition: loading a file of an older serialisation version",
    "torch/export/pt2_archive/_package.py:701": "not a deprecation: archive file name check",
    "torch/export/pt2_archive/_package.py:1121": "not a deprecation: archive file name check",
    "torch/fx/experimental/unification/multipledispatch/dispatcher.py:374": "vendored multipledispatch internals of fx's unification",
    "torch/onnx/_internal/torchscript_exporter/utils.py:245": "a value form inside the legacy exporter: a dict as the last element of args",
    "torch/onnx/_internal/torchscript_exporter/verification.py:45": "private legacy-exporter verification module",
    "torch/onnx/_internal/torchscript_exporter/verification.py:59": "private legacy-exporter verification module",
    "torch/onnx/_internal/torchscript_exporter/verification.py:448": "private legacy-exporter verification module",
    "torch/utils/_pytree.py:630": "not a deprecation: Enum types are supported natively",
    "torch/utils/backend_registration.py:381": "TypedStorage methods generated for a PrivateUse1 backend: needs a custom device backend",
    "torch/utils/backend_registration.py:394": "TypedStorage methods generated for a PrivateUse1 backend: needs a custom device backend",
    "torch/cuda/__init__.py:1708": "CUDA typed storages: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1723": "torch.cuda.ByteStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1734": "torch.cuda.DoubleStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1745": "torch.cuda.FloatStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1756": "torch.cuda.HalfStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1767": "torch.cuda.LongStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1778": "torch.cuda.IntStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1789": "torch.cuda.ShortStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1800": "torch.cuda.CharStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1811": "torch.cuda.BoolStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1822": "torch.cuda.BFloat16Storage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1833": "torch.cuda.ComplexDoubleStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
    "torch/cuda/__init__.py:1844": "torch.cuda.ComplexFloatStorage: making one needs CUDA (the TypedStorage deprecation is recorded for the CPU storages in the core catalog)",
}
