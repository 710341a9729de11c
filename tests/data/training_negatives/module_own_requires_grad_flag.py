import torch
from torch import nn


class Volume(nn.Module):
    def __init__(self, requires_grad=True):
        super().__init__()
        self.requires_grad = requires_grad
        self.origin = nn.Parameter(torch.zeros(3), requires_grad=self.requires_grad)


class Adapter(nn.Module):
    def __init__(self, trainable=True):
        super().__init__()
        self._requires_grad = trainable
        self.proj = nn.Linear(4, 4)


fixed = Volume(requires_grad=False)
adapter = Adapter()
