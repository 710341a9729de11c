"""A deep convolutional GAN, written the PyTorch 0.3 way (pytorch/examples' DCGAN training loop on
8x8 single-channel images: preallocated input, noise and label tensors refilled every step and
wrapped in Variables, an `ngpu` switch on the input's tensor type).

The "dataset" is synthetic: bright vertical bars at random columns on a dark background."""

import torch
import torch.nn as nn
import torch.nn.parallel
import torch.optim as optim
from torch.autograd import Variable

batchSize = 32
imageSize = 8
nz = 8
ngf = 16
ndf = 16
nc = 1
ngpu = 1


def real_batch(n):
    images = torch.FloatTensor(n, nc, imageSize, imageSize).fill_(-1)
    columns = torch.LongTensor(n).random_(0, imageSize)
    for i in range(n):
        images[i, :, :, columns[i]] = 1
    return images


# custom weights initialization called on netG and netD
def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


class _netG(nn.Module):
    def __init__(self, ngpu):
        super(_netG, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            # input is Z, going into a convolution
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            # state size. (ngf*2) x 4 x 4
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh()
            # state size. (nc) x 8 x 8
        )

    def forward(self, input):
        if isinstance(input.data, torch.cuda.FloatTensor) and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output


class _netD(nn.Module):
    def __init__(self, ngpu):
        super(_netD, self).__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            # input is (nc) x 8 x 8
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf) x 4 x 4
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            # state size. (ndf*2) x 2 x 2
            nn.Conv2d(ndf * 2, 1, 2, 1, 0, bias=False),
            nn.Sigmoid()
        )

    def forward(self, input):
        if isinstance(input.data, torch.cuda.FloatTensor) and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)

        return output.view(-1, 1).squeeze(1)


def main(steps=100):
    """Returns, step by step, how far the generated images are from the real ones on average."""
    torch.manual_seed(0)
    netG = _netG(ngpu)
    netG.apply(weights_init)
    netD = _netD(ngpu)
    netD.apply(weights_init)

    criterion = nn.BCELoss()
    distance = nn.L1Loss()

    input = torch.FloatTensor(batchSize, nc, imageSize, imageSize)
    noise = torch.FloatTensor(batchSize, nz, 1, 1)
    fixed_noise = torch.FloatTensor(batchSize, nz, 1, 1).normal_(0, 1)
    label = torch.FloatTensor(batchSize)
    real_label = 1
    fake_label = 0

    fixed_noise = Variable(fixed_noise)

    # setup optimizer
    optimizerD = optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))

    losses = []
    for i in range(steps):
        ############################
        # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
        ###########################
        # train with real
        netD.zero_grad()
        real_cpu = real_batch(batchSize)
        batch_size = real_cpu.size(0)
        input.resize_as_(real_cpu).copy_(real_cpu)
        label.resize_(batch_size).fill_(real_label)
        inputv = Variable(input)
        labelv = Variable(label)

        output = netD(inputv)
        errD_real = criterion(output, labelv)
        errD_real.backward()
        D_x = output.data.mean()

        # train with fake
        noise.resize_(batch_size, nz, 1, 1).normal_(0, 1)
        noisev = Variable(noise)
        fake = netG(noisev)
        labelv = Variable(label.fill_(fake_label))
        output = netD(fake.detach())
        errD_fake = criterion(output, labelv)
        errD_fake.backward()
        D_G_z1 = output.data.mean()
        errD = errD_real + errD_fake
        optimizerD.step()

        ############################
        # (2) Update G network: maximize log(D(G(z)))
        ###########################
        netG.zero_grad()
        labelv = Variable(label.fill_(real_label))  # fake labels are real for generator cost
        output = netD(fake)
        errG = criterion(output, labelv)
        errG.backward()
        D_G_z2 = output.data.mean()
        optimizerG.step()

        # how far the average generated image is from the average real one
        gap = distance(fake.mean(0), inputv.mean(0))
        losses.append(gap.data[0])
        if i % 20 == 0:
            print('[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f'
                  % (i, steps, errD.data[0], errG.data[0], D_x, D_G_z1, D_G_z2))

    fake = netG(fixed_noise)
    print('fake samples: mean %.3f' % fake.data.mean())
    return losses


if __name__ == "__main__":
    main()
