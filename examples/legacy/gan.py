"""A tiny GAN on a 2-D Gaussian, PyTorch 0.3 style (the discriminator step detaches the fake)."""

import torch
import torch.nn as nn
from torch.autograd import Variable


def main(steps=40):
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    netD = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
    criterion = nn.BCEWithLogitsLoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=1e-3)
    optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-3)
    real_label, fake_label = 1.0, 0.0
    losses = []
    for step in range(steps):
        real = Variable(torch.randn(64, 2) * 0.5 + torch.tensor([2.0, -1.0]))
        noise = Variable(torch.randn(64, 2))
        fake = netG(noise)

        netD.zero_grad()
        label = Variable(torch.full((64, 1), real_label))
        errD_real = criterion(netD(real), label)
        label = Variable(torch.full((64, 1), fake_label))
        errD_fake = criterion(netD(fake.detach()), label)
        errD = errD_real + errD_fake
        errD.backward()
        optimizerD.step()

        netG.zero_grad()
        label = Variable(torch.full((64, 1), real_label))
        errG = criterion(netD(fake), label)
        errG.backward()
        optimizerG.step()
        losses.append(errD.data[0])
    return losses


if __name__ == "__main__":
    main()
