"""The 0-dim value is appended to a list and read from its last entry."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    errs = []
    errs.append(criterion(model(x), y))
    return errs[-1].data[0]  # expect: GL103
