from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional

import libcst as cst

from gradlint.analysis.grad_mode import is_no_grad_with
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.grad_tracking import ends_history, mentioned_names
from gradlint.analysis.syntax import dotted_name, is_bool_literal, method_call_on, positional_args, suite_statements
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule
from gradlint.analysis.tree import iter_children

_MESSAGE = (
    "generator output `{fake}` reaches the discriminator without `.detach()` in the discriminator update "
    "(`{step}` on line {line}): the discriminator loss backpropagates into the generator"
)
_ROLE = {
    "d": r"d|disc|discriminator\w*|critic|net_?d|d_?net|model_?d|d_?model",
    "g": r"g|gen|generator\w*|net_?g|g_?net|model_?g|g_?model",
}
_OPTIMIZER = r"opt|optim|optimizer|optimiser"
NETWORK = {role: re.compile(rf"^(?:{names})$", re.IGNORECASE) for role, names in _ROLE.items()}
OPTIMIZER = {
    role: re.compile(rf"^(?:(?:{_OPTIMIZER})_?(?:{names})|(?:{names})_?(?:{_OPTIMIZER}))$", re.IGNORECASE)
    for role, names in _ROLE.items()
}
_OPTIMIZER_IN_TEXT = re.compile(rf"\b(?:(?:{_OPTIMIZER})_?(?:{_ROLE['d']})|(?:{_ROLE['d']})_?(?:{_OPTIMIZER}))\b", re.IGNORECASE)
# Tensor methods that keep the generator's graph on the way into the discriminator.
SHAPE_METHODS = frozenset({"view", "reshape", "squeeze", "unsqueeze", "flatten", "to", "float", "cuda", "contiguous", "permute"})


@dataclass
class _Line:
    """One small statement of a function body, in source order, with what it does for a GAN step."""

    node: cst.CSTNode
    no_grad: bool


class GanDiscriminatorNoDetach(Rule):
    """
    ## What it does
    In a discriminator update (its loss is backpropagated and the discriminator's optimizer
    steps), flags generator output that reaches the discriminator without `.detach()`: `D(G(z))`,
    or `fake = G(z)` followed by `D(fake)`. Networks and optimizers are recognised by their names
    (`D`, `netD`, `discriminator`, `critic`; `G`, `netG`, `generator`; `optD`, `optimizer_d`...).

    ## Why is this bad?
    Measured in torch 2.13: after `d_loss.backward()` the generator's weights hold a non-zero
    gradient from the discriminator loss (they should hold none). If the generator step then
    reuses `fake`, backward raises "Trying to backward through the graph a second time"; with
    `retain_graph=True` and no `optG.zero_grad()` the generator is silently updated with the sum of
    both losses' gradients. At best, the backward pass through the generator is wasted compute.

    ## Example
    ```python
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake), zeros)
    d_loss.backward()
    opt_d.step()
    ```

    ## Use instead
    ```python
    fake = G(z)
    d_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    d_loss.backward()
    opt_d.step()
    ```

    ## Fix safety
    Unsafe: `D(fake.detach())` leaves the discriminator's update bitwise unchanged and stops the
    gradient into the generator, which changes the generator's training when the code relied on the
    accumulated gradient.

    ## Known limits
    Networks and optimizers are matched by name only. Nothing is reported when the generator is
    frozen anywhere in the file (`requires_grad_(False)`, `requires_grad = False` on its
    parameters), when the fake is built under `no_grad`, or when the update is spread over
    several functions.
    """

    code = "GL406"
    name = "gan-discriminator-no-detach"
    summary = "discriminator update backpropagates into the generator"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("step",)

    VALID = (
        "fake = G(z)\nd_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)\nd_loss.backward()\nopt_d.step()\n"
        "g_loss = bce(D(fake), ones)\ng_loss.backward()\nopt_g.step()\n",
        "import torch\nwith torch.no_grad():\n    fake = G(z)\nd_loss = bce(D(fake), zeros)\nd_loss.backward()\nopt_d.step()\n",
        "G.requires_grad_(False)\nfake = G(z)\nd_loss = D(fake).mean()\nd_loss.backward()\noptimizerD.step()\n",
        "for p in netG.parameters():\n    p.requires_grad = False\nd_loss = netD(netG(z)).mean()\nd_loss.backward()\noptimizerD.step()\n",
        "fake = G(z)\ng_loss = bce(D(fake), ones)\ng_loss.backward()\nopt_g.step()\n"
        "d_loss = bce(D(fake.detach()), zeros)\nd_loss.backward()\nopt_d.step()\n",
        "fake = G(z).detach()\nd_loss = bce(D(fake), zeros)\nd_loss.backward()\nopt_d.step()\n",
        "out = D(G(z))\nloss = out.mean()\nloss.backward()\noptimizer.step()\n",
    )
    INVALID = (
        Invalid(
            "fake = G(z)\nd_loss = bce(D(real), ones) + bce(D(fake), zeros)\nd_loss.backward()\nopt_d.step()\n",
            "fake = G(z)\nd_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)\nd_loss.backward()\nopt_d.step()\n",
        ),
        Invalid(
            "for real in loader:\n    d_loss = -(netD(real).mean() - netD(netG(noise)).mean())\n    d_loss.backward()\n"
            "    optimizerD.step()\n",
            "for real in loader:\n    d_loss = -(netD(real).mean() - netD(netG(noise).detach()).mean())\n    d_loss.backward()\n"
            "    optimizerD.step()\n",
        ),
        Invalid(
            "class GAN:\n    def train_step(self, z, real):\n        fake = self.generator(z)\n"
            "        loss = self.discriminator(fake).mean() - self.discriminator(real).mean()\n"
            "        loss.backward()\n        self.d_optimizer.step()\n",
            "class GAN:\n    def train_step(self, z, real):\n        fake = self.generator(z)\n"
            "        loss = self.discriminator(fake.detach()).mean() - self.discriminator(real).mean()\n"
            "        loss.backward()\n        self.d_optimizer.step()\n",
        ),
    )

    @classmethod
    def applies_to(cls, text: str) -> bool:
        # Only files that step a discriminator's optimizer can hold a discriminator update.
        return "step" in text and _OPTIMIZER_IN_TEXT.search(text) is not None

    def visit_Module(self, node: cst.Module) -> None:
        if _generator_frozen(node):
            return
        for body in _bodies(node):
            self._check_body(_lines(body, self.context.imports))

    def _check_body(self, lines: list[_Line]) -> None:
        fakes: dict[str, bool] = {}  # name -> carries the generator's graph
        for index, line in enumerate(lines):
            for call in _calls(line.node):
                argument = _discriminator_input(call)
                if argument is not None and _is_fake(argument, fakes):
                    self._check_call(argument, lines, index)
            assigned = _assigned_name(line.node)
            if assigned is not None:
                value = line.node.value
                fakes[assigned] = not line.no_grad and _generator_output(value)

    def _check_call(self, argument: cst.BaseExpression, lines: list[_Line], index: int) -> None:
        backward_seen = False
        for later in lines[index:]:
            for call in _calls(later.node):
                role = _stepped_role(call)
                if role == "g":
                    return
                if role == "d" and backward_seen:
                    fix = self.unsafe_fix("Detach the generator output", Replace(argument, method_call_on(argument, "detach")))
                    message = _MESSAGE.format(fake=snippet(self.context.code_for(argument), 40, "the value"), step=snippet(self.context.code_for(call), 40, "the value"), line=self.context.line_of(call))
                    self.report(argument, message, fix)
                    return
                if _is_backward(call):
                    backward_seen = True


def _bodies(module: cst.Module) -> Iterator[list[cst.CSTNode]]:
    """The module body and every function body (nested definitions are bodies of their own)."""
    yield list(module.body)
    pending: list[cst.CSTNode] = [module]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.FunctionDef):
            yield list(suite_statements(node.body))
        if isinstance(node, (cst.BaseExpression,)):
            continue
        pending.extend(iter_children(node))


def _lines(body: list[cst.CSTNode], imports: ImportMap, no_grad: bool = False) -> list[_Line]:
    """Small statements in source order, loops and branches flattened, nested definitions skipped."""
    lines: list[_Line] = []
    for statement in body:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(statement, cst.SimpleStatementLine):
            lines.extend(_Line(small, no_grad) for small in statement.body)
        elif isinstance(statement, cst.BaseSmallStatement):
            lines.append(_Line(statement, no_grad))
        else:
            inner = no_grad or is_no_grad_with(statement, imports)
            for block in _blocks(statement):
                lines.extend(_lines(block, imports, inner))
    return lines


def _blocks(statement: cst.CSTNode) -> Iterator[list[cst.CSTNode]]:
    yield list(suite_statements(getattr(statement, "body", None)))
    for handler in getattr(statement, "handlers", ()):
        yield list(suite_statements(handler.body))
    for name in ("orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, cst.If):
            yield [block]
        elif block is not None:
            yield list(suite_statements(block.body))


def _calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Calls in a small statement, outer calls before the calls in their arguments."""
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, (cst.Lambda, cst.FunctionDef)):
            continue
        if isinstance(current, cst.Call):
            yield current
        pending.extend(reversed(iter_children(current)))


def _role_of(callee: cst.BaseExpression) -> Optional[str]:
    name = callee.attr.value if isinstance(callee, cst.Attribute) else callee.value if isinstance(callee, cst.Name) else None
    if name is None or (isinstance(callee, cst.Attribute) and not _rooted_in_self(callee.value)):
        return None
    for role, pattern in NETWORK.items():
        if pattern.match(name):
            return role
    return None


def _rooted_in_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _discriminator_input(call: cst.Call) -> Optional[cst.BaseExpression]:
    if _role_of(call.func) != "d":
        return None
    args = positional_args(call)
    return args[0].value if args else None


def _generator_output(value: cst.BaseExpression) -> bool:
    """`G(z)`, `self.netG(z)`, `G(z).view(...)`; not `G(z).detach()`."""
    while isinstance(value, cst.Call):
        if _role_of(value.func) == "g":
            return True
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in SHAPE_METHODS:
            value = value.func.value
            continue
        return False
    return False


def _is_fake(argument: cst.BaseExpression, fakes: dict[str, bool]) -> bool:
    if ends_history(argument):
        return False
    if isinstance(argument, cst.Name):
        return fakes.get(argument.value, False)
    return _generator_output(argument)


def _assigned_name(node: cst.CSTNode) -> Optional[str]:
    if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
        return node.targets[0].target.value
    return None


def _stepped_role(call: cst.Call) -> Optional[str]:
    """'d' / 'g' for `optD.step()`, `self.opt_g.step()`, `scaler.step(optD)`."""
    func = call.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "step"):
        return None
    receiver = func.value
    args = positional_args(call)
    if args and "scaler" in (dotted_name(receiver) or "").lower():
        receiver = args[0].value
    name = dotted_name(receiver)
    if name is None:
        return None
    last = name.rsplit(".", 1)[-1]
    for role, pattern in OPTIMIZER.items():
        if pattern.match(last):
            return role
    return None


def _is_backward(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "backward"


def _generator_frozen(module: cst.Module) -> bool:
    """`G.requires_grad_(False)`, or `p.requires_grad = False` / `p.requires_grad_(False)` for p in G's parameters."""
    pending: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while pending:
        node, over_generator = pending.pop()
        if isinstance(node, cst.For) and any(NETWORK["g"].match(name) for name in mentioned_names(node.iter)):
            over_generator = True
        if _freezes(node) and (over_generator or any(NETWORK["g"].match(name) for name in mentioned_names(node))):
            return True
        pending.extend((child, over_generator) for child in iter_children(node))
    return False


def _freezes(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "requires_grad_":
        return bool(node.args) and is_bool_literal(node.args[0].value, False)
    if isinstance(node, cst.Assign):
        return is_bool_literal(node.value, False) and any(
            isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad" for t in node.targets
        )
    return False
