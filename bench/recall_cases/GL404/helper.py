"""The output comes back from a same-file helper."""

import torch
from torch import nn


def predict(model, x):
    return torch.sigmoid(model(x))


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    probs = predict(model, x)
    return probs.numpy()  # expect: GL404
