import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
accumulation_steps = 4
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(8)]
for i, (x, y) in enumerate(data):
    loss = criterion(model(x), y) / accumulation_steps
    loss.backward()
    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
