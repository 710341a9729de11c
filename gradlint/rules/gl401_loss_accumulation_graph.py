from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.batch_loops import combined_in, iterates_batches
from gradlint.analysis.evaluation import is_test_module
from gradlint.analysis.functions import mentioned_keys
from gradlint.analysis.grad_mode import decorated_like_no_grad
from gradlint.analysis.scopes import self_name
from gradlint.analysis.syntax import dotted_name, method_call_on
from gradlint.analysis.syntax import iter_statements
from gradlint.analysis.training import OPTIMISING, Kind
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{target}` accumulates a tensor that carries its autograd graph, so every iteration's graph stays "
    "alive and memory grows; accumulate `{value}.detach()` (or `.item()` for logging)"
)


class LossAccumulationGraph(Rule):
    """
    ## What it does
    Flags a graph-carrying tensor (a loss, a model output) accumulated into something that outlives
    an optimisation step: `total += loss`, `total = total + loss`, `losses.append(loss)`,
    `self.history["loss"].append(loss)`, `stats["loss"] += loss`, `ema = 0.9 * ema + 0.1 * loss`,
    inside a loop that backpropagates or steps an optimizer, or that runs once per batch or epoch.

    ## Why is this bad?
    The total keeps a reference to each iteration's graph (its `grad_fn` chain grows by one node
    per step), so the activations of every batch stay in memory: in torch 2.13, collecting the
    outputs of 20 batches kept 20 of 20 input batches alive, against 0 with `.detach()`. Training
    slows down and eventually runs out of memory, with correct-looking numbers.

    ## Example
    ```python
    total_loss = 0
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total_loss += loss
    ```

    ## Use instead
    ```python
        total_loss += loss.detach()   # or loss.item() for a Python float
    ```

    ## Fix safety
    Safe where the added value is evidently a tensor in torch code: `.detach()` gives the same
    value, dtype and device, and a tensor stays a tensor; only the graph is dropped. (`.item()`
    would change the type to a Python float.) Unsafe where only the evidence of a graph says so (a
    method of another file named like a loss, `self.compute_loss(x, y)`, a function of the file
    named like a loss whose returns show no tensor, or a file that never imports torch):
    `.detach()` raises AttributeError on anything but a tensor.

    ## Known limits
    Not reported: Python numbers and other libraries' values, which keep no graph (a helper of the
    file that returns `float(...)`, `loss.item() * x.size(0)`, a sum of `.item()`s or a total of
    them, a name last set to `loss.item()`, or `np.mean(...)`, also when the caller names its
    result `loss`), accumulation under `torch.no_grad()` (or a decorator named like it, such as
    `@smart_inference_mode()`), values already `.item()`/`.detach()`/`float(...)`, totals reset
    unconditionally in every iteration (a reset under `if` is still reported, except the
    gradient-accumulation case below), totals (or lists)
    that are backpropagated after the loop, which is an intended multi-term loss, and loops that
    neither backpropagate, step an optimizer nor iterate batches or epochs: terms summed over layers
    or scales and returned, tiles or chunks concatenated in the same call, U-Net skips, residual
    updates. A loop over batches that combines what it gathers with `cat`/`stack`/`sum` in the same
    function (chunked inference) is not reported either. Without a loop, only an attribute of
    `self` filled by a method that itself backpropagates or steps is reported. A value is known to
    carry a graph by its source (a model or loss call, a function of the file returning one) or
    because the code backpropagates that very binding (`logits, loss = model(x, y)` ...
    `loss.backward()`); a loss read only as an attribute of a model's output and never
    backpropagated in the same function (`total += model(**batch).loss`) is not reported. Whether a
    helper's total is a graph-free loss builder is decided by where its result is backpropagated,
    never by the name a caller gives it.

    Gradient accumulation is not reported when the total is reset in the branch that steps the
    optimizer and the term added is backpropagated in the same iteration, without
    `retain_graph=True` (`running_loss += loss` next to `loss.backward()`, or a term of the loss
    that is backpropagated): the backward frees the graph's saved tensors, and what the total
    keeps until the reset is a few autograd nodes per micro-batch of one window (measured in
    torch 2.13: 0 of 20 inputs kept alive). A total reset only where it is logged, or never, is
    still reported: its chain of nodes grows with every iteration in between. Test modules
    (`test_*.py`, `*_test.py`, as pytest collects them) are not checked: a test keeps a few steps'
    losses to assert on them, and frees them when it ends.
    """

    code = "GL401"
    name = "loss-accumulation-graph"
    summary = "graph-carrying loss accumulated across iterations"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("+=", "append", "= ")

    VALID = (
        """
        params = []
        for p in model.parameters():
            params.append(p)
        """,
        """
        def get_loss(outputs):
            loss = 0.0
            for value in outputs:
                loss += criterion(value, target)
            return loss
        total = get_loss(model(x))
        total.backward()
        """,
        """
        total = 0
        for x, y in data:
            loss = criterion(model(x), y)
            total += loss.item()
        """,
        """
        import torch
        total = 0
        with torch.no_grad():
            for x, y in data:
                loss = criterion(model(x), y)
                total += loss
        """,
        """
        total = 0
        for x, y in data:
            loss = criterion(model(x), y)
            total += loss
        total.backward()
        """,
        """
        losses = []
        for x, y in data:
            losses.append(criterion(model(x), y))
        sum(losses).backward()
        """,
        """
        for x, y in data:
            step = 0
            step += criterion(model(x), y)
            step.backward()
        """,
        """
        total = 0
        for x in data:
            total += len(x)
        """,
        """
        class T:
            def fit(self, data):
                for x, y in data:
                    self.losses.append(self.criterion(self.model(x), y))
                torch.stack(self.losses).mean().backward()
        """,
        """
        for x, y in data:
            with ctx:
                total = 0
            total += criterion(model(x), y)
        """,
        # Tiles decoded and concatenated in the same call; a chunked prediction over a loader.
        """
        def tiled_decode(self, z):
            row = []
            for j in range(0, z.shape[3], self.tile):
                row.append(self.decoder(z[..., j : j + self.tile]))
            return torch.cat(row, dim=3)
        """,
        """
        def predict(model, loader):
            outputs = []
            for batch in loader:
                outputs.append(model(batch))
            return torch.cat(outputs)
        """,
        # Terms summed over scales in a loss function, returned to a caller that backpropagates elsewhere.
        """
        def losses(prediction, target, scales):
            stats = {"loss": 0}
            for scale in scales:
                stats["loss"] += F.l1_loss(pool(prediction, scale), pool(target, scale))
            return stats
        """,
        # A residual update and a running average over layers in one forward pass.
        """
        def forward(self, x):
            h = x
            for layer in self.layers:
                x = x + layer(x)
                h = 0.5 * h + 0.5 * layer(x)
            return x, h
        """,
        """
        class T:
            def fit(self, loader):
                for x, y in loader:
                    loss = self.criterion(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()
                    self.history["loss"].append(loss.item())
                    self.ema = 0.9 * self.ema + 0.1 * loss.item()
        """,
        # A validation step run without backward: the outputs are combined at the end of the epoch.
        """
        class Module:
            def validation_step(self, batch):
                x, y = batch
                self.outputs.append(self.model(x))
        """,
        # The file's own helpers return Python floats (a sum of `.item()`s, a total of them, `float()`):
        # named like losses, they keep no graph, and `.detach()` would raise AttributeError on them.
        """
        def train_loss(model, batch):
            losses = [criterion(model(x), y) for x, y in batch]
            sum(losses).backward()
            optimizer.step()
            return sum(l.item() for l in losses)
        running = 0.0
        for batch in loader:
            running += train_loss(model, batch)
        """,
        """
        def epoch_loss(model, loader):
            total = 0.0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += loss.item()
            return total / len(loader)
        running_loss = 0.0
        for epoch in range(10):
            loss = epoch_loss(model, loader)
            running_loss += loss
        """,
        """
        class Trainer:
            def loss_fn(self, x, y):
                return float(self.criterion(self.model(x), y))

            def fit(self, loader):
                for x, y in loader:
                    self.model(x).sum().backward()
                    self.optimizer.step()
                    self.losses.append(self.loss_fn(x, y))
        """,
        # More helpers of the file returning numbers: a weighted `.item()`, a name last set to
        # `.item()`, a NumPy mean. None is a tensor, and `.detach()` would raise on each.
        """
        import torch
        def sample_loss(model, x, y):
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            return loss.item() * x.size(0)
        total = 0.0
        for x, y in loader:
            total += sample_loss(model, x, y)
        """,
        """
        import torch
        def step_loss(model, x, y):
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            loss = loss.item()
            return loss
        total = 0.0
        for x, y in loader:
            total += step_loss(model, x, y)
        """,
        """
        import numpy as np
        import torch
        def batch_loss(model, batch):
            losses = []
            for x, y in batch:
                loss = criterion(model(x), y)
                loss.backward()
                losses.append(loss.item())
            optimizer.step()
            return np.mean(losses)
        total = 0.0
        for batch in loader:
            total += batch_loss(model, batch)
        """,
        # A loss turned into a Python float before it is added, in the loop itself.
        """
        import torch
        running_loss = 0.0
        for i, (x, y) in enumerate(loader):
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            loss = loss.item()
            running_loss += loss
        """,
        """
        import torch
        running_loss = 0.0
        for x, y in loader:
            loss = criterion(model(x), y).item()
            running_loss += loss
        """,
        # The loss is set afresh earlier in the iteration, under the same `if`, before the prior term is added.
        """
        for batch in loader:
            pred = model(batch)
            if prior:
                pred, pred_prior = pred.chunk(2)
                loss = criterion(pred, batch)
                loss = loss + weight * criterion(pred_prior, batch)
            else:
                loss = criterion(pred, batch)
            booster.backward(loss, optimizer)
            optimizer.step()
        """,
        # Gradient accumulation: each micro-batch's loss is backpropagated (its saved tensors freed)
        # and the total is reset where the optimizer steps, so it spans one accumulation window.
        """
        import torch
        running_loss, num_tokens = 0.0, 0
        for idx, batch in enumerate(loader):
            class_loss, kd_loss = loss_step(batch)
            running_class_loss += class_loss * n
            current_loss = 0.5 * class_loss + 0.5 * kd_loss
            running_loss += current_loss
            current_loss.backward()
            if (idx + 1) % accumulation_steps == 0:
                print(running_loss.item(), running_class_loss.item())
                optimizer.step()
                optimizer.zero_grad()
                running_loss, num_tokens = 0.0, 0
                running_class_loss = 0
        """,
        # A wrapping optimizer's backward (ColossalAI, apex's FP16_Optimizer) backpropagates the total.
        """
        total = 0
        for batch in loader:
            total = total + criterion(model(batch), batch)
            if step % 4 == 3:
                optimizer.backward(total)
                optimizer.step()
                total = 0
        """,
    )
    INVALID = (
        Invalid(
            """
            def evaluate(loader):
                total = 0
                for x, y in loader:
                    total += criterion(model(x), y)
                return total
            """,
            """
            def evaluate(loader):
                total = 0
                for x, y in loader:
                    total += criterion(model(x), y).detach()
                return total
            """,
        ),
        Invalid(
            """
            import torch
            total = 0
            for x, y in data:
                loss = criterion(model(x), y)
                loss.backward()
                total += loss
            """,
            """
            import torch
            total = 0
            for x, y in data:
                loss = criterion(model(x), y)
                loss.backward()
                total += loss.detach()
            """,
        ),
        Invalid(
            """
            losses = []
            for x, y in data:
                loss = criterion(model(x), y)
                losses.append(loss)
            """,
            """
            losses = []
            for x, y in data:
                loss = criterion(model(x), y)
                losses.append(loss.detach())
            """,
        ),
        Invalid(
            """
            total = 0
            for x, y in data:
                total = total + criterion(model(x), y)
            """,
            """
            total = 0
            for x, y in data:
                total = total + criterion(model(x), y).detach()
            """,
        ),
        # A reset under `if` still lets the total carry the graphs of every iteration in between.
        Invalid(
            """
            running = 0
            for i, (x, y) in enumerate(data):
                loss = criterion(model(x), y)
                loss.backward()
                running += loss
                if i % 100 == 99:
                    print(running / 100)
                    running = 0
            """,
            """
            running = 0
            for i, (x, y) in enumerate(data):
                loss = criterion(model(x), y)
                loss.backward()
                running += loss.detach()
                if i % 100 == 99:
                    print(running / 100)
                    running = 0
            """,
        ),
        # Reset where the optimizer steps, but the backward keeps the graph (`retain_graph=True`):
        # every micro-batch's saved tensors stay alive until the reset.
        Invalid(
            """
            import torch
            running = 0
            for i, (x, y) in enumerate(data):
                loss = criterion(model(x), y)
                loss.backward(retain_graph=True)
                running += loss
                if i % 8 == 7:
                    optimizer.step()
                    running = 0
            """,
            """
            import torch
            running = 0
            for i, (x, y) in enumerate(data):
                loss = criterion(model(x), y)
                loss.backward(retain_graph=True)
                running += loss.detach()
                if i % 8 == 7:
                    optimizer.step()
                    running = 0
            """,
        ),
        # A loss unpacked from the model's output and scaled for accumulation: backpropagated, so it
        # carries a graph, and the epoch's total keeps all of them.
        Invalid(
            """
            import torch
            loss_accum = 0.0
            for i, (x, y) in enumerate(loader):
                logits, loss = model(x, y)
                loss = loss / accum_steps
                loss.backward()
                loss_accum += loss
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            """
            import torch
            loss_accum = 0.0
            for i, (x, y) in enumerate(loader):
                logits, loss = model(x, y)
                loss = loss / accum_steps
                loss.backward()
                loss_accum += loss.detach()
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
            """,
            line=7,
            column=5,
            fix_title="Accumulate `loss.detach()`",
        ),
        # A model output's `.loss`, backpropagated by accelerate, in a total reset only under `if`.
        Invalid(
            """
            import torch
            running_loss = 0.0
            for i, batch in enumerate(train_dataloader):
                outputs = model(**batch)
                loss = outputs.loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
                running_loss += loss
                if i % 100 == 99:
                    print(running_loss / 100)
                    running_loss = 0.0
            """,
            """
            import torch
            running_loss = 0.0
            for i, batch in enumerate(train_dataloader):
                outputs = model(**batch)
                loss = outputs.loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
                running_loss += loss.detach()
                if i % 100 == 99:
                    print(running_loss / 100)
                    running_loss = 0.0
            """,
            line=9,
            column=5,
        ),
        # The helper's own facts decide: its caller naming the total `loss` backpropagates nothing.
        Invalid(
            """
            import torch
            def train(model, loader):
                running_loss = 0.0
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    running_loss += loss
                return running_loss
            for epoch in range(10):
                loss = train(model, loader)
                print(loss)
            """,
            """
            import torch
            def train(model, loader):
                running_loss = 0.0
                for x, y in loader:
                    optimizer.zero_grad()
                    loss = criterion(model(x), y)
                    loss.backward()
                    optimizer.step()
                    running_loss += loss.detach()
                return running_loss
            for epoch in range(10):
                loss = train(model, loader)
                print(loss)
            """,
            line=9,
            column=9,
        ),
        # A function of the file named like a loss whose returns show no tensor: only its name says
        # graph, so `.detach()` is offered as an unsafe fix.
        Invalid(
            """
            import torch
            def batch_loss(results, i):
                return results[i]
            total = 0
            for i, batch in enumerate(loader):
                model(batch).sum().backward()
                optimizer.step()
                total += batch_loss(results, i)
            """,
            """
            import torch
            def batch_loss(results, i):
                return results[i]
            total = 0
            for i, batch in enumerate(loader):
                model(batch).sum().backward()
                optimizer.step()
                total += batch_loss(results, i).detach()
            """,
            line=8,
            column=5,
            fix_title="Accumulate `batch_loss(results, i).detach()`",
        ),
        # `self.scaler.scale(loss).backward()` mentions `self`, not `self.losses`.
        Invalid(
            """
            class T:
                def fit(self, data):
                    for x, y in data:
                        loss = self.criterion(self.model(x), y)
                        self.scaler.scale(loss).backward()
                        self.losses.append(loss)
            """,
            """
            class T:
                def fit(self, data):
                    for x, y in data:
                        loss = self.criterion(self.model(x), y)
                        self.scaler.scale(loss).backward()
                        self.losses.append(loss.detach())
            """,
        ),
        # A trainer's history dict keeps every step's graph.
        Invalid(
            """
            class T:
                def fit(self, loader):
                    for x, y in loader:
                        loss = self.criterion(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        self.history["loss"].append(loss)
            """,
            """
            class T:
                def fit(self, loader):
                    for x, y in loader:
                        loss = self.criterion(self.model(x), y)
                        loss.backward()
                        self.optimizer.step()
                        self.history["loss"].append(loss.detach())
            """,
        ),
        Invalid(
            """
            stats = {"loss": 0}
            for x, y in train_loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                stats["loss"] += loss
            """,
            """
            stats = {"loss": 0}
            for x, y in train_loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                stats["loss"] += loss.detach()
            """,
        ),
        # An exponential moving average chains every step's graph to the previous one.
        Invalid(
            """
            import torch
            ema = 0.0
            for x, y in train_loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                ema = 0.9 * ema + 0.1 * loss
            """,
            """
            import torch
            ema = 0.0
            for x, y in train_loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                ema = 0.9 * ema + (0.1 * loss).detach()
            """,
        ),
        # Evidence of a graph but not of a tensor (a method of another file, named like a loss; a file
        # that never imports torch): reported, with `.detach()` as an unsafe fix.
        Invalid(
            """
            import torch
            class T:
                def fit(self, loader):
                    for x, y in loader:
                        self.compute_loss(x, y).backward()
                        self.optimizer.step()
                        self.losses.append(self.compute_loss(x, y))
            """,
            """
            import torch
            class T:
                def fit(self, loader):
                    for x, y in loader:
                        self.compute_loss(x, y).backward()
                        self.optimizer.step()
                        self.losses.append(self.compute_loss(x, y).detach())
            """,
        ),
        # A training step method called once per batch: the attribute outlives the call.
        Invalid(
            """
            class T:
                def train_step(self, x, y):
                    loss = self.criterion(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()
                    self.losses.append(loss)
            """,
            """
            class T:
                def train_step(self, x, y):
                    loss = self.criterion(self.model(x), y)
                    loss.backward()
                    self.optimizer.step()
                    self.losses.append(loss.detach())
            """,
        ),
    )

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
            self._check(node.target, node.value, node)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) != 1 or not isinstance(node.value, cst.BinaryOperation):
            return
        target, value = node.targets[0].target, node.value
        key = self._key(target)
        if key is not None and isinstance(value.operator, (cst.Add, cst.Subtract)) and self._is_kept_term(value.left, key):
            self._check(target, value.right, node)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "append" and len(node.args) == 1 and not node.args[0].keyword:
            self._check(func.value, node.args[0].value, node)

    def _check(self, target: cst.BaseExpression, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        key, root = self._key(target), _root(target)
        if key is None or root is None or self.context.without_grad() or self._in_no_grad_like_function():
            return
        if is_test_module(self.context.path):
            return  # a test's few steps: what it keeps is freed with the test
        # Where the total lives (in a loop, or on `self` in a method) is read off the stack: asked
        # before what the value is, which needs the value analysis.
        loops = _enclosing_loops(self.context.stack)
        method = None if loops else self._method_keeping(root)
        if not loops and (method is None or not self.context.may_optimise):
            return
        if self._is_leaf(value) or not self.context.carries_grad(value):
            return
        if method is not None:
            if not self._optimises(method):
                return
        elif not self._kept_across_steps(loops, key, root, node, value):
            return
        if self._backpropagated(root) or self._returned(root):
            return
        detached = method_call_on(value, "detach")
        shown = snippet(self.context.code_for(detached.func.value), 40, "value")  # `(0.1 * loss)` keeps its parentheses
        # `.detach()` raises on anything but a tensor: safe only where the evidence says tensor.
        make = self.safe_fix if self.context.is_known_tensor(value) else self.unsafe_fix
        fix = make(f"Accumulate `{shown}.detach()`", Replace(value, detached))
        self.report(node, _MESSAGE.format(target=key, value=shown), fix)

    def _key(self, target: cst.BaseExpression) -> Optional[str]:
        """`total`, `self.losses`, or `stats["loss"]` (a subscript by a constant or a name)."""
        if isinstance(target, cst.Subscript):
            root = dotted_name(target.value)
            if root is None or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
                return None
            index = target.slice[0].slice.value
            if not isinstance(index, (cst.SimpleString, cst.Integer, cst.Name)):
                return None
            return f"{root}[{self.context.code_for(index)}]"
        return dotted_name(target)

    def _is_kept_term(self, term: cst.BaseExpression, key: str) -> bool:
        """`total` in `total = total + loss`, `0.9 * ema` in `ema = 0.9 * ema + 0.1 * loss`."""
        if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, (cst.Multiply, cst.Divide)):
            return self._key(term.left) == key or (isinstance(term.operator, cst.Multiply) and self._key(term.right) == key)
        return self._key(term) == key

    def _outlives_step(self, loop: cst.CSTNode, root: str) -> bool:
        """The loop is an optimisation loop, or runs once per batch or epoch and keeps what it
        gathers (rather than combining it with `cat`/`stack`/`sum` in the same call, as chunked
        inference does)."""
        if self.context.training.optimises(loop):
            return True
        scope = self.context.scope()
        return iterates_batches(loop, self.context.scopes, scope) and not combined_in(scope, root)

    def _kept_across_steps(self, loops: list[cst.CSTNode], key: str, root: str, node: cst.CSTNode, value: cst.BaseExpression) -> bool:
        """The innermost of `loops` (innermost first) that outlives a step keeps the total: it
        exists, and neither it nor a loop inside it resets the total. An inner loop over the
        step's own values (`for term in terms:`) adds each of them to a total that lives on."""
        for loop in loops:
            if self._reset_inside(loop, key, root) or self._reset_before(node, loop, key):
                return False
            if self._outlives_step(loop, root):
                return not self._bounded_by_accumulation_window(loop, key, root, value)
        return False

    def _bounded_by_accumulation_window(self, loop: cst.CSTNode, key: str, root: str, value: cst.BaseExpression) -> bool:
        """The total is reset in the branch that steps the optimizer, and the term added is part of
        a graph the same iteration backpropagates: that backward frees the graph's saved tensors,
        so the total keeps a few autograd nodes per micro-batch of one accumulation window."""
        statements = list(iter_statements(loop.body.body)) if isinstance(loop.body, cst.IndentedBlock) else []
        return self._reset_where_optimizer_steps(statements, key, root) and self._term_backpropagated(statements, value)

    def _reset_where_optimizer_steps(self, statements: list[cst.CSTNode], key: str, root: str) -> bool:
        scope = self.context.enclosing_function()
        for statement in statements:
            if not isinstance(statement, cst.If) or not isinstance(statement.body, cst.IndentedBlock):
                continue
            branch = statement.body.body
            kinds = {event.kind for event in self.context.training.events_in(branch, scope)}
            # `self._optimizer.step()` of an optimizer built elsewhere: a step next to a gradient reset.
            steps = Kind.STEP in kinds or {Kind.OTHER_STEP, Kind.RESET} <= kinds
            if steps and any(self._resets_in(small, key, root) for small in iter_statements(branch)):
                return True
        return False

    def _resets_in(self, statement: cst.CSTNode, key: str, root: str) -> bool:
        """`total = 0`, or `total, count = 0.0, 0`."""
        if not isinstance(statement, cst.Assign):
            return False
        if self._resets(statement, key, (key, root)):
            return True
        return any(
            isinstance(target.target, cst.Tuple)
            and any(self._key(element.value) in (key, root) for element in target.target.elements)
            and isinstance(statement.value, cst.Tuple)
            for target in statement.targets
        )

    def _term_backpropagated(self, statements: list[cst.CSTNode], term: cst.BaseExpression) -> bool:
        """A backward call of the iteration, without `retain_graph`, on the term or on a value the
        iteration computes from it (`current = a * class_loss + b * kd_loss`)."""
        terms = mentioned_keys(term)
        for statement in statements:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for site in self.context.training.backward_sites_in(statement):
                if site.tensor is None or site.retains_graph is not False:
                    continue
                backed = mentioned_keys(site.tensor)
                for assignment in statements:
                    if isinstance(assignment, cst.Assign) and any(mentioned_keys(t.target) & backed for t in assignment.targets):
                        backed |= mentioned_keys(assignment.value)
                if terms & backed:
                    return True
        return False

    # `self.losses.append(loss)` in a method that itself backpropagates or steps: the method runs
    # once per batch and the attribute keeps every batch's graph.
    def _method_keeping(self, root: str) -> Optional[cst.FunctionDef]:
        """The method around the visited node when `root` is an attribute of its `self`."""
        function = self.context.enclosing_function()
        receiver = self_name(function) if function is not None and self.context.enclosing_class() is not None else None
        return function if receiver is not None and root.startswith(f"{receiver}.") else None

    def _optimises(self, method: cst.FunctionDef) -> bool:
        return any(event.kind in OPTIMISING for event in self.context.training.events_of(method))

    def _in_no_grad_like_function(self) -> bool:
        function = self.context.enclosing_function()
        return function is not None and decorated_like_no_grad(function)

    def _is_leaf(self, value: cst.BaseExpression) -> bool:
        """A parameter or buffer itself (`params.append(p)`, `.weight`): a leaf holds no graph."""
        return self.context.values.is_parameter(value, self.context.scope())

    def _returned(self, key: str) -> bool:
        """`return total` from a function whose result the file backpropagates: a loss builder."""
        scope = self.context.scope()
        if not isinstance(scope, cst.FunctionDef):
            return False
        summary = self.context.functions.of(scope)
        return any(key in mentioned_keys(value) for value in summary.returns) and summary.result_reaches_backward

    def _backpropagated(self, key: str) -> bool:
        """The total (or a value built from it) is the loss of a backward call in this scope."""
        scope = self.context.scope()
        body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
        keys = {key}
        for statement in iter_statements(body):  # one level of `total = sum(losses)`
            if isinstance(statement, cst.Assign) and keys & mentioned_keys(statement.value):
                keys |= {k for t in statement.targets for k in mentioned_keys(t.target)}
        sites = (site for statement in body for site in self.context.training.backward_sites_in(statement))
        return any(site.tensor is not None and keys & mentioned_keys(site.tensor) for site in sites)

    def _reset_before(self, node: cst.CSTNode, loop: cst.CSTNode, key: str) -> bool:
        """`loss = criterion(...)` earlier in the blocks around `node`, in the same iteration of
        `loop` (`loss = loss + prior` under the `if` that first set `loss`): the total is built
        afresh in every iteration that reaches `node`."""
        stack = self.context.stack
        around = reversed(stack[:-1]) if stack and stack[-1] is node else None  # the visited node's holders
        for position in self.context.nodes.positions_in_body(node, around):
            for statement in _unconditional_statements(position.earlier):
                if isinstance(statement, cst.Assign) and self._resets(statement, key, (key,)):
                    return True
            if position.owner is loop:
                return False
        return False

    def _resets(self, statement: cst.Assign, key: str, targets: tuple[str, ...]) -> bool:
        """`statement` binds one of `targets` (the total, or what holds it) to a value that does not
        keep the total (`total = 0`, not `total = total + x`)."""
        if not any(self._key(t.target) in targets for t in statement.targets):
            return False
        value = statement.value
        return not (isinstance(value, cst.BinaryOperation) and self._is_kept_term(value.left, key))

    def _reset_inside(self, loop: cst.CSTNode, key: str, root: str) -> bool:
        """`total = 0` (or `stats = {}` for `stats["loss"]`) run by every iteration: the total does
        not outlive the iteration.

        Only unconditional statements of the loop body count (`with` blocks included): a reset under
        `if i % 100 == 99:` still lets the total carry up to 100 iterations' graphs.
        """
        for statement in _unconditional_statements(loop.body.body if isinstance(loop.body, cst.IndentedBlock) else ()):
            if isinstance(statement, cst.Assign) and self._resets(statement, key, (key, root)):
                return True
        return False


def _root(target: cst.BaseExpression) -> Optional[str]:
    """The dotted name holding the accumulator: `stats` for `stats["loss"]`."""
    return dotted_name(target.value if isinstance(target, cst.Subscript) else target)


def _enclosing_loops(stack) -> list[cst.CSTNode]:
    """The loops around the visited node in its function, innermost first."""
    loops = []
    for node in reversed(stack):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)):
            break
        if isinstance(node, (cst.For, cst.While)):
            loops.append(node)
    return loops


def _unconditional_statements(body):
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, cst.With) and isinstance(statement.body, cst.IndentedBlock):
            yield from _unconditional_statements(statement.body.body)
