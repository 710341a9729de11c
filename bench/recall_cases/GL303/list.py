"""The tensor is appended to a list and read from its last entry."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    outputs = []
    outputs.append(model(x))
    best = outputs[-1].data.max(1)[1]  # expect: GL303
    return outputs[-1]
