"""A training step that measures accuracy under no_grad and returns the loss built before it, a
validation helper that is never backpropagated, and a distillation target detached on purpose."""

import torch
import torch.nn.functional as F
from torch import nn


def training_step(model, x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    with torch.no_grad():
        accuracy = (logits.argmax(1) == y).float().mean()
    return loss, accuracy


def validation_loss(model, x, y):
    with torch.no_grad():
        loss = F.cross_entropy(model(x), y)
    return loss


def distillation_loss(student, teacher, x):
    target = teacher(x).detach()
    loss = F.mse_loss(student(x), target)
    loss.requires_grad_()
    return loss


torch.manual_seed(0)
model, teacher = nn.Linear(4, 3), nn.Linear(4, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
for epoch in range(3):
    optimizer.zero_grad()
    loss, accuracy = training_step(model, x, y)
    loss.backward()
    optimizer.step()
    print(epoch, validation_loss(model, x, y).item(), accuracy.item())
for epoch in range(3):
    optimizer.zero_grad()
    distill = distillation_loss(model, teacher, x)
    distill.backward()
    optimizer.step()
