"""A sequence to sequence network that learns to reverse short strings of the digits 0-4, written
the PyTorch 0.3 way (the classic GRU encoder-decoder tutorial: one token at a time, teacher
forcing chosen at random per pair, greedy decoding from `topk`)."""

import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import optim
from torch.autograd import Variable

SOS_token = 0
EOS_token = 1
n_words = 7  # SOS, EOS and the digits 0-4 (token 2 + d)
MAX_LENGTH = 8
hidden_size = 32
teacher_forcing_ratio = 0.5


class EncoderRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super(EncoderRNN, self).__init__()
        self.hidden_size = hidden_size

        self.embedding = nn.Embedding(input_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)

    def forward(self, input, hidden):
        embedded = self.embedding(input).view(1, 1, -1)
        output = embedded
        output, hidden = self.gru(output, hidden)
        return output, hidden

    def initHidden(self):
        result = Variable(torch.zeros(1, 1, self.hidden_size))
        return result


class DecoderRNN(nn.Module):
    def __init__(self, hidden_size, output_size):
        super(DecoderRNN, self).__init__()
        self.hidden_size = hidden_size

        self.embedding = nn.Embedding(output_size, hidden_size)
        self.gru = nn.GRU(hidden_size, hidden_size)
        self.out = nn.Linear(hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        output = self.embedding(input).view(1, 1, -1)
        output = F.relu(output)
        output, hidden = self.gru(output, hidden)
        output = self.softmax(self.out(output[0]))
        return output, hidden


def random_pair(rng):
    digits = [rng.randrange(5) for _ in range(rng.randrange(2, 4))]
    return digits, digits[::-1]


def variableFromDigits(digits):
    indexes = [2 + d for d in digits]
    indexes.append(EOS_token)
    result = Variable(torch.LongTensor(indexes).view(-1, 1))
    return result


def train(input_variable, target_variable, encoder, decoder, encoder_optimizer, decoder_optimizer,
          criterion, rng):
    encoder_hidden = encoder.initHidden()

    encoder_optimizer.zero_grad()
    decoder_optimizer.zero_grad()

    input_length = input_variable.size()[0]
    target_length = target_variable.size()[0]

    loss = 0

    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(input_variable[ei], encoder_hidden)

    decoder_input = Variable(torch.LongTensor([[SOS_token]]))
    decoder_hidden = encoder_hidden

    use_teacher_forcing = True if rng.random() < teacher_forcing_ratio else False

    if use_teacher_forcing:
        # Teacher forcing: Feed the target as the next input
        for di in range(target_length):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
            loss += criterion(decoder_output, target_variable[di])
            decoder_input = target_variable[di]  # Teacher forcing

    else:
        # Without teacher forcing: use its own predictions as the next input
        for di in range(target_length):
            decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
            topv, topi = decoder_output.data.topk(1)
            ni = topi[0][0]

            decoder_input = Variable(torch.LongTensor([[ni]]))

            loss += criterion(decoder_output, target_variable[di])
            if ni == EOS_token:
                break

    loss.backward()

    encoder_optimizer.step()
    decoder_optimizer.step()

    return loss.data[0] / target_length


def evaluate(encoder, decoder, digits, max_length=MAX_LENGTH):
    input_variable = variableFromDigits(digits)
    input_length = input_variable.size()[0]
    encoder_hidden = encoder.initHidden()

    for ei in range(input_length):
        encoder_output, encoder_hidden = encoder(input_variable[ei], encoder_hidden)

    decoder_input = Variable(torch.LongTensor([[SOS_token]]))
    decoder_hidden = encoder_hidden

    decoded = []
    for di in range(max_length):
        decoder_output, decoder_hidden = decoder(decoder_input, decoder_hidden)
        topv, topi = decoder_output.data.topk(1)
        ni = topi[0][0]
        if ni == EOS_token:
            break
        decoded.append(ni - 2)

        decoder_input = Variable(torch.LongTensor([[ni]]))

    return decoded


def main(steps=300):
    rng = random.Random(0)
    torch.manual_seed(0)
    encoder = EncoderRNN(n_words, hidden_size)
    decoder = DecoderRNN(hidden_size, n_words)
    encoder_optimizer = optim.Adam(encoder.parameters(), lr=0.01)
    decoder_optimizer = optim.Adam(decoder.parameters(), lr=0.01)
    criterion = nn.NLLLoss()

    losses = []
    print_loss_total = 0
    for iter in range(1, steps + 1):
        digits, reversed_digits = random_pair(rng)
        input_variable = variableFromDigits(digits)
        target_variable = variableFromDigits(reversed_digits)

        loss = train(input_variable, target_variable, encoder, decoder, encoder_optimizer,
                     decoder_optimizer, criterion, rng)
        losses.append(loss)
        print_loss_total += loss

        if iter % 100 == 0:
            print("%d %d%% %.4f" % (iter, iter / steps * 100, print_loss_total / 100))
            print_loss_total = 0

    print("reverse of 1 2 3:", evaluate(encoder, decoder, [1, 2, 3]))
    return losses


if __name__ == "__main__":
    main()
