import torch
from torch import nn

model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
params, buffers = [], []
for p in model.parameters():
    params.append(p)
for name, buffer in model.named_buffers():
    buffers.append(buffer)
optimizer = torch.optim.SGD(params, lr=0.1)
