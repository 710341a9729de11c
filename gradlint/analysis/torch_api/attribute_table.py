"""Tensor attributes (read without a call): one row per attribute."""

from __future__ import annotations

VOCABULARY = {
    "metadata": "metadata a detached copy shares: shape, dtype, device, layout",
    "autograd": "an autograd flag or link of the tensor object itself",
    "view": "a view of the tensor (`x.T`), with its history",
    "transposes": "a view with its dimensions reversed: not contiguous unless a moved dimension has size 1",
}

ROWS = """
shape           metadata
dtype           metadata
device          metadata
ndim            metadata
is_cuda         metadata
layout          metadata
is_sparse       metadata
is_leaf         autograd
requires_grad   autograd
grad_fn         autograd
T               view transposes
mT              view transposes
real            view
imag            view
"""
