import torch
from torch import nn


def training_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()


model = nn.Linear(3, 1)
optimizer = torch.optim.Adam(model.parameters())
for x, y in [(torch.randn(4, 3), torch.randn(4, 1))] * 3:
    training_step(model, optimizer, x, y)
