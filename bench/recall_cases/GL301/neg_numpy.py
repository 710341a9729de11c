"""Look-alike: a write through the `.data` buffer of a numpy array."""

import numpy as np
import torch


def run():
    torch.manual_seed(0)
    table = np.zeros(3)
    table.data[0] = 1.0
    return table
