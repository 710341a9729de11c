"""The loss comes back from a lambda that closes over the model and the criterion."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.MSELoss()
    objective = lambda inputs, targets: criterion(model(inputs), targets)
    total = 0
    for _ in range(3):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        optimizer.zero_grad()
        cost = objective(x, y)
        cost.backward()
        optimizer.step()
        total += cost  # expect: GL401
    return total
