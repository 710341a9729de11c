"""Model definitions that register everything they build: containers wrapped after they are
filled, a teacher hidden from `parameters()` on purpose, a temperature trained by its own optimizer,
parameters converted before wrapping, base initialisers called by name, `forward` helpers."""

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        nn.Module.__init__(self)
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Backbone(nn.Module):
    def __init__(self, width, depth):
        super(Backbone, self).__init__()
        self.blocks = []
        for _ in range(depth):
            self.blocks.append(Block(width))
        self.blocks = nn.ModuleList(self.blocks)
        layers = [nn.Linear(width, width), nn.Tanh()]
        self.stem = nn.Sequential(*layers)
        self.activations = [nn.ReLU(), nn.Tanh()]
        self.scale = nn.Parameter(torch.ones(width).double().float())
        self.sizes = [width] * depth

    def forward_features(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return x

    def forward(self, x):
        return self.activations[0](self.forward_features(x) * self.scale)


class Student(Backbone):
    def __init__(self, teacher, width):
        Backbone.__init__(self, width, 2)
        self._teacher = [teacher]  # kept out of parameters() and state_dict() on purpose
        self.head = nn.Linear(width, 1)
        self.log_temperature = torch.zeros(1, requires_grad=True)
        self.temperature_optimizer = torch.optim.SGD([self.log_temperature], lr=0.1)

    def forward(self, x):
        with torch.no_grad():
            target = self._teacher[0](x)
        return self.head(super().forward(x)), target


def train(steps=3):
    torch.manual_seed(0)
    teacher = nn.Linear(4, 1)
    student = Student(teacher, 4)
    optimizer = torch.optim.SGD(student.parameters(), lr=0.1)
    x = torch.randn(8, 4)
    for _ in range(steps):
        optimizer.zero_grad()
        student.temperature_optimizer.zero_grad()
        prediction, target = student(x)
        loss = ((prediction / student.log_temperature.exp() - target) ** 2).mean()
        loss.backward()
        optimizer.step()
        student.temperature_optimizer.step()
    return student


student = train()
