"""A small trainer whose epoch loop switches modes through its own methods: `train_epoch` calls
`self.model.train()`, `validate` calls `self.model.eval()`; an EMA copy stays in evaluation mode."""

import copy

import torch
from torch import nn


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 2))
        self.model_ema = copy.deepcopy(self.model)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.criterion = nn.CrossEntropyLoss()
        self.train_loader = [(torch.randn(16, 4), torch.randint(0, 2, (16,))) for _ in range(3)]
        self.val_loader = [(torch.randn(16, 4), torch.randint(0, 2, (16,))) for _ in range(2)]

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.model_ema.eval()
            with torch.no_grad():
                for ema_p, p in zip(self.model_ema.parameters(), self.model.parameters()):
                    ema_p.mul_(0.9).add_(p, alpha=0.1)

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        correct = 0
        for x, y in self.val_loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
        return correct

    def fit(self, epochs):
        history = []
        for epoch in range(epochs):
            self.train_epoch()
            history.append(self.validate())
        return history


print(Trainer().fit(2))
