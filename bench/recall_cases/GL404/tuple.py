"""The output comes back from a helper as the second member of a tuple."""

import torch
from torch import nn


def forward(model, x):
    hidden = model(x)
    return hidden, hidden.relu()


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    hidden, activation = forward(model, x)
    return activation.numpy()  # expect: GL404
