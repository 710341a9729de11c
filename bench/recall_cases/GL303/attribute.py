"""The tensor is kept on an attribute (a recurrent state) and read from there."""

import torch
from torch import nn


class Tracker:
    def __init__(self):
        self.state = torch.zeros(1, 3)

    def update(self, scores):
        self.state = 0.9 * self.state + 0.1 * scores.mean(0, keepdim=True)
        return self.state.data.clone()  # expect: GL303


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    tracker = Tracker()
    tracker.update(model(x))
    return tracker.state
