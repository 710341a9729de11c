"""The tensor is kept on an attribute (not named weight or bias) and updated from there."""

import torch


class Temperature:
    def __init__(self):
        self.log_t = torch.zeros(1, requires_grad=True)

    def clip(self):
        self.log_t.data.clamp_(-3, 3)  # expect: GL301


def run():
    torch.manual_seed(0)
    temperature = Temperature()
    temperature.clip()
    return temperature.log_t
