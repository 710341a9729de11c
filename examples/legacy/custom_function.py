"""A custom autograd Function, written the PyTorch 0.3 way: an old-style `Function` subclass with
`forward(self, ...)` and `backward(self, ...)`, instantiated for every call (`MyReLU()(x)`), used
inside a small regression network."""

import torch
import torch.nn as nn
from torch.autograd import Function, Variable


class MyReLU(Function):
    """The rectified linear unit, with its gradient written by hand."""

    def forward(self, input):
        self.save_for_backward(input)
        return input.clamp(min=0)

    def backward(self, grad_output):
        input, = self.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class LinearFunction(Function):
    """A fully connected layer: y = x W^T + b."""

    def forward(self, input, weight, bias):
        self.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        output += bias.unsqueeze(0).expand_as(output)
        return output

    def backward(self, grad_output):
        input, weight, bias = self.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if self.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if self.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if self.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    def __init__(self, input_features, output_features):
        super(Linear, self).__init__()
        self.weight = nn.Parameter(torch.Tensor(output_features, input_features))
        self.bias = nn.Parameter(torch.Tensor(output_features))
        self.weight.data.uniform_(-0.3, 0.3)
        self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction()(input, self.weight, self.bias)


class TwoLayerNet(nn.Module):
    def __init__(self, D_in, H, D_out):
        super(TwoLayerNet, self).__init__()
        self.linear1 = Linear(D_in, H)
        self.linear2 = Linear(H, D_out)

    def forward(self, x):
        h_relu = MyReLU()(self.linear1(x))
        return self.linear2(h_relu)


def main(steps=200):
    torch.manual_seed(0)
    N, D_in, H, D_out = 32, 8, 16, 1

    # A smooth target that a small ReLU network can fit.
    x = Variable(torch.randn(N, D_in))
    y = Variable(torch.sin(x.data.sum(1, keepdim=True)))

    model = TwoLayerNet(D_in, H, D_out)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for t in range(steps):
        y_pred = model(x)
        loss = criterion(y_pred, y)
        losses.append(loss.data[0])
        if t % 50 == 0:
            print(t, loss.data[0])

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return losses


if __name__ == "__main__":
    main()
