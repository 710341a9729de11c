import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def start_epoch(loader, epoch):
    loader.sampler.set_epoch(epoch)


dataset = TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
train_loader = DataLoader(dataset, batch_size=2, sampler=DistributedSampler(dataset, num_replicas=2, rank=0))
val_loader = DataLoader(dataset, batch_size=4, sampler=DistributedSampler(dataset, num_replicas=2, rank=0, shuffle=False))
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    start_epoch(train_loader, epoch)
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        optimizer.step()
    model.eval()
    with torch.no_grad():
        error = sum(((model(x) - y) ** 2).sum().item() for x, y in val_loader)
