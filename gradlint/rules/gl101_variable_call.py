from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from gradlint.analysis.history import returns_receiver
from gradlint.analysis.legacy import VARIABLE, is_direct_grad_factory, is_variable, literal_tensor, variable_arguments
from gradlint.analysis.syntax import is_bool_literal, is_none_literal, method_call_on, parenthesized
from gradlint.fix.builders import enclosing_line, remove_line, with_keywords
from gradlint.fix.plan import Applicability, Availability, Change, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_DETACH = "`Variable(...)` is a no-op wrapper since PyTorch 0.4; use the tensor (`.detach()` keeps the exact meaning)"


class VariableCall(Rule):
    """
    ## What it does
    Flags calls of `torch.autograd.Variable`, under every import form (`Variable`, `ag.Variable`,
    `torch.autograd.Variable`, `torch.autograd.variable.Variable`, star imports) and through
    aliases (`V = autograd.Variable`, then `V(x)`). Names resolve per scope and in source order, as
    Python resolves them: a function's own `from torch.autograd import Variable` counts in that
    function whatever the module imports under the name (also a call written before the import,
    which raises UnboundLocalError: reported without a fix, which would make it run), and another
    library's `Variable` imported in a function is not torch's there.

    ## Why is this bad?
    Since PyTorch 0.4 tensors and Variables are the same type. In torch 2.13, `Variable(t)` builds
    `t.detach()`: a new `torch.Tensor` leaf sharing storage and version counter with `t`, with
    autograd history cut, and `requires_grad` set from the argument. The wrapper hides that the
    history is cut, which readers of the code rarely expect, and it is legacy API.

    ## Example
    ```python
    from torch.autograd import Variable
    for data, target in train_loader:
        data, target = Variable(data), Variable(target)
        x, y = Variable(data.cuda()), Variable(target.cuda())
        h = Variable(h.data)
        w = Variable(torch.randn(3, 4), requires_grad=True)
        b = Variable(torch.FloatTensor([0.5]), requires_grad=True)
        out = Variable(model(x))
    ```

    ## Use instead
    ```python
    for data, target in train_loader:
        x, y = data.cuda(), target.cuda()
        h = h.detach()
        w = torch.randn(3, 4, requires_grad=True)
        b = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)
        out = model(x).detach()
    ```

    ## Fix safety
    Safe: every rewrite is exact in torch 2.13 (values, dtype, `requires_grad`, leaf-ness,
    gradients, random draws, storage and version counter sharing). The wrapper is dropped where
    its argument provably carries no autograd history: a torch factory or constructor,
    `torch.from_numpy`, numpy, a literal, a value computed only from those, a conversion or view
    of one (`.cuda()`, `.float()`, `.to()`, `.view()`...), `x.detach()`, an integer tensor, and a
    name every binding of which in the function is one of those (module constants, `self`
    attributes and the results of this file's functions are followed the same way; a loop's
    target read in the loop's body, where nothing rebinds it, is the loop's item, whatever the name
    holds elsewhere in a script; a nested function's parameters and locals of the same name are
    other variables; an option of the file's argparse namespace declared `type=int` with an int
    default, or required, is a Python int, so `torch.FloatTensor(opt.batchSize)` is a new tensor;
    a sampler a function of the file returns as a lambda is followed into the lambda's body).
    `Variable(h.data)` becomes `h.detach()`: the same
    leaf, which shares `h`'s version counter, so an in-place change while a graph needs `h` raises
    instead of corrupting the gradient silently (as GL303 rewrites `.data`). Elsewhere the exact
    form `t.detach()` is kept, and never twice. `Variable(t)` is a new tensor object, so dropping
    it also requires that nothing tells the two objects apart: when the result, the source name
    or an alias of either has its flag set (`requires_grad_()`, `.requires_grad =`), gets a hook,
    `retain_grad()`, `.grad` or any attribute written, `resize_`/`set_`/`t_`/`squeeze_`..., or is
    compared with `is`, `.detach()` stays; also when the source stays in use and the result is
    returned or stored away. A local's last use is unwrapped even so (`return Variable(t)`,
    `policy(Variable(state))` with nothing reading `state` afterwards) when the binding it reads
    made a new object without history (a factory, or a call of a function of the file every
    `return` of which builds a new tensor, such as `torch.cat(...)`) and the code since only filled
    it in place or read its values (also through a function of the file that reads its parameter
    only by value): no other code can reach the object once it is handed over (in a loop, the name must be
    bound earlier in the same iteration and read nowhere else in the loop). In-place changes of
    values are the same on both, since storage and version counter are shared. `y =
    Variable(x.data)` becomes `y = x` under `torch.no_grad()` when every later read of `y` is in
    the same block and takes only its values (see GL303). A preallocated buffer wrapped in a loop
    (`input.resize_as_(x).copy_(x)`, then `inputv = Variable(input)`) is unwrapped when every
    resize or other identity-sensitive change of the buffer comes before the first binding of
    the alias in the loop body, each resize chained with a value write (which moves the version
    counter the two objects share), and the alias is read only after that binding, inside the
    loop: the alias never outlives a change of the buffer's metadata. `self.a = Variable(self.a)`
    in a method, outside any loop, where every earlier write of `self.a` there made a new object
    or moved it (`self.a = self.a.cuda()`) and nothing between the first write and the rewrapping
    can reach `self.a` otherwise (no method of `self` called, `self` not handed over), is removed:
    the attribute alone holds its tensor, so whether it keeps it or gets a copy sharing its
    storage cannot be told. `return Variable(x)` of a parameter `x` becomes `return x` where every
    call of the function is known (a module-level function no other file of the run mentions, or
    a method called only as `self.m(...)` in the methods of its own plain class, whose name no
    other file spells), each passes a history-free object for `x` explicitly (a default is one
    object for every call), the function binds `x` otherwise only to conversions of itself
    (`x = x.cuda()`) and neither stores it nor tells it apart, and at each call the object handed
    over may come back itself by the conditions above (a new object, a local at its last use, or
    nothing telling the result from it where the argument stays reachable): each caller gets
    back the object it handed over where it got a new one sharing its storage. A source
    carrying history (a model output, a parameter) keeps `.detach()`.
    Batches from iterating a data loader (a `DataLoader(...)`, or an iterable named like one:
    `train_loader`, `dataloaders[phase]`, also through `enumerate`, `iter`/`next` and `tqdm`) and
    the values of a batch function (`get_batch(...)`, `digits.batch()`) are treated as carrying no
    history. That holds for the code this rule migrates: PyTorch 0.3 could
    not collate a `Variable`, so a loader yielded plain tensors, and the default collate builds
    new ones for every batch; a loader-like iterable that yields tensors with history would keep
    it (and a list iterated as a loader sees the same objects again).
    `x = Variable(x)` and `x, y = Variable(x), Variable(y)` rebind names to themselves once
    unwrapped and are removed (a trailing comment stays on its own line; a block left empty gets
    `pass`). With `requires_grad=True`, factories that take the keyword get it (the same random
    numbers are drawn); `torch.Tensor(list)`, `torch.FloatTensor(list)`, `torch.DoubleTensor`,
    `torch.LongTensor` and `torch.IntTensor` of numeric literals become `torch.tensor(...)` with
    the exact dtype (`torch.Tensor` follows the default dtype, like `torch.tensor` of float
    literals; the typed constructors name theirs); `torch.Tensor(3, 4)` is a size, not data, and
    gets `.requires_grad_()`. Any other fresh tensor gets `.requires_grad_()`, and everything else
    `.detach().requires_grad_()`. `Variable` also takes an int 0..255 or a one-element integer or
    bool tensor as the flag, while `requires_grad_()` and the factories take only a bool: an int
    literal is read as True / False, and a flag that is not a literal becomes
    `requires_grad_(bool(flag))` (which also accepts the flags `Variable` rejected, such as None).
    No fix while a `volatile` flag that is not literally False is passed: GL102 restores its
    no-grad intent first, and the wrapper is dropped in the next round. When the last use of the
    imported `Variable` name disappears, the import is removed (an import at the top of the
    module; one inside a function stays).

    ## Known limits
    An alias (`V = Variable`) is followed where it is the only binding of the name that can reach
    the call; a name bound to an expression (`V = Variable if old else Tensor`), or to other values
    on other paths, is not. History
    and identity are followed within one file: a value that comes from another file (a corpus's
    `torch.LongTensor` read as `corpus.train`, even an integer one), a method of another object,
    or a parameter of a function or method other code may call (a partial run, a name another
    file spells, an attribute read by a computed name anywhere in the run) keeps `.detach()`; a
    function of another
    file called with the tensor that sets its flag, or a dict keyed by the tensor object, is not
    seen.
    `x = Variable(x); y = 1` (two statements on a line) becomes `x = x; y = 1`.
    Calls with `*args`/`**kwargs`, `Variable(None)` (an empty tensor) and an int flag above 255
    (torch raises `OverflowError`) are left unfixed.
    """

    code = "GL101"
    name = "variable-call"
    summary = "`torch.autograd.Variable(...)` wrapper"
    severity = Severity.WARNING
    migration = "variable"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("Variable",)
    cleanup_imports = (VARIABLE,)

    VALID = (
        """
        import tensorflow as tf
        v = tf.Variable(3.0)
        """,
        """
        import cvxpy as cp
        x = cp.Variable(3)
        """,
        """
        class Variable:
            pass
        v = Variable()
        """,
        """
        from sympy import Variable
        v = Variable('x')
        """,
        "x = t.detach()\n",
        """
        import tensorflow as tf
        for batch in train_loader:
            batch = tf.Variable(batch)
        """,
        # Inside the function, `Variable` is the one it imports itself.
        """
        from torch.autograd import Variable
        def symbols():
            from sympy import Variable
            return Variable("x")
        """,
    )
    INVALID = (
        Invalid(
            """
            from torch.autograd import Variable
            x = Variable(t)
            """,
            "x = t.detach()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach()`",
        ),
        # A function's own import is what the name means there, whatever the module imports.
        Invalid(
            """
            from sympy import Variable
            def forward(model, batch):
                from torch.autograd import Variable
                return model(Variable(batch))
            symbol = Variable("s")
            """,
            """
            from sympy import Variable
            def forward(model, batch):
                from torch.autograd import Variable
                return model(batch.detach())
            symbol = Variable("s")
            """,
            line=4,
            column=18,
            fix_title="Replace with `batch.detach()`",
        ),
        # In a script, another loop reusing the name or a method's own `x` does not matter.
        Invalid(
            """
            from torch.autograd import Variable
            class Net(nn.Module):
                def forward(self, x):
                    x = self.conv(x)
                    return x
            for step, (x, y) in enumerate(train_loader):
                b_x = Variable(x)
            for x, y in zip(xs, ys):
                print(x)
            """,
            """
            class Net(nn.Module):
                def forward(self, x):
                    x = self.conv(x)
                    return x
            for step, (x, y) in enumerate(train_loader):
                b_x = x
            for x, y in zip(xs, ys):
                print(x)
            """,
        ),
        # A loader's batch carries no history: the rebinding goes, with its line.
        Invalid(
            """
            from torch.autograd import Variable
            for data, target in train_loader:
                data, target = Variable(data), Variable(target)
                loss = criterion(model(data), target)
            """,
            """
            for data, target in train_loader:
                loss = criterion(model(data), target)
            """,
            line=3,
            column=20,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Remove the rebinding to itself",
        ),
        Invalid(
            """
            from torch.autograd import Variable
            def train(loader):
                for i, (x, y) in enumerate(loader):
                    x, y = Variable(x.cuda()), Variable(y.cuda())  # to the GPU
                    step(x, y)
            """,
            """
            def train(loader):
                for i, (x, y) in enumerate(loader):
                    x, y = x.cuda(), y.cuda()  # to the GPU
                    step(x, y)
            """,
            line=4,
            column=16,
            fix_title="Replace with `x.cuda()`",
        ),
        # Nothing but the rebinding in the body: `pass` keeps it a block, the comment stays.
        Invalid(
            """
            from torch.autograd import Variable
            for batch in loader:
                batch = Variable(batch)  # legacy
            """,
            """
            for batch in loader:
                pass  # legacy
            """,
            line=3,
            column=13,
        ),
        # An attribute alone holding the new tensor it was given: its rebinding to itself goes.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            class Coordinates(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.coord = torch.zeros(n, 2)
                    self.coord = Variable(self.coord)
            """,
            """
            import torch
            class Coordinates(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.coord = torch.zeros(n, 2)
            """,
            line=7,
            column=22,
            fix_title="Remove the rebinding to itself",
        ),
        # The result's flag is set afterwards: the source must stay a separate object.
        Invalid(
            """
            from torch.autograd import Variable
            for images, labels in test_loader:
                inputs = Variable(images)
                inputs.requires_grad = True
                attack(inputs, images)
            """,
            """
            for images, labels in test_loader:
                inputs = images.detach()
                inputs.requires_grad = True
                attack(inputs, images)
            """,
            line=3,
            column=14,
            fix_title="Replace with `images.detach()`",
        ),
        # Read only by value with autograd off: the module's output itself gives the same numbers.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            def sample(netG, noise):
                with torch.no_grad():
                    samples = Variable(netG(noise).data)
                    kept = Variable(netG(noise).data)
                    print("mean", samples.mean(0).tolist())
                return kept
            """,
            """
            import torch
            def sample(netG, noise):
                with torch.no_grad():
                    samples = netG(noise)
                    kept = netG(noise).detach()
                    print("mean", samples.mean(0).tolist())
                return kept
            """,
            line=5,
            column=19,
            fix_title="Replace with `netG(noise)`",
        ),
        # A buffer resized and refilled before each binding of its alias: the alias never sees a resize.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            def train(netD, loader):
                input = torch.FloatTensor(64, 1, 8, 8)
                for real_cpu, _ in loader:
                    input.resize_as_(real_cpu).copy_(real_cpu)
                    inputv = Variable(input)
                    netD(inputv).mean().backward()
            """,
            """
            import torch
            def train(netD, loader):
                input = torch.FloatTensor(64, 1, 8, 8)
                for real_cpu, _ in loader:
                    input.resize_as_(real_cpu).copy_(real_cpu)
                    inputv = input
                    netD(inputv).mean().backward()
            """,
            line=7,
            column=18,
            fix_title="Replace with `input`",
        ),
        # The last use of a new local that only was filled in place: nothing else reaches it.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            def char_tensor(text):
                tensor = torch.zeros(len(text)).long()
                for c in range(len(text)):
                    tensor[c] = all_characters.index(text[c])
                return Variable(tensor)
            """,
            """
            import torch
            def char_tensor(text):
                tensor = torch.zeros(len(text)).long()
                for c in range(len(text)):
                    tensor[c] = all_characters.index(text[c])
                return tensor
            """,
            line=7,
            column=12,
            fix_title="Replace with `tensor`",
        ),
        # Read again after the module got it: the module must get a separate object.
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            def select_action(policy, state):
                state = torch.from_numpy(state).float()
                probs = policy(Variable(state))
                return probs, state
            """,
            """
            import torch
            def select_action(policy, state):
                state = torch.from_numpy(state).float()
                probs = policy(state.detach())
                return probs, state
            """,
            line=5,
            column=20,
            fix_title="Replace with `state.detach()`",
        ),
        # A model's output carries history: `.detach()` keeps the cut, `.data` reads as it.
        Invalid(
            """
            from torch.autograd import Variable
            def step(model, x):
                out = model(x)
                target = Variable(out)
                h = Variable(out.data)
                g = Variable(out.detach())
                return target, h, g
            """,
            """
            def step(model, x):
                out = model(x)
                target = out.detach()
                h = out.detach()
                g = out.detach()
                return target, h, g
            """,
            line=4,
            column=14,
            fix_title="Replace with `out.detach()`",
        ),
        Invalid(
            """
            import torch.autograd as ag
            x = ag.Variable(a * 2, requires_grad=True)
            """,
            """
            import torch.autograd as ag
            x = (a * 2).detach().requires_grad_()
            """,
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `(a * 2).detach().requires_grad_()`",
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            w = Variable(torch.randn(3, 4), requires_grad=True)
            """,
            """
            import torch
            w = torch.randn(3, 4, requires_grad=True)
            """,
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `torch.randn(3, 4, requires_grad=True)`",
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable
            a = Variable(torch.Tensor([1.0]), requires_grad=True)
            b = Variable(torch.Tensor([[1, -2], [3, 4]]), requires_grad=True)
            c = Variable(torch.FloatTensor([0.5, 2]), requires_grad=True)
            d = Variable(torch.DoubleTensor([0.1]), requires_grad=True)
            e = Variable(torch.Tensor(3, 4), requires_grad=True)
            """,
            """
            import torch
            a = torch.tensor([1.0], requires_grad=True)
            b = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
            c = torch.tensor([0.5, 2], dtype=torch.float32, requires_grad=True)
            d = torch.tensor([0.1], dtype=torch.float64, requires_grad=True)
            e = torch.Tensor(3, 4).requires_grad_()
            """,
            line=3,
            column=5,
            fix_title="Replace with `torch.tensor([1.0], requires_grad=True)`",
        ),
        Invalid(
            """
            import torch
            from torch.autograd import Variable, grad
            y = Variable(torch.from_numpy(b)).float()
            """,
            """
            import torch
            from torch.autograd import grad
            y = torch.from_numpy(b).float()
            """,
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `torch.from_numpy(b)`",
        ),
        # `volatile=` is GL102's: its no-grad intent is restored before the wrapper goes.
        Invalid(
            """
            import torch
            x = torch.autograd.Variable(t, volatile=True)
            """,
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            """
            import torch
            x = torch.autograd.Variable(t, volatile=False)
            """,
            """
            import torch
            x = t.detach()
            """,
            line=2,
            column=5,
            fix_title="Replace with `t.detach()`",
        ),
        Invalid(
            "\n            from torch.autograd.variable import Variable as V\n            x = V(t, True)\n            ",
            "x = t.detach().requires_grad_()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_()`",
        ),
        Invalid(
            "\n            from torch.autograd import *\n            x = Variable(t, requires_grad=rg)\n            ",
            "\n            from torch.autograd import *\n            x = t.detach().requires_grad_(bool(rg))\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_(bool(rg))`",
        ),
        Invalid(  # reached through an alias of the attribute
            "\n            import torch\n            from torch import autograd\n            Var = autograd.Variable\n            V = torch.autograd.Variable\n            a, b = Var(x), V(y, requires_grad=True)\n            ",
            "\n            import torch\n            from torch import autograd\n            Var = autograd.Variable\n            V = torch.autograd.Variable\n            a, b = x.detach(), y.detach().requires_grad_()\n            ",
            line=5,
            column=8,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `x.detach()`",
        ),
        Invalid(  # a star import local to the function
            "\n            def wrap(x):\n                from torch.autograd import *\n                return Variable(x)\n            ",
            "\n            def wrap(x):\n                from torch.autograd import *\n                return x.detach()\n            ",
            line=3,
            column=12,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `x.detach()`",
        ),
        # `Variable` accepts an int flag (an unsigned char); `requires_grad_(1)` raises TypeError.
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, 1)\n            ",
            "x = t.detach().requires_grad_()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_()`",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, requires_grad=0)\n            ",
            "x = t.detach()\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach()`",
        ),
        Invalid(
            "\n            import torch\n            from torch.autograd import Variable\n            x = Variable(torch.ones(2), requires_grad=flag)\n            ",
            "\n            import torch\n            x = torch.ones(2, requires_grad=bool(flag))\n            ",
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `torch.ones(2, requires_grad=bool(flag))`",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, requires_grad=not frozen)\n            ",
            "x = t.detach().requires_grad_(not frozen)\n",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
            fix_title="Replace with `t.detach().requires_grad_(not frozen)`",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, requires_grad=256)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            bool = int\n            x = Variable(t, requires_grad=rg)\n            ",
            line=3,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(None)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(t, volatile=True, requires_grad=True)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(
            "\n            from torch.autograd import Variable\n            x = Variable(*args)\n            ",
            line=2,
            column=5,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
        Invalid(  # the function's own import, written after the call: no fix makes the call run
            """
            import torch
            def wrap(x):
                y = Variable(x)
                from torch.autograd import Variable
                return y
            """,
            fixed=None,
            line=3,
            column=9,
            message="`Variable(...)` is a no-op wrapper since PyTorch 0.4; use",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if not is_variable(node.func, self.context.imports):
            return
        if self.context.imports.reads_before_binding(node.func):
            # It raises UnboundLocalError (the function imports `Variable` later): no fix may make it run.
            self.report(node, _DETACH, None)
            return
        fix = None
        replacement = self._replacement(node, self._bound_names(node), self._assignment_of(node))
        if replacement is not None:
            if replacement.lpar and _needs_no_parentheses(self.context.stack):
                replacement = replacement.with_changes(lpar=(), rpar=())
            text = self.context.code_for(replacement)
            cleanup = self._statement_cleanup(replacement)
            changes = cleanup if cleanup is not None else (Replace(node, replacement),)
            title = "Remove the rebinding to itself" if cleanup is not None else f"Replace with `{snippet(text, 60)}`"
            fix = self.safe_fix(title, *changes)
        self.report(node, _DETACH, fix)

    def _replacement(self, call: cst.Call, bound: Optional[set[str]], assign: Optional[cst.Assign] = None) -> Optional[cst.BaseExpression]:
        """What the call becomes; `bound`: the names its result is assigned to (None when it is
        used inside an expression)."""
        arguments = variable_arguments(call)
        if arguments is None or arguments.data is None or is_none_literal(arguments.data):
            return None
        if arguments.volatile is not None and not is_bool_literal(arguments.volatile.value, False):
            return None  # the no-grad intent is GL102's to restore; the wrapper goes afterwards
        requires_grad = _flag(arguments.requires_grad)
        if requires_grad == _UNPARSABLE:
            return None  # torch rejects the flag (OverflowError); keep the call as it is
        if requires_grad is False or arguments.requires_grad is None:
            return self._without_grad(call, arguments.data, bound, assign)
        if requires_grad is True:
            return self._with_grad(arguments.data, None)
        if "bool" in self.context.imports.bindings:
            return None
        return self._with_grad(arguments.data, _as_bool(arguments.requires_grad))

    def _without_grad(
        self, call: cst.Call, data: cst.BaseExpression, bound: Optional[set[str]], assign: Optional[cst.Assign]
    ) -> cst.BaseExpression:
        receiver = self.context.identity.legacy_data_receiver(data)
        if (
            receiver is not None
            and assign is not None
            and self.context.identity.read_only_by_value_without_grad(assign, self.context.scope())
        ):
            return receiver  # `y = Variable(x.data)`, `y` read only by value with autograd off: `x` gives the same numbers
        if self._detaches_data(data) or self._unwraps_exactly(call, data, bound):
            return parenthesized(self._data_as_detach(data))
        return method_call_on(data, "detach")

    def _with_grad(self, data: cst.BaseExpression, flag: Optional[cst.BaseExpression]) -> cst.BaseExpression:
        """`data` as a fresh leaf with requires_grad set to `flag` (True when None)."""
        imports = self.context.imports
        if is_direct_grad_factory(data, imports):
            return _with_keyword(data, "requires_grad", cst.Name("True") if flag is None else flag)
        literal = literal_tensor(data, imports)
        if literal is not None:
            return _with_keyword(literal, "requires_grad", cst.Name("True") if flag is None else flag)
        identity = self.context.identity
        scope = self.context.scope()
        if identity.is_fresh(data, scope) and self.context.is_history_free(data):
            source = self._data_as_detach(data)  # a new object: setting its flag touches nothing else
        else:
            source = method_call_on(data, "detach")
        args = () if flag is None else (cst.Arg(flag),)
        return method_call_on(source, "requires_grad_", *args)

    def _detaches_data(self, data: cst.BaseExpression) -> bool:
        """`Variable(h.data)`, `Variable(h.data.cuda())`: `h.detach()` is already a new leaf."""
        root = data
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and returns_receiver(root.func.attr.value):
            root = root.func.value
        return self.context.identity.legacy_data_receiver(root) is not None

    def _unwraps_exactly(self, call: cst.Call, data: cst.BaseExpression, targets: Optional[set[str]]) -> bool:
        """`Variable(data)` may become `data`: data carries no history, and where it may be an
        object the code also reaches otherwise, nothing tells the two objects apart."""
        identity = self.context.identity
        scope = self.context.scope()
        if identity.is_last_use_of_fresh_local(data, scope):
            return True  # no other code can reach the object once it is handed over
        if not self.context.is_history_free(data):
            return False
        if identity.is_fresh(data, scope) or identity.rebinds_sole_attribute(call, scope):
            return True
        if targets is None:
            targets = identity.names_bound_to_result(call, scope) or None
        sources = set(identity.object_names(data))
        bound = targets or set()
        if len(sources) == 1 and len(bound) == 1 and identity.identity_settled_before_binding(call, *sources, *bound, scope):
            return True  # a preallocated buffer resized and refilled before each binding
        if targets is None and identity.hands_back_parameter(call, data, scope):
            return True  # `return Variable(x)`: every caller may get back the object it handed over
        return identity.handed_over_exactly(call, data, targets, scope)

    def _assignment_of(self, call: cst.Call) -> Optional[cst.Assign]:
        """The statement `y = <call>`, when the call is its whole value."""
        stack = self.context.stack
        parent = stack[-2] if len(stack) > 1 else None
        return parent if isinstance(parent, cst.Assign) and parent.value is call else None

    def _bound_names(self, call: cst.Call) -> Optional[set[str]]:
        """The name the call's result is bound to (`x = Variable(...)`, or its element of
        `x, y = Variable(...), ...`), as a set; None when the result is used otherwise."""
        stack = self.context.stack
        parent = stack[-2] if len(stack) > 1 else None
        if isinstance(parent, cst.Assign) and all(isinstance(t.target, cst.Name) for t in parent.targets):
            return {t.target.value for t in parent.targets}
        if isinstance(parent, cst.Element) and len(stack) > 3:
            display, assign = stack[-3], stack[-4]
            if isinstance(display, cst.Tuple) and isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                target = assign.targets[0].target
                position = next(i for i, element in enumerate(display.elements) if element is parent)
                if isinstance(target, cst.Tuple) and len(target.elements) == len(display.elements):
                    element = target.elements[position].value
                    if isinstance(element, cst.Name):
                        return {element.value}
        return None

    def _data_as_detach(self, data: cst.BaseExpression) -> cst.BaseExpression:
        """`h.data` at the root of `data` becomes `h.detach()` (same values and storage, and the
        version counter shared with `h`): `Variable(h.data)` reads `h.detach()`, not `h.data`."""
        root = data
        while isinstance(root, cst.Call) and isinstance(root.func, cst.Attribute) and not root.lpar:
            root = root.func.value
        receiver = self.context.identity.legacy_data_receiver(root)
        if receiver is None:
            return data
        detached = method_call_on(receiver, "detach")
        return detached if root is data else data.deep_replace(root, detached)

    # -- statements that only rebind a name to itself ------------------------------------------

    def _statement_cleanup(self, replacement: cst.BaseExpression) -> Optional[tuple[Change, ...]]:
        """`x = Variable(x)` and `x, y = Variable(x), Variable(y)` rebind names to themselves once
        unwrapped: remove the line (a trailing comment stays), or write `pass` where the block
        would be left empty."""
        if not isinstance(replacement, cst.Name) and not _is_attribute_of_name(replacement):
            return None
        stack = self.context.stack
        found = enclosing_line(stack)
        if found is None or not self._rebinds_only(found[0]):
            return None
        return remove_line(self.context, stack, self._rebinds_only)

    def _rebinds_only(self, line: cst.CSTNode) -> bool:
        """`x = Variable(x)` / `x, y = Variable(x), y` alone on its line: every target gets its
        own name back once each `Variable` call is unwrapped (at least one is a call)."""
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or not isinstance(line.body[0], cst.Assign):
            return False
        statement = line.body[0]
        if len(statement.targets) != 1:
            return False
        target, value = statement.targets[0].target, statement.value
        if isinstance(target, cst.Name) or _is_attribute_of_name(target):
            pairs = [(target, value)]
        elif isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        else:
            return False
        wrapped = 0
        for name, element in pairs:
            if not isinstance(name, cst.Name) and not _is_attribute_of_name(name):
                return False
            if isinstance(element, cst.Name) and isinstance(name, cst.Name) and element.value == name.value:
                continue
            if not (isinstance(element, cst.Call) and is_variable(element.func, self.context.imports)):
                return False
            bound = {name.value} if isinstance(name, cst.Name) else None
            unwrapped = self._replacement(element, bound, statement if statement.value is element else None)
            if unwrapped is None or type(unwrapped) is not type(name) or not unwrapped.deep_equals(name):
                return False
            wrapped += 1
        return wrapped > 0


# `Variable` parses its flags with the C format "b" (an unsigned char through `__index__`): True,
# False, any int in 0..255 and one-element integer or bool tensors are accepted, while
# `requires_grad_()` and the factories' `requires_grad=` accept only a real bool.
_UNPARSABLE = "unparsable"


def _flag(node: Optional[cst.BaseExpression]) -> Union[bool, str, None]:
    """True / False for a literal flag, _UNPARSABLE for an int literal torch rejects, None if unknown."""
    if node is None:
        return None
    if is_bool_literal(node, True) or is_bool_literal(node, False):
        return is_bool_literal(node, True)
    if isinstance(node, cst.Integer):
        value = node.evaluated_value
        return _UNPARSABLE if value > 255 else value != 0
    return None


def _is_attribute_of_name(node: cst.CSTNode) -> bool:
    """`self.a`: an attribute of a name, which an unwrapped `self.a = Variable(self.a)` rebinds to itself."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and not node.lpar


def _needs_no_parentheses(stack: list[cst.CSTNode]) -> bool:
    """The call being visited is a whole value (assigned, an argument, an element, returned),
    where a replacement like `a * 2` reads the same without parentheses."""
    node, parent = stack[-1], stack[-2] if len(stack) > 1 else None
    if isinstance(parent, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return)):
        return parent.value is node
    return isinstance(parent, (cst.Arg, cst.Element)) and parent.value is node


def _as_bool(flag: cst.BaseExpression) -> cst.BaseExpression:
    """`bool(flag)`: what `Variable` made of any flag it accepted (`not x` is a bool already)."""
    if isinstance(flag, cst.UnaryOperation) and isinstance(flag.operator, cst.Not) and not flag.lpar:
        return flag
    return cst.Call(func=cst.Name("bool"), args=[cst.Arg(flag)])


def _with_keyword(call: cst.Call, keyword: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with `keyword=value`, replacing an existing keyword of that name."""
    args = [arg for arg in call.args if not (arg.keyword is not None and arg.keyword.value == keyword)]
    if args and call.args and args[-1] is not call.args[-1]:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)  # the dropped last argument's comma, or none
    return with_keywords(call.with_changes(args=args), [(keyword, value)])
