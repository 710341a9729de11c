"""The output is appended to a list and converted from its last entry."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    outputs = []
    outputs.append(model(x))
    return outputs[-1].numpy()  # expect: GL404
