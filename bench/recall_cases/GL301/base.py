"""A tensor that requires grad, made by a factory call, updated in place through `.data`."""

import torch


def run():
    torch.manual_seed(0)
    scale = torch.randn(3, requires_grad=True)
    scale.data.clamp_(-1, 1)  # expect: GL301
    return scale
