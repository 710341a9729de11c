from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence, Union

import libcst as cst

from gradlint.analysis.functions import CallSite, argument_for, only_called
from gradlint.analysis.grad_mode import may_enable_grad
from gradlint.analysis.legacy import is_variable, literal_flag, variable_arguments, volatile_argument
from gradlint.analysis.regions import (
    Placement,
    bound_names,
    binding_values,
    contains,
    continuation,
    derived_names,
    holds_only,
    mentions,
    outer_stores,
    overlap,
    own_nodes,
    path_to,
    placements,
    reads_before_rebinding,
    returned_values,
    scope_depth,
    stable_derived_names,
    use_runs,
    uses,
    yields_or_awaits,
)
from gradlint.analysis.roles import NOT_OPTIMIZER, OPTIMIZER, is_fresh_state_method
from gradlint.analysis.syntax import iter_statements
from gradlint.analysis.training import Kind
from gradlint.fix.builders import call_without_argument, decorate_with_no_grad, indentation, render_at, rewrite_within, wrap_in_no_grad
from gradlint.fix.plan import Applicability, Availability, Change, Replace, ReplaceLines
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule


_LOST = "`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost and a graph is built"
_FIXABLE = _LOST + "; run the computation under `torch.no_grad()`"
_UNFIXABLE = _LOST + "; run the code that uses the value under `with torch.no_grad():` and drop `volatile=` (not automatic: {})"
_ALREADY = "`volatile=True` has no effect since PyTorch 0.4, and this code already runs under `torch.no_grad()`"
_FALSE = "`volatile=False` has no effect since PyTorch 0.4 (it was the default)"
_CONDITIONAL = (
    "`volatile={}` has had no effect since PyTorch 0.4; run the code that uses the value under "
    "`torch.set_grad_enabled({})` and drop `volatile=`"
)
_PARAMETER = (
    "`volatile={flag}` has had no effect since PyTorch 0.4; `{flag}` is a parameter of `{function}`: drop `volatile=` here, "
    "and where a call of `{function}` passes a true `{flag}`, run the code that uses what it returns under `torch.no_grad()`"
)
_PARAMETER_FIXABLE = (
    "`volatile={flag}` has had no effect since PyTorch 0.4: the calls of `{function}` that pass a true `{flag}` "
    "lost their no-grad intent; run the code that uses what they return under `torch.no_grad()`"
)
_PARAMETER_UNUSED = "`volatile={flag}` has no effect since PyTorch 0.4, and no call of `{function}` passes a true `{flag}`"
_RAISES = (
    "`volatile=` with a true `requires_grad` raises `ValueError` in torch 2.13; drop `volatile=`, and run inference under `torch.no_grad()`"
)

# Words of a function name that say it evaluates: `test`, `evaluate`, `validate_epoch`, `runInference`.
EVALUATION_WORDS = frozenset(
    {"eval", "evaluate", "evaluation", "test", "testing", "val", "valid", "validate", "validation", "infer", "inference"}
    | {"predict", "prediction", "sample", "sampling", "generate"}
)
# Methods that torch calls for the model's forward pass: turning grad off there stops training.
FORWARD_METHODS = frozenset({"forward", "__call__"})
_BLOCKING_EVENTS = {
    Kind.BACKWARD: "it calls `.backward()`",
    Kind.OTHER_BACKWARD: "it calls `.backward()`",
    Kind.STEP: "it steps an optimizer",
    Kind.UPDATE: "it updates parameters from their gradients",
}


@dataclass(frozen=True)
class _Region:
    """Statements to run under no_grad: a whole function, a loop, or statements of one block."""

    kind: str  # "function", "loop", "span" (from the call to its last use), "uses" (its uses only),
    # "runs" (its uses only, each run of them wrapped on its own: the `parts`) or "run" (one of those)
    statements: Sequence[cst.BaseStatement]
    path: Sequence[Placement]  # the placements down to the block that holds the statements
    scope: Optional[cst.FunctionDef]  # the function the statements are in (None: the module)
    scope_depth: int  # the stack index of the scope's body
    first: int  # the index of the first statement in its block
    binding: Optional[cst.BaseStatement] = None  # "uses": the statement that binds the volatile value
    seed: frozenset[str] = frozenset()  # "uses", "run": the names bound to the volatile value before the region
    parts: Sequence[_Region] = ()  # "runs": the runs
    ancestors: Sequence[cst.CSTNode] = ()  # "run": the nodes from the module down to its block
    anchors: Sequence[cst.Call] = ()  # calls of a function of the file that hand out a volatile value


@dataclass(frozen=True)
class _Plan:
    """The no-grad form chosen for one volatile value: the fix's title, its changes, the region."""

    title: str
    changes: Sequence[Change]
    region: _Region


class VolatileFlag(Rule):
    """
    ## What it does
    Flags the `volatile` argument of a `torch.autograd.Variable(...)` call.

    ## Why is this bad?
    `volatile=True` used to switch off graph building for inference. Since PyTorch 0.4 it does
    nothing but warn (`UserWarning: volatile was removed and now has no effect`): in torch 2.13,
    `Variable(x, volatile=True) * w` with `w` requiring grad still gives an output with
    `requires_grad=True`, so every evaluation batch builds an autograd graph that keeps its input
    and intermediate results alive as long as the output is. Together with a true
    `requires_grad` it raises `ValueError`.

    ## Example
    ```python
    from torch.autograd import Variable

    def test(model, loader):
        for images, labels in loader:
            x = Variable(images, volatile=True)
            print(model(x).data.max(1)[1])
    ```

    ## Use instead
    ```python
    import torch

    @torch.no_grad()
    def test(model, loader):
        for images, labels in loader:
            print(model(images).data.max(1)[1])
    ```

    ## Fix safety
    Unsafe for `volatile=True`: the fix restores what the flag meant. The values computed under
    `torch.no_grad()` are bitwise the same, but they no longer require grad, have no `grad_fn`
    and keep no graph (nor the batches it holds), so code that backpropagates through them would
    now raise. The fix runs the code that uses the value under `torch.no_grad()` and removes the
    `volatile=` argument, leaving the `Variable(...)` call to GL101. It picks the smallest clear
    form: `@torch.no_grad()` right above the `def` of an evaluation function (named like `test`,
    `evaluate`, `validate`, `predict`, `sample`, or with the call at its top level); else
    `with torch.no_grad():` around the innermost loop that holds the call; else around the
    statements of the call's block from the call to the last use of the value, or only around
    the uses when the call just binds the value. When the uses are spread through training code
    (a test set scored every few steps of a training loop), each run of statements that uses the
    value or what is computed from it is wrapped on its own, inside the loops and `if`s that
    train, in one fix: all runs or none. `import torch` is added when missing, and the
    file's own alias is used otherwise. A form is used only when nothing in it calls
    `.backward()` or `torch.autograd.grad`, steps an optimizer, updates parameters from their
    gradients, sets `requires_grad`, turns grad back on or yields; and when no value that may
    hold a graph leaves it: read after it, stored on `self` or into an object from outside
    (`results.append(out)`), or returned when it does not come from the volatile value or a
    caller in the file backpropagates through the result (a value computed from the volatile one
    never had a graph in the legacy program; for a run, a name that only ever holds values
    computed from the volatile one may be read after it too: its readers are runs themselves).
    A value without autograd history (`.data`, `.item()`, a loader's batch, the indices of
    `max`), a list filled only with such values (`pred += list(out.data.max(1)[1])`) and a
    recurrent network's fresh state (`model.hidden = model.init_hidden()`) hold no graph and
    may leave. Never inside a model's `forward`.

    When the flag is a parameter of its function (`def get_batch(source, i, evaluation=False)`
    passing `volatile=evaluation`), its callers choose the mode: the fix removes `volatile=` there
    and runs each call that passes a true flag, with the code that uses its result, under
    `torch.no_grad()` by the same policy (the function's signature stays). It does so only when
    every call is known: a module-level function that no other file of the run imports, used in
    its file only by calling it, each call passing a literal flag or the default. When no call
    passes a true flag, removing the argument changes nothing (safe).

    When no form qualifies, the finding stays, with what to do and why it was not done. Safe where
    the code already runs under `torch.no_grad()`, and for `volatile=False`: the argument is
    removed, which changes nothing.

    ## Known limits
    A flag that is not a literal (`volatile=not train`) is reported with the
    `torch.set_grad_enabled` to use, but not fixed. A flag that is a parameter of a method, or of a
    function passed around, called with a computed flag, or imported by another file, is reported
    with what to do: the no-grad code belongs at the calls that pass a true flag. Another file
    reaching the function as a module attribute (`import data; data.get_batch(...)`) is not seen.
    A fresh state is known by its method's name (`init_hidden`, `initHidden`, `zero_state`,
    `begin_state`): one that returns a learned initial state stored on the model would lose its
    graph in that store. Uses spread through training code are not wrapped when a use cannot be
    separated from training (the statement that calls `.backward()` reads the value), a name
    also holds other values, or a value computed from the volatile one is stored into an object
    from outside the run (`layer_inputs.append(out)`). Values leaving the code through objects the
    analysis does not follow (an alias of `self`, a closure called later) are not seen. Reading
    or assigning `x.volatile` (always False, no effect) is not reported.
    """

    code = "GL102"
    name = "volatile-flag"
    summary = "`volatile=` has no effect since PyTorch 0.4"
    migration = "variable"
    fixes_first = True
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("Variable",)

    VALID = (
        """
        from torch.autograd import Variable
        x = Variable(t)
        """,
        """
        import tensorflow as tf
        v = tf.Variable(1, volatile=True)
        """,
        """
        def f(volatile=True):
            return g(volatile=volatile)
        """,
    )
    INVALID = (
        # An evaluation function: decorated.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def test(model, loader):
                correct = 0
                for images, labels in loader:
                    x = Variable(images, volatile=True)
                    correct += model(x).data.max(1)[1].eq(labels).sum()
                return correct
            """,
            """
            import torch
            from torch.autograd import Variable

            @torch.no_grad()
            def test(model, loader):
                correct = 0
                for images, labels in loader:
                    x = Variable(images)
                    correct += model(x).data.max(1)[1].eq(labels).sum()
                return correct
            """,
            line=7,
            column=30,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run `test` under `torch.no_grad()` and drop `volatile=`",
        ),
        # Training and evaluation in one function: the evaluation loop is wrapped.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def main(model, optimizer, loader):
                for x, y in loader:
                    loss = model(Variable(x)).sub(y).pow(2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                for x, y in loader:
                    # score the trained model
                    out = model(Variable(x, volatile=True))
                    print(out.data.sub(y).pow(2).mean())
            """,
            """
            import torch
            from torch.autograd import Variable

            def main(model, optimizer, loader):
                for x, y in loader:
                    loss = model(Variable(x)).sub(y).pow(2).mean()
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                with torch.no_grad():
                    for x, y in loader:
                        # score the trained model
                        out = model(Variable(x))
                        print(out.data.sub(y).pow(2).mean())
            """,
            line=12,
            column=33,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run the loop under `torch.no_grad()` and drop `volatile=`",
        ),
        # Script code: the statements that use the value are wrapped.
        Invalid(
            """
            from torch.autograd import Variable

            model = load_model()
            x = Variable(test_images, volatile=True)
            scores = model(x)
            print(scores.data.max(1)[1])
            """,
            """
            import torch
            from torch.autograd import Variable

            model = load_model()
            with torch.no_grad():
                x = Variable(test_images)
                scores = model(x)
                print(scores.data.max(1)[1])
            """,
            line=4,
            column=27,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run the code that uses it under `torch.no_grad()` and drop `volatile=`",
        ),
        # A test set scored every few steps of a training loop: each run of uses is wrapped.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            test_x = Variable(test_images, volatile=True)
            for step, (x, y) in enumerate(loader):
                loss = loss_func(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if step % 50 == 0:
                    test_output = model(test_x)
                    accuracy = (test_output.max(1)[1] == test_y).float().mean()
                    print(step, loss.item(), accuracy.item())
            prediction = model(test_x[:10]).max(1)[1]
            print(prediction)
            """,
            """
            import torch
            from torch.autograd import Variable

            test_x = Variable(test_images)
            for step, (x, y) in enumerate(loader):
                loss = loss_func(model(x), y)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                if step % 50 == 0:
                    with torch.no_grad():
                        test_output = model(test_x)
                        accuracy = (test_output.max(1)[1] == test_y).float().mean()
                        print(step, loss.item(), accuracy.item())
            with torch.no_grad():
                prediction = model(test_x[:10]).max(1)[1]
                print(prediction)
            """,
            line=4,
            column=32,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run each piece of code that uses it under `torch.no_grad()` and drop `volatile=`",
        ),
        # Training between the binding and the use: only the use is wrapped.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def train(netG, netD, optimizer, batches):
                fixed_noise = Variable(torch.randn(64, 100), volatile=True)
                for batch in batches:
                    loss = netD(netG(torch.randn(64, 100))).mean()
                    loss.backward()
                    optimizer.step()
                samples = netG(fixed_noise).data
                save(samples)
            """,
            """
            import torch
            from torch.autograd import Variable

            def train(netG, netD, optimizer, batches):
                fixed_noise = Variable(torch.randn(64, 100))
                for batch in batches:
                    loss = netD(netG(torch.randn(64, 100))).mean()
                    loss.backward()
                    optimizer.step()
                with torch.no_grad():
                    samples = netG(fixed_noise).data
                    save(samples)
            """,
            line=5,
            column=50,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run the code that uses it under `torch.no_grad()` and drop `volatile=`",
        ),
        Invalid(
            """
            import torch
            x = torch.autograd.Variable(t, False, True)
            y = model(x)
            """,
            """
            import torch
            with torch.no_grad():
                x = torch.autograd.Variable(t, False)
                y = model(x)
            """,
            line=2,
            column=39,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run the code that uses it under `torch.no_grad()` and drop `volatile=`",
        ),
        # Already under no_grad, and a False flag: the argument is just removed.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            with torch.no_grad():
                out = model(Variable(t, volatile=True))
            """,
            """
            import torch
            from torch.autograd import Variable

            with torch.no_grad():
                out = model(Variable(t))
            """,
            line=5,
            column=29,
            message="this code already runs under `torch.no_grad()`",
            fix_title="Remove `volatile=True`",
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            x = Variable(t, volatile=False)
            """,
            """
            import torch
            from torch.autograd import Variable

            x = Variable(t)
            """,
            line=4,
            column=17,
            message="`volatile=False` has no effect since PyTorch 0.4",
            fix_title="Remove `volatile=False`",
        ),
        # Where no_grad would change what the code relies on: reported, not fixed.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def step(model, optimizer, x):
                out = model(Variable(x, volatile=True))
                out.sum().backward()
                optimizer.step()
            """,
            line=5,
            column=29,
            message="(not automatic: it calls `.backward()`)",
        ),
        Invalid(
            """
            from torch.autograd import Variable

            class Tracker(object):
                def record(self, model, batch):
                    x = Variable(batch, volatile=True)
                    self.last_output = model(x)
            """,
            line=5,
            column=29,
            message="(not automatic: it stores a value that may hold a graph in `self.last_output`)",
        ),
        Invalid(
            """
            import torch
            from torch import nn
            from torch.autograd import Variable

            class Net(nn.Module):
                def forward(self, x):
                    h = Variable(torch.zeros(1, 8), volatile=True)
                    return self.rnn(x, h)
            """,
            line=7,
            column=41,
            message="(not automatic: it is inside `forward`, the model's forward pass)",
        ),
        Invalid(
            """
            from torch.autograd import Variable

            def batch(source, i, evaluation=False):
                return Variable(source[i], volatile=evaluation)
            """,
            line=4,
            column=32,
            message="`evaluation` is a parameter of `batch`: drop `volatile=` here, and where a call of `batch` passes a true `evaluation`",
        ),
        # The flag is a parameter: the calls that pass a true one run under no_grad.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def get_batch(source, i, evaluation=False):
                return Variable(source[i], volatile=evaluation)

            def evaluate(model, source):
                total = 0
                for i in range(len(source)):
                    total += model(get_batch(source, i, evaluation=True)).data.sum()
                return total

            def train(model, optimizer, source):
                for i in range(len(source)):
                    loss = model(get_batch(source, i)).sum()
                    loss.backward()
                    optimizer.step()
            """,
            """
            import torch
            from torch.autograd import Variable

            def get_batch(source, i, evaluation=False):
                return Variable(source[i])

            @torch.no_grad()
            def evaluate(model, source):
                total = 0
                for i in range(len(source)):
                    total += model(get_batch(source, i, evaluation=True)).data.sum()
                return total

            def train(model, optimizer, source):
                for i in range(len(source)):
                    loss = model(get_batch(source, i)).sum()
                    loss.backward()
                    optimizer.step()
            """,
            line=5,
            column=32,
            message="the calls of `get_batch` that pass a true `evaluation` lost their no-grad intent",
            fix_title="Drop `volatile=evaluation` and run the calls of `get_batch` that pass a true `evaluation` under `torch.no_grad()`",
        ),
        Invalid(
            """
            from torch.autograd import Variable

            def get_batch(source, i, evaluation=False):
                return Variable(source[i], volatile=evaluation)

            def run(model, source, training):
                return [model(get_batch(source, i, evaluation=not training)) for i in range(len(source))]
            """,
            line=4,
            column=32,
            message="(not automatic: a call of `get_batch` does not pass a literal `evaluation`)",
        ),
        # Lists filled with values without history do not hold a graph: the evaluation loop of a
        # training function is wrapped.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            def main(model, optimizer, loader):
                for sentences, labels in loader:
                    model.hidden = model.init_hidden()
                    model(Variable(sentences)).sum().backward()
                    optimizer.step()
                truth, pred = [], []
                for sentences, labels in loader:
                    model.hidden = model.init_hidden()
                    scores = model(Variable(sentences, volatile=True))
                    truth += list(labels)
                    pred += list(scores.data.max(1)[1])
                print(accuracy(truth, pred))
            """,
            """
            import torch
            from torch.autograd import Variable

            def main(model, optimizer, loader):
                for sentences, labels in loader:
                    model.hidden = model.init_hidden()
                    model(Variable(sentences)).sum().backward()
                    optimizer.step()
                truth, pred = [], []
                with torch.no_grad():
                    for sentences, labels in loader:
                        model.hidden = model.init_hidden()
                        scores = model(Variable(sentences))
                        truth += list(labels)
                        pred += list(scores.data.max(1)[1])
                print(accuracy(truth, pred))
            """,
            line=12,
            column=44,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run the loop under `torch.no_grad()` and drop `volatile=`",
        ),
        # A list that also receives a value with a graph not computed from the volatile one (the
        # weights' norm) is used after the loop: not fixed.
        Invalid(
            """
            from torch.autograd import Variable

            losses = []
            for x, y in test_batches:
                out = model(Variable(x, volatile=True))
                losses += [criterion(out, y)]
                losses += [model.weight.norm()]
            print(sum(losses))
            """,
            line=5,
            column=29,
            message="(not automatic: `losses` is used after it and may hold a graph)",
        ),
        Invalid(
            """
            from torch.autograd import Variable

            def batch(source, i, mode):
                evaluation = mode == "test"
                return Variable(source[i], volatile=evaluation)
            """,
            line=5,
            column=32,
            message="run the code that uses the value under `torch.set_grad_enabled(not evaluation)`",
        ),
        Invalid(
            """
            from torch.autograd import Variable
            x = Variable(t, volatile=True, requires_grad=True)
            """,
            line=2,
            column=17,
            message="`volatile=` with a true `requires_grad` raises `ValueError`",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not is_variable(node.func, self.context.imports):
            return
        argument = volatile_argument(node)
        if argument is None:
            return
        flag = literal_flag(argument.value)
        without = Replace(node, call_without_argument(node, argument))
        if flag is False:
            self.report(argument, _FALSE, self.safe_fix("Remove `volatile=False`", without))
        elif flag is None:
            function = self._parameter_owner(argument.value)
            if function is not None:
                self._report_parameter(node, argument, function)
            else:
                self.report(argument, _CONDITIONAL.format(*self._conditional(argument.value)))
        elif not _flag_alone(node):
            self.report(argument, _RAISES)
        elif self.context.without_grad():
            self.report(argument, _ALREADY, self.safe_fix("Remove `volatile=True`", without))
        else:
            plan, reason = self._no_grad_plan(self.context.stack)
            fix = self.unsafe_fix(plan.title, *plan.changes) if plan is not None else None
            self.report(argument, _FIXABLE if fix is not None else _UNFIXABLE.format(reason), fix)

    # -- a flag that is a parameter of its function ---------------------------------------------

    def _report_parameter(self, call: cst.Call, argument: cst.Arg, function: cst.FunctionDef) -> None:
        flag, name = argument.value.value, function.name.value
        sites, reason = self._flag_calls(function, flag)
        if sites is None:
            self.report(argument, _PARAMETER.format(flag=flag, function=name) + f" (not automatic: {reason})")
            return
        dropped = Replace(call, call_without_argument(call, argument))
        if not sites:  # every call passes a false flag, or already runs under no_grad
            self.report(argument, _PARAMETER_UNUSED.format(flag=flag, function=name), self.safe_fix(f"Remove `volatile={flag}`", dropped))
            return
        changes, reason = self._callers_changes(sites, name)
        if changes is None:
            self.report(argument, _PARAMETER.format(flag=flag, function=name) + f" (not automatic: {reason})")
            return
        title = f"Drop `volatile={flag}` and run the calls of `{name}` that pass a true `{flag}` under `torch.no_grad()`"
        self.report(argument, _PARAMETER_FIXABLE.format(flag=flag, function=name), self.unsafe_fix(title, dropped, *changes))

    def _flag_calls(self, function: cst.FunctionDef, flag: str) -> tuple[Optional[list[CallSite]], str]:
        """The calls of `function` that pass a true `flag` with grad on; None (and why) when not every
        call of it is known, or one passes a flag that is not a literal."""
        name = function.name.value
        if self.context.function_table.module_level.get(name) is not function:
            return None, f"`{name}` is not a function of the module, so its calls are not all known"
        project = self.context.project
        if project is not None and name in project.reimported:
            return None, f"another file imports `{name}`"
        sites = self.context.functions.of(function).call_sites
        if not only_called(self.context.module, function, sites):
            return None, f"`{name}` is used other than by calling it"
        if not sites:
            return None, f"`{name}` is not called in this file"
        true_sites = []
        for site in sites:
            value = argument_for(site.call, function, flag)
            passed = literal_flag(value) if value is not None else None
            if passed is None:
                return None, f"a call of `{name}` does not pass a literal `{flag}`"
            if passed and not site.without_grad:
                true_sites.append(site)
        return true_sites, ""

    def _callers_changes(self, sites: Sequence[CallSite], name: str) -> tuple[Optional[list[Change]], str]:
        """The changes that run each call in `sites` and the code that uses its result under
        no_grad, by the same policy as for a `Variable(..., volatile=True)` written there."""
        plans = []
        for site in sites:
            stack = path_to(self.context.module, site.call)
            plan, reason = self._no_grad_plan(stack, (site.call,)) if stack is not None else (None, "it cannot be located")
            if plan is None:
                where = f"in `{site.scope.name.value}`" if site.scope is not None else "at module level"
                return None, f"for the call of `{name}` {where}, {reason}"
            plans.append(plan)
        kept: list[_Plan] = []
        for plan in sorted(plans, key=lambda plan: -_size(plan.region)):
            if not any(contains(other.region.statements, plan.region.statements) for other in kept):  # two calls in one loop: wrapped once
                kept.append(plan)
        if overlap([plan.region.statements for plan in kept]):
            return None, f"the code around the calls of `{name}` overlaps"
        changes: list[Change] = []
        seen: set[tuple] = set()
        for plan in kept:
            for change in plan.changes:
                key = _change_key(change)
                if key not in seen:  # `import torch` comes once
                    seen.add(key)
                    changes.append(change)
        return changes, ""

    def _parameter_owner(self, flag: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The function whose parameter the flag is (`def to_var(x, volatile=False)`): its callers
        choose the mode, so the no-grad code is at the calls, not here."""
        scope = self.context.scope()
        if not isinstance(flag, cst.Name) or not isinstance(scope, cst.FunctionDef):
            return None
        params = scope.params
        names = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
        return scope if flag.value in names and flag.value not in bound_names(_body_of(scope)) else None

    def _conditional(self, flag: cst.BaseExpression) -> tuple[str, str]:
        """The flag as written, and the grad mode it asked for: `not train` -> `train`."""
        text = snippet(self.context.code_for(flag), 40, "flag")
        if isinstance(flag, cst.UnaryOperation) and isinstance(flag.operator, cst.Not) and not flag.lpar:
            return text, snippet(self.context.code_for(flag.expression), 40, "...")
        return text, f"not {text}" if isinstance(flag, (cst.Name, cst.Attribute, cst.Call)) else f"not ({text})"

    # -- where no_grad goes ---------------------------------------------------------------------

    def _no_grad_plan(self, stack: Sequence[cst.CSTNode], anchors: Sequence[cst.Call] = ()) -> tuple[Optional[_Plan], str]:
        """The form that runs the volatile value at the end of `stack` (a `Variable` call, or one
        of the `anchors`: calls handing out such a value) under no_grad, and why when none qualifies."""
        path = placements(stack)
        depth = scope_depth(stack, path)
        inner = [placement for placement in path if placement.depth >= depth]
        if (
            not inner
            or isinstance(path[-1].statement, (cst.FunctionDef, cst.ClassDef))
            or any(isinstance(placement.owner, cst.ClassDef) for placement in inner)
            or any(isinstance(node, cst.Lambda) for node in stack[path[-1].depth :])
        ):
            return None, "it is not in a statement of a function or script"
        scope = inner[0].owner if depth else None
        if scope is not None and scope.name.value in FORWARD_METHODS:
            return None, f"it is inside `{scope.name.value}`, the model's forward pass"
        reasons = []
        for region in self._candidates(path, depth, scope, stack, tuple(anchors)):
            reason = self._blocker(region)
            if reason is None:
                plan = self._plan(region, stack)
                if plan is not None:
                    return plan, ""
                reason = "the code cannot be re-indented safely"
            reasons.append(reason)
            if region.kind == "runs":  # the closest the fix came: its reason is the one to act on
                return None, reason
        return None, reasons[0]

    def _candidates(
        self, path: Sequence[Placement], depth: int, scope: Optional[cst.FunctionDef], stack: Sequence[cst.CSTNode], anchors: tuple
    ) -> Iterator[_Region]:
        """The forms to try, smallest clear one first (built lazily: the later ones cost more)."""
        start = next(position for position, placement in enumerate(path) if placement.depth >= depth)
        if scope is not None and (len(path) - start == 1 or _evaluation_name(scope.name.value)):
            yield _Region("function", _body_of(scope), path[: start + 1], scope, depth, path[start].index, anchors=anchors)
        for position in range(len(path) - 1, start - 1, -1):
            placement = path[position]
            if isinstance(placement.statement, (cst.For, cst.While)):
                yield _Region("loop", [placement.statement], path[: position + 1], scope, depth, placement.index, anchors=anchors)
        last = path[-1]
        rest = list(last.block.body)[last.index :]
        sources = self._sources([last.statement], anchors)
        used = uses(rest, sources)
        yield _Region("span", rest[: (used[-1] if used else 0) + 1], path, scope, depth, last.index, anchors=anchors)
        if used and self._binds_only(last.statement, scope):
            seed = frozenset(derived_names(rest[:1], sources))
            statements = rest[used[0] : used[-1] + 1]
            yield _Region("uses", statements, path, scope, depth, last.index + used[0], last.statement, seed, anchors=anchors)
        if used:
            runs = self._runs(path, depth, scope, stack, rest, sources, anchors)
            if runs is not None:
                yield runs

    def _runs(
        self, path: Sequence[Placement], depth: int, scope: Optional[cst.FunctionDef], stack: Sequence[cst.CSTNode], rest, sources, anchors
    ) -> Optional[_Region]:
        """Each run of statements that uses the value (a test set scored inside a training loop),
        when the names bound to it hold values computed from it wherever they are read."""
        names = stable_derived_names(rest, sources)
        if not derived_names(rest[:1], sources) <= names:
            return None
        last = path[-1]
        ancestors = stack[: last.depth + 1]
        trains = lambda statements: self._training_reason(statements, scope) is not None or self._syntax_blocker(statements) is not None  # noqa: E731
        binds_only = self._binds_only(last.statement, scope)  # then it stays outside, like for "uses"
        found = use_runs(path, ancestors, last.index + int(binds_only), names, trains, sources)
        if not found:
            return None
        seed = frozenset(names)
        parts = tuple(
            _Region("run", run.statements, run.path, scope, depth, run.first, seed=seed, ancestors=run.ancestors, anchors=anchors)
            for run in found
        )
        statements = [statement for part in parts for statement in part.statements]
        binding = last.statement if binds_only else None
        return _Region("runs", statements, path, scope, depth, last.index, binding, seed, parts, anchors=anchors)

    def _binds_only(self, statement: cst.BaseStatement, function: Optional[cst.FunctionDef]) -> bool:
        """`x = Variable(t, volatile=True)`: it computes nothing that no_grad would change."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Assign)):
            return False
        assign = statement.body[0]
        scope = function if function is not None else self.context.module
        return all(not isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in assign.targets) and self.context.grads.is_graph_free(
            assign.value, scope
        )

    def _volatile_calls(self, statements: Sequence[cst.CSTNode]) -> list[cst.Call]:
        return [node for s in statements for node in own_nodes(s) if isinstance(node, cst.Call) and self._is_volatile_call(node)]

    def _sources(self, statements: Sequence[cst.CSTNode], anchors: Sequence[cst.Call]) -> list[cst.Call]:
        """The nodes in `statements` whose values are volatile: `Variable` calls and `anchors`."""
        anchored = {id(anchor) for anchor in anchors}
        return [
            node
            for s in statements
            for node in own_nodes(s)
            if isinstance(node, cst.Call) and (id(node) in anchored or self._is_volatile_call(node))
        ]

    def _blocker(self, region: _Region) -> Optional[str]:
        """Why running the region under no_grad could change more than the volatile intent."""
        statements = region.statements
        if region.kind == "runs":
            return next(filter(None, map(self._blocker, region.parts)), None)
        if region.kind == "function":
            function = region.scope
            if isinstance(function.asynchronous, cst.Asynchronous):
                return "the function is async"
            if any(may_enable_grad(d.decorator, self.context.imports) for d in function.decorators):
                return "the function turns grad on"
        elif yields_or_awaits(statements):
            return "it yields, and no_grad would stay on in the caller"
        if region.kind in ("span", "uses", "run") and any(
            isinstance(s, (cst.FunctionDef, cst.ClassDef)) or _is_main_guard(s) for s in statements
        ):
            return "the code that uses it defines functions or runs the script's main code"
        return self._training_blocker(region) or self._syntax_blocker(statements) or self._escape_blocker(region)

    def _training_blocker(self, region: _Region) -> Optional[str]:
        return self._training_reason(region.statements, region.scope)

    def _training_reason(self, statements: Sequence[cst.CSTNode], scope: Optional[cst.FunctionDef]) -> Optional[str]:
        for event in self.context.training.events_in(statements, scope):
            if event.kind in _BLOCKING_EVENTS:
                return _BLOCKING_EVENTS[event.kind]
            if event.kind is Kind.OTHER_STEP and _looks_like_optimizer(event.optimizer):
                return "it steps an optimizer"
        return None

    def _syntax_blocker(self, statements: Sequence[cst.BaseStatement]) -> Optional[str]:
        imports = self.context.imports
        for statement in statements:
            for node in own_nodes(statement):
                if isinstance(node, cst.Call):
                    qualified = imports.qualified_name(node.func)
                    if qualified in ("torch.autograd.grad", "torch.autograd.functional.jacobian", "torch.autograd.functional.vjp"):
                        return "it computes gradients"
                    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "requires_grad_":
                        return "it sets `requires_grad`"
                    if may_enable_grad(node, imports):
                        return "it turns grad on"
                    if is_variable(node.func, imports) and volatile_argument(node) is not None and not _removable(node):
                        return "another `Variable` call there has a flag that is not a literal"
                elif isinstance(node, cst.Attribute) and node.attr.value == "requires_grad" and _is_assigned(node, statement):
                    return "it sets `requires_grad`"
        return None

    def _escape_blocker(self, region: _Region) -> Optional[str]:
        """A value whose graph no_grad would remove is seen by code outside the region."""
        statements = region.statements
        scope = region.scope if region.scope is not None else self.context.module
        sources = self._sources(statements, region.anchors)
        derived = derived_names(statements, sources, region.seed) | region.seed
        source_ids = {id(source) for source in sources}
        free = lambda value: self._graph_free(value, scope)  # noqa: E731
        local = bound_names(statements)
        after = [] if region.kind == "function" else continuation(region.path, region.first, len(statements), region.scope_depth)
        escaping = reads_before_rebinding(after, local) | (_declared_outer(region.scope) & local)
        if region.kind == "run":
            # Names that only ever hold values computed from the volatile one are read in runs
            # only: they had no graph in the legacy program, and training code does not read them.
            escaping -= region.seed - _declared_outer(region.scope)
        for name in sorted(escaping):
            values = binding_values(statements, name)
            if values is None or not all(free(value) for value in values):
                return f"`{name}` is used after it and may hold a graph"
        for target, value in outer_stores(statements, local):
            if not free(value):
                return f"it stores a value that may hold a graph in `{snippet(self.context.code_for(target), 30)}`"
        for value in returned_values(statements):
            if free(value):
                continue
            if not mentions(value, derived, source_ids):
                return "it returns a value with a graph that does not come from the volatile one"
            if region.scope is not None and self._caller_may_backpropagate(region.scope):
                return "a caller backpropagates through what it returns"
        return None

    def _graph_free(self, value: cst.BaseExpression, scope) -> bool:
        """`value` has no graph that no_grad would remove: it has none whatever the grad mode, or
        none in the program as it is (the shared history fact), or it is a fresh recurrent state,
        or a Python container holding only such values (`truth += list(labels)`)."""
        context = self.context

        def free(node: cst.BaseExpression) -> bool:
            return context.grads.is_graph_free(node, scope) or context.history.is_history_free(node, scope) or _fresh_state(node, free)

        return free(value) or holds_only(value, free)

    def _caller_may_backpropagate(self, function: cst.FunctionDef) -> bool:
        summary = self.context.functions.of(function)
        if summary.result_reaches_backward:
            return True
        training = self.context.training
        for site in summary.call_sites:
            events = training.events_of(site.scope) if site.scope is not None else training.module_region.events
            if _result_used(site.call, site.scope or self.context.module) and any(e.calls_backward for e in events):
                return True
        return False

    def _is_volatile_call(self, call: cst.Call) -> bool:
        return is_variable(call.func, self.context.imports) and volatile_argument(call) is not None

    # -- the rewrite --------------------------------------------------------------------------

    def _plan(self, region: _Region, stack: Sequence[cst.CSTNode]) -> Optional[_Plan]:
        calls = self._volatile_calls(region.statements)
        if region.kind == "function":
            changes = decorate_with_no_grad(self.context, region.scope)
            if changes is None:
                return None
            ancestors = stack[: next(i for i, node in enumerate(stack) if node is region.scope) + 1]
            dropped = {id(call): call_without_argument(call, volatile_argument(call)) for call in calls}
            changes.extend(rewrite_within(self.context, region.scope.body, ancestors, lambda node: dropped.get(id(node))))
            return _Plan(f"Run `{region.scope.name.value}` under `torch.no_grad()` and drop `volatile=`", changes, region)
        dropping = _DropVolatile(calls)
        changes = []
        for part in region.parts or (region,):
            outer = part.ancestors or stack[: part.path[-1].depth + 1]
            wrapped = wrap_in_no_grad(self.context, part.statements, outer, lambda statement: statement.visit(dropping))
            if wrapped is None:
                return None
            # `import torch`, when it is added, is added once
            changes.extend(wrapped if not changes else [change for change in wrapped if isinstance(change, ReplaceLines)])
        if region.binding is not None:  # the whole line, like the wrapped ones
            binding = region.binding.visit(_DropVolatile(self._volatile_calls([region.binding])))
            binding_ancestors = stack[: region.path[-1].depth + 1]
            text = render_at(self.context, binding.with_changes(leading_lines=()), indentation(self.context, binding_ancestors))
            changes.append(ReplaceLines(region.binding, region.binding, text))
        where = {"loop": "the loop", "runs": "each piece of code that uses it"}.get(region.kind, "the code that uses it")
        return _Plan(f"Run {where} under `torch.no_grad()` and drop `volatile=`", changes, region)


class _DropVolatile(cst.CSTTransformer):
    """Removes the `volatile` argument of the given `Variable(...)` calls."""

    def __init__(self, calls: Sequence[cst.Call]) -> None:
        super().__init__()
        self.calls = {id(call) for call in calls}

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if id(original) not in self.calls:
            return updated
        position = next(i for i, arg in enumerate(original.args) if arg is volatile_argument(original))
        return call_without_argument(updated, updated.args[position])


def _body_of(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    return list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []


def _flag_alone(call: cst.Call) -> bool:
    """The call passes no `requires_grad` that may be true (torch raises for both together)."""
    arguments = variable_arguments(call)
    return arguments is not None and (arguments.requires_grad is None or literal_flag(arguments.requires_grad) is False)


def _removable(call: cst.Call) -> bool:
    """Its `volatile=` is a literal that the fix can simply remove (under no_grad both mean nothing)."""
    argument = volatile_argument(call)
    return literal_flag(argument.value) is not None and _flag_alone(call)


def _evaluation_name(name: str) -> bool:
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")
    return any(word.rstrip("0123456789") in EVALUATION_WORDS for word in words)


def _looks_like_optimizer(dotted: Optional[str]) -> bool:
    last = (dotted or "").rsplit(".", 1)[-1]
    return bool(OPTIMIZER.match(last)) and not NOT_OPTIMIZER.search(last)


def _is_main_guard(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.If) and "__name__" in {n.value for n in own_nodes(statement.test) if isinstance(n, cst.Name)}


def _is_assigned(attribute: cst.Attribute, statement: cst.CSTNode) -> bool:
    for node in own_nodes(statement):
        if isinstance(node, cst.Assign) and any(t.target is attribute for t in node.targets):
            return True
    return False


def _declared_outer(function: Optional[cst.FunctionDef]) -> set[str]:
    """Names a function declares `global` or `nonlocal`: binding them is seen outside."""
    if function is None:
        return set()
    names: set[str] = set()
    for node in own_nodes(function.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            names.update(item.name.value for item in node.names)
    return names


def _result_used(call: cst.Call, scope: Union[cst.FunctionDef, cst.Module]) -> bool:
    """The call's result is kept (it is not a statement of its own)."""
    body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
    return not any(isinstance(s, cst.Expr) and s.value is call for s in iter_statements(body))


def _fresh_state(value: cst.BaseExpression, free) -> bool:
    """`model.init_hidden(batch_size)`: a recurrent network's first state, made from `free` arguments."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and is_fresh_state_method(value.func.attr.value)
        and all(not arg.star and free(arg.value) for arg in value.args)
    )


def _size(region: _Region) -> int:
    return sum(1 for statement in region.statements for _ in own_nodes(statement))


def _change_key(change: Change) -> tuple:
    """What makes two changes the same edit: the nodes by identity, the text by value."""
    return (type(change).__name__, *(id(value) if isinstance(value, cst.CSTNode) else value for value in vars(change).values()))
