"""The tensor is stored as a dict entry and updated from there."""

import torch


def run():
    torch.manual_seed(0)
    state = {}
    state["scale"] = torch.randn(3, requires_grad=True)
    state["scale"].data.clamp_(-1, 1)  # expect: GL301
    return state["scale"]
