"""The 0-dim value comes back from a method."""

import torch
from torch import nn


class Evaluator:
    def __init__(self, model, criterion):
        self.model, self.criterion = model, criterion

    def measure(self, x, y):
        return self.criterion(self.model(x), y)

    def report(self, x, y):
        err = self.measure(x, y)
        return err.data[0]  # expect: GL103


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    return Evaluator(model, criterion).report(x, y)
