from __future__ import annotations

import libcst as cst

from gradlint.analysis.data_attr import scalar_read
from gradlint.analysis.scalars import Accumulator, Kind
from gradlint.analysis.syntax import method_call_on
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = "`{read}` raises IndexError on a 0-dim tensor since PyTorch 0.4; use `{expr}.item()`"
_ZERO_DIM_RESULT = "`{read}` gives a 0-dim tensor, not a number, since PyTorch 0.4; use `{expr}.item()`"
_NUMPY_SCALAR = "`{read}` gives a numpy scalar, not a Python number; use `{expr}.item()`"
_FIRST_ROW = (
    "`{read}` raises IndexError since PyTorch 0.4 where `{expr}` is 1-D (a reduction over a dim no longer keeps it) "
    "and gives a 0-dim tensor elsewhere; use `{expr}[0].item()`"
)
_ACCUMULATOR = "`{read}` raises IndexError since PyTorch 0.4: `{name}` sums 0-dim tensors; read `{name}.item()`"


class LegacyScalarIndex(Rule):
    """
    ## What it does
    Flags the PyTorch 0.3 number reads `x.data[0]`, `x.data.numpy()[0]`, `x.data.cpu().numpy()[0]`
    and `x.cpu().data.numpy()[0]` of a one-number tensor (a loss, a full reduction, a sampled
    action, the argmax of one row, `torch.Tensor([v])`, a value backpropagated without a gradient),
    `x.data[0][0]` (the first row's number, from when reductions over a dim kept it),
    `total_loss[0]` on a sum of losses' `.data` (`total_loss += loss.data`), and `x[0]` of a value
    0-dim by how it is made: `prec1[0]` where `prec1 = accuracy(out, y)[0]` and `accuracy`
    returns a list of `correct[:k].view(-1).float().sum(0)` (a 1-D sum over its one dim).

    ## Why is this bad?
    Since PyTorch 0.4 a loss is a 0-dim tensor. In torch 2.13, `loss.data[0]` raises
    `IndexError: invalid index of a 0-dim tensor. Use tensor.item() in Python ...`. On a 1-element
    1-dim tensor (a sampled action of shape `(1,)`) it returns a 0-dim tensor, not a number: as a
    dict key it misses (`KeyError: tensor(2)`), `"%s" % t` prints `tensor(2)`, and environments
    reject it. `x.data.numpy()[0]` raises `IndexError: too many indices for array` on a 0-dim
    tensor, or gives a numpy scalar. `x.item()` returns the Python number (`float`, or `int` for an
    integer tensor) and does not warn.

    ## Example
    ```python
    running_loss += loss.data[0]
    ```

    ## Use instead
    ```python
    running_loss += loss.item()
    ```

    ## Fix safety
    Safe on 0-dim values (losses, full reductions, accumulated losses): the original raises and
    `.item()` returns the number 0.3 read. An accumulator is migrated as a whole and stays a
    tensor: every `total_loss += loss.data` becomes `+= loss.detach()` (`+= loss` where the loss
    provably has no history, as under `torch.no_grad()` over a data loader's batches) and every
    `total_loss[0]` becomes `total_loss.item()`. 0.3 summed the one-element losses in their dtype
    (`0 + t` made a new tensor, then `+=` added in place) and read the float at `[0]`; the 0-dim
    sum today adds the same values in the same dtype and order (`len(x) * loss` stays float32), so
    every read is bitwise 0.3's, however often the sum is reset to a number and read (measured
    under torch 2.13 on pytorch/examples' word_language_model `evaluate`, a small LSTM on random
    tokens: `0x1.f0a3c88888889p+1` under 0.3's meaning and after the fix, where summing `.item()`s
    in float64 gives `0x1.f0a3cd2aaaaabp+1`). Where a `+=` also
    adds a Python number (`loss.item()`), the fix sums `.item()`s in float64 and reads
    `total_loss`: unsafe, the last bits of the sum differ.
    `x[0]` of a value 0-dim by construction raises IndexError for every value: `.item()` is safe,
    except inside a `try` with handlers (code that catches the error and goes on with the tensor).
    On one-element values the fix is safe where the result is the same (`int(...)`, `float(...)`,
    `str.format` and f-string arguments) and unsafe elsewhere: the original still runs and gives a
    0-dim tensor (or a numpy scalar), the fix gives the number the code meant. It is safe also
    where the read reaches nothing but `env.step` of an environment made by
    `gym.make("CartPole-v0")` (`CartPole-v1`, `MountainCar-v0`; `gymnasium.make` too), directly or
    as the result of a function every call of which hands it only to such steps
    (`action = select_action(state)` then `env.step(action)`): their `step` begins with
    `assert self.action_space.contains(action)`, and `Discrete.contains` accepts only an `int` or a
    0-dim numpy integer (openai/gym's `gym/envs/classic_control/cartpole.py` and `mountain_car.py`
    with `gym/spaces/discrete.py`, v0.9.5 to 0.26.2; Gymnasium 1.3's), so the original raises
    AssertionError for every value and `.item()` passes the int 0.3 passed. In a file that
    never imports torch, where a value is one number only by its name (`cost.data[0]` of a record
    whose `.data` is a list), the fix is unsafe: `.item()` raises on such objects.
    `x.data[0][0]` of a value with dimensions becomes `x[0].item()`, unsafe: it raises where `x`
    is 1-D (`torch.max(out, 1)[1]` of a 2-D `out`) and `x[0].item()` reads the number meant, but
    where `x` has two dims the read still runs (a 0-dim tensor) and `x[0].item()` raises on a row
    of several numbers.

    ## Known limits
    Only expressions that evidently hold one number are reported: losses (criterion calls, also
    through `.forward`, functional losses, names like `loss` or `val_loss`), values backpropagated
    without a gradient (`out.backward()`, `out` bound once in the function), full reductions (`.sum()`, `.argmax()`;
    read as `v.max().data[0]` even when `v`'s type is unknown, since no other type's reduction has
    an indexable `.data`, unless `v` evidently comes from numpy or another library),
    sampled actions (`multinomial`, a `torch.distributions` sample), tensors built from one literal
    element, and names bound to them. The indices of a reduction over a dim (`out.max(1)[1]`,
    `out.argmax(1)`) are reported only where the read is used as a number (`int()`, a key, a
    format argument, `env.step`). `output.data[0]` (the first row of a batch), `.data[0, 0]`,
    `.data[:5]`, `.data[i]`, `dataset.data[0]` and `self.data[0]` are left alone, as is any write
    such as `x.data[0] = 1`. An accumulator is migrated only when it is set to numbers, grows by
    `+=` of losses' `.data` (possibly times a number) and is read only as `total_loss[0]` or
    `total_loss.data[0]` in the same function (`print(total_loss)` of the tensor is left as it is).
    A loss the history proof does not reach (a model and batches passed in as arguments) is added
    as `.detach()`, even under `torch.no_grad()`. `x[0]` without `.data` is reported only where `x`
    is 0-dim by construction (a full reduction, a reduction over the one dim of a 1-D shape, a
    criterion module, an element of a list a function of the file fills only with such values),
    never by a name. An action is followed to `env.step` only through a name bound to the
    environment in the scope or at module level (not `self.env`, nor a wrapper), and through a
    function's result only in a whole run (no other file may call it); the environments listed are
    those whose step was read. Under `python -O` the environments' asserts are stripped and the
    original runs (`action == 1` compares the tensor): the fix still gives the number meant.
    """

    code = "GL103"
    name = "legacy-scalar-index"
    summary = "`x.data[0]` instead of `x.item()`"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("[0]",)

    VALID = (
        "first = dataset.data[0]\n",
        "row = self.data[0]\n",
        "top = output.data[0]\n",
        "v = loss.data[0, 0]\n",
        "v = loss.data[:5]\n",
        "v = loss.data[i]\n",
        "loss.data[0] = 1.0\n",
        """
        import numpy as np
        a = np.zeros(3)
        v = a.sum().data[0]
        """,
        """
        losses = []
        v = losses.data[0]
        """,
        """
        pred = output.max(1)[1]
        first = pred.data[0]
        """,
        """
        import pandas as pd
        frame = pd.read_csv(path)
        top = frame.max().data[0]
        counts = args.counts.sum().data[0]
        """,
        """
        sizes = [3, 4]
        n = sizes[0]
        """,
        """
        probs = model(x)
        first_row = probs.data.cpu().numpy()[0]
        """,
        """
        total_loss = 0
        total_loss += loss.data
        print(total_loss)
        """,
        """
        import torch.nn as nn
        distance = nn.L1Loss(reduction="none")
        gap = distance(fake, real)
        first = gap.data[0]
        """,
        """
        import torch
        outputs = []
        outputs = torch.cat(outputs)
        first = outputs.data[0]
        """,
        # A module's `.forward` that is no loss: its first output row.
        """
        def run(model, x):
            output = model.forward(x)
            return output.data[0]
        """,
        """
        import torch.nn as nn
        loss = nn.CrossEntropyLoss(reduction="none")
        def per_sample(out, y):
            losses = loss.forward(out, y)
            return losses.data[0]
        """,
        # Backpropagated with a gradient: any shape.
        """
        def step(net, x, grad):
            out = net(x)
            out.backward(grad)
            return out.data[0]
        """,
        # Rebound after the backward: the read may see another value.
        """
        def step(net, x):
            out = net(x)
            out.backward()
            out = net(x)
            return out.data[0]
        """,
        """
        import torch
        def rows(out):
            pred = out.max(1)[1]
            return pred.data[0][0] + 1
        """,
        "first = self.data[0][0]\n",
        "first = dataset.data[0][0]\n",
        # `x[0]` of a 1-D sum of a 2-D tensor, or of a value 0-dim only by its name: an element.
        """
        import torch
        x = torch.rand(3, 4)
        column_sums = x.sum(0)
        first = column_sums[0]
        """,
        """
        loss = compute(x)
        first = loss[0]
        """,
    )
    INVALID = (
        # a read too long for the message: its value is elided, never replaced by another name
        Invalid(
            """
            import torch
            total = criterion(model(inputs_of_the_batch), targets_of_the_batch).data[0]
            """,
            """
            import torch
            total = criterion(model(inputs_of_the_batch), targets_of_the_batch).item()
            """,
            message="`(...).data[0]` raises IndexError on a 0-dim tensor since PyTorch 0.4; use `(...).item()`",
        ),
        Invalid("total += loss.data[0]\n", "total += loss.item()\n"),
        Invalid(
            """
            def peak(values):
                return values.max().data[0]
            """,
            """
            def peak(values):
                return values.max().item()
            """,
        ),
        Invalid(
            """
            loss = criterion(out, y)
            print(loss.data[0])
            """,
            """
            loss = criterion(out, y)
            print(loss.item())
            """,
        ),
        Invalid(
            """
            import torch.nn.functional as F
            t = F.nll_loss(out, y).data[0]
            """,
            """
            import torch.nn.functional as F
            t = F.nll_loss(out, y).item()
            """,
        ),
        Invalid(
            """
            correct = pred.eq(target).sum()
            n = correct.data[0]
            """,
            """
            correct = pred.eq(target).sum()
            n = correct.item()
            """,
        ),
        Invalid(
            """
            loss = criterion(out, y)
            a = loss.data.numpy()[0]
            b = loss.cpu().data.numpy()[0]
            """,
            """
            loss = criterion(out, y)
            a = loss.item()
            b = loss.item()
            """,
            message="raises IndexError on a 0-dim tensor",
        ),
        Invalid(
            """
            from torch.distributions import Categorical
            action = Categorical(probs).sample()
            state, reward, done, _ = env.step(action.data[0])
            """,
            """
            from torch.distributions import Categorical
            action = Categorical(probs).sample()
            state, reward, done, _ = env.step(action.item())
            """,
            message="gives a 0-dim tensor, not a number",
        ),
        Invalid(
            """
            pred = output.max(1)[1]
            label = classes[pred.data[0]]
            """,
            """
            pred = output.max(1)[1]
            label = classes[pred.item()]
            """,
        ),
        Invalid(
            """
            import torch
            scale = torch.Tensor([0.5])
            print("%.2f" % scale.data[0])
            """,
            """
            import torch
            scale = torch.Tensor([0.5])
            print("%.2f" % scale.item())
            """,
        ),
        Invalid(
            """
            total_loss = 0
            for x, y in loader:
                total_loss += criterion(model(x), y).data
            print(total_loss[0] / len(loader))
            """,
            """
            total_loss = 0
            for x, y in loader:
                total_loss += criterion(model(x), y).detach()
            print(total_loss.item() / len(loader))
            """,
            message="`total_loss` sums 0-dim tensors; read `total_loss.item()`",
            fix_title="Keep `total_loss` a tensor and read `total_loss.item()`",
        ),
        # Losses without history (autograd off, a data loader's batches): added as they are.
        Invalid(
            """
            import torch
            from torch.utils.data import DataLoader
            @torch.no_grad()
            def evaluate(model, criterion, dataset):
                total_loss = 0
                for x, y in DataLoader(dataset):
                    total_loss += len(x) * criterion(model(x), y).data
                return total_loss[0] / len(dataset)
            """,
            """
            import torch
            from torch.utils.data import DataLoader
            @torch.no_grad()
            def evaluate(model, criterion, dataset):
                total_loss = 0
                for x, y in DataLoader(dataset):
                    total_loss += len(x) * criterion(model(x), y)
                return total_loss.item() / len(dataset)
            """,
            line=8,
            column=12,
            fix_title="Keep `total_loss` a tensor and read `total_loss.item()`",
        ),
        # A Python number added too: no float32 sum to keep; the float64 one is unsafe.
        Invalid(
            """
            total = 0
            for x, y in loader:
                total += criterion(model(x), y).data
                total += penalty(x).item()
            print(total[0])
            """,
            """
            total = 0
            for x, y in loader:
                total += criterion(model(x), y).item()
                total += penalty(x).item()
            print(total)
            """,
            fix_title="Accumulate `.item()` and read `total`",
        ),
        Invalid(
            """
            import torch.nn as nn
            distance = nn.L1Loss()
            gap = distance(fake.mean(0), real.mean(0))
            gaps.append(gap.data[0])
            """,
            """
            import torch.nn as nn
            distance = nn.L1Loss()
            gap = distance(fake.mean(0), real.mean(0))
            gaps.append(gap.item())
            """,
            message="raises IndexError on a 0-dim tensor",
        ),
        Invalid(
            """
            import torch
            def finish_episode(log_probs, rewards):
                policy_loss = []
                for log_prob, reward in zip(log_probs, rewards):
                    policy_loss.append(-log_prob * reward)
                policy_loss = torch.cat(policy_loss).sum()
                return policy_loss.data[0]
            """,
            """
            import torch
            def finish_episode(log_probs, rewards):
                policy_loss = []
                for log_prob, reward in zip(log_probs, rewards):
                    policy_loss.append(-log_prob * reward)
                policy_loss = torch.cat(policy_loss).sum()
                return policy_loss.item()
            """,
        ),
        Invalid(
            """
            from torch.distributions import Categorical
            def select_action(probs):
                action = Categorical(probs).sample()
                return action.data[0]
            """,
            """
            from torch.distributions import Categorical
            def select_action(probs):
                action = Categorical(probs).sample()
                return action.item()
            """,
            message="gives a 0-dim tensor, not a number",
        ),
        # A criterion's `.forward` is its call spelt out: the result is a loss, whatever its name.
        Invalid(
            """
            def train(model, loss, optimizer, x, y):
                fx = model.forward(x)
                output = loss.forward(fx, y)
                output.backward()
                optimizer.step()
                return output.data[0]
            """,
            """
            def train(model, loss, optimizer, x, y):
                fx = model.forward(x)
                output = loss.forward(fx, y)
                output.backward()
                optimizer.step()
                return output.item()
            """,
            message="raises IndexError on a 0-dim tensor",
        ),
        Invalid(
            """
            import torch.nn as nn
            measure = nn.MSELoss()
            def fit(net, x, y):
                cost = measure.forward(net(x), y)
                return cost.data[0]
            """,
            """
            import torch.nn as nn
            measure = nn.MSELoss()
            def fit(net, x, y):
                cost = measure.forward(net(x), y)
                return cost.item()
            """,
        ),
        # Backpropagated without a gradient: one number, 0-dim or of shape (1,).
        Invalid(
            """
            def step(net, x):
                score = net(x)
                score.backward()
                return score.data[0]
            """,
            """
            def step(net, x):
                score = net(x)
                score.backward()
                return score.item()
            """,
            message="gives a 0-dim tensor, not a number",
        ),
        # `x.data[0][0]`: the first row's number, from when reductions over a dim kept it.
        Invalid(
            """
            import torch
            def predict(model, word, idx_to_word):
                out = model(word)
                _, predict_label = torch.max(out, 1)
                return idx_to_word[predict_label.data[0][0]]
            """,
            """
            import torch
            def predict(model, word, idx_to_word):
                out = model(word)
                _, predict_label = torch.max(out, 1)
                return idx_to_word[predict_label[0].item()]
            """,
            message="raises IndexError since PyTorch 0.4 where `predict_label` is 1-D",
            fix_title="Replace with `predict_label[0].item()`",
        ),
        Invalid(
            """
            loss = criterion(out, y)
            print(loss.data[0][0])
            """,
            """
            loss = criterion(out, y)
            print(loss.item())
            """,
        ),
        # `x[0]` of an element of a list of 0-dim sums: 0.3's one-element tensor read as a number.
        Invalid(
            """
            def accuracy(output, target):
                correct = output.max(1)[1].eq(target)
                res = []
                res.append(correct.view(-1).float().sum(0))
                return res
            prec1 = accuracy(output, target)[0]
            top1.update(prec1[0], n)
            """,
            """
            def accuracy(output, target):
                correct = output.max(1)[1].eq(target)
                res = []
                res.append(correct.view(-1).float().sum(0))
                return res
            prec1 = accuracy(output, target)[0]
            top1.update(prec1.item(), n)
            """,
            line=7,
            column=13,
            message="`prec1[0]` raises IndexError on a 0-dim tensor",
            fix_title="Replace with `prec1.item()`",
        ),
        # A sampled action stepping CartPole, whose `step` asserts the action is an int.
        Invalid(
            """
            import gym
            from torch.distributions import Categorical
            env = gym.make("CartPole-v0")
            def select_action(probs):
                action = Categorical(probs).sample()
                return action.data[0]
            def run(state):
                action = select_action(state)
                return env.step(action)
            """,
            """
            import gym
            from torch.distributions import Categorical
            env = gym.make("CartPole-v0")
            def select_action(probs):
                action = Categorical(probs).sample()
                return action.item()
            def run(state):
                action = select_action(state)
                return env.step(action)
            """,
            line=6,
            column=12,
            message="gives a 0-dim tensor, not a number",
        ),
        # One number only by its name, in a file that never imports torch: `.item()` is unsafe.
        Invalid(
            """
            cost = Result([0.5])
            print(cost.data[0])
            """,
            """
            cost = Result([0.5])
            print(cost.item())
            """,
        ),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._is_written():
            return
        read = scalar_read(self.context, self.context.stack)
        if read is None:
            return
        value = self.context.code_for(read.value)
        shown = self._shown(self.context.code_for(node), value)
        if read.accumulator is not None:
            self._report_accumulator(node, read.accumulator, shown)
            return
        replacement = method_call_on(read.number_of, "item")
        title = f"Replace with `{snippet(self.context.code_for(replacement), 60)}`"
        # A one-number tensor by the scalar evidence; `.item()` raises on an object that only reads like one.
        safe = read.safe and not self.context.contradicts_tensor(read.value) and not (read.data is None and self._handles_index_error())
        fix = (self.safe_fix if safe else self.unsafe_fix)(title, Replace(node, replacement))
        if read.kind is Kind.ZERO_DIM:
            template = _MESSAGE
        elif read.row:
            template = _FIRST_ROW
        else:
            template = _NUMPY_SCALAR if read.data is not node.value else _ZERO_DIM_RESULT
        self.report(node, template.format(read=shown, expr=snippet(value, 40, "(...)")), fix)

    @staticmethod
    def _shown(read: str, value: str) -> str:
        """The read as written, or, when too long for a message, its value elided: `(...).data[0]`."""
        tail = read[len(value) :] if read.startswith(value) else ".data[0]"
        return snippet(read, 40, "(...)" + snippet(tail, 35))

    def _report_accumulator(self, node: cst.Subscript, accumulator: Accumulator, shown: str) -> None:
        # Every read and every addition in one fix: the sum is a tensor or a number, never both.
        name = accumulator.name
        known = not any(self.context.contradicts_tensor(data.value) for data in accumulator.additions)
        if accumulator.adds_numbers:
            # Python numbers are added too (`loss.item()`): no float32 sum to keep, only a float64 one to offer.
            changes = [Replace(read, cst.Name(name)) for read in accumulator.reads]
            changes += [Replace(data, method_call_on(data.value, "item")) for data in accumulator.additions]
            fix = self.unsafe_fix(f"Accumulate `.item()` and read `{name}`", *changes)
        else:
            # 0.3 summed one-element tensors in their own dtype: the sum stays a tensor, read once at the end.
            changes = [Replace(read, method_call_on(cst.Name(name), "item")) for read in accumulator.reads]
            changes += [Replace(data, self._added_tensor(data)) for data in accumulator.additions]
            fix = (self.safe_fix if known else self.unsafe_fix)(f"Keep `{name}` a tensor and read `{name}.item()`", *changes)
        self.report(node, _ACCUMULATOR.format(read=shown, name=name), fix)

    def _added_tensor(self, data: cst.Attribute) -> cst.BaseExpression:
        """`loss.data` added to the sum: `loss` where it provably has no history, else `loss.detach()`.
        `0 + loss` makes a new tensor, so the sum never shares the loss's storage either way."""
        receiver = data.value
        return receiver if self.context.is_history_free(receiver) else method_call_on(receiver, "detach")

    def _handles_index_error(self) -> bool:
        """Inside a `try` with handlers: code written for both versions may catch the IndexError
        of `x[0]` on a 0-dim value and go on with the tensor, where `.item()` gives a number."""
        return any(isinstance(ancestor, cst.Try) and ancestor.handlers for ancestor in self.context.stack)

    def _is_written(self) -> bool:
        parent = self.context.parent()
        return isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is self.context.stack[-1]
        )
