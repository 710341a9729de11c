"""The tensor comes back from a same-file helper."""

import torch
from torch import nn


def encode(model, x):
    return torch.tanh(model(x))


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    code = encode(model, x)
    best = code.data.max(1)[1]  # expect: GL303
    return code
