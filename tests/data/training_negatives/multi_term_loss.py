import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.MSELoss()
batches = [(torch.randn(4, 3), torch.randn(4, 1))] * 3
optimizer.zero_grad()
total = 0
for x, y in batches:
    total = total + criterion(model(x), y)
total.backward()
optimizer.step()
