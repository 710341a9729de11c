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
    "copies": "it copies a tensor argument (never returns it)",
    "grad-flag": "it accepts `requires_grad=` and otherwise gives a tensor that does not require grad",
    "default-device": "the result is on the default device unless `device=` says otherwise",
    "legacy": "a pre-0.4 typed tensor class, called as a constructor; `dtype=` names its dtype",
    "dtype": "the dtype of the tensors it makes",
    "int": "it makes integer or bool tensors",
    "variable": "`Variable(t)`: before 0.4 a wrapper, now `t` itself",
    # autograd and identity
    "ends": "the result never has autograd history",
    "may-return-argument": "it may return its argument itself (`F.dropout(x, training=False)` is `x`)",
    "view": "it returns a view of its argument",
    "tuple": "it returns a tuple of tensors",
}

ROWS = """
# factories taking sizes
torch.randn             factory sized grad-flag default-device ends
torch.rand              factory sized grad-flag default-device ends
torch.zeros             factory sized grad-flag default-device ends
torch.ones              factory sized grad-flag default-device ends
torch.empty             factory sized grad-flag default-device ends
torch.full              factory grad-flag default-device ends
torch.arange            factory grad-flag default-device ends
torch.linspace          factory grad-flag default-device ends
torch.logspace          factory grad-flag default-device ends
torch.eye               factory grad-flag default-device ends
torch.randint           factory int default-device ends
torch.randperm          factory int default-device ends

# factories taking the layout of a tensor
torch.zeros_like        factory like grad-flag ends
torch.ones_like         factory like grad-flag ends
torch.empty_like        factory like grad-flag ends
torch.full_like         factory like grad-flag ends
torch.rand_like         factory like grad-flag ends
torch.randn_like        factory like grad-flag ends

# tensors from data
torch.tensor            factory data copies grad-flag default-device ends
torch.scalar_tensor     factory data grad-flag default-device ends
torch.from_numpy        factory data default-device ends
torch.as_tensor         data may-return-argument
torch.asarray           data may-return-argument
torch.autograd.Variable variable

# pre-0.4 typed constructors
torch.Tensor            legacy
torch.FloatTensor       legacy dtype=float32
torch.DoubleTensor      legacy dtype=float64
torch.HalfTensor        legacy dtype=float16
torch.BFloat16Tensor    legacy dtype=bfloat16
torch.ByteTensor        legacy int dtype=uint8
torch.CharTensor        legacy int dtype=int8
torch.ShortTensor       legacy int dtype=int16
torch.IntTensor         legacy int dtype=int32
torch.LongTensor        legacy int dtype=int64
torch.BoolTensor        legacy int dtype=bool
torch.cuda.FloatTensor     legacy dtype=float32
torch.cuda.DoubleTensor    legacy dtype=float64
torch.cuda.HalfTensor      legacy dtype=float16
torch.cuda.BFloat16Tensor  legacy dtype=bfloat16
torch.cuda.ByteTensor      legacy int dtype=uint8
torch.cuda.CharTensor      legacy int dtype=int8
torch.cuda.ShortTensor     legacy int dtype=int16
torch.cuda.IntTensor       legacy int dtype=int32
torch.cuda.LongTensor      legacy int dtype=int64
torch.cuda.BoolTensor      legacy int dtype=bool

# results without history
torch.argmax            ends
torch.argmin            ends
torch.eq                ends
torch.ne                ends
torch.isnan             ends
torch.isinf             ends
torch.no_grad           ends

# functions that may hand back their argument
torch.nn.functional.dropout              may-return-argument
torch.nn.functional.alpha_dropout        may-return-argument
torch.nn.functional.feature_alpha_dropout may-return-argument

# views
torch.split             view tuple
torch.chunk             view tuple
torch.unbind            view tuple
torch.tensor_split      view tuple
torch.hsplit            view tuple
torch.vsplit            view tuple
torch.dsplit            view tuple
torch.diagonal          view
torch.movedim           view
torch.moveaxis          view
torch.swapaxes          view
torch.swapdims          view
torch.adjoint           view
torch.view_as_real      view
torch.view_as_complex   view
torch.as_strided        view
torch.narrow            view
torch.select            view
torch.squeeze           view
torch.unsqueeze         view
torch.t                 view
torch.permute           view
torch.transpose         view
torch.flatten           view
torch.unflatten         view
torch.reshape           view
"""
