"""Functional dropout that follows the module's mode: `training=self.training`, a call guarded by
`if self.training`, Monte Carlo dropout kept on with `training=True`, and dropout used as data
augmentation outside any module."""

import torch
import torch.nn.functional as F
from torch import nn


class Encoder(nn.Module):
    def __init__(self, p=0.2):
        super().__init__()
        self.p = p
        self.hidden = nn.Linear(8, 16)
        self.out = nn.Linear(16, 2)

    def forward(self, x):
        h = F.dropout(torch.relu(self.hidden(x)), self.p, self.training)
        if self.p > 0 and self.training:
            h = F.dropout(h, p=self.p)
        return self.out(F.alpha_dropout(h, 0.1, training=self.training))


class MonteCarloHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

    def forward(self, x):
        return self.fc(F.dropout(x, 0.5, training=True))


def augment(x):
    return F.dropout(x, 0.1)


torch.manual_seed(0)
encoder, head = Encoder(), MonteCarloHead()
optimizer = torch.optim.SGD([*encoder.parameters(), *head.parameters()], lr=0.1)
x, target = torch.randn(16, 8), torch.randn(16, 1)
for _ in range(3):
    loss = F.mse_loss(head(encoder(augment(x))), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
