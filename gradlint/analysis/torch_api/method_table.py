"""Tensor methods: one row per method, the words saying what calling it gives.

Only what gradlint relies on is recorded; a method without `keeps` or `ends` has an autograd
behaviour the analyses do not decide from its name (they then look at the receiver and arguments).
Each row is checked against torch 2.13 by tests/test_torch_api.py.
"""

from __future__ import annotations

# The words of a row (a method's in-place twin is read from its name: `add_` is `add` in place).
VOCABULARY = {
    # autograd
    "keeps": "the result has the receiver's autograd history",
    "ends": "the result never has autograd history (a Python value, an integer tensor, a new leaf)",
    "clears": "in place, it leaves the receiver's values without history (`detach_`, `resize_`)",
    "detaches": "its result is the values without the graph: a detached tensor, a Python value, an array",
    "holds": "its result holds the tensor object itself, or it acts on the object's graph",
    # the object the call gives
    "self": "it may return the receiver itself (`x.float()` of a float tensor is `x`)",
    "moves": "it gives a tensor on the device it names (`cpu`, `cuda`, `pin_memory`)",
    "device-argument": "it gives a tensor on the device its arguments name, if they name one (`to`, `type`)",
    "converts": "it gives the tensor another dtype, device or layout (or may)",
    "view": "it returns a view: a new tensor object sharing the receiver's storage",
    "tuple": "it returns a tuple of tensors",
    "factory": "a new tensor of the receiver's dtype and device, without its history (`new_zeros`)",
    "identity": "it acts on the tensor object (flags, hooks, shape, strides, storage), not on its values",
    "reshapes": "in place, it changes the receiver's shape, strides or storage",
    "metadata": "it reads metadata only (sizes, strides, device), never the values",
    # the value the call gives
    "number": "it returns a Python number or list, not a tensor",
    "count": "it returns a Python int counting elements or dimensions",
    "int": "it returns an integer or bool tensor",
    "reduction": "without a dim it reduces the whole tensor to a 0-dim tensor",
    "drops-dim": "given only a dim (`x.sum(0)`), the result lacks that dim: a 1-D receiver gives a 0-dim tensor",
    "index": "a reduction giving indices (`argmax`)",
    "pair": "with a dim it returns (values, indices)",
    "scalar": "it always returns a 0-dim tensor",
    "same-layout": "the result has the receiver's shape, dtype, device and strides",
    "elementwise": "with plain-number arguments the result has the receiver's layout (`x.mul(2)`)",
    "passes-tensor": "the result is a tensor when the receiver is one (numpy or other types share the name)",
    "compares": "an elementwise comparison (`eq`, `lt`...)",
    "ranks": "it ranks the values: an arg-reduction, top-k or a sort",
    "activation": "a normalising activation (`activation=softmax`): the probabilities of a score",
    "same-values": "its result holds the receiver's values and history: reshaped, moved, or converted to a floating type",
    "fills": "in place, it overwrites every value with a constant (`zero_`, `fill_`)",
    "scales": "in place, it multiplies or divides the values by its argument",
    "accumulates": "in place, it adds (a multiple of) its arguments to the values",
    "copies-in": "in place, it copies its argument's values into the receiver",
    "non-blocking": "it takes `non_blocking=` (spelled `async=` before torch 0.4)",
    "legacy-overload": (
        "its 0.3 overload took numbers first, each now the keyword of its name, in this order; a call may leave out "
        "those after the first (`x.add(2, y)`, `x.addmm(0.5, a, b)`, `x.addmm(0.5, 2, a, b)`)"
    ),
    "legacy-tensors": "the tensors its legacy overload takes after the numbers",
    # how surely `x.m()` says x is a tensor
    # strides
    "transposes": "a view with its dimensions reordered (`t`, `transpose`, `permute`): not contiguous unless a moved dimension has size 1",
    "keeps-strides": "a new tensor computed value by value, laid out with the strides of its receiver (with number arguments for the binary ones)",
    "distinctive": "tensors, and hardly anything else, have this method",
    "unique": "numpy arrays and modules lack it too: an argument it is called on is a tensor",
}

ROWS = """
# Python values and metadata
item                    ends detaches number
tolist                  ends detaches number
numpy                   ends detaches holds
size                    ends number metadata count
dim                     ends number metadata count
ndimension              ends number metadata count
numel                   ends number metadata count distinctive
nelement                ends number metadata count
data_ptr                ends number metadata
stride                  ends number metadata
get_device              ends number metadata
element_size            ends number metadata
is_contiguous           ends number metadata
is_floating_point       ends number metadata

# autograd
detach                  ends detaches same-layout distinctive
detach_                 identity clears
requires_grad_          identity distinctive
retain_grad             identity holds
register_hook           identity
register_post_accumulate_grad_hook identity
backward                holds
as_subclass             holds

# conversions of dtype and device
cpu                     keeps self moves passes-tensor converts same-values
cuda                    keeps self moves distinctive converts same-values non-blocking
to                      keeps self passes-tensor device-argument converts same-values non-blocking
pin_memory              self moves converts
type                    self device-argument converts non-blocking
float                   keeps self distinctive converts same-values
double                  keeps self distinctive converts same-values
half                    keeps self distinctive converts same-values
bfloat16                self converts same-values
long                    ends self int distinctive converts
int                     ends self int distinctive converts
short                   ends self int converts
byte                    ends self int distinctive converts
char                    ends self int converts
bool                    ends self int converts
type_as                 keeps self distinctive unique converts same-values
contiguous              keeps self distinctive unique converts same-values
to_dense                self converts
to_sparse               converts

# views
view                    keeps view distinctive same-values
view_as                 keeps view distinctive unique same-values
reshape                 keeps view passes-tensor same-values
squeeze                 keeps view distinctive same-values
unsqueeze               keeps view distinctive unique same-values
t                       keeps view distinctive same-values transposes
permute                 keeps view distinctive unique same-values transposes
transpose               keeps view passes-tensor same-values transposes
flatten                 keeps view passes-tensor same-values
unflatten               view same-values
expand                  keeps view
expand_as               keeps view distinctive unique
narrow                  keeps view distinctive unique
select                  keeps view
diagonal                view
unfold                  view
as_strided              view
movedim                 view
moveaxis                view
swapaxes                view transposes
swapdims                view transposes
adjoint                 view
indices
values
split                   keeps view tuple
chunk                   keeps view tuple
unbind                  view tuple
tensor_split            view tuple
hsplit                  view tuple
vsplit                  view tuple
dsplit                  view tuple
split_with_sizes        view tuple

# in place on the object's shape, strides or storage
squeeze_                keeps identity reshapes
unsqueeze_              identity reshapes
t_                      identity reshapes
transpose_              identity reshapes
swapdims_               identity reshapes
swapaxes_               identity reshapes
as_strided_             identity reshapes
resize_                 identity reshapes clears
resize_as_              identity reshapes clears
set_                    identity reshapes
share_memory_           identity

# factories
new                     factory
new_zeros               ends factory distinctive unique
new_ones                ends factory distinctive unique
new_empty               ends factory distinctive unique
new_full                factory distinctive unique
new_tensor              factory distinctive

# reductions
sum                     keeps reduction passes-tensor drops-dim
mean                    keeps reduction passes-tensor drops-dim
std                     keeps reduction passes-tensor
var                     keeps reduction passes-tensor
norm                    keeps reduction distinctive
prod                    keeps reduction passes-tensor drops-dim
max                     keeps reduction pair passes-tensor ranks
min                     keeps reduction pair passes-tensor ranks
all                     ends reduction int
any                     ends reduction int
argmax                  ends reduction index int distinctive ranks drops-dim
argmin                  ends reduction index int distinctive ranks drops-dim
topk                    keeps pair distinctive ranks
sort                    keeps pair ranks
kthvalue                pair
mode                    pair
median                  pair
dot                     scalar
dist                    scalar
cumsum                  keeps

# comparisons and integer results
argsort                 ends int ranks
eq                      ends int distinctive compares
ne                      ends int distinctive compares
lt                      ends int distinctive compares
gt                      ends int distinctive compares
le                      ends int distinctive compares
ge                      ends int distinctive compares
isnan                   ends int
isinf                   ends int
nonzero                 ends int
multinomial             ends int

# values with history
clone                   keeps same-layout distinctive same-values keeps-strides
neg                     keeps same-layout distinctive keeps-strides
abs                     keeps same-layout distinctive keeps-strides
add                     keeps elementwise passes-tensor legacy-overload=alpha legacy-tensors=other keeps-strides
sub                     keeps elementwise passes-tensor legacy-overload=alpha legacy-tensors=other keeps-strides
mul                     keeps elementwise passes-tensor keeps-strides
div                     keeps elementwise passes-tensor keeps-strides
clamp                   keeps elementwise distinctive keeps-strides
clamp_min               elementwise
clamp_max               elementwise
clip                    keeps elementwise
sign                    keeps
round                   keeps
floor                   keeps
ceil                    keeps
softmax                 keeps distinctive activation=softmax
log_softmax             keeps distinctive activation=log_softmax
sigmoid                 keeps distinctive activation=sigmoid keeps-strides
tanh                    keeps distinctive keeps-strides
relu                    keeps distinctive keeps-strides
exp                     keeps distinctive keeps-strides
log                     keeps distinctive keeps-strides
pow                     keeps distinctive keeps-strides
sqrt                    keeps distinctive keeps-strides
matmul                  keeps distinctive
mm                      keeps distinctive
bmm                     keeps distinctive
repeat                  keeps
index_select            keeps distinctive unique
gather                  keeps distinctive
scatter                 distinctive
masked_fill             keeps distinctive unique
rsqrt
reciprocal
sin
cos
log1p
expm1
square
trunc
fmod
remainder
lerp
nan_to_num
tril
triu
index_fill
index_add
index_copy
scatter_add

# in place on the values (the receiver is returned)
add_                    accumulates legacy-overload=alpha legacy-tensors=other
sub_                    accumulates legacy-overload=alpha legacy-tensors=other
mul_                    scales
div_                    scales
clamp_
clamp_min_
clamp_max_
clip_
masked_fill_
neg_
abs_
sign_
round_
floor_
ceil_
trunc_
sigmoid_
tanh_
relu_
exp_
expm1_
log_
log1p_
pow_
sqrt_
rsqrt_
reciprocal_
square_
sin_
cos_
fmod_
remainder_
lerp_
nan_to_num_
tril_
triu_
cumsum_
index_fill_
index_add_
index_copy_
scatter_
scatter_add_
zero_                   fills
fill_                   fills
copy_                   copies-in non-blocking
addcmul                 legacy-overload=value legacy-tensors=tensor1,tensor2
addcmul_                accumulates legacy-overload=value legacy-tensors=tensor1,tensor2
addcdiv                 legacy-overload=value legacy-tensors=tensor1,tensor2
addcdiv_                accumulates legacy-overload=value legacy-tensors=tensor1,tensor2
addmm                   legacy-overload=beta,alpha legacy-tensors=mat1,mat2
addmm_                  legacy-overload=beta,alpha legacy-tensors=mat1,mat2
addmv                   legacy-overload=beta,alpha legacy-tensors=mat,vec
addmv_                  legacy-overload=beta,alpha legacy-tensors=mat,vec
addr                    legacy-overload=beta,alpha legacy-tensors=vec1,vec2
addr_                   legacy-overload=beta,alpha legacy-tensors=vec1,vec2
baddbmm                 legacy-overload=beta,alpha legacy-tensors=batch1,batch2
baddbmm_                legacy-overload=beta,alpha legacy-tensors=batch1,batch2
addbmm                  legacy-overload=beta,alpha legacy-tensors=batch1,batch2
addbmm_                 legacy-overload=beta,alpha legacy-tensors=batch1,batch2
sspaddmm                legacy-overload=beta,alpha legacy-tensors=mat1,mat2
"""
