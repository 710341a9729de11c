"""Character-level text generation with a GRU, written the PyTorch 0.3 way: one character in,
one character out, the loss summed over the chunk one target character at a time."""

import random
import string

import torch
import torch.nn as nn
from torch.autograd import Variable

all_characters = string.ascii_lowercase + " .,"
n_characters = len(all_characters)
chunk_len = 24
hidden_size = 32

# A small repetitive corpus, so that a few dozen steps are enough to see the loss fall.
corpus = ("the cat sat on the mat. the dog sat on the log, the cat ran. " * 8).strip()


class CharRNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size, n_layers=1):
        super(CharRNN, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.output_size = output_size
        self.n_layers = n_layers

        self.encoder = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size, n_layers)
        self.decoder = nn.Linear(hidden_size, output_size)

    def forward(self, input, hidden):
        input = self.encoder(input.view(1, -1))
        output, hidden = self.gru(input.view(1, 1, -1), hidden)
        output = self.decoder(output.view(1, -1))
        return output, hidden

    def init_hidden(self):
        return Variable(torch.zeros(self.n_layers, 1, self.hidden_size))


def char_tensor(text):
    tensor = torch.zeros(len(text)).long()
    for c in range(len(text)):
        tensor[c] = all_characters.index(text[c])
    return Variable(tensor)


def random_training_set():
    start_index = random.randint(0, len(corpus) - chunk_len - 1)
    chunk = corpus[start_index:start_index + chunk_len + 1]
    inp = char_tensor(chunk[:-1])
    target = char_tensor(chunk[1:])
    return inp, target


def train(decoder, decoder_optimizer, criterion, inp, target):
    hidden = decoder.init_hidden()
    decoder.zero_grad()
    loss = 0

    for c in range(chunk_len):
        output, hidden = decoder(inp[c], hidden)
        loss += criterion(output, target[c])

    loss.backward()
    decoder_optimizer.step()

    return loss.data[0] / chunk_len


def generate(decoder, prime_str="th", predict_len=20, temperature=0.8):
    hidden = decoder.init_hidden()
    prime_input = char_tensor(prime_str)
    predicted = prime_str

    # Use the priming string to "build up" the hidden state
    for p in range(len(prime_str) - 1):
        _, hidden = decoder(prime_input[p], hidden)
    inp = prime_input[-1]

    for p in range(predict_len):
        output, hidden = decoder(inp, hidden)

        # Sample from the network as a multinomial distribution
        output_dist = output.data.view(-1).div(temperature).exp()
        top_i = torch.multinomial(output_dist, 1)[0]

        # Add predicted character to string and use as next input
        predicted_char = all_characters[top_i]
        predicted += predicted_char
        inp = char_tensor(predicted_char)

    return predicted


def main(steps=200):
    random.seed(0)
    torch.manual_seed(0)
    decoder = CharRNN(n_characters, hidden_size, n_characters)
    decoder_optimizer = torch.optim.Adam(decoder.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()

    losses = []
    loss_avg = 0
    for epoch in range(1, steps + 1):
        loss = train(decoder, decoder_optimizer, criterion, *random_training_set())
        losses.append(loss)
        loss_avg += loss

        if epoch % 50 == 0:
            print("[%d %d%%] %.4f" % (epoch, epoch / steps * 100, loss_avg / 50))
            loss_avg = 0

    print(generate(decoder, "th", 20))
    return losses


if __name__ == "__main__":
    main()
