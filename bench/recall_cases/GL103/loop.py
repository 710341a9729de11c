"""The terms of a two-part objective are read through a loop variable."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    log = []
    for term in (criterion(model(x), y), model.weight.pow(2).sum()):
        log.append(term.data[0])  # expect: GL103
    return log
