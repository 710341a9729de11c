"""The 0-dim value is bound in one of two branches."""

import torch
from torch import nn


def run(robust=False):
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    if robust:
        err = nn.functional.l1_loss(model(x), y)
    else:
        err = criterion(model(x), y)
    return err.data[0]  # expect: GL103
