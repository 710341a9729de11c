"""Look-alike: `self.data` of a plain container class, grown and cleared in place."""

import torch


class Buffer:
    def __init__(self):
        self.data = []

    def push(self, value):
        self.data.append(value)
        if len(self.data) > 2:
            self.data.clear()


def run():
    torch.manual_seed(0)
    buffer = Buffer()
    for value in range(4):
        buffer.push(value)
    return buffer.data
