"""Look-alike: `args.data`, a command-line option, rewritten in place."""

import argparse

import torch


def run():
    torch.manual_seed(0)
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default="./data")
    args = parser.parse_args([])
    args.data += "/train"
    return args.data
