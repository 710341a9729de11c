import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=4)
x, y = torch.randn(16, 3), torch.randn(16, 1)


def closure():
    optimizer.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    return loss


for _ in range(3):
    optimizer.step(closure)
