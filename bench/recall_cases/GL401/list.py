"""The loss is appended to a per-step list and summed from its last entry."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    total = 0
    for _ in range(3):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        costs = []
        costs.append(criterion(model(x), y))
        costs[-1].backward()
        optimizer.step()
        total += costs[-1]  # expect: GL401
    return total
