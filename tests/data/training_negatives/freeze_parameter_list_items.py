"""Per-scale weights in a ParameterList: indexing gives a Parameter, so its own flag freezes it."""

import torch
from torch import nn


class ScaleMixer(nn.Module):
    def __init__(self, scales=3, width=4):
        super().__init__()
        self.scale_weights = nn.ParameterList([nn.Parameter(torch.ones(width)) for _ in range(scales)])
        self.proj = nn.Linear(width, 1)

    def freeze_coarse_scales(self, keep):
        for weight in self.scale_weights[keep:]:
            weight.requires_grad = False
        self.scale_weights[0].requires_grad = True

    def forward(self, features):
        mixed = sum(w * f for w, f in zip(self.scale_weights, features))
        return self.proj(mixed)


model = ScaleMixer()
model.freeze_coarse_scales(keep=1)
optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
features = [torch.randn(8, 4) for _ in range(3)]
target = torch.randn(8, 1)
for _ in range(3):
    optimizer.zero_grad()
    loss = ((model(features) - target) ** 2).mean()
    loss.backward()
    optimizer.step()
assert all(w.grad is None for w in model.scale_weights[1:])
