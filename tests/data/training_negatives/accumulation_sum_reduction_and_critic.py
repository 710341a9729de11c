import torch
from torch import nn

# Summed losses over k batches add up to the loss of the k batches as one: nothing to divide.
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
criterion = nn.MSELoss(reduction="sum")
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(6)]
for i, (x, y) in enumerate(data):
    loss = criterion(model(x), y)
    loss.backward()
    if (i + 1) % 3 == 0:
        optimizer.step()
        optimizer.zero_grad()

# A critic trained every iteration, the generator every `n_critic`-th: each step has its own backward.
generator, critic = nn.Linear(2, 3), nn.Linear(3, 1)
opt_g = torch.optim.SGD(generator.parameters(), lr=0.01)
opt_c = torch.optim.SGD(critic.parameters(), lr=0.01)
n_critic = 2
for i, (real, _) in enumerate(data):
    z = torch.randn(4, 2)
    opt_c.zero_grad()
    critic_loss = critic(generator(z).detach()).mean() - critic(real).mean()
    critic_loss.backward()
    opt_c.step()
    if i % n_critic == 0:
        opt_g.zero_grad()
        generator_loss = -critic(generator(z)).mean()
        generator_loss.backward()
        opt_g.step()
