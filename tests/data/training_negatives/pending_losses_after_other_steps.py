"""Losses computed before another optimizer's step that are still correct to backpropagate after
it: the generator's reconstruction term goes through the generator only (the discriminator's step
does not touch it) and its adversarial term is computed after the discriminator's step; the
actor's loss is computed after the critic's step, and the critic's target comes from a frozen
copy under no_grad."""

import copy

import torch
from torch import nn


def gan(steps=3):
    torch.manual_seed(0)
    generator = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 4))
    discriminator = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    opt_g = torch.optim.SGD(generator.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(discriminator.parameters(), lr=0.1)
    bce = nn.BCEWithLogitsLoss()
    ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
    for _ in range(steps):
        real, noise = torch.randn(16, 4), torch.randn(16, 2)
        fake = generator(noise)
        reconstruction = nn.functional.l1_loss(fake, real)
        opt_d.zero_grad()
        d_loss = bce(discriminator(real), ones) + bce(discriminator(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = bce(discriminator(fake), ones) + reconstruction
        g_loss.backward()
        opt_g.step()


def actor_critic(steps=3):
    torch.manual_seed(0)
    actor, critic = nn.Linear(3, 2), nn.Linear(5, 1)
    target_critic = copy.deepcopy(critic)
    actor_optimizer = torch.optim.SGD(actor.parameters(), lr=0.1)
    critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)
    for _ in range(steps):
        states, rewards = torch.randn(8, 3), torch.randn(8, 1)
        with torch.no_grad():
            target = rewards + 0.9 * target_critic(torch.cat([states, actor(states)], 1))
        critic_loss = nn.functional.mse_loss(critic(torch.cat([states, actor(states).detach()], 1)), target)
        critic_optimizer.zero_grad()
        critic_loss.backward()
        critic_optimizer.step()
        actor_loss = -critic(torch.cat([states, actor(states)], 1)).mean()
        actor_optimizer.zero_grad()
        actor_loss.backward()
        actor_optimizer.step()


if __name__ in ("__main__", "negative"):
    gan()
    actor_critic()
