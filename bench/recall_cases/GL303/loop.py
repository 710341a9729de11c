"""Two outputs are read through a loop variable."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    snapshots = []
    for out in (model(x), model(2 * x)):
        snapshots.append(out.data)  # expect: GL303
    return out
