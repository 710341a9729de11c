import torch
from torch import nn


def compute_loss(model, batch):
    x, y = batch
    return ((model(x) - y) ** 2).mean()


def train(model, optimizer, loader):
    for batch in loader:
        optimizer.zero_grad()
        loss = compute_loss(model, batch)
        loss.backward()
        optimizer.step()


model = nn.Linear(3, 1)
train(model, torch.optim.SGD(model.parameters(), lr=0.1), [(torch.randn(4, 3), torch.randn(4, 1))])
