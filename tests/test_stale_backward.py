"""Which networks an optimizer steps, and backwards left pending across a step (GL614's `stale_backward`)."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.optimizers import OptimizerOracle
from gradlint.context import FileContext
from gradlint.rules.gl614_step_before_pending_backward.stale_backward import stale_backwards


def _oracle(source: str) -> OptimizerOracle:
    module = cst.parse_module(textwrap.dedent(source))
    return OptimizerOracle(module, ImportMap.build(module))


def test_stepped_modules_from_parameter_groups_and_chains():
    oracle = _oracle(
        """
        import itertools
        import torch
        opt = torch.optim.Adam(itertools.chain(self.encoder.parameters(), decoder.parameters()))
        groups = torch.optim.SGD([{"params": D.parameters()}, {"params": head.parameters(), "lr": 0.1}])
        """
    )
    assert oracle.stepped_modules("opt") == {"self.encoder", "decoder"}
    assert oracle.stepped_modules("groups") == {"D", "head"}


def test_stepped_modules_only_what_every_construction_shares():
    oracle = _oracle(
        """
        import torch
        def a():
            opt = torch.optim.Adam(D.parameters())
        def b():
            opt = torch.optim.Adam(list(D.parameters()) + list(E.parameters()))
        other = torch.optim.Adam(params)
        """
    )
    assert oracle.stepped_modules("opt") == {"D"}
    assert oracle.stepped_modules("other") == frozenset()
    assert oracle.stepped_modules("unknown") == frozenset()


def test_a_loss_bound_after_the_step_is_not_pending():
    source = textwrap.dedent(
        """
        import torch
        opt_d = torch.optim.Adam(D.parameters())
        g_loss = -D(fake).mean()
        d_loss.backward()
        opt_d.step()
        if retry:
            g_loss = -D(fake).mean()
        g_loss.backward()
        """
    )
    module = cst.parse_module(source)
    context = FileContext("example.py", source, module)

    assert stale_backwards(context.training.module_region, context.training.optimizers) == []
