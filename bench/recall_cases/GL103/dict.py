"""The 0-dim value is stored as a dict entry and read from there."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    stats = {}
    stats["err"] = criterion(model(x), y)
    return stats["err"].data[0]  # expect: GL103
