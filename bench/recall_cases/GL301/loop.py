"""Two hand-made tensors are reset through a loop variable."""

import torch


def run():
    torch.manual_seed(0)
    gain, shift = torch.ones(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    for tensor in (gain, shift):
        tensor.data.mul_(0.5)  # expect: GL301
    return tensor
