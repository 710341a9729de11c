"""The tensor comes back from a same-file helper."""

import torch


def make_scale(n):
    return torch.randn(n, requires_grad=True)


def run():
    torch.manual_seed(0)
    scale = make_scale(3)
    scale.data.clamp_(-1, 1)  # expect: GL301
    return scale
