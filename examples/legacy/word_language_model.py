"""A word-level LSTM language model trained with truncated backpropagation through time, written
the PyTorch 0.3 way (`repackage_hidden`, `volatile` evaluation batches, the loss summed as a
tensor and read back with `[0]`).

The corpus is generated: sentences from a tiny grammar over a 20-word vocabulary."""

import random

import torch
import torch.nn as nn
from torch.autograd import Variable

bptt = 12
batch_size = 8
eval_batch_size = 4
clip = 0.5
log_interval = 20

SUBJECTS = ["the cat", "a dog", "the bird"]
VERBS = ["sees", "likes", "chases"]
OBJECTS = ["the fish", "a mouse", "the ball", "a tree"]


class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    def __init__(self, rng):
        self.dictionary = Dictionary()
        self.train = self.tokenize(self.sentences(rng, 400))
        self.valid = self.tokenize(self.sentences(rng, 60))

    @staticmethod
    def sentences(rng, n):
        return [" ".join([rng.choice(SUBJECTS), rng.choice(VERBS), rng.choice(OBJECTS)])
                for _ in range(n)]

    def tokenize(self, lines):
        words = []
        for line in lines:
            words += line.split() + ["<eos>"]
        ids = torch.LongTensor(len(words))
        for token, word in enumerate(words):
            ids[token] = self.dictionary.add_word(word)
        return ids


class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=0.2):
        super(RNNModel, self).__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.init_weights()
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        self.encoder.weight.data.uniform_(-initrange, initrange)
        self.decoder.bias.data.fill_(0)
        self.decoder.weight.data.uniform_(-initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output.view(output.size(0) * output.size(1), output.size(2)))
        return decoded.view(output.size(0), output.size(1), decoded.size(1)), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters()).data
        return (Variable(weight.new(self.nlayers, bsz, self.nhid).zero_()),
                Variable(weight.new(self.nlayers, bsz, self.nhid).zero_()))


def batchify(data, bsz):
    # Work out how cleanly we can divide the dataset into bsz parts.
    nbatch = data.size(0) // bsz
    # Trim off any extra elements that wouldn't cleanly fit (remainders).
    data = data.narrow(0, 0, nbatch * bsz)
    # Evenly divide the data across the bsz batches.
    data = data.view(bsz, -1).t().contiguous()
    return data


def repackage_hidden(h):
    """Wraps hidden states in new Variables, to detach them from their history."""
    if type(h) == Variable:
        return Variable(h.data)
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, evaluation=False):
    seq_len = min(bptt, len(source) - 1 - i)
    data = Variable(source[i:i + seq_len], volatile=evaluation)
    target = Variable(source[i + 1:i + 1 + seq_len].view(-1))
    return data, target


def evaluate(model, criterion, data_source, ntokens):
    # Turn on evaluation mode which disables dropout.
    model.eval()
    total_loss = 0
    hidden = model.init_hidden(eval_batch_size)
    for i in range(0, data_source.size(0) - 1, bptt):
        data, targets = get_batch(data_source, i, evaluation=True)
        output, hidden = model(data, hidden)
        output_flat = output.view(-1, ntokens)
        total_loss += len(data) * criterion(output_flat, targets).data
        hidden = repackage_hidden(hidden)
    return total_loss[0] / len(data_source)


def main(steps=100):
    random.seed(0)
    torch.manual_seed(0)
    corpus = Corpus(random.Random(0))
    train_data = batchify(corpus.train, batch_size)
    val_data = batchify(corpus.valid, eval_batch_size)
    ntokens = len(corpus.dictionary)
    model = RNNModel(ntokens, 16, 32, 1, dropout=0.0)
    criterion = nn.CrossEntropyLoss()
    lr = 10

    losses = []
    model.train()
    total_loss = 0
    hidden = model.init_hidden(batch_size)
    batch, i = 0, 0
    while batch < steps:
        if i >= train_data.size(0) - 1:
            i = 0
        data, targets = get_batch(train_data, i)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        # If we didn't, the model would try backpropagating all the way to start of the dataset.
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()

        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        torch.nn.utils.clip_grad_norm(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(-lr, p.grad.data)

        total_loss += loss.data
        losses.append(loss.data[0])
        batch += 1
        i += bptt
        if batch % log_interval == 0:
            cur_loss = total_loss[0] / log_interval
            print("| batch %3d | lr %02.2f | loss %5.2f" % (batch, lr, cur_loss))
            total_loss = 0

    val_loss = evaluate(model, criterion, val_data, ntokens)
    print("| end of training | valid loss %5.2f" % val_loss)
    return losses


if __name__ == "__main__":
    main()
