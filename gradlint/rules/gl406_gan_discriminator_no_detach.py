from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis.grad_mode import grad_mode_of
from gradlint.analysis.grad_tracking import ends_history, mentioned_names
from gradlint.analysis.roles import DISCRIMINATOR_OPTIMIZER_IN_TEXT, Role
from gradlint.analysis.syntax import method_call_on, positional_args
from gradlint.analysis.training import BackwardSite, Event, Kind
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.source import found_in

_MESSAGE = (
    "generator output `{fake}` reaches the discriminator without `.detach()` in the discriminator update "
    "(`{step}` on line {line}): the discriminator loss backpropagates into the generator"
)


class GanDiscriminatorNoDetach(Rule):
    """
    ## What it does
    In a discriminator update (its loss is backpropagated and the discriminator's optimizer
    steps), flags generator output that reaches the discriminator without `.detach()`: `D(G(z))`,
    or `fake = G(z)` followed by `D(fake)`, also when the fake is concatenated first
    (`torch.cat((cond, fake), 1)`) or reaches it through the file's bindings: a helper or method
    of the file that returns `G(z)` (whole or as a tuple member), an attribute, a loop variable, a
    dict entry, a list, a lambda. Networks and optimizers are recognised by their names
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
    several functions. Statements joined on one line with `;` count as one statement. Image pools
    (`self.fake_pool.query(fake)`) are not followed: common pools store `image.data` and hand back
    detached tensors. A forward bound to a name counts only when the backward before the step is
    of that name or of a value built from it.
    """

    code = "GL406"
    name = "gan-discriminator-no-detach"
    summary = "discriminator update backpropagates into the generator"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("step",)

    VALID = (
        # The generator's loss, computed before the discriminator's update and backpropagated after
        # it (GL614's mistake, not this one): the discriminator's backward is of `d_loss` only.
        """
        fake = G(z)
        d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
        g_loss = bce(D(fake), ones)
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        """,
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
        # The pair is detached, or the helper samples under no_grad.
        """
        import torch
        def d_step(z, real):
            fake_pair = torch.cat((z, G(z)), 1)
            d_loss = D(fake_pair.detach()).mean() - D(torch.cat((z, real), 1)).mean()
            d_loss.backward()
            opt_d.step()
        """,
        """
        import torch
        @torch.no_grad()
        def sample(z):
            return G(z)
        def d_step(z, real):
            fake = sample(z)
            d_loss = D(fake).mean() - D(real).mean()
            d_loss.backward()
            opt_d.step()
        """,
    )
    INVALID = (
        # The discriminator's loss backpropagated through Accelerate.
        Invalid(
            """
            fake = G(z)
            d_loss = bce(D(fake), zeros) + bce(D(real), ones)
            accelerator.backward(d_loss)
            opt_d.step()
            """,
            """
            fake = G(z)
            d_loss = bce(D(fake.detach()), zeros) + bce(D(real), ones)
            accelerator.backward(d_loss)
            opt_d.step()
            """,
        ),
        # A term of the discriminator's loss bound on its own line, then summed.
        Invalid(
            """
            fake = G(z)
            d_fake = bce(D(fake), zeros)
            d_loss = bce(D(real), ones) + d_fake
            d_loss.backward()
            opt_d.step()
            """,
            """
            fake = G(z)
            d_fake = bce(D(fake.detach()), zeros)
            d_loss = bce(D(real), ones) + d_fake
            d_loss.backward()
            opt_d.step()
            """,
        ),
        Invalid(
            """
            import torch
            def d_step(z, real):
                fake_pair = torch.cat((z, G(z)), 1)
                d_loss = D(fake_pair).mean() - D(torch.cat((z, real), 1)).mean()
                d_loss.backward()
                opt_d.step()
            """,
            """
            import torch
            def d_step(z, real):
                fake_pair = torch.cat((z, G(z)), 1)
                d_loss = D(fake_pair.detach()).mean() - D(torch.cat((z, real), 1)).mean()
                d_loss.backward()
                opt_d.step()
            """,
        ),
        Invalid(
            """
            class Trainer:
                def sample(self, z):
                    return self.netG(z)
                def d_step(self, z, real):
                    fake = self.sample(z)
                    d_loss = self.netD(fake).mean() - self.netD(real).mean()
                    d_loss.backward()
                    self.optimizer_d.step()
            """,
            """
            class Trainer:
                def sample(self, z):
                    return self.netG(z)
                def d_step(self, z, real):
                    fake = self.sample(z)
                    d_loss = self.netD(fake.detach()).mean() - self.netD(real).mean()
                    d_loss.backward()
                    self.optimizer_d.step()
            """,
        ),
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
        return "step" in text and found_in(text, DISCRIMINATOR_OPTIMIZER_IN_TEXT) is not None

    def visit_Module(self, node: cst.Module) -> None:
        if not self.applies_to(self.context.file_text):
            return  # no discriminator optimizer is named: the events of every body need not be read
        training = self.context.training
        bodies = []
        for region in [training.module_region, *training.functions]:
            events = [event for event in region.events if event.via is None]
            # What the assignments hold matters only to a discriminator's forward pass.
            if any(event.kind is Kind.FORWARD and event.role is Role.DISCRIMINATOR for event in events):
                bodies.append((events, region.owner if isinstance(region.owner, cst.FunctionDef) else None))
        if not bodies or training.frozen_generator:
            return
        for events, scope in bodies:
            self._check_body(events, scope)

    def _check_body(self, events: list[Event], scope: Optional[cst.FunctionDef]) -> None:
        fakes: dict[str, bool] = {}  # name -> holds generator output that carries the generator's graph
        for index, event in enumerate(events):
            if event.kind is Kind.FORWARD and event.role is Role.DISCRIMINATOR:
                argument = _first_argument(event.node)
                if argument is not None and self._is_fake(argument, fakes, scope):
                    self._check_update(argument, events[_line_start(events, index) :], _bound_name(event))
            elif event.kind is Kind.ASSIGN:
                fakes[event.target] = not event.no_grad and self._is_fake(event.node.value, fakes, scope)

    def _is_fake(self, value: cst.BaseExpression, fakes: dict[str, bool], scope: Optional[cst.FunctionDef]) -> bool:
        """Generator output with its graph: `G(z)`, a name bound to one, `torch.cat((real, fake), 1)`,
        or the result of a helper of this file that returns `G(z)`."""
        if ends_history(value):
            return False
        if isinstance(value, cst.Name) and value.value in fakes:
            return fakes[value.value]
        if self.context.roles.gan_output(value) is Role.GENERATOR:
            return True
        if isinstance(value, cst.Call) and self.context.qualified_name(value.func) in ("torch.cat", "torch.stack"):
            pieces = _first_argument(value)
            return isinstance(pieces, (cst.List, cst.Tuple)) and any(
                isinstance(piece, cst.Element) and self._is_fake(piece.value, fakes, scope) for piece in pieces.elements
            )
        if isinstance(value, cst.Call) and self._generator_helper(value, scope):
            return True
        # Followed through the file's bindings: a tuple member, an attribute, a loop variable, a
        # dict entry, a list, a lambda's result.
        return self.context.values.is_generator_output(value, scope if scope is not None else self.context.module)

    def _generator_helper(self, call: cst.Call, scope: Optional[cst.FunctionDef]) -> bool:
        """`fake = self.sample(z)`, where the method of this file returns its generator's output
        (with grad on, not detached)."""
        summary = self.context.functions.of_call(call, scope)
        if summary is None or summary.runs_without_grad or not summary.returns:
            return False
        bindings = self.context.scopes.of(summary.function)
        gan_output = self.context.roles.gan_output
        for value in summary.returns:
            values = bindings.assigned(value.value) if isinstance(value, cst.Name) and value.value not in bindings.opaque else [value]
            if not values or not all(
                gan_output(v) is Role.GENERATOR and grad_mode_of(bindings.withs_around(v), self.context.imports) is not False
                for v in values
            ):
                return False
        return True

    def _check_update(self, argument: cst.BaseExpression, later: Sequence[Event], loss: Optional[str]) -> None:
        """Reports when the discriminator's optimizer steps after a backward, before the generator's steps.
        When the forward's value is bound to `loss`, only a backward of `loss` (or of what is built
        from it) counts: `g_loss = bce(D(fake), ones)` kept for after the discriminator's own update
        is the generator's loss."""
        carriers = {loss} if loss is not None else None
        backward_seen = False
        for event in later:
            if carriers is not None and event.kind is Kind.ASSIGN and event.target and mentioned_names(event.node.value) & carriers:
                carriers.add(event.target)
                continue
            if carriers is not None and event.calls_backward and not _backpropagates(event, carriers):
                continue
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


def _bound_name(event: Event) -> Optional[str]:
    """`g_loss` when the line holding `event` is `g_loss = ...`."""
    line = event.line
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not isinstance(line.body[0], cst.Assign):
        return None
    targets = line.body[0].targets
    return targets[0].target.value if len(targets) == 1 and isinstance(targets[0].target, cst.Name) else None


def _backpropagates(event: Event, carriers: set[str]) -> bool:
    """The backward of `event` runs through one of `carriers` (unknown losses count as yes)."""
    site = event.site
    if event.via is not None or not isinstance(site, BackwardSite) or site.tensor is None:
        return True
    names = mentioned_names(site.tensor)
    return bool(names & carriers) or not names


def _first_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    args = positional_args(call)
    return args[0].value if args else None


def _line_start(events: list[Event], index: int) -> int:
    """The first event of the line holding `events[index]`: the whole statement feeds the discriminator."""
    line = events[index].line
    while line is not None and index > 0 and events[index - 1].line is line:
        index -= 1
    return index
