"""GRU sequence regression (predict the running mean of a sequence), PyTorch 0.3 style."""

import torch
import torch.nn as nn
from torch.autograd import Variable


class SequenceModel(nn.Module):
    def __init__(self, hidden=16):
        super(SequenceModel, self).__init__()
        self.hidden = hidden
        self.rnn = nn.GRU(1, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, h):
        output, h = self.rnn(x, h)
        return self.out(output[:, -1]), h


def make_batch(size=16, length=12):
    x = torch.randn(size, length, 1)
    return x, x.mean(1)


def main(steps=40):
    torch.manual_seed(0)
    model = SequenceModel()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    losses = []
    for step in range(steps):
        x, y = make_batch()
        h0 = Variable(torch.zeros(1, x.size(0), model.hidden))
        prediction, _ = model(Variable(x), h0)
        loss = criterion(prediction, Variable(y))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.data[0])
    return losses


if __name__ == "__main__":
    main()
