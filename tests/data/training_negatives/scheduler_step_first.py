import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
# Stepped first with the previous epoch's loss: a plateau scheduler follows a metric, not a count.
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
last_loss = float("inf")
for epoch in range(3):
    scheduler.step(last_loss)
    optimizer.zero_grad()
    loss = ((model(torch.randn(4, 3)) - torch.randn(4, 1)) ** 2).mean()
    loss.backward()
    optimizer.step()
    last_loss = loss.item()
