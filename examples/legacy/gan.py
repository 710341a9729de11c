"""A tiny GAN that learns a 2-D Gaussian, written the PyTorch 0.3 way (DCGAN-style training
loop: separate optimizers, the discriminator step sees `fake.detach()`)."""

import torch
import torch.nn as nn
from torch.autograd import Variable

BATCH_SIZE = 64
NOISE_DIM = 4
REAL_MEAN = torch.Tensor([2.0, -1.0])
REAL_STD = 0.5


def weights_init(m):
    if isinstance(m, nn.Linear):
        m.weight.data.normal_(0.0, 0.2)
        m.bias.data.fill_(0)


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(NOISE_DIM, 32), nn.ReLU(),
            nn.Linear(32, 32), nn.ReLU(),
            nn.Linear(32, 2),
        )

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(2, 32), nn.LeakyReLU(0.2),
            nn.Linear(32, 32), nn.LeakyReLU(0.2),
            nn.Linear(32, 1), nn.Sigmoid(),
        )

    def forward(self, x):
        return self.main(x).view(-1)


def sample_real(n):
    return REAL_MEAN + REAL_STD * torch.randn(n, 2)


def main(steps=300):
    torch.manual_seed(0)
    netG = Generator()
    netG.apply(weights_init)
    netD = Discriminator()
    netD.apply(weights_init)
    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real_label, fake_label = 1, 0
    label = torch.FloatTensor(BATCH_SIZE)
    fixed_noise = Variable(torch.randn(256, NOISE_DIM), volatile=True)
    losses = []
    for step in range(steps):
        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        netD.zero_grad()
        real = Variable(sample_real(BATCH_SIZE))
        labelv = Variable(label.fill_(real_label))
        output = netD(real)
        errD_real = criterion(output, labelv)
        errD_real.backward()
        D_x = output.data.mean()

        noise = Variable(torch.randn(BATCH_SIZE, NOISE_DIM))
        fake = netG(noise)
        labelv = Variable(label.fill_(fake_label))
        output = netD(fake.detach())
        errD_fake = criterion(output, labelv)
        errD_fake.backward()
        errD = errD_real + errD_fake
        optimizerD.step()

        # (2) update G: maximize log(D(G(z)))
        netG.zero_grad()
        labelv = Variable(label.fill_(real_label))
        output = netD(fake)
        errG = criterion(output, labelv)
        errG.backward()
        optimizerG.step()

        losses.append(errG.data[0])
        if step % 100 == 0:
            print("[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f"
                  % (step, steps, errD.data[0], errG.data[0], D_x))

    samples = netG(fixed_noise).data
    print("generated mean", samples.mean(0).tolist(), "std", samples.std(0).tolist())
    return losses


if __name__ == "__main__":
    main()
