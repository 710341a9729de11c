"""Look-alike: `args.data`, a command-line option naming the data folder."""

import argparse
import torch
from torch import nn


def run():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    x = torch.randn(5, 4)
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="./data")
    args = parser.parse_args([])
    folder = args.data
    return folder
