"""The 0-dim value comes back from a lambda that closes over the model and criterion."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    measure = lambda inputs, targets: criterion(model(inputs), targets)
    err = measure(x, y)
    return err.data[0]  # expect: GL103
