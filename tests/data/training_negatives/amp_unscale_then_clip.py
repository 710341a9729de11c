import torch
from torch import nn


def clip_unscaled(model, scaler, optimizer, max_norm):
    scaler.unscale_(optimizer)
    return nn.utils.clip_grad_norm_(model.parameters(), max_norm)


model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(6)]
accumulation_steps = 2
for i, (x, y) in enumerate(data):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = ((model(x).float() - y) ** 2).mean() / accumulation_steps
    scaler.scale(loss).backward()
    if (i + 1) % accumulation_steps == 0:
        if i < 2:
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_value_(model.parameters(), 1.0)
        else:
            clip_unscaled(model, scaler, optimizer, 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
