"""Values rebuilt with `torch.tensor` that are never backpropagated through the model: the logged
loss (averaged over steps as a tensor), a learned temperature initialised from a number, and an
entropy target made from a measured value. The loss that is backpropagated keeps its graph."""

import math

import torch
from torch import nn


def train(steps=4):
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    log_temperature = torch.tensor(math.log(0.5), requires_grad=True)
    optimizer = torch.optim.SGD([*model.parameters(), log_temperature], lr=0.1)
    x, y = torch.randn(32, 4), torch.randint(0, 3, (32,))
    history = []
    for _ in range(steps):
        optimizer.zero_grad()
        logits = model(x) / log_temperature.exp()
        loss = nn.functional.cross_entropy(logits, y)
        entropy = torch.distributions.Categorical(logits=logits).entropy().mean()
        target = torch.tensor(entropy.item() * 0.9)
        loss = loss + 0.01 * (entropy - target) ** 2
        loss.backward()
        optimizer.step()
        history.append(torch.tensor(loss.item()))
    return torch.stack(history).mean()


if __name__ in ("__main__", "negative"):
    train()
