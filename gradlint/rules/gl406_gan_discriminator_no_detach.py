from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.grad_tracking import ends_history
from gradlint.analysis.roles import DISCRIMINATOR_OPTIMIZER_IN_TEXT, Role
from gradlint.analysis.syntax import method_call_on, positional_args
from gradlint.analysis.training import Event, Kind
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule

_MESSAGE = (
    "generator output `{fake}` reaches the discriminator without `.detach()` in the discriminator update "
    "(`{step}` on line {line}): the discriminator loss backpropagates into the generator"
)


class GanDiscriminatorNoDetach(Rule):
    """
    ## What it does
    In a discriminator update (its loss is backpropagated and the discriminator's optimizer
    steps), flags generator output that reaches the discriminator without `.detach()`: `D(G(z))`,
    or `fake = G(z)` followed by `D(fake)`. Networks and optimizers are recognised by their names
    (`D`, `netD`, `discriminator`, `critic`; `G`, `netG`, `generator`; `optD`, `optimizer_d`...).

    ## Why is this bad?
    Measured in torch 2.13: after `d_loss.backward()` the generator's weights hold a non-zero
    gradient from the discriminator loss (they should hold none). If the generator step then
    reuses `fake`, backward raises "Trying to backward through the graph a second time"; with
    `retain_graph=True` and no `optG.zero_grad()` the generator is silently updated with the sum of
    both losses' gradients. At best, the backward pass through the generator is wasted compute.

    ## Example
    ```python
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    d_loss.backward()
    opt_d.step()
    ```

    ## Use instead
    ```python
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    opt_d.step()
    ```

    ## Fix safety
    Unsafe: `D(fake.detach())` leaves the discriminator's update bitwise unchanged and stops the
    gradient into the generator, which changes the generator's training when the code relied on the
    accumulated gradient.

    ## Known limits
    Networks and optimizers are matched by name only. Nothing is reported when the generator is
    frozen anywhere in the file (`requires_grad_(False)`, `requires_grad = False` on its
    parameters), when the fake is built under `no_grad`, or when the update is spread over
    several functions. Statements joined on one line with `;` count as one statement.
    """

    code = "GL406"
    name = "gan-discriminator-no-detach"
    summary = "discriminator update backpropagates into the generator"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("step",)

    VALID = (
        """
        fake = G(z)
        d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        opt_g.step()
        """,
        """
        import torch
        with torch.no_grad():
            fake = G(z)
        d_loss = bce(D(fake), zeros)
        d_loss.backward()
        opt_d.step()
        """,
        """
        G.requires_grad_(False)
        fake = G(z)
        d_loss = D(fake).mean()
        d_loss.backward()
        optimizerD.step()
        """,
        """
        for p in netG.parameters():
            p.requires_grad = False
        d_loss = netD(netG(z)).mean()
        d_loss.backward()
        optimizerD.step()
        """,
        """
        fake = G(z)
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        opt_g.step()
        d_loss = bce(D(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        """,
        """
        fake = G(z).detach()
        d_loss = bce(D(fake), zeros)
        d_loss.backward()
        opt_d.step()
        """,
        """
        out = D(G(z))
        loss = out.mean()
        loss.backward()
        optimizer.step()
        """,
    )
    INVALID = (
        Invalid(
            """
            fake = G(z)
            d_loss = bce(D(real), ones) + bce(D(fake), zeros)
            d_loss.backward()
            opt_d.step()
            """,
            """
            fake = G(z)
            d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
            d_loss.backward()
            opt_d.step()
            """,
        ),
        Invalid(
            """
            for real in loader:
                d_loss = -(netD(real).mean() - netD(netG(noise)).mean())
                d_loss.backward()
                optimizerD.step()
            """,
            """
            for real in loader:
                d_loss = -(netD(real).mean() - netD(netG(noise).detach()).mean())
                d_loss.backward()
                optimizerD.step()
            """,
        ),
        Invalid(
            """
            class GAN:
                def train_step(self, z, real):
                    fake = self.generator(z)
                    loss = self.discriminator(fake).mean() - self.discriminator(real).mean()
                    loss.backward()
                    self.d_optimizer.step()
            """,
            """
            class GAN:
                def train_step(self, z, real):
                    fake = self.generator(z)
                    loss = self.discriminator(fake.detach()).mean() - self.discriminator(real).mean()
                    loss.backward()
                    self.d_optimizer.step()
            """,
        ),
        # The same update under `if` and under `match`: both are one flattened body.
        Invalid(
            """
            def train_step(phase, z, real):
                if phase == 'critic':
                    fake = G(z)
                    d_loss = D(fake).mean() - D(real).mean()
                    d_loss.backward()
                    opt_d.step()
            """,
            """
            def train_step(phase, z, real):
                if phase == 'critic':
                    fake = G(z)
                    d_loss = D(fake.detach()).mean() - D(real).mean()
                    d_loss.backward()
                    opt_d.step()
            """,
        ),
        Invalid(
            """
            def train_step(phase, z, real):
                match phase:
                    case 'critic':
                        fake = G(z)
                        d_loss = D(fake).mean() - D(real).mean()
                        d_loss.backward()
                        opt_d.step()
            """,
            """
            def train_step(phase, z, real):
                match phase:
                    case 'critic':
                        fake = G(z)
                        d_loss = D(fake.detach()).mean() - D(real).mean()
                        d_loss.backward()
                        opt_d.step()
            """,
        ),
    )

    @classmethod
    def applies_to(cls, text: str) -> bool:
        # Only files that step a discriminator's optimizer can hold a discriminator update.
        return "step" in text and DISCRIMINATOR_OPTIMIZER_IN_TEXT.search(text) is not None

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        if training.frozen_generator:
            return
        for region in [training.module_region, *training.functions]:
            self._check_body([event for event in region.events if event.via is None])

    def _check_body(self, events: list[Event]) -> None:
        fakes: dict[str, bool] = {}  # name -> holds generator output that carries the generator's graph
        for index, event in enumerate(events):
            if event.kind is Kind.FORWARD and event.role is Role.DISCRIMINATOR:
                argument = _first_argument(event.node)
                if argument is not None and self._is_fake(argument, fakes):
                    self._check_update(argument, events[_line_start(events, index) :])
            elif event.kind is Kind.ASSIGN:
                fakes[event.target] = not event.no_grad and self.context.roles.gan_output(event.node.value) is Role.GENERATOR

    def _is_fake(self, argument: cst.BaseExpression, fakes: dict[str, bool]) -> bool:
        if ends_history(argument):
            return False
        if isinstance(argument, cst.Name):
            return fakes.get(argument.value, False)
        return self.context.roles.gan_output(argument) is Role.GENERATOR

    def _check_update(self, argument: cst.BaseExpression, later: Sequence[Event]) -> None:
        """Reports when the discriminator's optimizer steps after a backward, before the generator's steps."""
        backward_seen = False
        for event in later:
            if event.calls_step:
                role = self.context.roles.gan_optimizer(event.optimizer)
                if role is Role.GENERATOR:
                    return
                if role is Role.DISCRIMINATOR and backward_seen:
                    fix = self.unsafe_fix("Detach the generator output", Replace(argument, method_call_on(argument, "detach")))
                    line = self.context.line_of(event.node)
                    fake, step = (snippet(self.context.code_for(node), 40, "the value") for node in (argument, event.node))
                    self.report(argument, _MESSAGE.format(fake=fake, step=step, line=line), fix)
                    return
            elif event.calls_backward:
                backward_seen = True


def _first_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    args = positional_args(call)
    return args[0].value if args else None


def _line_start(events: list[Event], index: int) -> int:
    """The first event of the line holding `events[index]`: the whole statement feeds the discriminator."""
    line = events[index].line
    while line is not None and index > 0 and events[index - 1].line is line:
        index -= 1
    return index
