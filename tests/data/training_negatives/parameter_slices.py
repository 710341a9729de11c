"""Parameter slices collected and concatenated to build a pruned weight: the parts are consumed
by `torch.cat` in the same call."""

import torch
from torch import nn


def keep_heads(linear: nn.Linear, heads, head_dim: int) -> torch.Tensor:
    weights, biases = [], []
    for head in heads:
        start = head * head_dim
        weights.append(linear.weight[start : start + head_dim])
        biases.append(linear.bias[start : start + head_dim])
    return torch.cat(weights), torch.cat(biases)


layer = nn.Linear(4, 8)
weight, bias = keep_heads(layer, [0, 2], 2)
assert weight.shape == (4, 4) and bias.shape == (4,)
