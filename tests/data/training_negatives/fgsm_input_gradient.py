import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 3)
loader = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(3)]
epsilon = 0.1
adversarial = []
for x, y in loader:
    x.requires_grad = True
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    perturbed = x + epsilon * x.grad.sign()
    adversarial.append(perturbed.detach())
