"""Look-alike: `self.data` of a plain container class."""

import torch
from torch import nn


class Samples:
    def __init__(self, values):
        self.data = list(values)

    def sorted_copy(self):
        return sorted(self.data)


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    samples = Samples([3, 1, 2])
    samples.sorted_copy()
    return samples.data
