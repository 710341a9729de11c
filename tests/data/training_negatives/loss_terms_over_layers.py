"""Loss and regulariser terms summed over layers or scales inside a loss function or `forward`:
the sum is returned and backpropagated by the caller, once per step."""

import torch
import torch.nn.functional as F
from torch import nn


class MultiScaleLoss(nn.Module):
    def __init__(self, scales=(1, 2, 4)) -> None:
        super().__init__()
        self.scales = scales

    def forward(self, prediction: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        loss = 0
        for scale in self.scales:
            loss += F.l1_loss(F.avg_pool2d(prediction, scale), F.avg_pool2d(target, scale))
        return loss / len(self.scales)


def perceptual_loss(features_a, features_b):
    loss = F.mse_loss(features_a[0], features_b[0])
    for i in range(1, len(features_a)):
        loss += F.mse_loss(features_a[i], features_b[i])
    return loss / len(features_a)


def weight_decay_penalty(model: nn.Module) -> torch.Tensor:
    total = torch.zeros(())
    for layer in model.modules():
        if isinstance(layer, nn.Linear):
            total = total + layer.weight.pow(2).sum()
    return total


class Regularised(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        norm_loss = 0
        for layer in self.layers:
            x = layer(x)
            norm_loss += x.pow(2).mean()
        return x, norm_loss


model = Regularised()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = MultiScaleLoss()
images = torch.randn(2, 3, 8, 8, requires_grad=True)
before = model.layers[0].weight.detach().clone()
for _ in range(2):
    optimizer.zero_grad()
    out, norm_loss = model(torch.randn(5, 4))
    loss = out.pow(2).mean() + 0.1 * norm_loss + 0.01 * weight_decay_penalty(model)
    loss = loss + criterion(images, torch.zeros_like(images)) + perceptual_loss([images], [images * 0.5])
    loss.backward()
    optimizer.step()
assert not torch.equal(before, model.layers[0].weight)
