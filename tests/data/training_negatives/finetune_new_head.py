"""Fine-tuning with a new head: the head replaced before the optimizer is built (and once more with
the optimizer rebuilt), the parameters bound as a list for the optimizer and the clipping, a
generator consumed once, and a partial checkpoint whose missing keys are checked."""

import torch
from torch import nn


def build_model():
    torch.manual_seed(0)
    model = nn.Sequential()
    model.body = nn.Linear(4, 4)
    model.fc = nn.Linear(4, 3)
    return model


def finetune(model, steps=3):
    pretrained = {k: v for k, v in build_model().state_dict().items() if k.startswith("body.")}
    result = model.load_state_dict(pretrained, strict=False)
    assert not result.unexpected_keys, result.unexpected_keys
    model.fc = nn.Linear(4, 2)
    params = list(model.parameters())
    optimizer = torch.optim.SGD(params, lr=0.1)
    trainable = sum(p.numel() for p in model.parameters())
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
    model.fc = nn.Linear(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return trainable


finetune(build_model())
