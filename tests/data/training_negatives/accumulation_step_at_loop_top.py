import torch
from torch import nn


def train(model, optimizer, loader, k):
    for i, (x, y) in enumerate(loader):
        if i > 0 and i % k == 0:
            optimizer.step()
            optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean() / k
        loss.backward()
    optimizer.step()


model = nn.Linear(3, 1)
train(model, torch.optim.SGD(model.parameters(), lr=0.1), [(torch.randn(4, 3), torch.randn(4, 1))] * 6, 2)
