"""The tensor is bound in one of two branches."""

import torch


def run(random_init=True):
    torch.manual_seed(0)
    if random_init:
        scale = torch.randn(3, requires_grad=True)
    else:
        scale = torch.ones(3, requires_grad=True)
    scale.data.clamp_(-1, 1)  # expect: GL301
    return scale
