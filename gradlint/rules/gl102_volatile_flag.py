from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.functions import CallSite, argument_for, only_called
from gradlint.analysis.legacy import literal_flag, volatile_argument
from gradlint.analysis.regions import bound_names
from gradlint.fix.builders import call_without_argument
from gradlint.fix.no_grad import NoGradPlanner, body_of, flag_alone
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity


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


class VolatileFlag(Rule):
    """
    ## What it does
    Flags the `volatile` argument of a `torch.autograd.Variable(...)` call, also through a local
    stand-in that passes every argument on (`Variable = lambda *args, **kwargs:
    autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)`).

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
    For `volatile=True` the fix restores what the flag meant. The values computed under
    `torch.no_grad()` are bitwise the same, but they no longer require grad, have no `grad_fn`
    and keep no graph (nor the batches it holds), so code that backpropagates through them would
    now raise. The fix is safe where that cannot happen: nothing in the wrapped code asks for
    `requires_grad`, `grad_fn`, `.grad` or the grad mode, modifies in place a value that may
    require grad (`model.weight += d` raises with grad on and changes the weight under no_grad; a
    name the code assigns only what it computes may be), shows a tensor as text (`print(out)`, `"%s" % out`: the text names the
    `grad_fn`; a field with a numeric format, `"{loss.val:.4f}".format(...)`, writes the value only), or hands a value that may hold a graph to a function of another file; and only
    values that provably have no history leave it. A function of the file that the code calls
    (the VAE example's `loss_function`, a recursive `repackage_hidden`) runs under no_grad with it,
    so its body is held to the same conditions: it trains nothing, computes no gradients, and
    stores nothing that may hold a graph into its arguments (`total.add_(out)`, `total += out`),
    a global or another object from outside; what it returns is judged where the call's result
    goes. It is followed where its name is mentioned only where it is defined and called, and it
    has no decorator but a no-grad one. A loss module held by a name of the module and bound
    nowhere else (`criterion = nn.CrossEntropyLoss()`) is a model, and so is a parameter every call
    of the function fills with one (`validate(loader, model, criterion)`). Otherwise it is unsafe. The fix runs the code
    that uses the value under `torch.no_grad()` and removes the `volatile=` argument, leaving the
    `Variable(...)` call to GL101. A statement that builds no graph (`z = Variable(torch.rand(n),
    volatile=True)`, `if gpu: x = x.cuda()`) is never wrapped on its own: no_grad there would
    change nothing. The flag is dropped there, and the code that uses the value after it (one
    block further out when the value is bound in an `if`) is wrapped; for a value stored on
    `self` (`self.sample_z_` in `__init__`), each computation of the class's methods that reads
    it (`self.G(self.sample_z_)` in `visualize_results`) is, by the same policy. It picks the smallest clear
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
    (`results.append(out)`, `total.add_(out)`), or returned when it does not come from the volatile value or a
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

    A flag that is not a literal and not a parameter of its function (`volatile=self.test`,
    `volatile=not train`) asked for no grad when true: the same region runs under
    `with torch.set_grad_enabled(not self.test):` (the region must not bind what the flag reads,
    nor hold a `Variable` call with another flag). When the flag is false that turns grad on,
    which changes nothing where grad is on already, but under a caller's `torch.no_grad()` it
    would build a graph the original did not: the fix is safe only in script code (nothing runs
    around it), and where the code already runs under `torch.no_grad()` the flag is just removed.

    When no form qualifies, the finding stays, with what to do and why it was not done. Safe where
    the code already runs under `torch.no_grad()`, and for `volatile=False`: the argument is
    removed, which changes nothing.

    ## Known limits
    A flag stored on `self` together with a flag that is not a literal is not followed into the
    other methods. A flag that is a parameter of a method, or of a
    function passed around, called with a computed flag, or imported by another file, is reported
    with what to do: the no-grad code belongs at the calls that pass a true flag. Another file
    reaching the function as a module attribute (`import data; data.get_batch(...)`) is not seen.
    A fresh state is known by its method's name (`init_hidden`, `initHidden`, `zero_state`,
    `begin_state`): one that returns a learned initial state stored on the model would lose its
    graph in that store. Uses spread through training code are not wrapped when a use cannot be
    separated from training (the statement that calls `.backward()` reads the value), a name
    also holds other values, or a value computed from the volatile one is stored into an object
    from outside the run (`layer_inputs.append(out)`). Values leaving the code through objects the
    analysis does not follow (an alias of `self`, a closure called later) are not seen. A value
    stored on `self` is followed into the methods of its class only: another object reading it
    (`gan.sample_z_`) is not seen. Only module-level functions of the file called by name are
    followed into: a method or a nested function the code calls is judged like a function of
    another file. A model whose `forward` reads the grad mode computes
    differently under no_grad, which the safe fix does not see. Reading or assigning
    `x.volatile` (always False, no effect) is not reported. A stand-in for `Variable` is followed
    only where its name has no other binding in the file and it hands `*args, **kwargs` to
    `Variable` unchanged (then maybe converted: `.cuda()`, `.to(device)`, `.float()`).
    """

    code = "GL102"
    name = "volatile-flag"
    summary = "`volatile=` has no effect since PyTorch 0.4"
    severity = Severity.WARNING
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
        # stand-ins that do not pass `volatile=` on to `Variable`, or whose name is bound twice
        """
        import tensorflow as tf
        from torch import autograd
        Variable = lambda *args, **kwargs: tf.Variable(*args, **kwargs)
        v = Variable(1, volatile=True)
        wrap = lambda x, **kwargs: autograd.Variable(x)
        w = wrap(t, volatile=True)
        """,
        """
        from torch import autograd
        to_var = lambda *args, **kwargs: autograd.Variable(*args, **kwargs)
        def step(to_var, batch):
            return to_var(batch, volatile=True)
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
        # Functions of the file and a loss module the evaluation calls run under no_grad with it.
        Invalid(
            """
            import torch
            from torch import nn
            from torch.autograd import Variable

            criterion = nn.MSELoss()

            def loss_function(recon, x):
                return criterion(recon, x) + recon.abs().mean()

            def test(model, loader):
                total = 0
                for x in loader:
                    x = Variable(x, volatile=True)
                    total += loss_function(model(x), x).item()
                return total
            """,
            """
            import torch
            from torch import nn
            from torch.autograd import Variable

            criterion = nn.MSELoss()

            def loss_function(recon, x):
                return criterion(recon, x) + recon.abs().mean()

            @torch.no_grad()
            def test(model, loader):
                total = 0
                for x in loader:
                    x = Variable(x)
                    total += loss_function(model(x), x).item()
                return total
            """,
            line=13,
            column=25,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run `test` under `torch.no_grad()` and drop `volatile=`",
        ),
        # A stand-in for `Variable` that moves the tensor: its calls mean the same.
        Invalid(
            """
            import torch
            import torch.autograd as autograd
            USE_CUDA = torch.cuda.is_available()
            Variable = lambda *args, **kwargs: autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)

            def test(model, loader):
                return [model(Variable(images, volatile=True)) for images in loader]
            """,
            """
            import torch
            import torch.autograd as autograd
            USE_CUDA = torch.cuda.is_available()
            Variable = lambda *args, **kwargs: autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)

            @torch.no_grad()
            def test(model, loader):
                return [model(Variable(images)) for images in loader]
            """,
            line=7,
            column=36,
            message="`volatile=True` has had no effect since PyTorch 0.4",
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
        # Fixed noise stored in `__init__` builds no graph there: its use in another method is wrapped.
        Invalid(
            """
            import torch
            from torch.autograd import Variable

            class GAN(object):
                def __init__(self, G):
                    self.G = G
                    self.sample_z_ = Variable(torch.rand(64, 62), volatile=True)

                def visualize_results(self, save):
                    samples = self.G(self.sample_z_)
                    save(samples.data.numpy())
            """,
            """
            import torch
            from torch.autograd import Variable

            class GAN(object):
                def __init__(self, G):
                    self.G = G
                    self.sample_z_ = Variable(torch.rand(64, 62))

                @torch.no_grad()
                def visualize_results(self, save):
                    samples = self.G(self.sample_z_)
                    save(samples.data.numpy())
            """,
            line=7,
            column=55,
            message="`volatile=True` has had no effect since PyTorch 0.4: the no-grad intent is lost",
            fix_title="Run the code that uses `self.sample_z_` under `torch.no_grad()` and drop `volatile=`",
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
        if not self.context.calls_variable(node.func):
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
                self._report_conditional(argument)
        elif not flag_alone(node):
            self.report(argument, _RAISES)
        elif self.context.without_grad():
            self.report(argument, _ALREADY, self.safe_fix("Remove `volatile=True`", without))
        else:
            plan, reason = NoGradPlanner(self.context).plan(self.context.stack)
            fix = None
            if plan is not None:
                fix = (self.safe_fix if plan.exact else self.unsafe_fix)(plan.title, *plan.changes)
            self.report(argument, _FIXABLE if fix is not None else _UNFIXABLE.format(reason), fix)

    # -- a flag that is not a literal --------------------------------------------------------------

    def _report_conditional(self, argument: cst.Arg) -> None:
        """`volatile=self.test`: the code that uses the value runs under `set_grad_enabled(not self.test)`."""
        message = _CONDITIONAL.format(*self._conditional(argument.value))
        without = Replace(self.context.stack[-1], call_without_argument(self.context.stack[-1], argument))
        if self.context.without_grad():  # no_grad around it wins whatever the flag says
            self.report(argument, message, self.safe_fix(f"Remove `{self.context.code_for(argument).strip().rstrip(',')}`", without))
            return
        plan, reason = NoGradPlanner(self.context, argument.value).plan(self.context.stack)
        if plan is None:
            self.report(argument, f"{message} (not automatic: {reason})")
            return
        self.report(argument, message, (self.safe_fix if plan.exact else self.unsafe_fix)(plan.title, *plan.changes))

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
        plan, reason = NoGradPlanner(self.context).plan_calls(sites, name)
        if plan is None:
            self.report(argument, _PARAMETER.format(flag=flag, function=name) + f" (not automatic: {reason})")
            return
        title = f"Drop `volatile={flag}` and run the calls of `{name}` that pass a true `{flag}` under `torch.no_grad()`"
        fix = (self.safe_fix if plan.exact else self.unsafe_fix)(title, dropped, *plan.changes)
        self.report(argument, _PARAMETER_FIXABLE.format(flag=flag, function=name), fix)

    def _flag_calls(self, function: cst.FunctionDef, flag: str) -> tuple[Optional[list[CallSite]], str]:
        """The calls of `function` that pass a true `flag` with grad on; None (and why) when not every
        call of it is known, or one passes a flag that is not a literal."""
        name = function.name.value
        if self.context.function_table.module_level.get(name) is not function:
            return None, f"`{name}` is not a function of the module, so its calls are not all known"
        project = self.context.project
        if project is not None and (name in project.reimported or name in (project.called_elsewhere or ())):
            return None, f"another file uses `{name}`"
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

    def _parameter_owner(self, flag: cst.BaseExpression) -> Optional[cst.FunctionDef]:
        """The function whose parameter the flag is (`def to_var(x, volatile=False)`): its callers
        choose the mode, so the no-grad code is at the calls, not here."""
        scope = self.context.scope()
        if not isinstance(flag, cst.Name) or not isinstance(scope, cst.FunctionDef):
            return None
        params = scope.params
        names = {param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)}
        return scope if flag.value in names and flag.value not in bound_names(body_of(scope)) else None

    def _conditional(self, flag: cst.BaseExpression) -> tuple[str, str]:
        """The flag as written, and the grad mode it asked for: `not train` -> `train`."""
        text = snippet(self.context.code_for(flag), 40, "flag")
        if isinstance(flag, cst.UnaryOperation) and isinstance(flag.operator, cst.Not) and not flag.lpar:
            return text, snippet(self.context.code_for(flag.expression), 40, "...")
        return text, f"not {text}" if isinstance(flag, (cst.Name, cst.Attribute, cst.Call)) else f"not ({text})"
