"""Trains the classifier of model.py to tell whether a sentence of word ids contains the "good"
word more often than the "bad" one, written the PyTorch 0.3 way (the names come from
`from model import *`)."""

import random

import torch.optim as optim

from model import *

VOCAB_SIZE = 12
GOOD, BAD = 1, 2
EMBEDDING_DIM = 16
HIDDEN_DIM = 24
BATCH_SIZE = 16
SENTENCE_LEN = 10


def make_batch(rng):
    """Columns are sentences (the LSTM reads time-major), labels say which word wins."""
    sentences, labels = [], []
    for _ in range(BATCH_SIZE):
        words = [rng.randrange(3, VOCAB_SIZE) for _ in range(SENTENCE_LEN)]
        good, bad = rng.sample(range(1, 4), 2)
        for position in rng.sample(range(SENTENCE_LEN), good + bad):
            words[position] = GOOD if good > 0 else BAD
            good -= 1
        sentences.append(words)
        labels.append(1 if words.count(GOOD) > words.count(BAD) else 0)
    return torch.LongTensor(sentences).t(), torch.LongTensor(labels)


def evaluate(model, loss_function, rng, batches=4):
    model.eval()
    truth, pred, total = [], [], 0.0
    for _ in range(batches):
        sentences, labels = make_batch(rng)
        model.hidden = model.init_hidden()
        pred_label = model(Variable(sentences, volatile=True))
        total += loss_function(pred_label, Variable(labels)).data[0]
        truth += list(labels)
        pred += list(pred_label.data.max(1)[1])
    model.train()
    return total / batches, get_accuracy(truth, pred)


def main(steps=150):
    rng = random.Random(0)
    torch.manual_seed(0)
    model = LSTMClassifier(embedding_dim=EMBEDDING_DIM, hidden_dim=HIDDEN_DIM,
                           vocab_size=VOCAB_SIZE, label_size=2, batch_size=BATCH_SIZE)
    loss_function = nn.NLLLoss()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)

    losses = []
    for step in range(steps):
        sentences, labels = make_batch(rng)
        sentence, label = Variable(sentences), Variable(labels)
        model.zero_grad()
        # detach the hidden state of the previous batch
        model.hidden = model.init_hidden()
        pred = model(sentence)
        loss = loss_function(pred, label)
        loss.backward()
        optimizer.step()
        losses.append(loss.data[0])
        if step % 50 == 0:
            print("step %d: loss %.4f" % (step, loss.data[0]))

    test_loss, test_acc = evaluate(model, loss_function, rng)
    print("test: loss %.4f, accuracy %.2f" % (test_loss, test_acc))
    return losses


if __name__ == "__main__":
    main()
