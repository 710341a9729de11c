"""The output is kept on an attribute of a recorder and converted from there."""

import torch
from torch import nn


class Recorder:
    def __init__(self, model):
        self.model = model
        self.last = None

    def observe(self, x):
        self.last = self.model(x)
        return self.last.numpy()  # expect: GL404


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    return Recorder(model).observe(x)
