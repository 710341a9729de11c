"""Next-value prediction on noisy sine waves with an LSTM and truncated backpropagation through
time, written the PyTorch 0.3 way (hidden state carried between chunks and cut with
`repackage_hidden`)."""

import math

import torch
import torch.nn as nn
from torch.autograd import Variable

BATCH_SIZE = 8
BPTT = 20
HIDDEN = 24


class SineStreams(object):
    """BATCH_SIZE endless noisy sine waves with random frequencies and phases, read in chunks."""

    def __init__(self, batch_size=BATCH_SIZE):
        self.freq = 0.1 + 0.2 * torch.rand(batch_size, 1)
        self.phase = 2 * math.pi * torch.rand(batch_size, 1)
        self.t = 0

    def chunk(self, length=BPTT):
        time = torch.arange(self.t, self.t + length + 1).float().view(1, -1)
        self.t += length
        wave = torch.sin(self.freq * time + self.phase)
        wave = wave + 0.05 * torch.randn(wave.size())
        # (length, batch, 1): inputs are the values, targets the values one step later
        wave = wave.t().contiguous().unsqueeze(2)
        return wave[:-1], wave[1:]


class Forecaster(nn.Module):
    def __init__(self, hidden=HIDDEN):
        super(Forecaster, self).__init__()
        self.hidden = hidden
        self.lstm = nn.LSTM(1, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x, state):
        output, state = self.lstm(x, state)
        prediction = self.head(output.view(-1, self.hidden))
        return prediction.view(x.size(0), x.size(1), 1), state

    def init_hidden(self, batch_size):
        weight = next(self.parameters()).data
        return (Variable(weight.new(1, batch_size, self.hidden).zero_()),
                Variable(weight.new(1, batch_size, self.hidden).zero_()))


def repackage_hidden(h):
    """Wrap the hidden state in new Variables, to detach it from its history."""
    if isinstance(h, Variable):
        return Variable(h.data)
    return tuple(repackage_hidden(v) for v in h)


def main(steps=150):
    torch.manual_seed(0)
    streams = SineStreams()
    model = Forecaster()
    criterion = nn.MSELoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    hidden = model.init_hidden(BATCH_SIZE)
    losses = []
    for step in range(steps):
        inputs, targets = streams.chunk()
        inputs, targets = Variable(inputs), Variable(targets, requires_grad=False)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        prediction, hidden = model(inputs, hidden)
        loss = criterion(prediction, targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.data[0])
        if step % 50 == 0:
            print("step %d: mse %.5f" % (step, loss.data[0]))
    return losses


if __name__ == "__main__":
    main()
