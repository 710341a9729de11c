"""Look-alike: a batch dict whose `data` entry is a plain list."""

import torch


def run():
    torch.manual_seed(0)
    batch = {"data": [1, 2, 3]}
    batch["data"].append(4)
    batch["data"].sort()
    return batch["data"]
