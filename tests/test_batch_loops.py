"""Which loops optimise or run per batch, and which gathered values are combined in the same call:
the facts GL401 needs to tell a training loop's bookkeeping from chunked or layer-wise computation."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.batch_loops import combined_in, iterates_batches
from gradlint.analysis.grad_mode import decorated_like_no_grad
from gradlint.context import FileContext


def context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("f.py", source, cst.parse_module(source))


def first_loop(ctx: FileContext):
    return ctx.training.loops[0].owner


@pytest.mark.parametrize(
    "header",
    [
        "for x, y in train_loader:",
        "for batch in tqdm(loader):",
        "for i, (x, y) in enumerate(self.val_dl):",
        "for epoch in range(args.epochs):",
        "for step in range(num_epochs):",
        "for x, y in dataset:",
        "for batch_idx, item in enumerate(items):",
        "for x in bar:",
    ],
)
def test_loops_over_batches_or_epochs(header):
    ctx = context(f"bar = tqdm(dataloader)\n{header}\n    pass\n")
    assert iterates_batches(first_loop(ctx), ctx.scopes, ctx.module)


@pytest.mark.parametrize(
    "header",
    [
        "for layer in self.layers:",
        "for i in range(0, h, tile):",
        "for scale in scales:",
        "for i, t in enumerate(timesteps):",
        "for piece in x.split(4):",
        "while step < total:",
    ],
)
def test_loops_over_layers_tiles_or_steps_are_not_batch_loops(header):
    ctx = context(f"{header}\n    pass\n")
    assert not iterates_batches(first_loop(ctx), ctx.scopes, ctx.module)


def test_optimisation_loop_backpropagates_or_steps_directly_or_through_a_helper():
    ctx = context(
        """
        def step(model, x):
            model(x).sum().backward()
            optimizer.step()
        for x in batches:
            step(model, x)
        for layer in layers:
            x = x + layer(x)
        while True:
            loss = criterion(model(x), y)
            loss.backward()
        """
    )
    assert [ctx.training.optimises(region.owner) for region in ctx.training.loops] == [True, False, True]


def test_combined_in_names_cat_stack_and_sum_of_the_collection():
    module = cst.parse_module("rows.append(x)\nout = torch.cat(rows, dim=2)\ntotal = sum(self.parts)\n")
    assert combined_in(module, "rows") and combined_in(module, "self.parts")
    assert not combined_in(module, "history")


def test_decorated_like_no_grad():
    functions = cst.parse_module("@smart_inference_mode()\ndef a(): pass\n@utils.no_grad\ndef b(): pass\n@cache\ndef c(): pass\n").body
    assert [decorated_like_no_grad(f) for f in functions] == [True, True, False]
