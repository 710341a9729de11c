import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)
for epoch in range(3):
    scheduler.step()
    optimizer.zero_grad()
    loss = ((model(torch.randn(4, 3)) - torch.randn(4, 1)) ** 2).mean()
    loss.backward()
    optimizer.step()
