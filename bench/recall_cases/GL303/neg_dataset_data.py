"""Look-alike: `dataset.data` of a dataset object that holds a numpy array."""

import numpy as np
import torch
from torch import nn


class ToyDataset:
    def __init__(self, n):
        self.data = np.random.rand(n, 4)


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    dataset = ToyDataset(8)
    mean = dataset.data.mean(0)
    return dataset.data
