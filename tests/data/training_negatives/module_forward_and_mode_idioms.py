"""Model-definition idioms that look like a direct `forward` call, an assigned `training` flag or a
layer built in `forward`, and are correct: delegation to a parent class, a wrapper around a module
it is given, a `train` override, lazy initialisation, parameterless layers built per call."""

import torch
from torch import nn


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x)


class Scaled(Backbone):
    def forward(self, x):
        return super().forward(x) * 2 + Backbone.forward(self, x)


class NoHooks(nn.Module):
    """Runs the wrapped module without its hooks, on purpose (e.g. to measure it unobserved)."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        return self.module.forward(x)


class FrozenNorm(nn.Module):
    """Batch norm kept in evaluation mode whatever the caller asks."""

    def __init__(self):
        super().__init__()
        self.norm = nn.BatchNorm1d(4)

    def train(self, mode=True):
        self.training = mode
        self.norm.train(False)
        return self


class LazyHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = None

    def forward(self, x):
        if self.head is None:
            self.head = nn.Linear(x.shape[-1], 2)
        x = nn.Flatten()(nn.ReLU()(x))
        x = nn.LayerNorm(x.shape[-1], elementwise_affine=False)(x)
        if self.training:
            x = nn.Dropout(0.1)(x)
        return self.head(x)


class Stage:
    """Not a module: a pipeline stage with its own `forward` and `training` flag."""

    def __init__(self):
        self.training = False

    def forward(self, batch):
        return [item * 2 for item in batch]


def run():
    torch.manual_seed(0)
    x = torch.randn(3, 4)
    wrapped = NoHooks(Scaled())
    frozen = FrozenNorm()
    frozen.train()
    lazy = LazyHead().eval()
    stage = Stage()
    stage.training = True
    return wrapped(x), frozen.norm.training, lazy(x), stage.forward([1, 2])


if __name__ == "__main__":
    print(run())
