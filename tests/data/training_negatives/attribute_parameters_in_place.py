"""A hand-written linear model keeping its parameters as attributes and in a dict: the manual
step updates them in place under no_grad, and an input attack re-enables its own leaf."""

import torch


class LinearModel:
    def __init__(self):
        self.w = torch.zeros(3, 1, requires_grad=True)
        self.b = torch.zeros(1, requires_grad=True)
        self.extra = {"scale": torch.ones(1, requires_grad=True)}

    def __call__(self, x):
        return (x @ self.w + self.b) * self.extra["scale"]

    def parameters(self):
        return [self.w, self.b, self.extra["scale"]]

    def sgd_step(self, lr):
        with torch.no_grad():
            self.w -= lr * self.w.grad
            self.b -= lr * self.b.grad
            self.extra["scale"] -= lr * self.extra["scale"].grad
        for p in self.parameters():
            p.grad = None


class InputAttack:
    def __init__(self, model, x, steps=3, alpha=0.01):
        self.model, self.x, self.steps, self.alpha = model, x.clone().requires_grad_(), steps, alpha

    def run(self, y):
        for _ in range(self.steps):
            loss = ((self.model(self.x) - y) ** 2).mean()
            loss.backward()
            with torch.no_grad():
                self.x = self.x + self.alpha * self.x.grad.sign()
            self.x.requires_grad_()
        return self.x.detach()


torch.manual_seed(0)
model = LinearModel()
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]])
for _ in range(5):
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    model.sgd_step(0.1)
adversarial = InputAttack(model, x).run(y)
assert model.w.is_leaf and model.w.requires_grad and model.w.abs().sum() > 0
