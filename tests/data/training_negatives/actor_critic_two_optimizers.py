import torch
from torch import nn

torch.manual_seed(0)
actor = nn.Sequential(nn.Linear(4, 2), nn.Tanh())
critic = nn.Linear(4 + 2, 1)
actor_optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
critic_optimizer = torch.optim.Adam(critic.parameters(), lr=1e-3)
batches = [(torch.randn(8, 4), torch.randn(8, 2), torch.randn(8, 1)) for _ in range(3)]

for state, action, target in batches:
    # Critic first: regress Q(s, a) on the target.
    q = critic(torch.cat([state, action], dim=1))
    critic_loss = ((q - target) ** 2).mean()
    critic_optimizer.zero_grad()
    critic_loss.backward()
    critic_optimizer.step()

    # Then the actor: maximise Q(s, actor(s)); the critic's gradients from this are cleared above.
    actor_loss = -critic(torch.cat([state, actor(state)], dim=1)).mean()
    actor_optimizer.zero_grad()
    actor_loss.backward()
    actor_optimizer.step()
