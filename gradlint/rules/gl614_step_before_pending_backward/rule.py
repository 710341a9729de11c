from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.training import Region
from gradlint.messages import snippet
from gradlint.fix.plan import Applicability, Availability, FixPlan, RemoveLine, ReplaceLines
from gradlint.fix.builders import render_at
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl614_step_before_pending_backward.recompute import movable_binding
from gradlint.rules.gl614_step_before_pending_backward.stale_backward import StaleBackward, stale_backwards

_MESSAGE = (
    "`{loss}` was computed through `{call}` (line {call_line}) before `{step}` (line {step_line}) changed that "
    "network's parameters in place: this `backward()` raises \"one of the variables needed for gradient computation "
    'has been modified by an inplace operation" (torch < 0.4 silently used the new weights); compute `{loss}` again after the step'
)


_FIX_MESSAGE = (
    "Compute `{loss}` after `{step}`, through the updated network (unsafe: torch < 0.4 backpropagated the "
    "activations of the old weights through the new ones; in a measured GAN step the loss changes from 0.6783 "
    "to 0.6836 and the generator's gradient by at most 0.00055, its largest entry being 0.0995)"
)


class StepBeforePendingBackward(Rule):
    """
    ## What it does
    Flags a `backward()` on a loss computed through a network whose optimizer has stepped since:
    in a GAN, `g_loss = bce(D(fake), ones)` computed first, then `d_loss.backward(); opt_d.step()`,
    then `g_loss.backward()`; in an actor-critic update, the actor's loss computed through the
    critic before the critic's step.

    ## Why is this bad?
    `optimizer.step()` changes the parameters in place, and the pending graph saved them to compute
    its gradients. Measured in torch 2.13 with two small MLPs: `g_loss.backward()` raises
    `RuntimeError: one of the variables needed for gradient computation has been modified by an
    inplace operation: [torch.FloatTensor [8, 1]], which is output 0 of AsStrided, is at version 2;
    expected version 1 instead`, and the generator never takes its step (the same happens to the
    actor). Recomputing the loss after the step trains the generator (its weights move by 0.044 in
    one step). torch 0.3 ran the backward silently with the updated weights, a gradient of no
    loss that was ever computed.

    ## Example
    ```python
    import torch

    opt_d = torch.optim.Adam(D.parameters())
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    g_loss = bce(D(fake), ones)
    d_loss.backward()
    opt_d.step()
    g_loss.backward()
    opt_g.step()
    ```

    ## Use instead
    ```python
    import torch

    opt_d = torch.optim.Adam(D.parameters())
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    opt_d.step()
    g_loss = bce(D(fake), ones)
    g_loss.backward()
    opt_g.step()
    ```

    ## Fix safety
    Unsafe, and offered only for a plain move: the loss is bound by one statement alone on its
    line, in the same block as the step, that calls the stepped network itself; the fix moves it
    to just after the step, so the loss is computed through the updated network (as
    pytorch/examples' DCGAN does). That changes numbers relative to torch < 0.4, whose backward
    combined the activations saved with the old weights and the new weights: measured on the
    fixture's GAN step (two small MLPs, SGD with lr 0.1), the generator's loss goes from 0.6783 to
    0.6836 and its gradient changes by at most 0.00055, its largest entry being 0.0995; random
    operations in the network (dropout) draw again. Moving the backward before the step instead
    would keep the old weights, change that gradient by up to 0.0023, and would have to go before
    the discriminator's `zero_grad()`. No fix when the move is not plain: the loss is used in
    between, an input is rebound or changed in place in between, or an input with history is used
    elsewhere without `.detach()` (`D(fake)` in the discriminator's loss shares G's graph with it,
    and the moved statement would raise "Trying to backward through the graph a second time").

    ## Known limits
    Reported only when the optimizer is built in the file over `network.parameters()`, the loss is
    computed from a call of that network (directly or through names bound before the step, not
    detached, not under no-grad) whose input is the output of another network (`D(G(z))`,
    `critic(s, actor(s))`: the network's weights are then saved for the backward), in the same body
    as the step and the backward, the step is not under an `if`, and a backward runs between the
    optimizer's reset and its step (a step before any backward, or right after its own reset, is
    GL203's mistake: GL203 reports the step, this rule the backward, never both for one step).
    A loss through the stepped network fed plain data (`model(x)` with `x` from a loader) is not
    reported: there the weights are often not saved and the backward silently gives the
    pre-step gradient. Losses built in helpers, unpacked from tuples or kept in containers are
    not followed.
    """

    code = "GL614"
    name = "step-before-pending-backward"
    summary = "optimizer step changes parameters a pending backward needs"
    severity = Severity.ERROR
    triggers = ("step",)
    # Its findings are direct `step()` calls of a body that also calls `backward()`.
    also_required = ("backward",)
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)

    VALID = (
        # The generator's loss is computed after the discriminator's step.
        """
        import torch
        opt_d = torch.optim.Adam(D.parameters())
        opt_g = torch.optim.Adam(G.parameters())
        fake = G(z)
        d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        g_loss = bce(D(fake), ones)
        g_loss.backward()
        opt_g.step()
        """,
        # The loss goes through D only detached: nothing of D is pending.
        """
        import torch
        opt_d = torch.optim.Adam(D.parameters())
        opt_g = torch.optim.Adam(G.parameters())
        fake = G(z)
        g_loss = recon(fake, target) + 0.1 * D(fake).detach().mean()
        d_loss = bce(D(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        g_loss.backward()
        opt_g.step()
        """,
        # The optimizer steps other parameters than the network the loss goes through.
        """
        import torch
        opt_d = torch.optim.Adam(D.parameters())
        opt_g = torch.optim.Adam(G.parameters())
        g_loss = recon(G(z), target)
        d_loss = bce(D(real), ones)
        d_loss.backward()
        opt_d.step()
        g_loss.backward()
        opt_g.step()
        """,
        # Unknown optimizer (a parameter): which parameters it steps is not known.
        """
        def update(opt_d, opt_g, D, G, z, real):
            fake = G(z)
            g_loss = -D(fake).mean()
            d_loss = D(fake.detach()).mean() - D(real).mean()
            d_loss.backward()
            opt_d.step()
            g_loss.backward()
            opt_g.step()
        """,
        # The loss is computed again after the step.
        """
        import torch
        opt_d = torch.optim.Adam(D.parameters())
        g_loss = -D(G(z)).mean()
        d_loss = bce(D(real), ones)
        d_loss.backward()
        opt_d.step()
        g_loss = -D(G(z)).mean()
        g_loss.backward()
        """,
        # The step before any backward is GL203's mistake.
        """
        import torch
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = criterion(model(x), y)
        optimizer.step()
        loss.backward()
        """,
        # GL203's mistake: the actor steps right after its reset, before its own backward.
        """
        import torch
        actor_optimizer = torch.optim.SGD(actor.parameters(), lr=0.05)
        critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.05)
        for _ in range(steps):
            critic_loss = ((critic(torch.cat([state, action], 1)) - target) ** 2).mean()
            critic_optimizer.zero_grad()
            critic_loss.backward()
            critic_optimizer.step()
            actor_loss = -critic(torch.cat([state, actor(state)], 1)).mean()
            actor_optimizer.zero_grad()
            actor_optimizer.step()
            actor_loss.backward()
        """,
        # The stepped network is fed plain data only (the second of two losses on one model).
        """
        import torch
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        first = criterion(model(x1), y1)
        second = criterion(model(x2), y2)
        first.backward()
        optimizer.step()
        second.backward()
        """,
        # A conditional step (n_critic schedule) is not followed.
        """
        import torch
        opt_d = torch.optim.Adam(D.parameters())
        opt_g = torch.optim.Adam(G.parameters())
        for i, real in enumerate(loader):
            g_loss = -D(G(z)).mean()
            d_loss = D(G(z).detach()).mean() - D(real).mean()
            d_loss.backward()
            if i % 5 == 0:
                opt_d.step()
            g_loss.backward()
            opt_g.step()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            opt_d = torch.optim.Adam(D.parameters())
            opt_g = torch.optim.Adam(G.parameters())
            fake = G(z)
            d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
            g_loss = bce(D(fake), ones)
            d_loss.backward()
            opt_d.step()
            g_loss.backward()
            opt_g.step()
            """,
            line=9,
            column=1,
            message="`g_loss` was computed through `D(fake)` (line 6) before `opt_d.step()` (line 8)",
        ),
        Invalid(
            """
            import torch
            class Trainer:
                def __init__(self, actor, critic):
                    self.actor, self.critic = actor, critic
                    self.actor_opt = torch.optim.Adam(self.actor.parameters())
                    self.critic_opt = torch.optim.Adam(self.critic.parameters())
                def update(self, states, returns):
                    q = self.critic(states, self.actor(states))
                    actor_loss = -q.mean()
                    critic_loss = (self.critic(states, self.actor(states).detach()) - returns).pow(2).mean()
                    self.critic_opt.zero_grad()
                    critic_loss.backward()
                    self.critic_opt.step()
                    self.actor_opt.zero_grad()
                    actor_loss.backward()
                    self.actor_opt.step()
            """,
            line=15,
            column=9,
            message="`actor_loss` was computed through `self.critic(states, self.actor(states))` (line 8)",
        ),
        Invalid(
            """
            import torch
            opt_d = torch.optim.Adam(D.parameters())
            for real, z in loader:
                fake = G(z)
                g_loss = -D(fake).mean()
                d_loss = D(fake.detach()).mean() - D(real).mean()
                d_loss.backward()
                opt_d.step()
                scaler.scale(g_loss).backward()
            """,
            line=9,
            column=5,
            message="`g_loss` was computed through `D(fake)` (line 5)",
        ),
        Invalid(
            """
            import torch
            opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
            ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
            for real, z in loader:
                fake = G(z)
                d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
                g_loss = bce(D(fake), ones)
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                g_loss.backward()
            """,
            fixed="""
            import torch
            opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
            ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
            for real, z in loader:
                fake = G(z)
                d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                g_loss = bce(D(fake), ones)
                g_loss.backward()
            """,
            line=11,
            column=5,
        ),
        # Both losses go through `D(fake)` without detaching it: the moved statement would raise too.
        Invalid(
            """
            import torch
            opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
            ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
            for real, z in loader:
                fake = G(z)
                d_loss = bce(D(real), ones) + bce(D(fake), zeros)
                g_loss = bce(D(fake), ones)
                d_loss.backward()
                opt_d.step()
                g_loss.backward()
            """,
            line=10,
            column=5,
        ),
        # The loss is printed before the step: moving it would change what is printed.
        Invalid(
            """
            import torch
            opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
            for real, z in loader:
                fake = G(z)
                g_loss = -D(fake).mean()
                d_loss = D(fake.detach()).mean() - D(real).mean()
                print(g_loss.item())
                d_loss.backward()
                opt_d.step()
                g_loss.backward()
            """,
            line=10,
            column=5,
        ),
    )

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        reported: set[int] = set()
        for region in [*training.loops, *training.functions, training.module_region]:
            scope = training.scope_of(region) or self.context.module
            for stale in stale_backwards(region, training.optimizers):
                if id(stale.backward.node) in reported:
                    continue
                reported.add(id(stale.backward.node))
                self.report(
                    stale.backward.node,
                    _MESSAGE.format(
                        loss=stale.loss,
                        call=snippet(self.context.code_for(stale.model_call), 40),
                        call_line=self.context.line_of(stale.model_call),
                        step=snippet(self.context.code_for(stale.step.node), 40),
                        step_line=self.context.line_of(stale.step.node),
                    ),
                    self._recompute(region, stale, scope),
                )

    def _recompute(self, region: Region, stale: StaleBackward, scope: cst.CSTNode) -> Optional[FixPlan]:
        """Move the loss's statement after the step: the loss is computed through the updated network."""
        models = self.context.training.optimizers.stepped_modules(stale.step.optimizer)
        lines = movable_binding(region, stale, models, lambda node: self.context.values.is_history_free(node, scope))
        if lines is None:
            return None
        binding, step = lines
        indent = self.context.indentation_of(step)
        moved = render_at(self.context, step.with_changes(leading_lines=()), indent) + render_at(
            self.context, binding.with_changes(leading_lines=()), indent
        )
        return self.unsafe_fix(
            _FIX_MESSAGE.format(loss=stale.loss, step=snippet(self.context.code_for(stale.step.node), 40)),
            RemoveLine(binding),
            ReplaceLines(step, step, moved),
        )
