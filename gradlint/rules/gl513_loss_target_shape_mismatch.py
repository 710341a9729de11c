from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.fix.plan import Applicability, Availability, FixPlan, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

# Losses pairing input and target element by element, and what torch 2.13 does when their
# shapes differ: "raises" (the BCE losses) or "broadcasts" (MSE, L1, smooth L1, Huber).
_FUNCTIONS = {
    name: torch_api.function(name).value("pairs-elements") for name in torch_api.functions("pairs-elements", without=("loss-module",))
}
_MODULES = {name: torch_api.function(name).value("pairs-elements") for name in torch_api.functions("pairs-elements", "loss-module")}
_SIGNATURE = Signature.of_names(("input", "target", "*args", "**kwargs"))
_RAISES = "raises"
# Expressions `.view(...)` can be appended to without parentheses.
_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


class LossTargetShapeMismatch(Rule):
    """
    ## What it does
    Flags `BCELoss`, `BCEWithLogitsLoss`, `MSELoss`, `L1Loss`, `SmoothL1Loss` and `HuberLoss`
    (the modules and their `F.*` functions) given an input of shape `(N, 1)` and a target of shape
    `(N,)`, or the reverse, where the code states both shapes: a factory's sizes, `.view(-1, 1)`,
    `.unsqueeze(1)`, the output of an `nn.Linear(k, 1)` (or an `nn.Sequential` ending in one and
    shape-keeping layers) called on a known shape, arithmetic on those, a name resized in place
    just before (`label.data.resize_(bs)`), and the output of a module class of the project: its
    `forward` evaluated statement by statement, with the sizes its constructor is given (literals,
    or module constants: `Discriminator(output_size=d_output_size)`), or one ending in
    `.view(-1, 1)` whatever its input, also when the instance is a constructor argument kept on
    `self` and built in another file of the run (`Trainer(d, ...)` in `main.py`, `self.D(x)` in
    `trainer.py`). The input may come through the file's own lambdas and functions
    (`D(preprocess(x))` with `preprocess = lambda data: decorate(data, 2.0)`), `torch.cat`, `.t()`
    and NumPy draws of a literal size (`torch.Tensor(np.random.normal(mu, sigma, (1, n)))`).

    ## Why is this bad?
    PyTorch 0.3 paired such an input and target element by element. Today the BCE losses raise
    `ValueError: Using a target size (torch.Size([N])) that is different to the input size
    (torch.Size([N, 1]))`, and MSE, L1, smooth L1 and Huber broadcast the pair to `(N, N)`: every
    prediction is compared with every target, with nothing but a `UserWarning`. Measured under
    torch 2.13 on `y = 2x` at 8 points `x = k / 8` with `nn.Linear(1, 1, bias=False)`: the
    element-wise loss trains the weight to 2.0000, the broadcast one to 1.5882 (27/17, the minimum
    of the mean over all 64 pairings), where it stops with a loss of 0.5887 instead of 0.

    ## Example
    ```python
    import torch
    from torch import nn

    model = nn.Linear(3, 1)
    x, y = torch.randn(16, 3), torch.randn(16)
    loss = nn.MSELoss()(model(x), y)
    ```

    ## Use instead
    ```python
    import torch
    from torch import nn

    model = nn.Linear(3, 1)
    x, y = torch.randn(16, 3), torch.randn(16)
    loss = nn.MSELoss()(model(x), y.view(-1, 1))
    ```

    ## Fix safety
    The fix views the target as the input's shape (`y.view(-1, 1)`, or `y.view(-1)` for the
    reverse), which restores 0.3's element-wise pairing bitwise. Safe for the BCE losses, which
    raise on every such pair today; unsafe for MSE, L1, smooth L1 and Huber, where it changes
    today's (broadcast) loss and its gradients.

    ## Known limits
    Only shapes the code states are compared: a dataset's batches, a model class whose layer sizes
    are run-time values (or whose input's rank is unknown and whose `forward` does not end in a
    view to literal sizes), and a name bound differently in two places are unknown, and the rule
    stays silent. What another file passes to a constructor is known only in a run that holds
    every file that may build the class (a folder run, not `check trainer.py`). Sizes known to
    differ (a batch of 8 against 10 targets) are not reported. A size of 1 is reported only for the
    BCE losses and only when both sizes are 1 (`torch.ones(1)` against a `(1, 1)` output, which
    raises): MSE and its kin broadcast that pair to the element-wise value, and a `(1,)` target
    against an unknown number of rows may not be one target per row. Sizes not spelled are taken
    to be the same `N`.
    """

    code = "GL513"
    name = "loss-target-shape-mismatch"
    summary = (
        "A loss given an `(N, 1)` input and an `(N,)` target: 0.3 paired them element by element, today it raises or broadcasts to `(N, N)`"
    )
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    triggers = ("Loss", "_loss", "binary_cross_entropy")

    VALID = (
        # shapes that match, or a rank-1 pair
        """
        import torch
        from torch import nn
        import torch.nn.functional as F
        model = nn.Linear(3, 1)
        x, y = torch.randn(16, 3), torch.randn(16)
        loss = nn.MSELoss()(model(x), y.view(-1, 1))
        other = F.mse_loss(model(x).view(-1), y)
        """,
        # shapes the code does not state: a parameter, a model class of the file
        """
        import torch
        from torch import nn
        class Net(nn.Module):
            def forward(self, x):
                return self.fc(x)
        def step(net, x, y):
            criterion = nn.MSELoss()
            return criterion(net(x), y) + criterion(Net()(x), torch.randn(16))
        """,
        # module classes whose output is not known: a last layer sized at run time, an unknown
        # base class, an input of unknown rank; and an (N,) output against an (N,) target
        """
        import torch
        from torch import nn
        from mylib import Base
        class Disc(nn.Module):
            def __init__(self, width, out):
                super().__init__()
                self.fc = nn.Linear(width, out)
            def forward(self, x):
                return torch.sigmoid(self.fc(x))
        class Other(Base):
            def __init__(self, out):
                super().__init__()
                self.fc = nn.Linear(4, out)
            def forward(self, x):
                return torch.sigmoid(self.fc(x))
        class Flat(nn.Module):
            def forward(self, x):
                return x.view(-1)
        def step(k, batch):
            criterion = nn.BCELoss()
            wide = Disc(4, k)
            other = Other(1)
            narrow = Disc(4, 1)
            flat = Flat()
            a = criterion(wide(torch.randn(8, 4)), torch.ones(8))
            b = criterion(other(torch.randn(8, 4)), torch.ones(8))
            c = criterion(narrow(batch), torch.ones(8))
            d = criterion(torch.sigmoid(flat(batch)), torch.ones(batch.size(0)))
            return a + b + c + d
        """,
        # sizes known to differ, a size of 1, a loss that is not element-wise
        """
        import torch
        import torch.nn.functional as F
        a = F.mse_loss(torch.randn(8, 1), torch.randn(10))
        b = F.l1_loss(torch.randn(1, 1), torch.randn(4))
        c = F.cross_entropy(torch.randn(8, 1), torch.randn(8))
        d = F.mse_loss(torch.randn(8, 2), torch.randn(8))
        """,
        # a (1, 1) input against a (1,) target: MSE broadcasts it to the element-wise value; a (1,)
        # target against rows of unknown number may be one target for every row
        """
        import torch
        import torch.nn.functional as F
        def step(x):
            a = F.mse_loss(torch.randn(1, 1), torch.randn(1))
            b = F.binary_cross_entropy(torch.sigmoid(x.view(-1, 1)), torch.ones(1))
            return a + b
        """,
        # a look-alike criterion that is not torch's
        """
        import torch
        from mylib import MSELoss
        loss = MSELoss()(torch.randn(8, 1), torch.randn(8))
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            from torch import nn
            model = nn.Linear(3, 1)
            criterion = nn.MSELoss()
            x, y = torch.randn(16, 3), torch.randn(16)
            loss = criterion(model(x), y)
            """,
            """
            import torch
            from torch import nn
            model = nn.Linear(3, 1)
            criterion = nn.MSELoss()
            x, y = torch.randn(16, 3), torch.randn(16)
            loss = criterion(model(x), y.view(-1, 1))
            """,
            line=6,
            column=8,
            message="broadcasts the pair to (N, N)",
            fix_title="View the target as `(N, 1)`: `y.view(-1, 1)` (changes today's loss: it no longer compares every prediction with every target)",
        ),
        # BCE raises today: the fix is safe
        Invalid(
            """
            import torch
            import torch.nn as nn
            from torch.autograd import Variable
            net = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())
            inputs = Variable(torch.rand(8, 2))
            labels = Variable(torch.FloatTensor([0, 1, 0, 1, 1, 0, 0, 1]))
            loss = nn.BCELoss()(net(inputs), labels)
            """,
            """
            import torch
            import torch.nn as nn
            from torch.autograd import Variable
            net = nn.Sequential(nn.Linear(2, 1), nn.Sigmoid())
            inputs = Variable(torch.rand(8, 2))
            labels = Variable(torch.FloatTensor([0, 1, 0, 1, 1, 0, 0, 1]))
            loss = nn.BCELoss()(net(inputs), labels.view(-1, 1))
            """,
            message="torch 2.13 raises `ValueError`",
            fix_title="View the target as `(N, 1)`: `labels.view(-1, 1)`",
        ),
        # the output of a module class whose last layer's size is a module constant
        Invalid(
            """
            import torch
            from torch import nn
            d_output_size = 1
            class Discriminator(nn.Module):
                def __init__(self, input_size, output_size):
                    super().__init__()
                    self.map1 = nn.Linear(input_size, 8)
                    self.map2 = nn.Linear(8, output_size)
                def forward(self, x):
                    x = torch.relu(self.map1(x))
                    return torch.sigmoid(self.map2(x))
            D = Discriminator(input_size=2, output_size=d_output_size)
            loss = nn.BCELoss()(D(torch.randn(16, 2)), torch.ones(16))
            """,
            """
            import torch
            from torch import nn
            d_output_size = 1
            class Discriminator(nn.Module):
                def __init__(self, input_size, output_size):
                    super().__init__()
                    self.map1 = nn.Linear(input_size, 8)
                    self.map2 = nn.Linear(8, output_size)
                def forward(self, x):
                    x = torch.relu(self.map1(x))
                    return torch.sigmoid(self.map2(x))
            D = Discriminator(input_size=2, output_size=d_output_size)
            loss = nn.BCELoss()(D(torch.randn(16, 2)), torch.ones(16).view(-1, 1))
            """,
            line=13,
            column=8,
            message="an input of shape (16, 1) and a target of shape (16,)",
            fix_title="View the target as `(N, 1)`: `torch.ones(16).view(-1, 1)`",
        ),
        # one sample against one target, through the file's lambdas and functions: BCE raises
        Invalid(
            """
            import numpy as np
            import torch
            from torch import nn
            def decorate(data):
                return torch.cat([data, data * data], 1)
            def sampler(mu, sigma):
                return lambda n: torch.Tensor(np.random.normal(mu, sigma, (1, n)))
            preprocess = lambda data: decorate(data)
            D = nn.Sequential(nn.Linear(200, 1), nn.Sigmoid())
            d_sampler = sampler(4, 1.25)
            real = d_sampler(100)
            loss = nn.BCELoss()(D(preprocess(real)), torch.ones(1))
            """,
            """
            import numpy as np
            import torch
            from torch import nn
            def decorate(data):
                return torch.cat([data, data * data], 1)
            def sampler(mu, sigma):
                return lambda n: torch.Tensor(np.random.normal(mu, sigma, (1, n)))
            preprocess = lambda data: decorate(data)
            D = nn.Sequential(nn.Linear(200, 1), nn.Sigmoid())
            d_sampler = sampler(4, 1.25)
            real = d_sampler(100)
            loss = nn.BCELoss()(D(preprocess(real)), torch.ones(1).view(-1, 1))
            """,
            line=12,
            column=8,
            message="an input of shape (1, 1) and a target of shape (1,)",
            fix_title="View the target as `(N, 1)`: `torch.ones(1).view(-1, 1)`",
        ),
        # a target resized in place, against a module whose forward ends in `.view(-1, 1)`;
        # MSELoss broadcasts: unsafe
        Invalid(
            """
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, x):
                    return self.main(x).view(-1, 1)
            def train(loader, label):
                head = Head()
                criterion = nn.MSELoss()
                for x, _ in loader:
                    label.data.resize_(x.size(0))
                    label.data.fill_(1)
                    loss = criterion(head(x), label)
            """,
            """
            import torch
            from torch import nn
            class Head(nn.Module):
                def forward(self, x):
                    return self.main(x).view(-1, 1)
            def train(loader, label):
                head = Head()
                criterion = nn.MSELoss()
                for x, _ in loader:
                    label.data.resize_(x.size(0))
                    label.data.fill_(1)
                    loss = criterion(head(x), label.view(-1, 1))
            """,
            line=12,
            column=16,
            message="an input of shape (N, 1) and a target of shape (N,)",
            fix_title="View the target as `(N, 1)`: `label.view(-1, 1)` (changes today's loss: it no longer compares every prediction with every target)",
        ),
        # the reverse, through the functional form
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            def fit(p):
                pred = torch.rand(8) * 0.5
                target = torch.rand(8).unsqueeze(1)
                return F.l1_loss(pred, 1 - target)
            """,
            """
            import torch
            import torch.nn.functional as F
            def fit(p):
                pred = torch.rand(8) * 0.5
                target = torch.rand(8).unsqueeze(1)
                return F.l1_loss(pred, (1 - target).view(-1))
            """,
            message="input of shape (8,) and a target of shape (8, 1)",
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        behaviour = self._pairing(node)
        if behaviour is None:
            return
        bound = bind(node, _SIGNATURE)
        loss_input, target = bound.passed("input"), bound.passed("target")
        if loss_input is None or target is None or bound.starred:
            return
        input_shape, target_shape = self.context.shape_of(loss_input), self.context.shape_of(target)
        if input_shape is None or target_shape is None or not _mismatched(input_shape, target_shape, behaviour == _RAISES):
            return
        effect = (
            "raises `ValueError`" if behaviour == _RAISES else "broadcasts the pair to (N, N), comparing every prediction with every target"
        )
        message = (
            f"`{snippet(self.context.code_for(node), 50)}` is given an input of shape {_spelled(input_shape)} and a target of shape "
            f"{_spelled(target_shape)}: 0.3 paired them element by element, torch 2.13 {effect}"
        )
        self.report(node, message, self._fix(target, target_shape, behaviour))

    def _pairing(self, call: cst.Call) -> Optional[str]:
        """ "raises" or "broadcasts" when `call` computes an element-wise loss, else None."""
        func = call.func
        found = _FUNCTIONS.get(self.context.qualified_name(func) or "")
        if found is not None:
            return found
        if isinstance(func, cst.Call):
            return _MODULES.get(self.context.qualified_name(func.func) or "")
        constructions = self.context.nn_modules.module_constructions(func, self.context.stack)
        kinds = {_MODULES.get(self.context.qualified_name(construction.func) or "") for construction in constructions}
        return kinds.pop() if len(kinds) == 1 else None

    def _fix(self, target: cst.BaseExpression, target_shape: tuple, behaviour: str) -> FixPlan:
        code = self.context.code_for(target)
        if not isinstance(target, _ATOMS) and not target.lpar:
            code = f"({code})"
        sizes, spelled = ("-1, 1", "(N, 1)") if len(target_shape) == 1 else ("-1", "(N,)")
        viewed = f"{code}.view({sizes})"
        title = f"View the target as `{spelled}`: `{snippet(viewed, 40)}`"
        if behaviour == _RAISES:
            return self.safe_fix(title, Replace(target, viewed))
        return self.unsafe_fix(
            f"{title} (changes today's loss: it no longer compares every prediction with every target)", Replace(target, viewed)
        )


def _mismatched(input_shape: tuple, target_shape: tuple, raises: bool) -> bool:
    """(N, 1) against (N,), either way round, with no size known to differ. A size of 1 counts
    only for a loss that raises, and only when both are 1: (1, 1) against (1,) broadcasts to the
    element-wise value, and a (1,) target against N rows is not one target per row."""
    column, flat = (input_shape, target_shape) if len(input_shape) == 2 else (target_shape, input_shape)
    if len(column) != 2 or len(flat) != 1 or column[1] != 1:
        return False
    rows, count = column[0], flat[0]
    if rows == 1 or count == 1:
        return raises and rows == count
    return rows is None or count is None or rows == count


def _spelled(shape: tuple) -> str:
    sizes = ["N" if size is None else str(size) for size in shape]
    return f"({sizes[0]},)" if len(sizes) == 1 else f"({', '.join(sizes)})"
