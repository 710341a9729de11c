"""The tensor comes back from a lambda."""

import torch


def run():
    torch.manual_seed(0)
    make = lambda n: torch.randn(n, requires_grad=True)
    scale = make(3)
    scale.data.clamp_(-1, 1)  # expect: GL301
    return scale
