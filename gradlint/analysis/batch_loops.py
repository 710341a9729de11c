"""Loops that repeat over a data set, and values a function gathers only to combine them at once.

A training loop iterates batches or epochs (`for x, y in loader`, `for epoch in range(epochs)`,
`for batch in tqdm(train_dl)`); a loop over layers, scales, tiles or timesteps does not. What a
loop over batches collects is either kept (a history of losses) or combined in the same call
(`torch.cat(outputs)` for chunked inference).
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.analysis.functions import mentioned_keys
from gradlint.analysis.roles import is_batch_source_name, is_loader_name
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants

# `epochs`, `num_epochs`, `args.max_epochs`; `train_data`, `dataset`, `val_ds`.
EPOCHS = re.compile(r"^(\w+_)?(n_?|num_?|max_?)?epochs?$", re.IGNORECASE)
DATA = re.compile(r"^(\w+_)?(data|dataset|ds)$", re.IGNORECASE)
# Loop variables naming what one iteration is: `batch`, `batch_idx`, `epoch`, `i_batch`.
BATCH_TARGET = re.compile(r"^((\w+_)?batch(_?(idx|id|i|index|num|no))?|i_?batch|epoch\w*)$", re.IGNORECASE)
# Calls that combine the gathered values into one: the collection is consumed where it is built.
COMBINING_CALLS = frozenset({"cat", "concat", "concatenate", "stack", "hstack", "vstack", "sum", "mean", "stack_tensors"})


def iterates_batches(loop: cst.CSTNode, scopes: ScopeTable, scope: Optional[Scope]) -> bool:
    """`loop` runs once per batch or per epoch: it iterates a loader, a data set or batches, counts
    epochs, or names its variable `batch`/`epoch`. `for x in bar` counts when `bar = tqdm(loader)`."""
    if not isinstance(loop, cst.For):
        return False
    if any(BATCH_TARGET.match(name) for name in _target_names(loop.target)):
        return True
    names = mentioned_keys(loop.iter)
    for name in list(names):
        if "." not in name:
            for value in scopes.values_of(name, scope):
                names |= mentioned_keys(value)
    return any(_names_data(name.rsplit(".", 1)[-1]) for name in names)


def combined_in(body: cst.CSTNode, key: str) -> bool:
    """`torch.cat(key)`, `torch.stack(key, dim=1)`, `sum(key)` somewhere in `body`: the values
    gathered under `key` are combined into one result there."""
    for node in descendants(body):
        if isinstance(node, cst.Call) and _called(node) in COMBINING_CALLS:
            if any(key in mentioned_keys(arg.value) for arg in node.args):
                return True
    return False


def _names_data(name: str) -> bool:
    return is_loader_name(name) or is_batch_source_name(name) or bool(EPOCHS.match(name) or DATA.match(name))


def _target_names(target: cst.BaseExpression) -> list[str]:
    return [node.value for node in descendants(target) if isinstance(node, cst.Name)]


def _called(call: cst.Call) -> Optional[str]:
    name = dotted_name(call.func)
    return None if name is None else name.rsplit(".", 1)[-1]
