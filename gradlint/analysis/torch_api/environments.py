"""Reinforcement-learning environments whose `step` rejects a tensor action, whatever its value.

Legacy REINFORCE and actor-critic code passes `action.data[0]` of a sampled `(1,)` action to
`env.step`: a Python int in PyTorch 0.3, a 0-dim tensor today. The classic-control environments
below start `step` with `assert self.action_space.contains(action)`, and their `Discrete.contains`
accepts only an `int` or a 0-dim numpy integer (`isinstance(x, int)`, else
`isinstance(x, (np.generic, np.ndarray))` with an integer dtype and shape `()`): a tensor fails
both tests, so every such step raises AssertionError. Read in openai/gym's
`gym/envs/classic_control/cartpole.py` and `mountain_car.py` and `gym/spaces/discrete.py` at
v0.9.5, v0.10.5, 0.15.7, v0.21.0 and 0.26.2, and in Gymnasium's `gymnasium/envs/classic_control/`
and `gymnasium/spaces/discrete.py` (1.3); the wrappers `make` adds (`TimeLimit`,
`OrderEnforcing`, `PassiveEnvChecker`) hand the action on unchanged. Not listed: `Acrobot-v1`
(its step indexes a list with the action, which takes a 0-dim integer tensor) and the
continuous-action environments (a `Box` space).
"""

from __future__ import annotations

# The functions that make an environment from its registered id.
ENVIRONMENT_FACTORIES = frozenset({"gym.make", "gymnasium.make"})

# Ids whose environment's `step` asserts `self.action_space.contains(action)` on a `Discrete` space.
TENSOR_REJECTING_ENVIRONMENTS = frozenset({"CartPole-v0", "CartPole-v1", "MountainCar-v0"})
