"""The shared training events: what each statement of a body does, in source order, and the GAN
update that GL406 finds over them whatever statement holds it (`if`, `match`, loops)."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.analysis.roles import Role
from gradlint.analysis.training import Kind
from gradlint.context import FileContext
from support import lint

UPDATE = """\
fake = G(z)
d_loss = D(fake).mean() - D(real).mean()
d_loss.backward()
opt_d.step()
"""


def context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("f.py", source, cst.parse_module(source))


def events(source: str):
    """The direct events of the first function of `source`."""
    region = context(source).training.functions[0]
    return [event for event in region.events if event.via is None]


def update_under(outer: str, inner: str) -> str:
    """`UPDATE` two statements deep in a function, so that both forms put it on the same rows and columns."""
    body = "".join(f"            {line}\n" for line in UPDATE.splitlines())
    return f"def train_step(phase, z, real):\n    {outer}\n        {inner}\n{body}"


def findings(source: str):
    """Position, message and fix of each GL406 finding (edits by row and column: the headers differ in length)."""
    return [
        (
            f.location,
            f.end_location,
            f.message,
            f.fix.applicability,
            f.fix.message,
            [(e.content, e.location, e.end_location) for e in f.fix.edits],
        )
        for f in lint(source, "GL406")
    ]


def test_gan_update_under_if_and_under_match_gives_the_same_findings():
    under_if = findings(update_under("if phase is not None:", "if phase == 'critic':"))
    under_match = findings(update_under("match phase:", "case 'critic':"))
    assert len(under_if) == 1 and "`fake`" in under_if[0][2] and "(`opt_d.step()` on line 7)" in under_if[0][2]
    assert under_match == under_if


def test_events_of_a_body_in_source_order():
    found = events(
        """\
        import torch
        def step(z, real, scaler):
            with torch.no_grad():
                frozen = G(z)
            fake = G(z)
            d_loss = D(fake).mean()
            errD.backward()
            scaler.step(optD)
            scheduler.step()
        """
    )
    kinds = [(event.kind, event.target or event.optimizer or (event.role and event.role.value)) for event in found]
    assert kinds == [
        (Kind.FORWARD, "generator"),
        (Kind.ASSIGN, "frozen"),
        (Kind.FORWARD, "generator"),
        (Kind.ASSIGN, "fake"),
        (Kind.FORWARD, "discriminator"),
        (Kind.ASSIGN, "d_loss"),
        (Kind.OTHER_BACKWARD, None),  # `errD` is not evidently a tensor
        (Kind.STEP, "optD"),  # through the scaler
        (Kind.OTHER_STEP, "scheduler"),
    ]
    assert [event.no_grad for event in found[:2]] == [True, True] and not any(event.no_grad for event in found[2:])
    assert all(event.calls_backward == (event.kind is Kind.OTHER_BACKWARD) for event in found)
    assert [event.optimizer for event in found if event.calls_step] == ["optD", "scheduler"]


def test_statement_facts_stay_in_their_body():
    # A helper's effects reach its callers; what its statements say (network calls, names bound) does not.
    found = events(
        """\
        def step(z):
            update(z)
        def update(z):
            fake = G(z)
            loss = D(fake).mean()
            loss.backward()
        """
    )
    assert found == []
    followed = context("def step(z):\n    update(z)\ndef update(z):\n    fake = G(z)\n    D(fake).mean().backward()\n").training.functions[
        0
    ]
    assert [event.kind for event in followed.events] == [Kind.BACKWARD]


def test_frozen_generator_is_a_file_fact():
    assert context("for p in netG.parameters():\n    p.requires_grad = False\n").training.frozen_generator
    assert context("G.requires_grad_(False)\n").training.frozen_generator
    assert not context("D.requires_grad_(False)\n").training.frozen_generator


def test_roles_of_gan_names():
    roles = context("").roles
    assert roles.gan_network(cst.parse_expression("self.netD")) is Role.DISCRIMINATOR
    assert roles.gan_network(cst.parse_expression("other.netD")) is None
    assert roles.gan_output(cst.parse_expression("G(z).view(n, -1)")) is Role.GENERATOR
    assert roles.gan_output(cst.parse_expression("G(z).detach()")) is None
    assert roles.gan_optimizer("self.opt_d") is Role.DISCRIMINATOR
    assert roles.gan_optimizer("optimizerG") is Role.GENERATOR
    assert roles.gan_optimizer("optimizer") is None
