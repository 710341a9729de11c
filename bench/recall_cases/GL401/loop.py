"""Each term of a two-part loss is summed through a loop variable."""

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
        terms = [criterion(model(x), y), 0.01 * model.weight.pow(2).sum()]
        sum(terms).backward()
        optimizer.step()
        for term in terms:
            total += term  # expect: GL401
    return total
