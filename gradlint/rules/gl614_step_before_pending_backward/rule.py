from __future__ import annotations

import libcst as cst

from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl614_step_before_pending_backward.stale_backward import stale_backwards

_MESSAGE = (
    "`{loss}` was computed through `{call}` (line {call_line}) before `{step}` (line {step_line}) changed that "
    "network's parameters in place: this `backward()` raises \"one of the variables needed for gradient computation "
    'has been modified by an inplace operation" (torch < 0.4 silently used the new weights); compute `{loss}` again after the step'
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
    No fix: the loss has to be computed again after the step, through the updated network.

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
    )

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        reported: set[int] = set()
        for region in [*training.loops, *training.functions, training.module_region]:
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
                )
