"""The tensor is appended to a list and updated from its last entry."""

import torch


def run():
    torch.manual_seed(0)
    scales = []
    scales.append(torch.randn(3, requires_grad=True))
    scales[-1].data.clamp_(-1, 1)  # expect: GL301
    return scales[-1]
