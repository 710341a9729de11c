"""The loss comes back from a helper as the first member of a tuple."""

import torch
from torch import nn


def forward_pass(model, criterion, x, y):
    out = model(x)
    return criterion(out, y), out


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    total = 0
    for _ in range(3):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        cost, out = forward_pass(model, criterion, x, y)
        cost.backward()
        optimizer.step()
        total += cost  # expect: GL401
    return total
