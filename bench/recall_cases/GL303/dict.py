"""The tensor is stored as a dict entry and read from there."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    cache = {}
    cache["scores"] = model(x)
    best = cache["scores"].data.max(1)[1]  # expect: GL303
    return cache["scores"]
