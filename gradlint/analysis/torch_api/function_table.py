"""Torch functions and classes called like functions: one row per qualified name.

Only what gradlint relies on is recorded. Each row is checked against torch 2.13 by
tests/test_torch_api.py (the name resolves, a `requires_grad=` factory accepts it, ...).
"""

from __future__ import annotations

VOCABULARY = {
    # new tensors
    "factory": "it makes a new tensor (a leaf)",
    "sized": "it takes sizes, as `torch.randn(4, 3)` or `torch.zeros((4, 3))`",
    "like": "it takes the shape, dtype, device and layout of its tensor argument (`zeros_like`)",
    "data": "it makes a tensor from data: a list, a number, an array or a tensor",
    "list": "it takes a list of values, one element of the tensor per item (`torch.tensor([1, 2])`)",
    "copies": "it copies a tensor argument (never returns it)",
    "grad-flag": "it accepts `requires_grad=` and otherwise gives a tensor that does not require grad",
    "default-device": "the result is on the default device unless `device=` says otherwise",
    "legacy": "a pre-0.4 typed tensor class, called as a constructor; `dtype=` names its dtype",
    "dtype": "the dtype of the tensors it makes",
    "int": "it makes integer or bool tensors",
    "variable": "`Variable(t)`: before 0.4 a wrapper, now `t` itself",
    # other objects
    "parameter": "it makes an `nn.Parameter`",
    "buffer": "it makes an `nn.Buffer`",
    "parameter-container": "a container of parameters (`nn.ParameterList`), not a module of layers",
    "module-container": "a container whose items are modules (`nn.Sequential`)",
    "returns-object": "it returns whatever object it loads or wraps (a module, a dict, a tensor...)",
    # autograd and identity
    "ends": "the result never has autograd history",
    "may-return-argument": "it may return its argument itself (`F.dropout(x, training=False)` is `x`)",
    "view": "it returns a view of its argument",
    "tuple": "it returns a tuple of tensors",
}

ROWS = """
# factories taking sizes
torch.randn                factory sized grad-flag default-device ends
torch.rand                 factory sized grad-flag default-device ends
torch.zeros                factory sized grad-flag default-device ends
torch.ones                 factory sized grad-flag default-device ends
torch.empty                factory sized grad-flag default-device ends
torch.full                 factory grad-flag default-device ends
torch.arange               factory grad-flag default-device ends
torch.linspace             factory grad-flag default-device ends
torch.logspace             factory grad-flag default-device ends
torch.eye                  factory grad-flag default-device ends
torch.randint              factory int default-device ends
torch.randperm             factory int default-device ends

# factories taking the layout of a tensor
torch.zeros_like           factory like grad-flag ends
torch.ones_like            factory like grad-flag ends
torch.empty_like           factory like grad-flag ends
torch.full_like            factory like grad-flag ends
torch.rand_like            factory like grad-flag ends
torch.randn_like           factory like grad-flag ends

# tensors from data
torch.tensor               factory data copies grad-flag default-device ends list
torch.scalar_tensor        factory data grad-flag default-device ends
torch.from_numpy           factory data default-device ends
torch.as_tensor            data may-return-argument list
torch.asarray              data may-return-argument list
torch.autograd.Variable    variable

# pre-0.4 typed constructors
torch.Tensor               legacy list
torch.FloatTensor          legacy dtype=float32 list
torch.DoubleTensor         legacy dtype=float64 list
torch.HalfTensor           legacy dtype=float16 list
torch.BFloat16Tensor       legacy dtype=bfloat16 list
torch.ByteTensor           legacy int dtype=uint8 list
torch.CharTensor           legacy int dtype=int8 list
torch.ShortTensor          legacy int dtype=int16 list
torch.IntTensor            legacy int dtype=int32 list
torch.LongTensor           legacy int dtype=int64 list
torch.BoolTensor           legacy int dtype=bool list
torch.cuda.FloatTensor     legacy dtype=float32 list
torch.cuda.DoubleTensor    legacy dtype=float64 list
torch.cuda.HalfTensor      legacy dtype=float16 list
torch.cuda.BFloat16Tensor  legacy dtype=bfloat16 list
torch.cuda.ByteTensor      legacy int dtype=uint8 list
torch.cuda.CharTensor      legacy int dtype=int8 list
torch.cuda.ShortTensor     legacy int dtype=int16 list
torch.cuda.IntTensor       legacy int dtype=int32 list
torch.cuda.LongTensor      legacy int dtype=int64 list
torch.cuda.BoolTensor      legacy int dtype=bool list

# parameters, buffers, containers
torch.nn.Parameter                       parameter
torch.nn.parameter.Parameter             parameter
torch.nn.UninitializedParameter          parameter
torch.nn.Buffer                          buffer
torch.nn.parameter.Buffer                buffer
torch.nn.UninitializedBuffer             buffer
torch.nn.ParameterList                   parameter-container
torch.nn.ParameterDict                   parameter-container
torch.nn.Sequential                      module-container
torch.nn.ModuleList                      module-container
torch.nn.ModuleDict                      module-container

# loaders and wrappers
torch.load              returns-object
torch.jit.load          returns-object
torch.jit.script        returns-object
torch.jit.trace         returns-object
torch.hub.load          returns-object
torch.compile           returns-object

# results without history
torch.argmax               ends
torch.argmin               ends
torch.eq                   ends
torch.ne                   ends
torch.isnan                ends
torch.isinf                ends
torch.no_grad              ends

# functions that may hand back their argument
torch.nn.functional.dropout may-return-argument
torch.nn.functional.alpha_dropout may-return-argument
torch.nn.functional.feature_alpha_dropout may-return-argument

# views
torch.split                view tuple
torch.chunk                view tuple
torch.unbind               view tuple
torch.tensor_split         view tuple
torch.hsplit               view tuple
torch.vsplit               view tuple
torch.dsplit               view tuple
torch.diagonal             view
torch.movedim              view
torch.moveaxis             view
torch.swapaxes             view
torch.swapdims             view
torch.adjoint              view
torch.view_as_real         view
torch.view_as_complex      view
torch.as_strided           view
torch.narrow               view
torch.select               view
torch.squeeze              view
torch.unsqueeze            view
torch.t                    view
torch.permute              view
torch.transpose            view
torch.flatten              view
torch.unflatten            view
torch.reshape              view
"""
