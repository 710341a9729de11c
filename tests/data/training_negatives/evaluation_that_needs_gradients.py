"""Evaluations that need autograd on: robust accuracy under an FGSM attack (input gradients), and
test-time adaptation that takes optimizer steps on the test stream."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
test_loader = [(torch.randn(16, 4), torch.randint(0, 3, (16,))) for _ in range(3)]


def evaluate_robustness(model, test_loader, eps=0.1):
    correct = 0
    for x, y in test_loader:
        x = x.clone().requires_grad_()
        (grad,) = torch.autograd.grad(F.cross_entropy(model(x), y), x)
        with torch.no_grad():
            correct += (model(x + eps * grad.sign()).argmax(1) == y).sum().item()
    return correct


def test_time_adaptation(model, test_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    predictions = []
    for x, _ in test_loader:
        logits = model(x)
        entropy = -(logits.softmax(1) * logits.log_softmax(1)).sum(1).mean()
        optimizer.zero_grad()
        entropy.backward()
        optimizer.step()
        predictions.append(logits.argmax(1))
    return predictions


print(evaluate_robustness(model, test_loader))
print(len(test_time_adaptation(model, test_loader)))
