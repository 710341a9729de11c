import torch


def run_episode(env, policy, optimizer):
    state = env.reset()
    for _ in range(100):
        logits = policy(torch.as_tensor(state))
        action = torch.distributions.Categorical(logits=logits).sample()
        state, reward, done, info = env.step(action.item())
        optimizer.zero_grad()
        loss = -logits.log_softmax(-1)[action] * reward
        loss.backward()
        optimizer.step()
        if done:
            break
