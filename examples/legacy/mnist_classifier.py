"""A small convolutional digit classifier, written the PyTorch 0.3 way.

There is no download: every class is a fixed random 28x28 prototype and a batch is a set of noisy
copies of the prototypes, so the network has something to learn and the run is reproducible.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

BATCH_SIZE = 32
NUM_CLASSES = 10


class ConvNet(nn.Module):
    def __init__(self):
        super(ConvNet, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5)
        self.conv2 = nn.Conv2d(6, 12, kernel_size=5)
        self.fc1 = nn.Linear(12 * 4 * 4, 48)
        self.fc2 = nn.Linear(48, NUM_CLASSES)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = x.view(-1, 12 * 4 * 4)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


class FakeDigits(object):
    """Noisy copies of one random prototype image per class."""

    def __init__(self, noise=0.8):
        self.prototypes = torch.randn(NUM_CLASSES, 1, 28, 28)
        self.noise = noise

    def batch(self, size=BATCH_SIZE):
        target = torch.LongTensor(size).random_(0, NUM_CLASSES)
        images = self.prototypes.index_select(0, target)
        images = images + self.noise * torch.randn(size, 1, 28, 28)
        return images, target


def evaluate(model, criterion, digits, batches=2):
    model.eval()
    test_loss = 0
    correct = 0
    for _ in range(batches):
        data, target = digits.batch()
        data, target = Variable(data, volatile=True), Variable(target)
        output = model(data)
        test_loss += criterion(output, target).data[0]
        pred = output.data.max(1)[1]
        correct += pred.eq(target.data).cpu().sum()
    model.train()
    total = batches * BATCH_SIZE
    print("test: average loss %.4f, accuracy %d/%d" % (test_loss / batches, correct, total))


def main(steps=200):
    torch.manual_seed(1)
    digits = FakeDigits()
    model = ConvNet()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    losses = []
    running_loss = 0.0
    for step in range(1, steps + 1):
        data, target = digits.batch()
        data, target = Variable(data), Variable(target)
        optimizer.zero_grad()
        output = model(data)
        loss = criterion(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.data[0])
        running_loss += loss.data[0]
        if step % 50 == 0:
            print("step %d: loss %.4f" % (step, running_loss / 50))
            running_loss = 0.0
    evaluate(model, criterion, digits)
    return losses


if __name__ == "__main__":
    main()
