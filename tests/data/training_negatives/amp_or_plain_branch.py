import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
use_amp = False
scaler = torch.amp.GradScaler("cpu", enabled=use_amp)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]


def train_epoch():
    for x, y in data:
        optimizer.zero_grad(set_to_none=True)
        if use_amp:
            with torch.autocast("cpu"):
                loss = ((model(x) - y) ** 2).mean()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()


train_epoch()
