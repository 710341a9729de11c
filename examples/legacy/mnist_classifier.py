"""MNIST-style classifier, PyTorch 0.3 idioms, on synthetic 28x28 images."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(28 * 28, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = x.view(-1, 28 * 28)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def synthetic_batches(count, size=32):
    torch.manual_seed(0)
    centers = torch.randn(10, 28 * 28)
    batches = []
    for _ in range(count):
        target = torch.randint(0, 10, (size,))
        images = (centers[target] + 0.5 * torch.randn(size, 28 * 28)).view(size, 1, 28, 28)
        batches.append((images, target))
    return batches


def main(steps=30):
    torch.manual_seed(1)
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    losses = []
    for data, target in synthetic_batches(steps):
        data, target = Variable(data), Variable(target)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.data[0])
    correct = 0
    for data, target in synthetic_batches(2):
        data = Variable(data, volatile=True)
        output = model(data)
        pred = output.data.max(1)[1]
        correct += pred.eq(target).sum().item()
    print("accuracy: %d/64" % correct)
    return losses


if __name__ == "__main__":
    main()
