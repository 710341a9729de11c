import numpy as np
import torch
from torch import nn

model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
running, history = 0.0, []
for x, y in [(torch.randn(4, 3), torch.randn(4, 1))] * 3:
    optimizer.zero_grad()
    out = model(x)
    loss = ((out - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    running += loss.item()
    history.append(loss.detach())
    preds = out.detach().cpu().numpy()
with torch.no_grad():
    probs = np.asarray(model(torch.randn(2, 3)))
    values = model(torch.randn(2, 3)).numpy()
