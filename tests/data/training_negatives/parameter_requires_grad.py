import torch
from torch import nn

embedding = nn.Parameter(torch.randn(10, 4))
embedding.requires_grad = False


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Parameter(torch.randn(10, 4))
        self.embedding.requires_grad = False
        self.head = nn.Linear(4, 1)


net = Net()
