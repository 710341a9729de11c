"""A variational autoencoder, written the PyTorch 0.3 way (pytorch/examples' VAE: the noise of the
reparameterization built with `std.data.new(...)`, a summed binary cross-entropy, `volatile` test
batches).

The images are synthetic 8x8 "strokes": a horizontal or a vertical line at a random position."""

import torch
import torch.utils.data
from torch import nn, optim
from torch.autograd import Variable
from torch.nn import functional as F

batch_size = 16
log_interval = 10
pixels = 64


def strokes(n):
    images = torch.zeros(n, 1, 8, 8)
    orientation = torch.rand(n) < 0.5
    position = (torch.rand(n) * 8).long()
    for i in range(n):
        if orientation[i]:
            images[i, 0, position[i], :] = 1
        else:
            images[i, 0, :, position[i]] = 1
    return images


def make_loader(n, shuffle):
    images = strokes(n)
    dataset = torch.utils.data.TensorDataset(images, torch.zeros(n).long())
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=shuffle)


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()

        self.fc1 = nn.Linear(pixels, 32)
        self.fc21 = nn.Linear(32, 4)
        self.fc22 = nn.Linear(32, 4)
        self.fc3 = nn.Linear(4, 32)
        self.fc4 = nn.Linear(32, pixels)

        self.relu = nn.ReLU()
        self.sigmoid = nn.Sigmoid()

    def encode(self, x):
        h1 = self.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        if self.training:
            std = logvar.mul(0.5).exp_()
            eps = Variable(std.data.new(std.size()).normal_())
            return eps.mul(std).add_(mu)
        else:
            return mu

    def decode(self, z):
        h3 = self.relu(self.fc3(z))
        return self.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, pixels))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, pixels), size_average=False)

    # see Appendix B from VAE paper:
    # Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    # https://arxiv.org/abs/1312.6114
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return BCE + KLD


def train(model, optimizer, train_loader, epoch, losses, steps):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        if len(losses) == steps:
            break
        data = Variable(data)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.data[0]
        optimizer.step()
        losses.append(loss.data[0] / len(data))
        if batch_idx % log_interval == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                loss.data[0] / len(data)))

    print('====> Epoch: {} Average loss: {:.4f}'.format(
          epoch, train_loss / len(train_loader.dataset)))


def test(model, test_loader, epoch):
    model.eval()
    test_loss = 0
    for i, (data, _) in enumerate(test_loader):
        data = Variable(data, volatile=True)
        recon_batch, mu, logvar = model(data)
        test_loss += loss_function(recon_batch, data, mu, logvar).data[0]

    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))


def main(steps=100):
    torch.manual_seed(0)
    train_loader = make_loader(160, shuffle=True)
    test_loader = make_loader(32, shuffle=False)
    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-2)

    losses = []
    epoch = 0
    while len(losses) < steps:
        epoch += 1
        train(model, optimizer, train_loader, epoch, losses, steps)
        test(model, test_loader, epoch)
    return losses


if __name__ == "__main__":
    main()
