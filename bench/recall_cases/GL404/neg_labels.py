"""Look-alike: the integer labels of a batch, which never require grad."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    labels = torch.tensor([0, 2, 1, 1, 0])
    predicted = model(x).argmax(1)
    return (predicted == labels).numpy()
