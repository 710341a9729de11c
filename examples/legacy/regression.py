"""Linear regression with nn.Linear and MSE, PyTorch 0.3 style."""

import torch
import torch.nn as nn
from torch.autograd import Variable


def main(steps=40):
    torch.manual_seed(0)
    true_w = torch.tensor([[2.0], [-3.0], [0.5]])
    x_train = torch.randn(64, 3)
    y_train = x_train.mm(true_w) + 0.1 * torch.randn(64, 1)
    model = nn.Linear(3, 1)
    criterion = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
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
    if isinstance(outputs, Variable):
        predicted = outputs.data.numpy()
        print("first prediction: %.3f" % predicted[0, 0])
    return losses


if __name__ == "__main__":
    main()
