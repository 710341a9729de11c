"""Generate a synthetic training project: models, data modules, training loops (some with the
mistakes gradlint finds), and utilities, from templates with a fixed seed."""

from __future__ import annotations

import random
from pathlib import Path

MODEL = """import torch
from torch import nn


class {name}(nn.Module):
    def __init__(self, width={width}):
        super().__init__()
        self.layers = nn.Sequential({layers})
        self.head = nn.Linear(width, {classes})

    def forward(self, x):
        return self.head(self.layers(x))
"""

DATA = """import torch
from torch.utils.data import DataLoader, Dataset


class {name}(Dataset):
    def __init__(self, size={size}):
        self.data = torch.randn(size, {width})
        self.targets = torch.randint(0, {classes}, (size,))

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        return self.data[index], self.targets[index]


def loader(batch_size={batch}):
    return DataLoader({name}(), batch_size=batch_size, shuffle=True)
"""

TRAIN_GOOD = """import torch
from torch import nn


def train(model, loader, epochs={epochs}):
    optimizer = torch.optim.{optimizer}(model.parameters(), lr={lr})
    criterion = nn.CrossEntropyLoss()
    running = 0.0
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            running += loss.item()
    return running


@torch.no_grad()
def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct
"""

TRAIN_LEGACY = """import torch
from torch import nn
from torch.autograd import Variable


def train(model, loader, epochs={epochs}):
    optimizer = torch.optim.{optimizer}(model.parameters(), lr={lr})
    criterion = nn.CrossEntropyLoss()
    total = 0
    for epoch in range(epochs):
        for x, y in loader:
            x, y = Variable(x), Variable(y)
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss
            print(loss.data[0])
    return total


def evaluate(model, loader):
    for x, y in loader:
        out = model(Variable(x, volatile=True))
        pred = out.data.max(1)[1]
        yield pred.cpu().numpy()
"""

UTIL = """import json
import math
import os


def cosine_schedule(step, total, base={lr}):
    return base * 0.5 * (1 + math.cos(math.pi * step / total))


def save_metrics(path, metrics):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as handle:
        json.dump(metrics, handle, indent=2)


class Meter:
    def __init__(self):
        self.values = []

    def update(self, value):
        self.values.append(value)

    @property
    def mean(self):
        return sum(self.values) / max(len(self.values), 1)
"""


def generate(target: Path, count: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    templates = [("model", MODEL), ("data", DATA), ("train", TRAIN_GOOD), ("legacy", TRAIN_LEGACY), ("util", UTIL)]
    for index in range(count):
        kind, template = templates[index % len(templates)]
        width = rng.choice([32, 64, 128])
        depth = rng.randint(1, 4)
        layers = ", ".join(["nn.Linear(width, width), nn.ReLU()"] * depth)
        text = template.format(
            name=f"{kind.title()}{index}",
            width=width,
            layers=layers,
            classes=rng.randint(2, 20),
            size=rng.randint(100, 1000),
            batch=rng.choice([16, 32, 64]),
            epochs=rng.randint(1, 10),
            optimizer=rng.choice(["SGD", "Adam", "AdamW"]),
            lr=rng.choice([0.1, 0.01, 0.001]),
        )
        package = target / f"package_{index // 50}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"{kind}_{index}.py").write_text(text, encoding="utf-8")
