"""The tensor comes back from a helper as the second member of a tuple."""

import torch


def make_affine(n):
    return torch.randn(n, n, requires_grad=True), torch.zeros(n, requires_grad=True)


def run():
    torch.manual_seed(0)
    matrix, shift = make_affine(3)
    shift.data.fill_(0.1)  # expect: GL301
    return shift
