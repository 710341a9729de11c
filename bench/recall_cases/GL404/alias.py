"""The output is bound a second time, to another name, before the conversion."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    scores = model(x)
    snapshot = scores
    return snapshot.numpy()  # expect: GL404
