from __future__ import annotations

from functools import cached_property
from typing import Optional, Union

import libcst as cst

from gradlint.analysis.syntax import is_bool_literal, keyword_arg
from gradlint.analysis.training import Event, Kind
from gradlint.fix.plan import Applicability, Availability, FixPlan, InsertLineBefore
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl613_carried_state_not_detached.carried_state import CarriedState, CarriedStates

_MESSAGE = (
    "{names} {verb} fed back to `{call}` in the next iteration with {pronoun} graph while the loop backpropagates "
    "every iteration: {effect}; detach {pronoun_object} at the top of the iteration"
)
_RAISES = 'the second `backward()` raises "Trying to backward through the graph a second time"'
_RETAINED = (
    "`retain_graph=True` only hides that: every backward walks all earlier iterations' graphs, which grow without end, "
    'and an optimizer step in between raises "modified by an inplace operation"'
)


class CarriedStateNotDetached(Rule):
    """
    ## What it does
    Flags a recurrent state (an RNN's hidden state, an LSTM's `(h, c)`) that a loop passes to a
    model and binds back from its result (`out, h = rnn(x, h)`), when the loop backpropagates every
    iteration and nothing in it detaches the state (`h = h.detach()`, `repackage_hidden(h)`,
    `h.detach_()`) or starts it afresh.

    ## Why is this bad?
    The next iteration's graph hangs off the previous one. Measured in torch 2.13 with an `nn.RNN`
    fed 6 chunks: the second `loss.backward()` raises `RuntimeError: Trying to backward through
    the graph a second time`. The usual "fix", `backward(retain_graph=True)`, raises `one of the
    variables needed for gradient computation has been modified by an inplace operation` at the
    same point when `optimizer.step()` runs in between, and without a step the graph reachable from
    `h` grows by 26 nodes every iteration (29, 55, 81, ... 159 after 6 chunks), each backward
    walking all of it. With `h = h.detach()` at the top of the iteration the graph stays at 29 nodes
    and the model trains (truncated backpropagation through time).

    ## Example
    ```python
    h = torch.zeros(1, batch, hidden)
    for x, y in chunks:
        out, h = rnn(x, h)
        loss = criterion(head(out), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    h = torch.zeros(1, batch, hidden)
    for x, y in chunks:
        h = h.detach()
        out, h = rnn(x, h)
        loss = criterion(head(out), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    ## Fix safety
    Unsafe: `h = h.detach()` at the top of the iteration stops gradients at the chunk boundary,
    which is what the loop can run with, but it changes what is learned when the code meant to
    backpropagate through the whole sequence (then the backward belongs after the loop). Offered only
    when one state is carried and it starts as a tensor before the loop (not `None` or a tuple,
    whose `.detach()` would fail; for an LSTM's state write `h = tuple(s.detach() for s in h)`).

    ## Known limits
    The model is recognised by its name (`model`, `rnn`, `lstm`, `gru`, `cell`, `encoder`...) or
    a `torch.nn` module built in the function, and the backward must run in every iteration (not
    under an `if`). Nothing is reported when the state is bound or detached anywhere else in the
    loop (a conditional reset or a truncation every k steps included), when the call runs under
    no-grad, or when a `forward` of the file returns detached values. State kept on an object
    (`self.h`) is not followed.
    """

    code = "GL613"
    name = "carried-state-not-detached"
    summary = "recurrent state carried across backpropagating iterations without detach"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("backward",)

    VALID = (
        # Detached at the top of each iteration.
        """
        h = torch.zeros(1, 4, 8)
        for x, y in chunks:
            h = h.detach()
            out, h = rnn(x, h)
            loss = criterion(out, y)
            loss.backward()
        """,
        # pytorch/examples' word language model.
        """
        hidden = model.init_hidden(batch_size)
        for batch, i in enumerate(range(0, n, bptt)):
            data, targets = get_batch(source, i)
            model.zero_grad()
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            optimizer.step()
        """,
        # A fresh state each iteration.
        """
        for x, y in loader:
            h = model.init_hidden(x.size(0))
            out, h = model(x, h)
            loss = criterion(out, y)
            loss.backward()
        """,
        # The sequence is unrolled in an inner loop; one backward per sequence, state reset before it.
        """
        for seq, target in loader:
            h = torch.zeros(4, 8)
            for x in seq:
                h = cell(x, h)
            loss = criterion(h, target)
            loss.backward()
            optimizer.step()
        """,
        # Truncated BPTT every k steps.
        """
        h = torch.zeros(1, 4, 8)
        for i, (x, y) in enumerate(chunks):
            out, h = rnn(x, h)
            loss = criterion(out, y)
            loss.backward()
            if i % k == 0:
                h = h.detach()
        """,
        # In-place detach of an LSTM state.
        """
        state = (torch.zeros(1, 4, 8), torch.zeros(1, 4, 8))
        for x, y in chunks:
            out, state = lstm(x, state)
            loss = criterion(out, y)
            loss.backward()
            for s in state:
                s.detach_()
        """,
        # Generation under no_grad: no graph to carry.
        """
        import torch
        h = None
        for step in range(n):
            loss = criterion(model(x), y)
            loss.backward()
            with torch.no_grad():
                token, h = model(token, h)
        """,
        # No backward in the loop: the sequence is backpropagated once, after it.
        """
        h = torch.zeros(4, 8)
        for x in seq:
            h = cell(x, h)
        criterion(h, target).backward()
        """,
        # The backward is conditional (accumulation over the sequence).
        """
        h = torch.zeros(4, 8)
        for i, x in enumerate(seq):
            out, h = rnn(x, h)
            if i == last:
                criterion(out, target).backward()
        """,
        # Not a model: an environment step.
        """
        state = env.reset()
        for t in range(n):
            state, reward, done, info = env.step(policy_action(state))
            loss = criterion(model(x), y)
            loss.backward()
        """,
        # The model detaches its state itself.
        """
        class Net(nn.Module):
            def forward(self, x, h):
                out, h = self.rnn(x, h)
                return self.head(out), h.detach()
        h = torch.zeros(1, 4, 8)
        for x, y in chunks:
            out, h = model(x, h)
            criterion(out, y).backward()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            h = torch.zeros(1, 4, 8)
            for x, y in chunks:
                out, h = rnn(x, h)
                loss = criterion(out, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            fixed="""
            import torch
            h = torch.zeros(1, 4, 8)
            for x, y in chunks:
                h = h.detach()
                out, h = rnn(x, h)
                loss = criterion(out, y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            """,
            line=4,
            column=5,
            message="`h` is fed back to `rnn(x, h)` in the next iteration with its graph",
            fix_title="Detach `h` at the top of the iteration",
        ),
        Invalid(
            """
            import torch
            from torch import nn
            def train(chunks, criterion):
                cell = nn.GRUCell(3, 8)
                h = torch.zeros(2, 8)
                for x, y in chunks:
                    h = cell(x, h)
                    loss = criterion(h, y)
                    loss.backward(retain_graph=True)
            """,
            fixed="""
            import torch
            from torch import nn
            def train(chunks, criterion):
                cell = nn.GRUCell(3, 8)
                h = torch.zeros(2, 8)
                for x, y in chunks:
                    h = h.detach()
                    h = cell(x, h)
                    loss = criterion(h, y)
                    loss.backward(retain_graph=True)
            """,
            line=7,
            column=9,
            message="`retain_graph=True` only hides that",
        ),
        Invalid(
            """
            def fit(model, loader, optimizer):
                state = model.init_hidden(32)
                for x, y in loader:
                    output, state = model(x, state)
                    loss = criterion(output, y)
                    loss.backward()
                    optimizer.step()
            """,
            line=4,
            column=9,
            message="`state` is fed back to `model(x, state)`",
        ),
    )

    @cached_property
    def carried_states(self) -> CarriedStates:
        """State a loop feeds back to a model in its next iteration (`out, h = rnn(x, h)`)."""
        return CarriedStates(self.context.module, self.context.imports, self.context.scopes)

    def visit_For(self, node: cst.For) -> None:
        self._check(node)

    def visit_While(self, node: cst.While) -> None:
        self._check(node)

    def _check(self, loop: Union[cst.For, cst.While]) -> None:
        backward = self._backward_every_iteration(loop)
        if backward is None:
            return
        scope = self.context.scope()
        for state in self.carried_states.of_loop(loop, scope):
            self.report(state.assignment, self._message(state, backward), self._fix(state, loop, scope))

    def _backward_every_iteration(self, loop: cst.CSTNode) -> Optional[Event]:
        region = next((r for r in self.context.training.loops if r.owner is loop), None)
        if region is None:
            return None
        return next((e for e in region.of(Kind.BACKWARD) if not e.conditional and not e.no_grad), None)

    def _message(self, state: CarriedState, backward: Event) -> str:
        names = " and ".join(f"`{name}`" for name in state.names)
        plural = len(state.names) > 1
        call = backward.node
        retained = isinstance(call, cst.Call) and _retains_graph(call)
        return _MESSAGE.format(
            names=names,
            verb="are" if plural else "is",
            call=snippet(self.context.code_for(state.call), 40),
            pronoun="their" if plural else "its",
            pronoun_object="them" if plural else "it",
            effect=_RETAINED if retained else _RAISES,
        )

    def _fix(self, state: CarriedState, loop: cst.CSTNode, scope) -> Optional[FixPlan]:
        body = loop.body
        if not isinstance(body, cst.IndentedBlock) or not body.body:
            return None
        if len(state.names) != 1:
            return None
        (name,) = state.names
        starts = [value for value in self.context.scopes.of(scope).assigned(name) if value is not state.assignment.value]
        if not starts or not all(self.context.values.is_tensor(value, scope) for value in starts):
            return None
        return self.unsafe_fix(f"Detach `{name}` at the top of the iteration", InsertLineBefore(body.body[0], f"{name} = {name}.detach()"))


def _retains_graph(call: cst.Call) -> bool:
    flag = keyword_arg(call, "retain_graph")
    return flag is not None and is_bool_literal(flag.value, True)
