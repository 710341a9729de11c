"""Inference over a data set in batches, outputs concatenated in the same call, and a training loop
that keeps only detached numbers: no graph outlives an iteration."""

import torch
from torch import nn

model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
train_loader = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(3)]


def predict(model, loader):
    outputs = []
    for batch, _ in loader:
        outputs.append(model(batch))
    return torch.cat(outputs)


history = {"loss": []}
ema = 0.0
before = model.weight.detach().clone()
for epoch in range(2):
    epoch_loss = 0.0
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        ema = 0.9 * ema + 0.1 * loss.item()
    history["loss"].append(epoch_loss / len(train_loader))
assert predict(model, train_loader).shape == (24, 2)
assert not torch.equal(before, model.weight) and len(history["loss"]) == 2
