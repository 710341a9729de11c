import torch
from torch import nn

netG = nn.Linear(2, 2)
netD = nn.Linear(2, 1)
optimizerD = torch.optim.RMSprop(netD.parameters(), lr=5e-5)
for real in [torch.randn(8, 2)] * 3:
    for p in netG.parameters():
        p.requires_grad_(False)
    optimizerD.zero_grad()
    errD = netD(netG(torch.randn(8, 2))).mean() - netD(real).mean()
    errD.backward()
    optimizerD.step()
