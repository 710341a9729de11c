"""A training script."""
from __future__ import annotations
from torch import optim
import torch.autograd as ag
import torch.nn as nn
from torch.autograd import *
from torch.autograd import Variable
if w.requires_grad:  # a comment
    fake.require_grad = True
    correct += (pred == y).sum().data[0]
elif netD(fake):
    with torch.no_grad(), open(f) as h:
        model.zero_grad(); total_loss += loss.item(); losses.volatile = True
        total_loss += loss.data; optD.step(); model = model.data; loss = loss.data[0]

    async def run():
        class Trainer:
            def step(self, x):
                losses.grad = None

                arr = netD(fake).numpy()  # a comment
                p.data.copy_(q.data)
                total_loss += loss.item()
            def step(self, x):
                x.data[z < 0] = 0

                x.data = torch.zeros(3)
                model.weight.data = model.weight.data.clone()
                model = Variable((-0) == größe.data, requires_grad=not frozen)  # noqa
            def step(self, x):
                losses = losses.data; p = p.data[0]  # a comment
                total.data.mul_(Variable(*größe.data))

            def step(self, x):
                loss.backward()
                optimizer.zero_grad()
                optimizer.step()

                z.grad.data.zero_()
                losses = \
    ...; total_loss = total_loss + loss; g_loss = criterion(netD(fake), ones)

                y = y  # a comment
                p.data.mul_(0.99).add_(z.data, alpha=0.01)
            def step(self, x):
                fake = netG(z)
                loss.backward(retain_graph=True)
                optG.step()

        x.data.add_([q for q in model.parameters()])	# a tab before the comment
        model.data += (λ).float()
    optimizer.step()  # a comment
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    optimizer.step()
    loss.backward()
    print('%.3f' % loss.data[0]); hidden.data.add_([Variable(λ), w]); total += loss.data[0]
else:
    match b:
        case 0:
            with torch.no_grad():
                optimizer = optim.Adam([w, b])
                b.data = (netD(fake)).numpy()
                total.requires_grad = False  # a comment
            with torch.set_grad_enabled(False):
                p.grad.data.zero_()
                acc = acc.data; w = w.data[0]
                hidden = repackage(hidden)
                assert isinstance(hidden, Variable)
            pass

            with torch.set_grad_enabled(False):
                (losses) = ((out - y).pow(2).mean()).data[0]
                acc = acc - lr * acc.grad; fake = -Variable(((
'''a
b'''
)))  # noqa: GL101
            assert isinstance(w, Variable)
    acc.grad.data.clamp_(-1, 1)
    loss = loss.data; acc = acc.data[0]
    fake = netG(z); b.grad.data.clamp_(-1, 1); w.data.sub_(lr * w.grad.data)
total += loss
