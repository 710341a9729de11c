import torch

x, y = torch.randn(16, 3), torch.randn(16, 1)
w = torch.zeros(3, 1, requires_grad=True)
lr = 0.1
for _ in range(3):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
        w.grad.zero_()
