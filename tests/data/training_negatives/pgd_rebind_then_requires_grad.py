import torch
from torch import nn

model = nn.Linear(4, 2)
criterion = nn.CrossEntropyLoss()
x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
x_adv = x.clone()
alpha = 0.01
for _ in range(3):
    x_adv.requires_grad_(True)
    loss = criterion(model(x_adv), y)
    loss.backward()
    with torch.no_grad():
        x_adv = x_adv + alpha * x_adv.grad.sign()
