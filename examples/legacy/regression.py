"""Linear regression with nn.Linear and a mean squared error, written the PyTorch 0.3 way."""

import torch
import torch.nn as nn
from torch.autograd import Variable

TRUE_WEIGHT = torch.Tensor([[1.5, -2.0, 0.5, 3.0]])
TRUE_BIAS = 0.7


def make_data(n):
    x = torch.randn(n, 4)
    y = x.mm(TRUE_WEIGHT.t()) + TRUE_BIAS + 0.1 * torch.randn(n, 1)
    return x, y


def main(steps=100):
    torch.manual_seed(0)
    x_train, y_train = make_data(128)
    x_test, y_test = make_data(32)

    model = nn.Linear(4, 1)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    inputs = Variable(x_train)
    targets = Variable(y_train, requires_grad=False)
    losses = []
    for epoch in range(steps):
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.data[0])
        if (epoch + 1) % 25 == 0:
            print("epoch %d, loss %.5f" % (epoch + 1, loss.data[0]))

    predicted = model(Variable(x_test, volatile=True))
    if isinstance(predicted, Variable):
        predicted = predicted.data
    test_loss = (predicted - y_test).pow(2).mean()
    print("test loss %.5f" % test_loss)
    print("learned weight", model.weight.data.view(-1).tolist(), "bias %.3f" % model.bias.data[0])
    return losses


if __name__ == "__main__":
    main()
