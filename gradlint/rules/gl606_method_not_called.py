from __future__ import annotations

import libcst as cst

from gradlint.analysis.roles import Role
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

# Bare `x.zero_grad` / `x.backward` statements are a mistake whatever `x` is.
_ANY_RECEIVER = {
    "zero_grad": "gradients are never reset and add up across steps",
    "backward": "no gradient is computed, so the step after it changes nothing",
}
# Methods that name a training call only on an object playing one of these roles.
_BY_ROLE = {
    ("step", Role.OPTIMIZER): "the parameters are never updated",
    ("step", Role.SCHEDULER): "the scheduler never steps (the learning rate stays where it is)",
    ("step", Role.SCALER): "the optimizer never steps",
    ("update", Role.SCALER): "the loss scale is never updated, and the next `scaler.step` raises RuntimeError",
    ("eval", Role.MODEL): "the model stays in training mode (dropout active, batch-norm statistics updated)",
    ("train", Role.MODEL): "the model stays in evaluation mode (dropout off, batch-norm statistics frozen)",
}
# Objects whose `state_dict` is a method: models, optimizers, schedulers, scalers.
_STATEFUL = frozenset({Role.MODEL, Role.OPTIMIZER, Role.SCHEDULER, Role.SCALER})


class MethodNotCalled(Rule):
    """
    ## What it does
    Flags a training method named but not called, as a statement of its own: `optimizer.zero_grad`,
    `loss.backward`, `optimizer.step`, `scheduler.step`, `scaler.update`, `model.eval`,
    `model.train`; and a bound method passed where its result is meant:
    `torch.save({"model": model.state_dict}, path)`, `torch.optim.SGD(model.parameters, lr=0.1)`
    (`torch.save(model.state_dict, path)` itself is reported by GL510).

    ## Why is this bad?
    An attribute read as a statement does nothing. Measured in torch 2.13 (a linear model, SGD with
    lr 0.1, three steps): without `zero_grad()` the weights end at `[-0.1019, -0.0706, -0.3219]`
    instead of `[-0.0490, 0.1269, -0.3985]` (gradients summed); without `backward()` or `step()`
    they never leave their initial `[-0.0043, 0.3097, -0.4752]`; a `StepLR(gamma=0.5)` whose
    `step` is not called keeps the rate at 0.1 instead of 0.05, 0.025, 0.0125; without
    `scaler.update()` the second `scaler.step(optimizer)` raises `RuntimeError: step() has already
    been called since the last update()`. `model.eval` leaves dropout on (two evaluations of the
    same input differ) and `model.train` after `eval()` leaves batch norm's running mean at 0.
    `torch.save({"model": model.state_dict}, f)` pickles the bound method, hence the whole module:
    the default `torch.load(f)` raises `UnpicklingError` (weights-only loading, torch 2.6 and
    later), and `load_state_dict` of the method that `weights_only=False` returns raises TypeError.
    `torch.optim.SGD(model.parameters, ...)` raises `TypeError: 'method' object is not iterable`.
    No error, no warning in the other cases.

    ## Example
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters, lr=0.1)
    for x, y in loader:
        optimizer.zero_grad
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval
    torch.save({"model": model.state_dict, "epoch": epoch}, "model.pt")
    ```

    ## Use instead
    ```python
    import torch
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    model.eval()
    torch.save({"model": model.state_dict(), "epoch": epoch}, "model.pt")
    ```

    ## Fix safety
    Safe: the fix adds `()`. The statement as written does nothing (or the call raises), and the
    call is the only reading of it; the training then does what the code says.

    ## Known limits
    `zero_grad` and `backward` are reported on any object. `step`, `update`, `eval` and `train` are
    reported only on an object the file shows to be an optimizer, a learning-rate scheduler, a
    gradient scaler or a model (by its construction, or by a name playing that role: `optimizer`,
    `scheduler`, `scaler`, `model`, `self` in an `nn.Module`): `env.step` or `trainer.train` as a
    statement is a no-op too, but what it fails to do is not known. A `state_dict` or `parameters`
    attribute the file assigns (data, not a method) is left alone. Methods named in other
    expressions (`callbacks = [opt.step]`, `step = opt.step`) are not reported: they may be called later.
    """

    code = "GL606"
    name = "method-not-called"
    summary = "a training method is named but not called"
    severity = Severity.ERROR
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("zero_grad", "backward", "step", "update", "eval", "train", "state_dict", "parameters")

    VALID = (
        """
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()
        model.eval()
        """,
        """
        obs = env.reset()
        env.step
        trainer.train
        evaluator.eval
        counter.update
        """,
        """
        closure = optimizer.step
        hooks = [model.train, model.eval]
        mode = model.train if training else model.eval
        mode()
        """,
        """
        import torch
        class Holder:
            def __init__(self):
                self.state_dict = {"w": 1}
        holder = Holder()
        torch.save({"holder": holder.state_dict}, "h.pt")
        """,
        """
        import torch
        torch.save(model.state_dict(), "model.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "ckpt.pt")
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        """,
        """
        import torch
        class Config:
            def __init__(self, params):
                self.parameters = params
        config = Config([torch.zeros(2, requires_grad=True)])
        optimizer = torch.optim.SGD(config.parameters, lr=0.1)
        """,
        """
        import numpy as np
        values = np.zeros(3)
        values.step
        self.train
        """,
        """
        from sklearn.preprocessing import StandardScaler
        feature_scaler = StandardScaler()
        feature_scaler.fit(data)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            for x, y in loader:
                optimizer.zero_grad
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            """,
            """
            import torch
            for x, y in loader:
                optimizer.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
            """,
            line=3,
            column=5,
            message="`optimizer.zero_grad` is not called: gradients are never reset",
            fix_title="Call it: `optimizer.zero_grad()`",
        ),
        Invalid(
            """
            for batch in loader:
                out = net(batch)
                (out.sum() / 4).backward
                self.opt.step()
            """,
            """
            for batch in loader:
                out = net(batch)
                (out.sum() / 4).backward()
                self.opt.step()
            """,
            line=3,
            column=5,
            message="no gradient is computed",
        ),
        Invalid(
            """
            import torch
            opt = torch.optim.Adam(params)
            sched = torch.optim.lr_scheduler.StepLR(opt, 10)
            grad_scaler = torch.amp.GradScaler()
            for x in data:
                grad_scaler.scale(f(x)).backward()
                grad_scaler.step(opt)
                grad_scaler.update
                sched.step
            opt.step
            """,
            """
            import torch
            opt = torch.optim.Adam(params)
            sched = torch.optim.lr_scheduler.StepLR(opt, 10)
            grad_scaler = torch.amp.GradScaler()
            for x in data:
                grad_scaler.scale(f(x)).backward()
                grad_scaler.step(opt)
                grad_scaler.update()
                sched.step()
            opt.step()
            """,
        ),
        Invalid(
            """
            from torch import nn
            class Net(nn.Module):
                def predict(self, x):
                    self.eval
                    return self(x)
            model = Net()
            model.train
            """,
            """
            from torch import nn
            class Net(nn.Module):
                def predict(self, x):
                    self.eval()
                    return self(x)
            model = Net()
            model.train()
            """,
            line=4,
            column=9,
            message="the model stays in training mode",
        ),
        Invalid(
            """
            import torch
            torch.save({"epoch": epoch, "optimizer": optimizer.state_dict, "model": self.model.state_dict}, "ckpt.pt")
            """,
            """
            import torch
            torch.save({"epoch": epoch, "optimizer": optimizer.state_dict(), "model": self.model.state_dict()}, "ckpt.pt")
            """,
            line=2,
            column=42,
            message="`optimizer.state_dict` is saved without the call",
            fix_title="Call it: `optimizer.state_dict()`",
        ),
        Invalid(
            """
            from torch import optim
            optimizer = optim.SGD(model.parameters, lr=0.1, momentum=0.9)
            """,
            """
            from torch import optim
            optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            """,
            line=2,
            column=23,
            message="raises TypeError: 'method' object is not iterable",
        ),
    )

    def visit_Expr(self, node: cst.Expr) -> None:
        value = node.value
        if type(value) is not cst.Attribute:
            return
        method = value.attr.value
        consequence = _ANY_RECEIVER.get(method)
        if consequence is None:
            role = self.context.training_objects.role_of(value.value, self.context.stack)
            consequence = _BY_ROLE.get((method, role))
        if consequence is not None:
            self.report(value, f"`{self._written(value)}` is not called: {consequence}", self._fix(value))

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.qualified_name(node.func) == "torch.save" and node.args:
            self._check_saved(node.args[0].value)
        elif self.context.training.optimizers.is_optimizer_class(node.func) and node.args:
            params = node.args[0]
            if params.keyword is None and not params.star:
                self._check_parameters(params.value)

    def _check_saved(self, saved: cst.BaseExpression) -> None:
        """`torch.save({"model": model.state_dict}, f)`: a bound method among the values of a saved
        dict (GL510 reports `torch.save(model.state_dict, f)` itself)."""
        if type(saved) is not cst.Dict or self.context.training_objects.binds_attribute("state_dict"):
            return
        for element in saved.elements:
            value = element.value if type(element) is cst.DictElement else None
            if (
                _is_method_reference(value, "state_dict")
                and self.context.training_objects.role_of(value.value, self.context.stack) in _STATEFUL
            ):
                self.report(
                    value,
                    f"`{self._written(value)}` is saved without the call: that pickles the bound method (the whole "
                    "object), which the default `torch.load` refuses",
                    self._fix(value),
                )

    def _check_parameters(self, params: cst.BaseExpression) -> None:
        """`optim.SGD(model.parameters, ...)`."""
        if _is_method_reference(params, "parameters") and not self.context.training_objects.binds_attribute("parameters"):
            self.report(
                params,
                f"`{self._written(params)}` is passed without the call: the optimizer raises TypeError: 'method' object is not iterable",
                self._fix(params),
            )

    def _fix(self, node: cst.Attribute):
        written = self._written(node)
        return self.safe_fix(f"Call it: `{written}()`", Replace(node, f"{written}()"))

    def _written(self, node: cst.BaseExpression) -> str:
        return self.context.code_for(node.with_changes(lpar=[], rpar=[]))


def _is_method_reference(node: cst.BaseExpression, method: str) -> bool:
    return type(node) is cst.Attribute and node.attr.value == method
