"""The 0-dim value is bound a second time, to another name, before the read."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    err = criterion(model(x), y)
    last = err
    return last.data[0]  # expect: GL103
