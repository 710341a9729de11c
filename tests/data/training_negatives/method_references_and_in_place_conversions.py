"""Training methods kept as bound methods and called later, and conversions that work in place
(a module's `.to()` / `.float()`, a batch container's `.to()` as PyG's `Data` and HF's
`BatchEncoding` have): nothing is left uncalled, no result is dropped."""

import torch
from torch import nn


class Batch:
    """Moves its tensors when asked and returns itself."""

    def __init__(self, inputs, targets):
        self.inputs, self.targets = inputs, targets

    def to(self, device):
        self.inputs, self.targets = self.inputs.to(device), self.targets.to(device)
        return self


class Counter:
    def __init__(self):
        self.steps = 0

    def step(self):
        self.steps += 1


def train(model, batches, training=True):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    set_mode = model.train if training else model.eval
    set_mode()
    before_batch = [optimizer.zero_grad]
    apply_update = optimizer.step
    counter = Counter()
    for batch in batches:
        batch.to("cpu")
        for hook in before_batch:
            hook()
        loss = nn.functional.mse_loss(model(batch.inputs), batch.targets)
        loss.backward()
        apply_update()
        counter.step()
    return counter.steps


torch.manual_seed(0)
network = nn.Linear(3, 1)
network.float()
network.to("cpu")
data = [Batch(torch.randn(8, 3), torch.randn(8, 1)) for _ in range(4)]
assert train(network, data) == 4
