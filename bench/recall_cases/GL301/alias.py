"""The tensor is bound a second time, to another name, before the update."""

import torch


def run():
    torch.manual_seed(0)
    scale = torch.randn(3, requires_grad=True)
    target = scale
    target.data.clamp_(-1, 1)  # expect: GL301
    return target
