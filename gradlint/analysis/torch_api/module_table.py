"""`torch.nn.Module` methods: one row per method gradlint reasons about."""

from __future__ import annotations

VOCABULARY = {
    "returns-self": "it changes the module in place and returns it (`Net().to(device).eval()` is the `Net()`)",
    "converts": "a dtype or device conversion that tensors have too (`to`, `cuda`, `half`...)",
    "generator": "it returns a generator, exhausted by the first loop over it",
    "submodules": "it iterates the module's submodules",
    "module-only": "no tensor, dict, list or number has a method of this name",
    "adds": "it adds a submodule after construction",
}

ROWS = """
to                          returns-self converts
cuda                        returns-self converts
cpu                         returns-self converts
float                       returns-self converts
double                      returns-self converts
half                        returns-self converts
bfloat16                    returns-self converts
type                        returns-self
train                       returns-self module-only
eval                        returns-self module-only
requires_grad_              returns-self
to_empty                    returns-self
apply                       returns-self
forward                     module-only
parameters                  generator module-only
named_parameters            generator module-only
buffers                     generator module-only
named_buffers               generator module-only
children                    generator submodules module-only
named_children              generator submodules module-only
modules                     generator submodules module-only
named_modules               generator submodules module-only
state_dict                  module-only
load_state_dict             module-only
zero_grad                   module-only
register_forward_hook       module-only
register_forward_pre_hook   module-only
add_module                  adds
register_module             adds
"""
