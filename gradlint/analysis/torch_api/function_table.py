"""Torch functions and classes called like functions: one row per qualified name.

Only what gradlint relies on is recorded. Each row is checked against torch 2.13 by
tests/test_torch_api.py (the name resolves, a `requires_grad=` factory accepts it, ...).
"""

from __future__ import annotations

VOCABULARY = {
    # new tensors
    "factory": "it makes a new tensor (a leaf)",
    "random": "it draws its values at random (from torch's generator, `torch.manual_seed` decides them)",
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
    "parameterless": "a `torch.nn` layer that holds no parameters",
    "stateless": "a `torch.nn` layer without parameters or buffers that computes the same in training and evaluation mode",
    "parameters": "a `torch.nn` layer whose constructor creates parameters with its default arguments",
    "parameters-switch": "a normalisation layer whose parameters a keyword turns off: `keyword,position,default`",
    "dropout-layer": "a `torch.nn` dropout layer: no parameters, and it drops only in training mode",
    "submodules": "a `torch.nn` layer with sub-modules of its own",
    "parallel-wrapper": "a data-parallel wrapper whose own `forward` does its work (scatter, gradient synchronisation)",
    "call-only": (
        "it attaches to a module (or, a global registration, to every module) a hook that calling the module "
        "(`module(x)`) runs and `module.forward(x)` skips"
    ),
    "returns-object": "it returns whatever object it loads or wraps (a module, a dict, a tensor...)",
    "tensor-class": "`isinstance(x, it)` holds for tensors only (for the `parameter` rows, parameters only)",
    "demands-tensor": (
        "it raises TypeError or AttributeError unless the arguments of its leading parameters named here are tensors "
        "(a list, a NumPy array, a number, a `PackedSequence`, an object passing on a tensor's attributes): `input,target`"
    ),
    # losses and activations
    "loss": "a loss function",
    "loss-module": "a loss module class",
    "loss-kind": "what input a loss expects: `cross_entropy` and `bce_with_logits` logits, `nll` log-probabilities, `bce` probabilities",
    "activation": "a normalising activation (`activation=softmax`): the probabilities of a score",
    "dropout": "a functional dropout, active when `training=` (its third parameter) is true; `dropout=train` when it defaults to True",
    "legacy-overload": (
        "the leading parameters of its 0.3 overload: numbers, each now the keyword of its name, and `input`, the tensor it "
        "starts from; a call may leave out the numbers after the first (`torch.addmm(0.5, x, a, b)`, `torch.addmm(0.5, x, 2, a, b)`)"
    ),
    "legacy-tensors": "the tensors its legacy overload takes after its leading parameters",
    # autograd and identity
    "ends": "the result never has autograd history",
    "may-return-argument": "it may return its argument itself (`F.dropout(x, training=False)` is `x`)",
    "view": "it returns a view of its argument",
    "tuple": "it returns a tuple of tensors",
    # shapes
    "pairs-elements": "a loss pairing input and target element by element: when their shapes differ it `raises` or `broadcasts` them",
    "out-features": "a `torch.nn` layer whose output's last dimension is its constructor's argument at this position (`nn.Linear(in, out)`)",
    "keeps-shape": "a `torch.nn` layer whose output has its input's shape",
    "transposes": "a view of its argument with the dimensions reordered: not contiguous unless a moved dimension has size 1",
    "keeps-strides": "a new tensor computed value by value from its argument, laid out with the argument's strides",
}

ROWS = """
# factories taking sizes
torch.randn                factory random sized grad-flag default-device ends
torch.rand                 factory random sized grad-flag default-device ends
torch.zeros                factory sized grad-flag default-device ends
torch.ones                 factory sized grad-flag default-device ends
torch.empty                factory sized grad-flag default-device ends
torch.full                 factory grad-flag default-device ends
torch.arange               factory grad-flag default-device ends
torch.linspace             factory grad-flag default-device ends
torch.logspace             factory grad-flag default-device ends
torch.eye                  factory grad-flag default-device ends
torch.randint              factory random int default-device ends
torch.randperm             factory random int default-device ends

# factories taking the layout of a tensor
torch.zeros_like           factory like grad-flag ends
torch.ones_like            factory like grad-flag ends
torch.empty_like           factory like grad-flag ends
torch.full_like            factory like grad-flag ends
torch.rand_like            factory random like grad-flag ends
torch.randn_like           factory random like grad-flag ends

# tensors from data
torch.tensor               factory data copies grad-flag default-device ends list
torch.scalar_tensor        factory data grad-flag default-device ends
torch.from_numpy           factory data default-device ends
torch.as_tensor            data may-return-argument list
torch.asarray              data may-return-argument list
torch.autograd.Variable    variable tensor-class

# pre-0.4 typed constructors
torch.Tensor               legacy list tensor-class
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
torch.nn.Parameter                       parameter tensor-class
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

# layers with parameters, and wrappers
torch.nn.Linear                           parameters out-features=1
torch.nn.Bilinear                         parameters
torch.nn.LazyLinear                       parameters
torch.nn.Conv1d                           parameters
torch.nn.Conv2d                           parameters
torch.nn.Conv3d                           parameters
torch.nn.ConvTranspose1d                  parameters
torch.nn.ConvTranspose2d                  parameters
torch.nn.ConvTranspose3d                  parameters
torch.nn.LazyConv1d                       parameters
torch.nn.LazyConv2d                       parameters
torch.nn.LazyConv3d                       parameters
torch.nn.Embedding                        parameters
torch.nn.EmbeddingBag                     parameters
torch.nn.RNN                              parameters tuple
torch.nn.LSTM                             parameters tuple
torch.nn.GRU                              parameters tuple
torch.nn.RNNCell                          parameters
torch.nn.LSTMCell                         parameters tuple
torch.nn.GRUCell                          parameters
torch.nn.MultiheadAttention               parameters submodules tuple
torch.nn.Transformer                      parameters submodules
torch.nn.TransformerEncoderLayer          parameters submodules
torch.nn.TransformerDecoderLayer          parameters submodules
torch.nn.PReLU                            parameters
torch.nn.BatchNorm1d                      parameters-switch=affine,3,on
torch.nn.BatchNorm2d                      parameters-switch=affine,3,on
torch.nn.BatchNorm3d                      parameters-switch=affine,3,on
torch.nn.SyncBatchNorm                    parameters-switch=affine,3,on
torch.nn.GroupNorm                        parameters-switch=affine,3,on
torch.nn.LayerNorm                        parameters-switch=elementwise_affine,2,on
torch.nn.RMSNorm                          parameters-switch=elementwise_affine,2,on
torch.nn.InstanceNorm1d                   parameters-switch=affine,3,off
torch.nn.InstanceNorm2d                   parameters-switch=affine,3,off
torch.nn.InstanceNorm3d                   parameters-switch=affine,3,off
torch.nn.FeatureAlphaDropout              parameterless dropout-layer
torch.nn.DataParallel                     parallel-wrapper
torch.nn.parallel.DataParallel            parallel-wrapper
torch.nn.parallel.DistributedDataParallel parallel-wrapper
torch.nn.parallel.distributed.DistributedDataParallel parallel-wrapper

# what attaches hooks to a module: `module.forward(x)` skips them
torch.nn.utils.weight_norm                            call-only
torch.nn.utils.spectral_norm                          call-only
torch.nn.utils.prune.identity                         call-only
torch.nn.utils.prune.random_unstructured              call-only
torch.nn.utils.prune.l1_unstructured                  call-only
torch.nn.utils.prune.random_structured                call-only
torch.nn.utils.prune.ln_structured                    call-only
torch.nn.utils.prune.global_unstructured              call-only
torch.nn.utils.prune.custom_from_mask                 call-only
torch.nn.modules.module.register_module_forward_pre_hook       call-only
torch.nn.modules.module.register_module_forward_hook           call-only
torch.nn.modules.module.register_module_full_backward_pre_hook call-only
torch.nn.modules.module.register_module_full_backward_hook     call-only
torch.nn.modules.module.register_module_backward_hook          call-only
torch.distributed.fsdp.fully_shard                    call-only
torch.distributed._composable.fsdp.fully_shard        call-only
torch.distributed.tensor.parallel.parallelize_module  call-only
torch.ao.quantization.prepare                         call-only
torch.ao.quantization.prepare_qat                     call-only
torch.quantization.prepare                            call-only
torch.quantization.prepare_qat                        call-only

# layers without parameters
torch.nn.AdaptiveAvgPool1d                parameterless stateless
torch.nn.AdaptiveAvgPool2d                parameterless stateless
torch.nn.AdaptiveAvgPool3d                parameterless stateless
torch.nn.AdaptiveMaxPool1d                parameterless stateless
torch.nn.AdaptiveMaxPool2d                parameterless stateless
torch.nn.AdaptiveMaxPool3d                parameterless stateless
torch.nn.AlphaDropout                     parameterless dropout-layer
torch.nn.AvgPool1d                        parameterless stateless
torch.nn.AvgPool2d                        parameterless stateless
torch.nn.AvgPool3d                        parameterless stateless
torch.nn.CELU                             parameterless stateless
torch.nn.ChannelShuffle                   parameterless stateless
torch.nn.ConstantPad1d                    parameterless stateless
torch.nn.ConstantPad2d                    parameterless stateless
torch.nn.Dropout                          parameterless dropout-layer keeps-shape
torch.nn.Dropout1d                        parameterless dropout-layer
torch.nn.Dropout2d                        parameterless dropout-layer
torch.nn.Dropout3d                        parameterless dropout-layer
torch.nn.ELU                              parameterless stateless keeps-shape
torch.nn.Flatten                          parameterless stateless
torch.nn.GELU                             parameterless stateless
torch.nn.Hardsigmoid                      parameterless stateless keeps-shape
torch.nn.Hardswish                        parameterless stateless
torch.nn.Hardtanh                         parameterless stateless keeps-shape
torch.nn.Identity                         parameterless stateless keeps-shape
torch.nn.LeakyReLU                        parameterless stateless keeps-shape
torch.nn.LogSigmoid                       parameterless stateless
torch.nn.MaxPool1d                        parameterless stateless
torch.nn.MaxPool2d                        parameterless stateless
torch.nn.MaxPool3d                        parameterless stateless
torch.nn.Mish                             parameterless stateless
torch.nn.PixelShuffle                     parameterless stateless
torch.nn.PixelUnshuffle                   parameterless stateless
torch.nn.ReLU                             parameterless stateless keeps-shape
torch.nn.ReLU6                            parameterless stateless
torch.nn.ReflectionPad2d                  parameterless stateless
torch.nn.ReplicationPad2d                 parameterless stateless
torch.nn.SELU                             parameterless stateless
torch.nn.SiLU                             parameterless stateless
torch.nn.Softmax2d                        parameterless stateless
torch.nn.Softplus                         parameterless stateless
torch.nn.Softsign                         parameterless stateless
torch.nn.Tanh                             parameterless stateless keeps-shape
torch.nn.Tanhshrink                       parameterless stateless
torch.nn.Unflatten                        parameterless stateless
torch.nn.Upsample                         parameterless stateless
torch.nn.ZeroPad2d                        parameterless stateless

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

# functional dropouts (`dropout1d` and `dropout3d` copy their argument even when not training)
torch.nn.functional.dropout               dropout=train may-return-argument
torch.nn.functional.dropout1d             dropout=train
torch.nn.functional.dropout2d             dropout=train may-return-argument
torch.nn.functional.dropout3d             dropout=train
torch.nn.functional.alpha_dropout         dropout may-return-argument
torch.nn.functional.feature_alpha_dropout dropout may-return-argument

# losses
torch.nn.functional.cross_entropy         loss loss-kind=cross_entropy demands-tensor=input,target
torch.nn.functional.nll_loss              loss loss-kind=nll demands-tensor=input,target
torch.nn.functional.binary_cross_entropy_with_logits loss loss-kind=bce_with_logits pairs-elements=raises demands-tensor=input,target
torch.binary_cross_entropy_with_logits    loss loss-kind=bce_with_logits pairs-elements=raises
torch.nn.functional.binary_cross_entropy  loss loss-kind=bce pairs-elements=raises demands-tensor=input,target
torch.nn.functional.kl_div                loss demands-tensor=input,target
torch.nn.functional.mse_loss              loss pairs-elements=broadcasts demands-tensor=input,target
torch.nn.functional.l1_loss               loss pairs-elements=broadcasts demands-tensor=input,target
torch.nn.functional.smooth_l1_loss        loss pairs-elements=broadcasts demands-tensor=input,target
torch.nn.functional.huber_loss            loss pairs-elements=broadcasts demands-tensor=input,target
torch.nn.CrossEntropyLoss                 loss-module loss-kind=cross_entropy
torch.nn.NLLLoss                          loss-module loss-kind=nll
torch.nn.BCEWithLogitsLoss                loss-module loss-kind=bce_with_logits pairs-elements=raises
torch.nn.BCELoss                          loss-module loss-kind=bce pairs-elements=raises
torch.nn.MSELoss                          loss-module pairs-elements=broadcasts
torch.nn.L1Loss                           loss-module pairs-elements=broadcasts
torch.nn.SmoothL1Loss                     loss-module pairs-elements=broadcasts
torch.nn.HuberLoss                        loss-module pairs-elements=broadcasts

# normalising activations
torch.softmax                             activation=softmax
torch.nn.functional.softmax               activation=softmax
torch.special.softmax                     activation=softmax
torch.log_softmax                         activation=log_softmax
torch.nn.functional.log_softmax           activation=log_softmax
torch.special.log_softmax                 activation=log_softmax
torch.sigmoid                             activation=sigmoid keeps-strides
torch.nn.functional.sigmoid               activation=sigmoid keeps-strides
torch.special.expit                       activation=sigmoid
torch.nn.Softmax                          activation=softmax parameterless stateless
torch.nn.LogSoftmax                       activation=log_softmax parameterless stateless
torch.nn.Sigmoid                          activation=sigmoid parameterless stateless keeps-shape

# the 0.3 overloads with leading numbers (`torch.add(x, 2, y)`, `torch.addmm(0.5, x, a, b)`)
torch.add                                 legacy-overload=input,alpha legacy-tensors=other
torch.sub                                 legacy-overload=input,alpha legacy-tensors=other
torch.addcmul                             legacy-overload=input,value legacy-tensors=tensor1,tensor2
torch.addcdiv                             legacy-overload=input,value legacy-tensors=tensor1,tensor2
torch.addmm                               legacy-overload=beta,input,alpha legacy-tensors=mat1,mat2
torch.addmv                               legacy-overload=beta,input,alpha legacy-tensors=mat,vec
torch.addmv_                              legacy-overload=beta,input,alpha legacy-tensors=mat,vec
torch.addr                                legacy-overload=beta,input,alpha legacy-tensors=vec1,vec2
torch.baddbmm                             legacy-overload=beta,input,alpha legacy-tensors=batch1,batch2
torch.addbmm                              legacy-overload=beta,input,alpha legacy-tensors=batch1,batch2
torch.sspaddmm                            legacy-overload=beta,input,alpha legacy-tensors=mat1,mat2

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
torch.t                    view transposes
torch.permute              view transposes
torch.transpose            view transposes
torch.flatten              view
torch.unflatten            view
torch.reshape              view

# a new tensor joining its arguments' values
torch.cat                  copies

# value by value, laid out as their argument
torch.tanh                 keeps-strides
torch.exp                  keeps-strides
torch.relu                 keeps-strides
torch.abs                  keeps-strides
torch.nn.functional.relu   keeps-strides demands-tensor=input
torch.nn.functional.tanh   keeps-strides
torch.nn.functional.elu    keeps-strides
"""
