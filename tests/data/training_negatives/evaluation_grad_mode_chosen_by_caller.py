"""Evaluation helpers without a no_grad of their own, run only where the caller turned autograd
off, with the model switched to evaluation mode and back to training mode around them."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.2), nn.Linear(16, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss()
train_loader = [(torch.randn(16, 4), torch.randint(0, 3, (16,))) for _ in range(4)]
val_loader = [(torch.randn(16, 4), torch.randint(0, 3, (16,))) for _ in range(2)]


def evaluate(model, val_loader):
    correct = 0
    for x, y in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


def validation_loss(model, val_loader):
    total = 0.0
    for x, y in val_loader:
        total += criterion(model(x), y).item()
    return total / len(val_loader)


def run_validation(model):
    return evaluate(model, val_loader), validation_loss(model, val_loader)


@torch.inference_mode()
def final_report(model):
    model.eval()
    return run_validation(model)


for epoch in range(2):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        correct, val_loss = run_validation(model)
    print(epoch, correct, val_loss)
print(final_report(model))
