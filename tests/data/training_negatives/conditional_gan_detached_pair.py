"""A conditional GAN (pix2pix style): the discriminator judges (condition, image) pairs; the fake
pair is detached for the discriminator update, and the preview helper samples under no_grad."""

import torch
from torch import nn

bce = nn.BCEWithLogitsLoss()


class Pix2Pix:
    def __init__(self):
        self.netG = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 2))
        self.netD = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
        self.optimizer_g = torch.optim.Adam(self.netG.parameters(), lr=1e-2)
        self.optimizer_d = torch.optim.Adam(self.netD.parameters(), lr=1e-2)

    @torch.no_grad()
    def preview(self, condition):
        return self.netG(condition)

    def translate(self, condition):
        return self.netG(condition)

    def step(self, condition, target):
        fake = self.translate(condition)
        fake_pair = torch.cat((condition, fake), 1)
        real_pair = torch.cat((condition, target), 1)

        self.optimizer_d.zero_grad()
        pred_fake = self.netD(fake_pair.detach())
        pred_real = self.netD(real_pair)
        d_loss = bce(pred_fake, torch.zeros_like(pred_fake)) + bce(pred_real, torch.ones_like(pred_real))
        d_loss.backward()
        self.optimizer_d.step()

        self.optimizer_g.zero_grad()
        pred_fake = self.netD(fake_pair)
        g_loss = bce(pred_fake, torch.ones_like(pred_fake)) + (fake - target).abs().mean()
        g_loss.backward()
        self.optimizer_g.step()
        return d_loss.item(), g_loss.item()

    def critic_on_previews(self, condition, target):
        """Extra discriminator practice on no-grad samples: nothing reaches the generator."""
        self.optimizer_d.zero_grad()
        previews = self.preview(condition)
        pred = self.netD(torch.cat((condition, previews), 1))
        loss = bce(pred, torch.zeros_like(pred)) + bce(self.netD(torch.cat((condition, target), 1)), torch.ones_like(pred))
        loss.backward()
        self.optimizer_d.step()


torch.manual_seed(0)
model = Pix2Pix()
condition, target = torch.randn(8, 2), torch.randn(8, 2)
for _ in range(3):
    model.step(condition, target)
    model.critic_on_previews(condition, target)
