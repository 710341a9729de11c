"""The tensor comes back from a method of a class."""

import torch


class Mixer:
    def __init__(self, n):
        self.mix = torch.randn(n, requires_grad=True)

    def mixing(self):
        return self.mix


def run():
    torch.manual_seed(0)
    mixer = Mixer(3)
    mix = mixer.mixing()
    mix.data.clamp_(0, 1)  # expect: GL301
    return mix
