"""A forward pass that keeps activations for later in the same call: U-Net skips, dense-block
features, multi-scale outputs, residual updates, and modules collected in `__init__`."""

import torch
from torch import nn


class DenseBlock(nn.Module):
    def __init__(self, channels: int = 4, layers: int = 3) -> None:
        super().__init__()
        self.layers = []
        for i in range(layers):
            self.layers.append(nn.Conv2d(channels * (i + 1), channels, 3, padding=1))
        self.layers = nn.ModuleList(self.layers)

    def forward(self, x):
        features = [x]
        for layer in self.layers:
            features.append(layer(torch.cat(features, dim=1)))
        return torch.cat(features, dim=1)


class TinyUNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.downs = nn.ModuleList(nn.Conv2d(4, 4, 3, padding=1) for _ in range(2))
        self.ups = nn.ModuleList(nn.Conv2d(8, 4, 3, padding=1) for _ in range(2))
        self.blocks = nn.ModuleList(nn.Linear(4, 4) for _ in range(2))

    def forward(self, x):
        skips = []
        for down in self.downs:
            x = down(x)
            skips.append(x)
        outputs = []
        for up in self.ups:
            x = up(torch.cat([x, skips.pop()], dim=1))
            outputs.append(x)
        h = x.mean(dim=(2, 3))
        for block in self.blocks:
            h = h + block(h)
        return outputs, h


dense = DenseBlock()
unet = TinyUNet()
optimizer = torch.optim.SGD(list(dense.parameters()) + list(unet.parameters()), lr=0.1)
before = unet.blocks[0].weight.detach().clone()
for _ in range(2):
    optimizer.zero_grad()
    outputs, h = unet(dense(torch.randn(1, 4, 8, 8))[:, :4])
    loss = sum(o.mean() for o in outputs) + h.pow(2).mean()
    loss.backward()
    optimizer.step()
assert not torch.equal(before, unet.blocks[0].weight)
