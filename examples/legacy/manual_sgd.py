"""The classic two-layer network tutorial with manual SGD, PyTorch 0.3 style."""

import torch
from torch.autograd import Variable


def main(steps=40):
    torch.manual_seed(0)
    N, D_in, H, D_out = 64, 20, 32, 4
    x = Variable(torch.randn(N, D_in), requires_grad=False)
    y = Variable(torch.randn(N, D_out), requires_grad=False)
    w1 = Variable(torch.randn(D_in, H) * 0.1, requires_grad=True)
    w2 = Variable(torch.randn(H, D_out) * 0.1, requires_grad=True)
    learning_rate = 1e-2
    losses = []
    for t in range(steps):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum() / N
        losses.append(loss.data[0])
        loss.backward()
        w1.data -= learning_rate * w1.grad.data
        w2.data -= learning_rate * w2.grad.data
        w1.grad.data.zero_()
        w2.grad.data.zero_()
    return losses


if __name__ == "__main__":
    main()
