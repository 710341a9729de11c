"""The classic two-layer network trained by hand, written the PyTorch 0.3 way: Variables that
require grad, a forward pass built from tensor operations, and a manual gradient-descent update
through `.data`."""

import torch
from torch.autograd import Variable

dtype = torch.FloatTensor


def main(steps=100):
    torch.manual_seed(0)
    # N is the batch size, D_in the input size, H the hidden size, D_out the output size
    N, D_in, H, D_out = 64, 100, 50, 10

    # Inputs and targets do not need gradients.
    x = Variable(torch.randn(N, D_in).type(dtype), requires_grad=False)
    y = Variable(torch.randn(N, D_out).type(dtype), requires_grad=False)

    # The weights do.
    w1 = Variable(torch.randn(D_in, H).type(dtype), requires_grad=True)
    w2 = Variable(torch.randn(H, D_out).type(dtype), requires_grad=True)

    learning_rate = 1e-6
    losses = []
    for t in range(steps):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.data[0])
        if t % 20 == 0:
            print(t, loss.data[0])

        loss.backward()

        w1.data -= learning_rate * w1.grad.data
        w2.data -= learning_rate * w2.grad.data

        w1.grad.data.zero_()
        w2.grad.data.zero_()
    return losses


if __name__ == "__main__":
    main()
