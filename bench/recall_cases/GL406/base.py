"""The generator's output, bound to a name, is judged by the discriminator in its own update."""

import torch
from torch import nn


def run():
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2))
    netD = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    optD = torch.optim.SGD(netD.parameters(), lr=0.1)
    bce = nn.BCEWithLogitsLoss()
    real, z = torch.randn(8, 2) + 3, torch.randn(8, 2)
    ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)
    fake = netG(z)
    optD.zero_grad()
    errD = bce(netD(real), ones) + bce(netD(fake), zeros)  # expect: GL406
    errD.backward()
    optD.step()
    return netG
