"""Recurrent training loops that handle their carried state: an LSTM language model that
repackages its hidden state every chunk, a GRU cell whose state starts afresh for each sequence,
and generation under no_grad that feeds the state back without any backward."""

import torch
from torch import nn


class LanguageModel(nn.Module):
    def __init__(self, vocabulary=20, width=8):
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, width)
        self.lstm = nn.LSTM(width, width)
        self.decoder = nn.Linear(width, vocabulary)

    def forward(self, tokens, hidden):
        output, hidden = self.lstm(self.embedding(tokens), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, batch):
        return torch.zeros(1, batch, 8), torch.zeros(1, batch, 8)


def repackage_hidden(hidden):
    """Cut the state from the graph of the previous chunk."""
    if isinstance(hidden, torch.Tensor):
        return hidden.detach()
    return tuple(repackage_hidden(state) for state in hidden)


def train_language_model(chunks=4, length=5, batch=3):
    torch.manual_seed(0)
    model = LanguageModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    stream = torch.randint(0, 20, (chunks * length + 1, batch))
    hidden = model.init_hidden(batch)
    for start in range(0, chunks * length, length):
        tokens, targets = stream[start : start + length], stream[start + 1 : start + length + 1]
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        output, hidden = model(tokens, hidden)
        loss = nn.functional.cross_entropy(output.reshape(-1, 20), targets.reshape(-1))
        loss.backward()
        optimizer.step()
    return hidden


def train_sequence_classifier(sequences=4, steps=6):
    torch.manual_seed(0)
    cell, head = nn.GRUCell(3, 8), nn.Linear(8, 2)
    optimizer = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.5)
    data, labels = torch.randn(sequences, steps, 4, 3), torch.randint(0, 2, (sequences, 4))
    for sequence, label in zip(data, labels):
        state = torch.zeros(4, 8)
        for x in sequence:
            state = cell(x, state)
        loss = nn.functional.cross_entropy(head(state), label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def generate(model, token, length=5):
    model.eval()
    hidden = model.init_hidden(1)
    produced = []
    for _ in range(length):
        output, hidden = model(token, hidden)
        token = output.argmax(-1)
        produced.append(token.item())
    return produced


if __name__ in ("__main__", "negative"):
    train_language_model()
    train_sequence_classifier()
    generate(LanguageModel(), torch.zeros(1, 1, dtype=torch.long))
