"""The output comes back from a lambda that closes over the model."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    score = lambda inputs: model(inputs).squeeze(1)
    values = score(x)
    return values.numpy()  # expect: GL404
