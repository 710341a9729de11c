"""Look-alike: `torch.utils.data` and a `data` module, not tensors."""

import torch
from torch import nn
from torch.utils import data


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    loader = torch.utils.data.DataLoader(data.TensorDataset(x), batch_size=2)
    return data.TensorDataset
