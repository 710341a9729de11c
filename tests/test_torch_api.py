"""The torch API table holds under torch 2.13: every row names a real API, and every property a
row states is measured by calling it."""

from __future__ import annotations

import importlib
import re
import inspect
from pathlib import Path

import pytest
import torch

from gradlint.analysis import torch_api
from gradlint.analysis.torch_api import FUNCTIONS, METHODS, function_table, method_table
from gradlint.analysis.torch_api.records import read_rows

# Calls that need a CUDA device cannot run on the test machine; their rows follow the CPU twins'.
_NEEDS_CUDA = frozenset({"cuda", "pin_memory"})


def _graph_input() -> torch.Tensor:
    """A float matrix with autograd history."""
    return torch.randn(2, 3, requires_grad=True) * 1.0


def _arguments(name: str, x: torch.Tensor) -> tuple:
    index = torch.zeros(2, 1, dtype=torch.long)
    transposed = x.transpose(-1, -2) if x.dim() >= 2 else x
    samples = {
        "to": (torch.float32,),
        "type": (torch.float32,),
        "type_as": (x,),
        "view": (-1,),
        "view_as": (x,),
        "reshape": (-1,),
        "unsqueeze": (0,),
        "permute": (1, 0),
        "transpose": (0, 1),
        "unflatten": (1, (3, 1)),
        "expand": (2, 3),
        "expand_as": (x,),
        "narrow": (0, 0, 1),
        "select": (0, 0),
        "diagonal": (),
        "unfold": (1, 2, 1),
        "as_strided": ((2,), (1,)),
        "movedim": (0, 1),
        "moveaxis": (0, 1),
        "swapaxes": (0, 1),
        "swapdims": (0, 1),
        "split": (1,),
        "chunk": (2,),
        "tensor_split": (2,),
        "hsplit": (3,),
        "vsplit": (2,),
        "dsplit": (1,),
        "split_with_sizes": ([1, 1],),
        "topk": (1,),
        "sort": (),
        "kthvalue": (1,),
        "cumsum": (0,),
        "dot": (x,),
        "dist": (x,),
        "add": (x,),
        "sub": (x,),
        "mul": (x,),
        "div": (x,),
        "clamp": (0.0,),
        "clamp_min": (0.0,),
        "clamp_max": (0.0,),
        "clip": (0.0,),
        "pow": (2,),
        "matmul": (transposed,),
        "mm": (transposed,),
        "repeat": (2, 1),
        "index_select": (1, index[:, 0]),
        "gather": (1, index),
        "scatter": (1, index, 0.0),
        "masked_fill": (x > 0, 0.0),
        "addcmul": (x, x),
        "addcdiv": (x, torch.ones_like(x)),
        "addmm": (torch.ones(x.shape[0], 2), torch.ones(2, x.shape[-1])),
        "addmv": (torch.ones(x.shape[0], 2), torch.ones(2)),
        "addr": (torch.ones(x.shape[0]), torch.ones(x.shape[-1])),
        "baddbmm": (torch.ones(*x.shape[:2], 2), torch.ones(x.shape[0], 2, x.shape[-1])),
        "addbmm": (torch.ones(2, x.shape[0], 2), torch.ones(2, 2, x.shape[-1])),
        "fmod": (0.5,),
        "remainder": (0.5,),
        "lerp": (torch.zeros_like(x), 0.5),
        "index_fill": (1, index[:, 0], 7.0),
        "index_add": (0, index[:1, 0], torch.ones(1, x.shape[-1])),
        "index_copy": (0, index[:1, 0], torch.ones(1, x.shape[-1])),
        "scatter_add": (1, index, torch.ones(2, 1)),
        "softmax": (0,),
        "log_softmax": (0,),
        "multinomial": (1,),
        "eq": (x,),
        "ne": (x,),
        "lt": (x,),
        "gt": (x,),
        "le": (x,),
        "ge": (x,),
        "size": (),
        "stride": (),
        "new": (),
        "new_zeros": (2,),
        "new_ones": (2,),
        "new_empty": (2,),
        "new_full": ((2,), 0.0),
        "new_tensor": ([1.0],),
    }
    return samples.get(name, ())


def _receiver(name: str) -> torch.Tensor:
    x = _graph_input()
    if name in ("bmm", "baddbmm", "baddbmm_"):
        return x.unsqueeze(0)
    if name in ("addmv", "addmv_"):
        return x[0]
    if name == "dsplit":
        return x.unsqueeze(2).expand(2, 3, 2)
    if name == "multinomial":
        return x.softmax(1)
    if name in ("item", "dot"):
        return x[0, :1] if name == "item" else x[0]
    return x


def _call(name: str):
    x = _receiver(name)
    if name == "numpy":
        return x, x.detach().numpy()  # a tensor requiring grad refuses: its array has no history either way
    args = _arguments(name, x)
    if name == "bmm":
        args = (x.transpose(1, 2),)
    return x, getattr(x, name)(*args)


def _tensors(result) -> list[torch.Tensor]:
    if isinstance(result, torch.Tensor):
        return [result]
    if isinstance(result, (tuple, list)):
        return [r for r in result if isinstance(r, torch.Tensor)]
    return []


def _rows(*words: str) -> list[str]:
    return sorted(n for n in torch_api.methods(*words) if n not in _NEEDS_CUDA)


# -- the table reads ---------------------------------------------------------------------------


def test_every_row_uses_the_vocabulary():
    with pytest.raises(ValueError, match="unknown property"):
        read_rows("add  keep", method_table.VOCABULARY, "methods")
    with pytest.raises(ValueError, match="two rows"):
        read_rows("add keeps\nadd keeps", method_table.VOCABULARY, "methods")
    with pytest.raises(KeyError):
        torch_api.methods("keep")


def test_every_method_row_is_a_tensor_method():
    assert len(METHODS) > 100
    assert [name for name in METHODS if not callable(getattr(torch.Tensor, name, None))] == []


def test_every_function_row_is_a_torch_callable():
    assert [name for name in FUNCTIONS if not callable(_resolve(name))] == []


def test_in_place_twins_are_read_from_the_names():
    assert torch_api.method("add_").inplace_of == "add"
    assert torch_api.method("add").inplace_twin == "add_"
    assert torch_api.method("sum").inplace_of is None
    assert torch_api.method("zero_").inplace_of is None  # `Tensor.zero` does not exist
    for name in torch_api.methods():
        twin = torch_api.method(name).inplace_twin
        if twin is not None:
            assert callable(getattr(torch.Tensor, twin))


# -- each property, measured ---------------------------------------------------------------------


@pytest.mark.parametrize("name", _rows("keeps"))
def test_a_method_that_keeps_history_keeps_it(name):
    if name.endswith("_"):
        x = _graph_input()
        assert getattr(x, name)().grad_fn is not None
        return
    _, result = _call(name)
    assert all(t.grad_fn is not None for t in _tensors(result) if t.is_floating_point()), name
    assert any(t.is_floating_point() for t in _tensors(result)), name


@pytest.mark.parametrize("name", _rows("ends"))
def test_a_method_that_ends_history_ends_it(name):
    _, result = _call(name)
    assert all(t.grad_fn is None and not t.requires_grad for t in _tensors(result)), name


@pytest.mark.parametrize("name", _rows("self"))
def test_a_method_that_may_return_its_receiver_does(name):
    x = _receiver(name).detach()
    if name in ("long", "int", "short", "byte", "char", "bool"):
        x = x.to(
            {"long": torch.long, "int": torch.int, "short": torch.short, "byte": torch.uint8, "char": torch.int8, "bool": torch.bool}[name]
        )
    if name == "bfloat16":
        x = x.bfloat16()
    if name == "half":
        x = x.half()
    if name == "double":
        x = x.double()
    args = (x,) if name == "type_as" else _arguments(name, x)
    if name == "type":
        args = (x.dtype,)
    assert getattr(x, name)(*args) is x


@pytest.mark.parametrize("name", _rows("view"))
def test_a_view_shares_storage_and_is_a_new_object(name):
    x, result = _call(name)
    for tensor in _tensors(result):
        assert tensor is not x and tensor._is_view(), name


@pytest.mark.parametrize("name", _rows("view", "tuple"))
def test_a_tuple_of_views_is_a_tuple(name):
    _, result = _call(name)
    assert isinstance(result, tuple)


@pytest.mark.parametrize("name", _rows("number"))
def test_a_number_is_not_a_tensor(name):
    _, result = _call(name)
    assert not isinstance(result, torch.Tensor), name


@pytest.mark.parametrize("name", _rows("int"))
def test_an_integer_result_is_not_floating(name):
    _, result = _call(name)
    assert all(not t.is_floating_point() for t in _tensors(result)), name


@pytest.mark.parametrize("name", _rows("reduction"))
def test_a_reduction_without_a_dim_is_0_dim(name):
    x = _receiver(name)
    assert getattr(x, name)().dim() == 0


@pytest.mark.parametrize("name", _rows("drops-dim"))
def test_a_reduction_given_one_dim_drops_it(name):
    matrix = torch.rand(3, 4)
    assert getattr(matrix, name)(0).shape == (4,) and getattr(matrix, name)(-1).shape == (3,)
    assert getattr(torch.rand(5), name)(0).dim() == 0


@pytest.mark.parametrize("name", _rows("scalar"))
def test_a_scalar_result_is_one_number(name):
    _, result = _call(name)
    assert isinstance(result, (int, float, bool)) or result.dim() == 0, name


@pytest.mark.parametrize("name", _rows("pair"))
def test_a_pair_holds_values_and_indices(name):
    x = _receiver(name)
    values, indices = getattr(x, name)(*(_arguments(name, x) or (0,)))
    assert values.is_floating_point() and indices.dtype == torch.long


@pytest.mark.parametrize("name", _rows("factory"))
def test_a_method_factory_has_the_receiver_dtype_and_no_history(name):
    x, result = _call(name)
    assert result.dtype == x.dtype and result.grad_fn is None and not result.requires_grad


@pytest.mark.parametrize("name", _rows("same-layout"))
def test_a_same_layout_result_has_the_receiver_layout(name):
    x, result = _call(name)
    assert (result.shape, result.dtype, result.stride()) == (x.shape, x.dtype, x.stride())


@pytest.mark.parametrize("name", _rows("reshapes"))
def test_a_reshaping_method_is_in_place(name):
    assert name.endswith("_") and callable(getattr(torch.Tensor, name))


# -- functions -----------------------------------------------------------------------------------


def _resolve(qualified: str):
    """The object a qualified name means, importing the submodules on its way that `import torch`
    leaves out (`torch.nn.utils.prune`, `torch.distributed.fsdp`)."""
    parts = qualified.split(".")
    value = torch
    for length in range(2, len(parts) + 1):
        found = getattr(value, parts[length - 1], None)
        value = found if found is not None else importlib.import_module(".".join(parts[:length]))
    return value


def _function_arguments(qualified: str) -> tuple:
    x = _graph_input()
    samples = {
        "torch.full": ((2, 3), 1.0),
        "torch.arange": (6.0,),
        "torch.linspace": (0.0, 1.0, 6),
        "torch.logspace": (0.0, 1.0, 6),
        "torch.eye": (2,),
        "torch.randint": (10, (2, 3)),
        "torch.randperm": (6,),
        "torch.full_like": (x, 1.0),
        "torch.tensor": ([1.0, 2.0],),
        "torch.scalar_tensor": (1.0,),
        "torch.argmax": (x,),
        "torch.argmin": (x,),
        "torch.eq": (x, x),
        "torch.ne": (x, x),
        "torch.isnan": (x,),
        "torch.isinf": (x,),
    }
    if qualified.endswith("_like"):
        return samples.get(qualified, (x,))
    return samples.get(qualified, (2, 3))


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("grad-flag")))
def test_a_grad_flag_factory_takes_requires_grad(qualified):
    factory = _resolve(qualified)
    arguments = _function_arguments(qualified)
    assert not factory(*arguments).requires_grad
    assert factory(*arguments, requires_grad=True).requires_grad


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("sized")))
def test_a_sized_factory_takes_sizes(qualified):
    assert _resolve(qualified)(4, 3).shape == (4, 3)
    assert _resolve(qualified)((4, 3)).shape == (4, 3)


def _random_arguments(qualified):
    return {"torch.randint": (1000, (64,)), "torch.randperm": (64,)}.get(qualified) or (
        (torch.zeros(64),) if qualified.endswith("_like") else (64,)
    )


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("random")))
def test_a_random_factory_draws_what_the_seed_decides(qualified):
    factory, arguments = _resolve(qualified), _random_arguments(qualified)
    draws = []
    for seed in (0, 0, 1):
        torch.manual_seed(seed)
        draws.append(factory(*arguments))
    assert torch.equal(draws[0], draws[1]) and not torch.equal(draws[0], draws[2])


def test_the_other_factories_draw_nothing():
    for qualified in sorted(torch_api.functions("factory", "sized", without=("random",))):
        torch.manual_seed(0)
        first = _resolve(qualified)(64)
        torch.manual_seed(1)
        second = _resolve(qualified)(64)
        assert qualified == "torch.empty" or torch.equal(first, second), qualified


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("ends") - {"torch.no_grad", "torch.from_numpy"}))
def test_a_function_ending_history_ends_it(qualified):
    result = _resolve(qualified)(*_function_arguments(qualified))
    assert result.grad_fn is None


def test_from_numpy_and_no_grad_give_nothing_with_history():
    assert torch.from_numpy(torch.ones(2).numpy()).grad_fn is None
    assert not isinstance(torch.no_grad(), torch.Tensor)


class _TensorAttributes:
    """Not a tensor, but passes on a tensor's attributes (`x.softmax`, `x.size()`) and keeps it as
    `.data`, as a `PackedSequence` does."""

    def __init__(self, tensor: torch.Tensor) -> None:
        self.data = tensor

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.data, name)


def _not_tensors(tensor: torch.Tensor) -> dict:
    """Values standing in for `tensor` that are not tensors: each has its values or its `.data`."""
    from torch.nn.utils.rnn import pack_padded_sequence

    sequence = tensor.reshape(tensor.shape[0], 1, -1)
    return {
        "PackedSequence": pack_padded_sequence(sequence, [1]),
        "attributes": _TensorAttributes(tensor),
        "list": tensor.tolist(),
        "ndarray": tensor.numpy(),
        "number": 1,
        "numpy number": tensor.numpy().reshape(-1)[0],
    }


def _demanding_arguments(qualified: str) -> dict:
    scores = torch.randn(4, 3)
    probabilities = torch.rand(4, 3)
    samples = {
        "torch.nn.functional.nll_loss": (torch.log_softmax(scores, 1), torch.tensor([0, 2, 1, 1])),
        "torch.nn.functional.cross_entropy": (scores, torch.tensor([0, 2, 1, 1])),
        "torch.nn.functional.binary_cross_entropy": (probabilities, torch.rand(4, 3)),
        "torch.nn.functional.kl_div": (torch.log_softmax(scores, 1), probabilities),
        "torch.nn.functional.relu": (scores,),
    }
    arguments = samples.get(qualified, (scores, probabilities))
    names = FUNCTIONS[qualified].value("demands-tensor").split(",")
    assert len(arguments) == len(names)
    return dict(zip(names, arguments))


@pytest.mark.filterwarnings("ignore::UserWarning")  # kl_div's note on its `mean` reduction
@pytest.mark.parametrize("qualified", sorted(torch_api.functions("demands-tensor")))
def test_a_demanding_function_raises_unless_given_tensors(qualified):
    function = _resolve(qualified)
    arguments = _demanding_arguments(qualified)
    assert list(inspect.signature(function).parameters)[: len(arguments)] == list(arguments)
    function(*arguments.values())
    for name, tensor in arguments.items():
        for other in _not_tensors(tensor).values():
            given = {**arguments, name: other}
            with pytest.raises((TypeError, AttributeError)):
                function(*given.values())
            with pytest.raises((TypeError, AttributeError)):
                function(**given)


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("tensor-class")))
def test_a_tensor_class_matches_tensors_only(qualified):
    cls = _resolve(qualified)
    parameter = torch.nn.Parameter(torch.randn(3, 2))
    assert isinstance(parameter, cls)
    assert not any(isinstance(other, cls) for other in _not_tensors(parameter.detach()).values())
    assert isinstance(torch.randn(2), cls) != FUNCTIONS[qualified].has("parameter")


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("may-return-argument")))
def test_a_function_may_return_its_argument(qualified):
    x = torch.randn(2, 3)
    keywords = {} if qualified.startswith(("torch.as_tensor", "torch.asarray")) else {"training": False}
    assert _resolve(qualified)(x, **keywords) is x


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("legacy")))
def test_a_legacy_constructor_makes_its_dtype(qualified):
    dtype = FUNCTIONS[qualified].value("dtype")
    if qualified.startswith("torch.cuda."):
        assert isinstance(_resolve(qualified), type)  # the class exists; building one needs CUDA
        return
    made = _resolve(qualified)(2)
    assert made.dtype == (getattr(torch, dtype) if dtype else torch.get_default_dtype())


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("view")))
def test_a_view_function_returns_views(qualified):
    x = torch.randn(2, 3)
    if qualified == "torch.view_as_complex":
        x = torch.randn(2, 2)
    arguments = {
        "torch.split": (1,),
        "torch.chunk": (2,),
        "torch.tensor_split": (2,),
        "torch.hsplit": (3,),
        "torch.vsplit": (2,),
        "torch.dsplit": (1,),
        "torch.movedim": (0, 1),
        "torch.moveaxis": (0, 1),
        "torch.swapaxes": (0, 1),
        "torch.swapdims": (0, 1),
        "torch.as_strided": ((2,), (1,)),
        "torch.narrow": (0, 0, 1),
        "torch.select": (0, 0),
        "torch.unsqueeze": (0,),
        "torch.permute": ((1, 0),),
        "torch.transpose": (0, 1),
        "torch.unflatten": (1, (3, 1)),
        "torch.reshape": ((-1,),),
    }.get(qualified, ())
    if qualified == "torch.dsplit":
        x = x.unsqueeze(2).expand(2, 3, 2)
    if qualified == "torch.view_as_real":
        x = torch.randn(2, 3, dtype=torch.complex64)
    result = _resolve(qualified)(x, *arguments)
    assert all(t._is_view() for t in _tensors(result)), qualified


def test_the_vocabularies_describe_every_word():
    for table, vocabulary in ((METHODS, method_table.VOCABULARY), (FUNCTIONS, function_table.VOCABULARY)):
        used = {word for row in table.values() for word in row.properties}
        assert used <= set(vocabulary)


# -- the history proof and the evident history read the table alike ------------------------------

_ENDING_CALLS = sorted(torch_api.methods("ends", without=("factory",)))


def _method_call_on_a_model_output(method: str):
    """The context, `model(x).<method>()` and its function."""
    import libcst as cst

    from gradlint.analysis.tree import descendants
    from gradlint.context import FileContext

    text = f"def f(model, x):\n    out = model(x)\n    probe = out.{method}()\n"
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    function = next(n for n in descendants(module) if isinstance(n, cst.FunctionDef))
    probe = next(n for n in descendants(module) if isinstance(n, cst.Assign) and n.targets[0].target.value == "probe")
    return context, probe.value, function


@pytest.mark.parametrize("method", _ENDING_CALLS)
def test_both_directions_say_a_history_ending_method_ends_it(method):
    context, value, function = _method_call_on_a_model_output(method)
    assert context.history.is_history_free(value, function)
    assert not context.grads.carries_grad(value, function)


@pytest.mark.parametrize("method", ["sign", "round", "floor", "ceil", "sum", "view", "float"])
def test_neither_direction_says_a_history_keeping_method_ends_it(method):
    context, value, function = _method_call_on_a_model_output(method)
    assert not context.history.is_history_free(value, function)
    assert context.grads.carries_grad(value, function)


_ENDING_FUNCTIONS = sorted(torch_api.functions("ends") - torch_api.functions("factory") - {"torch.no_grad", "torch.from_numpy"})


@pytest.mark.parametrize("qualified", _ENDING_FUNCTIONS)
def test_both_directions_say_a_history_ending_function_ends_it(qualified):
    import libcst as cst

    from gradlint.analysis.tree import descendants
    from gradlint.context import FileContext

    text = f"import torch\ndef f(model, x):\n    out = model(x)\n    probe = {qualified}(out)\n"
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    function = next(n for n in descendants(module) if isinstance(n, cst.FunctionDef))
    value = next(n for n in descendants(module) if isinstance(n, cst.Assign) and n.targets[0].target.value == "probe").value
    assert context.history.is_history_free(value, function)
    assert not context.grads.carries_grad(value, function)


# -- torch.nn classes and module methods ---------------------------------------------------------

_LAYER_ARGUMENTS = {
    "Linear": (2, 2),
    "Bilinear": (2, 2, 2),
    "LazyLinear": (2,),
    "Embedding": (4, 2),
    "EmbeddingBag": (4, 2),
    "RNN": (2, 2),
    "LSTM": (2, 2),
    "GRU": (2, 2),
    "RNNCell": (2, 2),
    "LSTMCell": (2, 2),
    "GRUCell": (2, 2),
    "MultiheadAttention": (4, 2),
    "Transformer": (4, 2, 1, 1, 8),
    "TransformerEncoderLayer": (4, 2, 8),
    "TransformerDecoderLayer": (4, 2, 8),
    "BatchNorm1d": (2,),
    "BatchNorm2d": (2,),
    "BatchNorm3d": (2,),
    "SyncBatchNorm": (2,),
    "GroupNorm": (1, 2),
    "LayerNorm": (2,),
    "RMSNorm": (2,),
    "InstanceNorm1d": (2,),
    "InstanceNorm2d": (2,),
    "InstanceNorm3d": (2,),
    "Unflatten": (1, (2, 2)),
    "Upsample": (None, 2.0),
    "PixelShuffle": (2,),
    "PixelUnshuffle": (2,),
    "ChannelShuffle": (2,),
    "ZeroPad2d": (1,),
    "ConstantPad1d": (1, 0.0),
    "ConstantPad2d": (1, 0.0),
    "ReflectionPad2d": (1,),
    "ReplicationPad2d": (1,),
}


def _layer(qualified: str, **keywords):
    name = qualified.rsplit(".", 1)[-1]
    if name.startswith(("Conv", "LazyConv")):
        arguments = (2, 2, 1) if name.startswith("Conv") else (2, 1)
    elif "Pool" in name:
        arguments = (2,)
    else:
        arguments = _LAYER_ARGUMENTS.get(name, ())
    return _resolve(qualified)(*arguments, **keywords)


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("parameters")))
def test_a_parameter_layer_creates_parameters(qualified):
    assert list(_layer(qualified).parameters())


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("parameters-switch")))
def test_a_switch_turns_a_norm_layer_parameters_off(qualified):
    keyword, position, default = FUNCTIONS[qualified].value("parameters-switch").split(",")
    assert bool(list(_layer(qualified).parameters())) == (default == "on")
    assert not list(_layer(qualified, **{keyword: False}).parameters())
    parameters = list(inspect.signature(_resolve(qualified)).parameters)
    assert parameters.index(keyword) == int(position)


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("parameterless")))
def test_a_parameterless_layer_has_no_parameters(qualified):
    layer = _layer(qualified)
    assert not list(layer.parameters())
    if FUNCTIONS[qualified].has("stateless"):
        assert not list(layer.buffers()) and not FUNCTIONS[qualified].has("dropout-layer")


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("dropout-layer")))
def test_a_dropout_layer_drops_only_in_training(qualified):
    layer = _layer(qualified)
    x = torch.ones(4, 8, 8)
    assert torch.equal(layer.eval()(x), x)
    assert not torch.equal(layer.train()(x), x)


@pytest.mark.parametrize("qualified", sorted(torch_api.functions("dropout")))
def test_a_functional_dropout_trains_by_default_as_recorded(qualified):
    default = inspect.signature(_resolve(qualified)).parameters["training"].default
    assert default == (FUNCTIONS[qualified].value("dropout") == "train")


@pytest.mark.parametrize("name", sorted(torch_api.MODULE_METHODS))
def test_every_module_method_row_is_a_module_method(name):
    assert callable(getattr(torch.nn.Module, name))


@pytest.mark.parametrize("name", sorted(torch_api.module_methods("returns-self") - {"cuda"}))
def test_a_module_method_returning_self_does(name):
    module = torch.nn.Linear(2, 2)
    arguments = {"to": (torch.float32,), "type": (torch.float32,), "to_empty": (), "apply": (lambda m: None,)}.get(name, ())
    keywords = {"device": "cpu"} if name == "to_empty" else {}
    assert getattr(module, name)(*arguments, **keywords) is module


@pytest.mark.parametrize("name", sorted(torch_api.module_methods("generator")))
def test_a_generator_module_method_is_exhausted_by_one_loop(name):
    items = getattr(torch.nn.Sequential(torch.nn.BatchNorm1d(2)), name)()
    assert list(items) and not list(items)


@pytest.mark.parametrize("name", _rows("same-values"))
def test_a_same_values_result_holds_the_receiver_values(name):
    x, result = _call(name)
    values = x.detach().to(result.dtype).float().flatten().sort().values
    assert torch.equal(result.detach().float().flatten().sort().values, values)
    assert result.grad_fn is not None or result is x


@pytest.mark.parametrize("name", _rows("activation"))
def test_an_activation_method_is_the_torch_function_of_its_name(name):
    x = _graph_input()
    activation = torch_api.method(name).value("activation")
    assert torch.equal(getattr(x, name)(*_arguments(name, x)), getattr(torch, activation)(x, *_arguments(name, x)))


@pytest.mark.parametrize("name", _rows("non-blocking"))
def test_a_transfer_method_takes_non_blocking(name):
    x = torch.zeros(2)
    arguments = {"to": (torch.float32,), "type": (torch.float32,), "copy_": (torch.ones(2),)}[name]
    getattr(x, name)(*arguments, non_blocking=True)


@pytest.mark.parametrize("name", sorted(torch_api.out_of_place_twins()))
def test_an_out_of_place_twin_leaves_its_receiver_and_the_in_place_one_returns_it(name):
    x = _receiver(name).detach().abs() + 0.5
    before = (x.clone(), x.dtype, x.shape, x.stride(), x._version)
    result = getattr(x, name)(*_arguments(name, x))
    assert isinstance(result, torch.Tensor) and result is not x, name
    assert torch.equal(x, before[0]) and (x.dtype, x.shape, x.stride(), x._version) == before[1:], name
    assert getattr(x, name + "_")(*_arguments(name, x)) is x, name


@pytest.mark.parametrize("name", sorted(torch_api.in_place_methods()))
def test_an_in_place_method_returns_its_receiver(name):
    x = _receiver(name).detach().abs() + 0.5
    special = {"fill_": (0.0,), "copy_": (x.clone(),), "resize_": (x.shape,), "resize_as_": (x,), "set_": (x.clone(),)}
    arguments = special.get(name, _arguments(name[:-1], x))
    assert getattr(x, name)(*arguments) is x


# -- what only calling a module runs, and what needs `nn.Module.__init__` -----------------------


class _Doubler(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x) * 2


class _Uninitialised(torch.nn.Module):
    def __init__(self):
        self.size = 2  # no `nn.Module.__init__`

    def forward(self, x):
        return x


_HOOKS = {
    "register_forward_hook": (lambda calls: lambda module, args, out: calls.append(1), False),
    "register_forward_pre_hook": (lambda calls: lambda module, args: calls.append(1), False),
    "register_full_backward_hook": (lambda calls: lambda module, grad_in, grad_out: calls.append(1), True),
    "register_full_backward_pre_hook": (lambda calls: lambda module, grad_out: calls.append(1), True),
    "register_backward_hook": (lambda calls: lambda module, grad_in, grad_out: calls.append(1), True),
}


def _hook_calls(attach, backward: bool, direct: bool) -> int:
    """How often a counting hook runs for one prediction (and its backward) of a fresh module."""
    module, calls = torch.nn.Linear(3, 2), []
    handle = attach(module, calls)
    x = torch.randn(4, 3, requires_grad=True)
    out = module.forward(x) if direct else module(x)
    if backward:
        out.sum().backward()
    handle.remove()
    return len(calls)


@pytest.mark.parametrize("name", sorted(torch_api.module_methods("call-only") - {"compile"}))
def test_a_call_only_hook_method_runs_for_a_call_not_for_forward(name):
    make, backward = _HOOKS[name]

    def attach(module, calls):
        return getattr(module, name)(make(calls))

    assert (_hook_calls(attach, backward, direct=True), _hook_calls(attach, backward, direct=False)) == (0, 1)


def test_compiling_in_place_compiles_the_call_not_forward():
    from torch._dynamo.testing import CompileCounter

    assert torch_api.module_methods("call-only") >= {"compile"}
    counter, module = CompileCounter(), _Doubler()
    module.compile(backend=counter)
    x = torch.randn(4, 3)
    module.forward(x)
    assert counter.frame_count == 0
    module(x)
    assert counter.frame_count == 1


@pytest.mark.parametrize("name", sorted(torch_api.module_methods("needs-init")))
def test_a_needs_init_module_method_raises_before_the_initialiser(name):
    arguments = {
        "to": ("cpu",),
        "type": (torch.float32,),
        "apply": (lambda m: None,),
        "load_state_dict": ({},),
        "register_buffer": ("b", torch.zeros(1)),
        "register_parameter": ("w", torch.nn.Parameter(torch.zeros(1))),
        "add_module": ("fc", torch.nn.Linear(2, 2)),
        "register_module": ("fc", torch.nn.Linear(2, 2)),
    }.get(name, ())
    if name.startswith("register_") and name.endswith("hook"):
        arguments = (lambda *a: None,)
    keywords = {"device": "cpu"} if name == "to_empty" else {}
    with pytest.raises(AttributeError):
        result = getattr(_Uninitialised(), name)(*arguments, **keywords)
        if torch_api.MODULE_METHODS[name].has("generator"):
            list(result)


@pytest.mark.parametrize("name", sorted(torch_api.module_methods("registers")))
def test_a_registering_module_method_adds_to_the_module_state(name):
    module = torch.nn.Module()
    value = torch.nn.Linear(2, 2) if torch_api.MODULE_METHODS[name].has("adds") else torch.zeros(1)
    if name == "register_parameter":
        value = torch.nn.Parameter(value)
    getattr(module, name)("state", value)
    assert "state" in dict(module.named_parameters()) | dict(module.named_buffers()) | dict(module.named_children())


def test_compile_and_forward_need_no_initialiser():
    assert not {"compile", "forward"} & torch_api.module_methods("needs-init")
    module = _Uninitialised()
    module.compile()
    assert torch.equal(module.forward(torch.ones(2)), torch.ones(2))


def _global_hook(qualified: str, calls: list):
    backward = "backward" in qualified
    if qualified.endswith("full_backward_pre_hook"):
        return (lambda module, grad_out: calls.append(1)), backward
    if backward:
        return (lambda module, grad_in, grad_out: calls.append(1)), backward
    if qualified.endswith("pre_hook"):
        return (lambda module, args: calls.append(1)), backward
    return (lambda module, args, out: calls.append(1)), backward


_PRUNING = {
    "identity": lambda prune, m: prune.identity(m, "weight"),
    "random_unstructured": lambda prune, m: prune.random_unstructured(m, "weight", amount=0.5),
    "l1_unstructured": lambda prune, m: prune.l1_unstructured(m, "weight", amount=0.5),
    "random_structured": lambda prune, m: prune.random_structured(m, "weight", amount=0.5, dim=0),
    "ln_structured": lambda prune, m: prune.ln_structured(m, "weight", amount=0.5, n=2, dim=0),
    "global_unstructured": lambda prune, m: prune.global_unstructured([(m, "weight")], pruning_method=prune.L1Unstructured, amount=0.5),
    "custom_from_mask": lambda prune, m: prune.custom_from_mask(m, "weight", mask=torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])),
}


def _call_only_functions(prefix: str) -> list[str]:
    return sorted(name for name in torch_api.functions("call-only") if name.startswith(prefix))


@pytest.mark.parametrize("qualified", _call_only_functions("torch.nn.modules.module."))
def test_a_global_module_hook_runs_for_a_call_not_for_forward(qualified):
    def attach(module, calls):
        hook, _ = _global_hook(qualified, calls)
        return _resolve(qualified)(hook)

    backward = _global_hook(qualified, [])[1]
    module_module = importlib.import_module("torch.nn.modules.module")
    module_module._global_is_full_backward_hook = None  # which kind of global backward hook came first: torch remembers it
    try:
        assert (_hook_calls(attach, backward, direct=True), _hook_calls(attach, backward, direct=False)) == (0, 1)
    finally:
        module_module._global_is_full_backward_hook = None


@pytest.mark.parametrize("qualified", _call_only_functions("torch.nn.utils."))
def test_a_reparametrisation_by_a_pre_hook_leaves_forward_stale(qualified):
    """After the original weight changes, `m.forward(x)` still uses the weight the pre-hook
    computed last; `m(x)` recomputes it."""
    torch.manual_seed(0)
    module = torch.nn.Linear(3, 2)
    name = qualified.rsplit(".", 1)[-1]
    if ".prune." in qualified:
        _PRUNING[name](importlib.import_module("torch.nn.utils.prune"), module)
    else:
        _resolve(qualified)(module)
    original = next(p for n, p in module.named_parameters() if n in ("weight_orig", "weight_g"))
    with torch.no_grad():
        original.mul_(3)
    x = torch.randn(4, 3)
    assert module._forward_pre_hooks
    assert not torch.equal(module.forward(x), module(x))


@pytest.mark.parametrize("qualified", _call_only_functions("torch.ao.") + _call_only_functions("torch.quantization."))
def test_quantization_prepare_observes_a_call_not_forward(qualified):
    quantization = importlib.import_module("torch.ao.quantization")
    model = torch.nn.Sequential(quantization.QuantStub(), torch.nn.Linear(3, 2), quantization.DeQuantStub())
    if qualified.endswith("_qat"):
        model.train()
        model.qconfig = quantization.get_default_qat_qconfig("x86")
    else:
        model.qconfig = quantization.get_default_qconfig("x86")
    layer = _resolve(qualified)(model)[1]
    observer = layer.activation_post_process
    before = [buffer.clone() for buffer in observer.buffers()]
    layer.forward(torch.randn(4, 3))
    assert all(torch.equal(a, b) for a, b in zip(before, observer.buffers()))
    layer(torch.randn(4, 3))
    assert not all(torch.equal(a, b) for a, b in zip(before, observer.buffers()))


@pytest.mark.parametrize("qualified", _call_only_functions("torch.distributed."))
def test_sharding_makes_forward_raise_and_the_call_work(qualified):
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh

    dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    try:
        mesh = init_device_mesh("cpu", (1,))
        module = torch.nn.Linear(3, 2)
        if qualified.endswith("parallelize_module"):
            parallel = importlib.import_module("torch.distributed.tensor.parallel")
            _resolve(qualified)(module, mesh, parallel.ColwiseParallel())
        else:
            _resolve(qualified)(module, mesh=mesh)
        x = torch.randn(4, 3)
        with pytest.raises(RuntimeError, match="mixed torch.Tensor and DTensor"):
            module.forward(x)
        assert module(x).shape == (4, 2)
    finally:
        dist.destroy_process_group()


def _deprecated_number_first_signatures() -> set[str]:
    """torch's Python signatures marked `|deprecated` that take a number (`Scalar`), as its argument
    parser holds them (`addmm(Scalar beta, Tensor mat1, Tensor mat2)`), without `out=`."""
    (library,) = (Path(torch.__file__).parent / "lib").glob("libtorch_python.*")
    found = re.findall(rb"([a-z_]+\([^()|]*\))\|deprecated", library.read_bytes())
    return {signature.decode().replace(", *, Tensor out=None", "") for signature in found if b"Scalar" in signature}


def _legacy_forms(name: str, leading: list[str], tensors: list[str]) -> set[str]:
    """The signatures a `legacy-overload` row stands for: every number but the first may be left out."""
    numbers = [parameter for parameter in leading if parameter != "input"]
    forms = set()
    for kept in range(1, len(numbers) + 1):
        parameters = [f"Tensor {p}" if p == "input" else f"Scalar {p}" for p in leading if p == "input" or p in numbers[:kept]]
        forms.add(f"{name}({', '.join([*parameters, *(f'Tensor {t}' for t in tensors)])})")
    return forms


def test_the_legacy_overload_rows_are_torchs_number_first_overloads():
    """Both ways: each form a row stands for is a deprecated signature of torch's argument parser,
    and each deprecated number-first signature is some row's (a method's, or a function's with `input`)."""
    forms = set()
    for name in torch_api.methods("legacy-overload"):
        row = torch_api.method(name)
        forms |= _legacy_forms(name, row.value("legacy-overload").split(","), row.value("legacy-tensors").split(","))
    for qualified in torch_api.functions("legacy-overload"):
        row = torch_api.function(qualified)
        assert "input" in row.value("legacy-overload").split(",")
        leading, tensors = row.value("legacy-overload").split(","), row.value("legacy-tensors").split(",")
        forms |= _legacy_forms(qualified.rsplit(".", 1)[1], leading, tensors)
    torchs = _deprecated_number_first_signatures()
    assert "addmm(Scalar beta, Scalar alpha, Tensor mat1, Tensor mat2)" in torchs
    assert sorted(forms - torchs) == [] and sorted(torchs - forms) == []
