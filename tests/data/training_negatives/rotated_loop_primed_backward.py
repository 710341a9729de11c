import torch
from torch import nn


def train(model, optimizer, batches):
    loss = ((model(batches[0][0]) - batches[0][1]) ** 2).mean()
    loss.backward()
    for x, y in batches[1:]:
        optimizer.step()
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
    optimizer.step()


model = nn.Linear(3, 1)
train(model, torch.optim.SGD(model.parameters(), lr=0.1), [(torch.randn(4, 3), torch.randn(4, 1))] * 4)
