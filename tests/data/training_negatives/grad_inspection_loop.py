import torch
from torch import nn

model = nn.Linear(3, 1)
snapshots = []
for x in [torch.randn(4, 3)] * 3:
    loss = model(x).sum()
    loss.backward()
    grad_hook = model.weight.grad
    snapshots.append(grad_hook.clone())
