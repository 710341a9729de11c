import numpy as np
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence

torch.manual_seed(0)
rnn = nn.GRU(3, 4)
x = torch.randn(5, 2, 3)
# An RNN given a packed sequence returns one: `.data` is its field of packed rows.
out, hidden = rnn(pack_padded_sequence(x, [5, 3]))
rows = out.data.shape[0]


def checksum(array):
    # A numpy array's `.data` is its raw buffer.
    return bytes(array.data)[:4], array.argmax()


print(rows, checksum(np.arange(4, dtype=np.int32)))

# Parameter groups that are settings, not an optimizer's.
schedules = [{"params": [np.zeros(2)], "lr": 0.1}]
for group in schedules:
    for p in group["params"]:
        p.data  # noqa: B018  (a numpy buffer)
