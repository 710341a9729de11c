import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=False)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
for x, y in data:
    optimizer.zero_grad()
    with torch.autocast("cpu", enabled=False):
        loss = ((model(x) - y) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
