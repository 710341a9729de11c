import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]
accumulate = 2

for i, (x, y) in enumerate(data):
    loss = ((model(x) - y) ** 2).mean() / accumulate
    loss.backward()
    if not torch.isfinite(loss):
        # A bad batch: drop what it contributed and skip the update.
        optimizer.zero_grad()
        continue
    if (i + 1) % accumulate == 0:
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
