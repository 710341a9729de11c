"""REINFORCE on a small corridor world, written the PyTorch 0.3 way: the policy samples an action
from a `Categorical`, keeps its log-probability, and hands `action.data[0]` to the environment.

The environment is a few lines of pure Python with the usual `reset()` / `step(action)` interface;
like gym's discrete action spaces it only accepts a plain integer action."""

import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
from torch.distributions import Categorical

gamma = 0.95
log_interval = 10


class Corridor(object):
    """Walk from the left end of a corridor to the exit on the right; every step costs a little."""

    n_actions = 2  # 0: left, 1: right

    def __init__(self, length=7, max_steps=50):
        self.length = length
        self.max_steps = max_steps

    def observation(self):
        obs = np.zeros(self.length, dtype=np.float32)
        obs[self.position] = 1.0
        return obs

    def reset(self):
        self.position = 0
        self.steps = 0
        return self.observation()

    def step(self, action):
        assert isinstance(action, int) and 0 <= action < self.n_actions, \
            "invalid action %r" % (action,)
        self.steps += 1
        if action == 1:
            self.position += 1
        elif self.position > 0 and random.random() < 0.8:
            self.position -= 1
        if self.position == self.length - 1:
            return self.observation(), 1.0, True, {}
        return self.observation(), -0.05, self.steps >= self.max_steps, {}


class Policy(nn.Module):
    def __init__(self, n_inputs, n_actions):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(n_inputs, 32)
        self.affine2 = nn.Linear(32, n_actions)

        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


def select_action(policy, state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(Variable(state))
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.data[0]


def finish_episode(policy, optimizer):
    R = 0
    policy_loss = []
    rewards = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        rewards.insert(0, R)
    rewards = torch.Tensor(rewards)
    rewards = (rewards - rewards.mean()) / (rewards.std() + np.finfo(np.float32).eps)
    for log_prob, reward in zip(policy.saved_log_probs, rewards):
        policy_loss.append(-log_prob * reward)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.data[0]


def main(steps=60):
    """Runs `steps` episodes; returns the number of moves each one took (fewer is better)."""
    random.seed(0)
    torch.manual_seed(0)
    env = Corridor()
    policy = Policy(env.length, env.n_actions)
    optimizer = optim.Adam(policy.parameters(), lr=3e-2)

    lengths = []
    running_reward = 10
    for i_episode in range(steps):
        state = env.reset()
        for t in range(env.max_steps):
            action = select_action(policy, state)
            state, reward, done, _ = env.step(action)
            policy.rewards.append(reward)
            if done:
                break

        running_reward = running_reward * 0.99 + t * 0.01
        loss = finish_episode(policy, optimizer)
        lengths.append(t + 1)
        if i_episode % log_interval == 0:
            print("Episode {}\tLast length: {:5d}\tAverage length: {:.2f}\tLoss: {:.4f}".format(
                i_episode, t, running_reward, loss))
    return lengths


if __name__ == "__main__":
    main()
