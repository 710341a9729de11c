"""Activations that look like a loss's own but are right: log-softmax into NLL (the classic MNIST
model ends in `log_softmax`), sigmoid into `BCELoss`, softmax of a teacher as the soft target,
softmax for a metric only, and log-softmax into cross-entropy (idempotent: the same loss)."""

import torch
import torch.nn.functional as F
from torch import nn


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return F.log_softmax(self.fc2(torch.relu(self.fc1(x))), dim=1)


def distillation_loss(student_logits, teacher_logits, temperature=2.0):
    soft_targets = F.softmax(teacher_logits / temperature, dim=1)
    return F.cross_entropy(student_logits / temperature, soft_targets)


torch.manual_seed(0)
x = torch.randn(32, 8)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()
labels = (x[:, :1] > 0).float()

model = Classifier()
teacher = nn.Linear(8, 3)
student = nn.Sequential(nn.Linear(8, 3), nn.LogSoftmax(dim=1))
discriminator = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid())
bce = nn.BCELoss()
optimizer = torch.optim.SGD(
    [*model.parameters(), *student.parameters(), *discriminator.parameters()],
    lr=0.1,
)
for _ in range(3):
    log_probs = model(x)
    loss = F.nll_loss(log_probs, y)
    loss = loss + F.cross_entropy(student(x), y)
    loss = loss + distillation_loss(student(x), teacher(x).detach())
    loss = loss + bce(discriminator(x), labels)
    probs = F.softmax(log_probs, dim=1)
    confidence = probs.max(dim=1).values.mean().item()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
