"""The fake comes back from a method of the model wrapper."""

import torch
from torch import nn


class GAN:
    def __init__(self):
        torch.manual_seed(0)
        self.netG = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2))
        self.netD = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
        self.optD = torch.optim.SGD(self.netD.parameters(), lr=0.1)
        self.bce = nn.BCEWithLogitsLoss()

    def sample(self, z):
        return self.netG(z)

    def update_discriminator(self, real, z):
        ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
        fake = self.sample(z)
        self.optD.zero_grad()
        errD = self.bce(self.netD(real), ones) + self.bce(self.netD(fake), zeros)  # expect: GL406
        errD.backward()
        self.optD.step()


def run():
    gan = GAN()
    gan.update_discriminator(torch.randn(8, 2) + 3, torch.randn(8, 2))
    return gan.netG
