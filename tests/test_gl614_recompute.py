"""When GL614 moves the stale loss's statement after the step (`recompute`), and when it must not."""

from __future__ import annotations

import textwrap

from gradlint.fix.apply import fix_text
from support import lint

_HEADER = """
import torch
opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
label = torch.ones(16, 1)
for real, z in loader:
    fake = G(z)
"""


def _fixed(body: str) -> str:
    source = textwrap.dedent(_HEADER) + textwrap.indent(textwrap.dedent(body), "    ")
    assert [finding.code for finding in lint(source, "GL614")] == ["GL614"]
    return fix_text(source, "train.py", frozenset({"GL614"}), unsafe=True).text.removeprefix(textwrap.dedent(_HEADER))


def test_the_loss_statement_moves_after_the_step_with_its_comment():
    body = """
    d_loss = bce(D(real), label) + bce(D(fake.detach()), 1 - label)
    g_loss = bce(D(fake), label)  # the generator's loss
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    """
    assert _fixed(body) == textwrap.indent(
        textwrap.dedent(
            """
            d_loss = bce(D(real), label) + bce(D(fake.detach()), 1 - label)
            d_loss.backward()
            opt_d.step()
            g_loss = bce(D(fake), label)  # the generator's loss
            g_loss.backward()
            """
        ),
        "    ",
    )


def test_no_move_when_a_label_is_changed_in_place_in_between():
    body = """
    d_loss = bce(D(real), label) + bce(D(fake.detach()), 1 - label)
    g_loss = bce(D(fake), label)
    label.fill_(0)
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    """
    assert _fixed(body) == textwrap.indent(textwrap.dedent(body), "    ")


def test_no_move_when_the_network_output_is_reused_through_a_name():
    body = """
    d_fake = D(fake)
    d_loss = bce(D(real), label) - d_fake.mean()
    g_loss = bce(d_fake, label)
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    """
    assert _fixed(body) == textwrap.indent(textwrap.dedent(body), "    ")


def test_no_move_when_an_input_is_rebound_in_between():
    body = """
    d_loss = bce(D(real), label) + bce(D(fake.detach()), 1 - label)
    g_loss = bce(D(fake), label)
    fake = G(z)
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    """
    assert _fixed(body) == textwrap.indent(textwrap.dedent(body), "    ")


def test_no_move_when_the_step_is_in_another_block():
    body = """
    d_loss = bce(D(real), label) + bce(D(fake.detach()), 1 - label)
    g_loss = bce(D(fake), label)
    d_loss.backward()
    with lock:
        opt_d.step()
    g_loss.backward()
    """
    assert _fixed(body) == textwrap.indent(textwrap.dedent(body), "    ")
