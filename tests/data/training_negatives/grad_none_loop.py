import torch
from torch import nn

model = nn.Linear(3, 1)
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.1)
for x, y in [(torch.randn(4, 3), torch.randn(4, 1))] * 3:
    for p in params:
        p.grad = None
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
