"""`torch.nn.Module` methods: one row per method gradlint reasons about."""

from __future__ import annotations

VOCABULARY = {
    "returns-self": "it changes the module in place and returns it (`Net().to(device).eval()` is the `Net()`)",
    "converts": "a dtype or device conversion that tensors have too (`to`, `cuda`, `half`...)",
    "generator": "it returns a generator, exhausted by the first loop over it",
    "submodules": "it iterates the module's submodules",
    "module-only": "no tensor, dict, list or number has a method of this name",
    "adds": "it adds a submodule after construction",
    "call-only": "it attaches code that calling the module (`module(x)`) runs and `module.forward(x)` skips",
    "registers": "it registers a buffer, a parameter or a submodule on the module by hand",
    "needs-init": "it raises AttributeError (a generator: once iterated) on a module whose `nn.Module.__init__` never ran",
}

ROWS = """
to                          returns-self converts needs-init
cuda                        returns-self converts needs-init
cpu                         returns-self converts needs-init
float                       returns-self converts needs-init
double                      returns-self converts needs-init
half                        returns-self converts needs-init
bfloat16                    returns-self converts needs-init
type                        returns-self needs-init
train                       returns-self module-only needs-init
eval                        returns-self module-only needs-init
requires_grad_              returns-self needs-init
to_empty                    returns-self needs-init
apply                       returns-self needs-init
forward                     module-only
parameters                  generator module-only needs-init
named_parameters            generator module-only needs-init
buffers                     generator module-only needs-init
named_buffers               generator module-only needs-init
children                    generator submodules module-only needs-init
named_children              generator submodules module-only needs-init
modules                     generator submodules module-only needs-init
named_modules               generator submodules module-only needs-init
state_dict                  module-only needs-init
load_state_dict             module-only needs-init
zero_grad                   module-only needs-init
register_forward_hook       module-only call-only needs-init
register_forward_pre_hook   module-only call-only needs-init
register_full_backward_hook       module-only call-only needs-init
register_full_backward_pre_hook   module-only call-only needs-init
register_backward_hook      module-only call-only needs-init
compile                     call-only
register_buffer             registers needs-init
register_parameter          registers needs-init
add_module                  adds registers needs-init
register_module             adds registers needs-init
"""
