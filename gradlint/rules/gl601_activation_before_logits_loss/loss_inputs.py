"""What a classification loss is fed: which loss a call computes, and whether the value given to it
is probabilities (softmax, sigmoid), log-probabilities (log-softmax) or raw logits, as far as the
code of the file shows it.

A value's activation is known when it is written inline (`F.softmax(out, dim=1)`,
`out.sigmoid()`, `nn.Softmax(dim=1)(out)`), when the assignment a name's read sees is such a value
(`logits = F.softmax(logits, -1)` just before `return logits`) or every binding of the name in its
function is, or when it is the output of a module whose last step the file shows: an `nn.Sequential`
whose last layer is `nn.Softmax` / `nn.LogSoftmax` / `nn.Sigmoid` / `nn.Linear`, an `nn.Linear`,
or an `nn.Module` subclass of the file whose `forward` returns such a value on every path.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from typing import Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.nn_modules import NnModuleEvidence
from gradlint.analysis.scopes import Scope, ScopeTable, enclosing_scope
from gradlint.analysis.semantic.scope import ScopeUsesTable
from gradlint.analysis.syntax import DEFINITIONS, dotted_name, iter_statements, keyword_arg, positional_args, suite_statements
from gradlint.analysis.tree import descendants, iter_children


class Loss(Enum):
    CROSS_ENTROPY = "cross_entropy"  # expects logits: applies log-softmax itself
    NLL = "nll"  # expects log-probabilities
    BCE_WITH_LOGITS = "bce_with_logits"  # expects logits: applies sigmoid itself
    BCE = "bce"  # expects probabilities in [0, 1]


class Activation(Enum):
    SOFTMAX = "softmax"
    LOG_SOFTMAX = "log_softmax"
    SIGMOID = "sigmoid"
    LOGITS = "logits"  # the raw output of a linear layer


_LOSS_FUNCTIONS = {name: Loss(torch_api.function(name).value("loss-kind")) for name in torch_api.functions("loss", "loss-kind")}
_LOSS_CLASSES = {
    name.rsplit(".", 1)[-1]: Loss(torch_api.function(name).value("loss-kind")) for name in torch_api.functions("loss-module", "loss-kind")
}
_LOSS_MODULES = {f"{package}.{name}": loss for name, loss in _LOSS_CLASSES.items() for package in ("torch.nn", "torch.nn.modules.loss")}
_ACTIVATION_FUNCTIONS = {
    name: Activation(torch_api.function(name).value("activation"))
    for name in torch_api.functions("activation")
    if not name.startswith("torch.nn.") or name.startswith("torch.nn.functional.")
}
_ACTIVATION_METHODS = {name: Activation(torch_api.method(name).value("activation")) for name in torch_api.methods("activation")}
_LAYER_CLASSES = {
    **{
        name.rsplit(".", 1)[-1]: Activation(torch_api.function(name).value("activation"))
        for name in torch_api.functions("activation")
        if name.startswith("torch.nn.") and not name.startswith("torch.nn.functional.")
    },
    "Linear": Activation.LOGITS,
    "LazyLinear": Activation.LOGITS,
}
_LAYERS = {
    f"{package}.{name}": activation
    for name, activation in _LAYER_CLASSES.items()
    for package in ("torch.nn", "torch.nn.modules.linear" if name.endswith("Linear") else "torch.nn.modules.activation")
}
_SEQUENTIAL = frozenset({"torch.nn.Sequential", "torch.nn.modules.container.Sequential"})
# Tensor methods that keep the values (and so their activation) of the tensor they are called on.
_VALUE_PRESERVING = torch_api.methods("same-values")
# Module methods that return the module itself: `Net().to(device)` is the `Net()`.
_RETURNS_THE_MODULE = torch_api.module_methods("returns-self")
# Container methods that add layers after construction.
_GROWING_METHODS = frozenset({"append", "extend", "insert", "add_module", "register_module"})
_DEPTH = 6  # names, models and their layers followed through at most this many steps


@dataclass(frozen=True)
class Produced:
    """What a value fed to a loss is, and the code that shows it."""

    activation: Activation
    evidence: cst.CSTNode  # the activation call, or the layer (or `forward` return value) that ends the model
    inline: Optional[cst.Call] = None  # the activation call itself, when the loss input is written as one
    model: Optional[cst.BaseExpression] = None  # the callee whose output the value is, when it is a model's


class LossInputs:
    """Classification losses and the activation of what they are fed, asked through
    `FileContext.loss_inputs`."""

    def __init__(self, module: cst.Module, imports: ImportMap, scopes: ScopeTable, uses: ScopeUsesTable, modules: NnModuleEvidence) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes
        self.uses = uses
        self.modules = modules

    def loss_of(self, call: cst.Call, stack: Sequence[cst.CSTNode]) -> Optional[Loss]:
        """The loss `call` computes: `F.cross_entropy(...)`, `nn.CrossEntropyLoss()(...)`, or a
        `criterion(...)` / `self.criterion(...)` every binding of which constructs one loss module."""
        qualified = self.imports.qualified_name(call.func)
        if qualified in _LOSS_FUNCTIONS:
            return _LOSS_FUNCTIONS[qualified]
        values = self._callee_values(call.func, enclosing_scope(stack), stack[0])
        kinds = {self._constructed_loss(value) for value in values}
        return kinds.pop() if len(kinds) == 1 else None

    def input_of(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """The prediction argument of a loss call: the first positional one, or `input=`."""
        if any(arg.star for arg in call.args):
            return None
        positional = positional_args(call)
        given = positional[0] if positional else keyword_arg(call, "input")
        return given.value if given is not None else None

    def produced(self, value: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> Optional[Produced]:
        """What `value`, evaluated at the end of `stack`, is when the code shows it."""
        produced = self._produced(value, enclosing_scope(stack), stack[0], _DEPTH)
        if produced is not None and produced.model is None and produced.evidence is value:
            return replace(produced, inline=value)
        return produced

    def applied_to(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """What an inline activation call is applied to: `x` in `F.softmax(x, 1)`, `x.sigmoid()`,
        `nn.Sigmoid()(x)`; None for anything else, or when its arguments are unpacked."""
        if any(arg.star for arg in call.args) or self._inline_activation(call) is None:
            return None
        positional = positional_args(call)
        if isinstance(call.func, cst.Call):
            return positional[0].value if len(positional) == 1 else None
        if self.imports.qualified_name(call.func) is None:  # a tensor method: the receiver
            return call.func.value if isinstance(call.func, cst.Attribute) else None
        given = positional[0] if positional else keyword_arg(call, "input")
        return given.value if given is not None else None

    # -- values ------------------------------------------------------------------------------

    def _produced(self, value: cst.BaseExpression, scope: Scope, module: cst.CSTNode, depth: int) -> Optional[Produced]:
        if depth < 0:
            return None
        inner = _strip_value_preserving(value)
        if isinstance(inner, cst.Name):
            return self._bound(inner, scope, module, depth)
        if not isinstance(inner, cst.Call):
            return None
        activation = self._inline_activation(inner)
        if activation is not None:
            return Produced(activation, inner)
        return self._model_output(inner, scope, module, depth)

    def _inline_activation(self, call: cst.Call) -> Optional[Activation]:
        """`F.softmax(x, 1)`, `torch.sigmoid(x)`, `x.softmax(-1)`, `nn.Softmax(dim=1)(x)`."""
        qualified = self.imports.qualified_name(call.func)
        if qualified is not None:
            return _ACTIVATION_FUNCTIONS.get(qualified)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _ACTIVATION_METHODS:
            return _ACTIVATION_METHODS[call.func.attr.value]
        if isinstance(call.func, cst.Call):
            activation = self._layer(call.func)
            return activation if activation is not Activation.LOGITS else None
        return None

    def _bound(self, read: cst.Name, scope: Scope, module: cst.CSTNode, depth: int) -> Optional[Produced]:
        """The assignment the read sees, when the code before it shows which one
        (`logits = F.softmax(logits, -1); return logits`); else every binding of the name in
        `scope` produces the same activation."""
        reaching = self.uses.of(scope).reaching_assignment(read)
        if reaching is not None:
            return self._produced(reaching.value, scope, module, depth - 1)
        values = self.scopes.of(scope).plain_values(read.value)
        if values is None:
            return None
        found = [self._produced(value, scope, module, depth - 1) for value in values]
        return _same(found)

    def _model_output(self, call: cst.Call, scope: Scope, module: cst.CSTNode, depth: int) -> Optional[Produced]:
        """`model(x)` for a model every binding of which ends in a known layer or activation."""
        if any(arg.star for arg in call.args):
            return None
        if dotted_name(call.func) in self._grown_in_place:
            return None  # `model.append(nn.Sigmoid())`: the last layer is not the one built
        values = self._callee_values(call.func, scope, module)
        found = [self._module_output(value, depth - 1) for value in values]
        produced = _same(found)
        return Produced(produced.activation, produced.evidence, model=call.func) if produced is not None else None

    def _module_output(self, value: cst.BaseExpression, depth: int) -> Optional[Produced]:
        """The activation of what the module built by `value` returns."""
        if not isinstance(value, cst.Call) or depth < 0:
            return None
        layer = self._layer(value)
        if layer is not None:
            return Produced(layer, value)
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in _RETURNS_THE_MODULE:
            return self._module_output(value.func.value, depth - 1)  # `Net().to(device)`
        qualified = self.imports.qualified_name(value.func)
        if qualified in _SEQUENTIAL:
            positional = positional_args(value)
            if not positional or any(arg.star for arg in value.args):
                return None
            return self._module_output(positional[-1].value, depth - 1)
        if isinstance(value.func, cst.Name) and value.func.value in self._forwards:
            return self._forward_output(self._forwards[value.func.value], depth - 1)
        return None

    def _forward_output(self, forward: cst.FunctionDef, depth: int) -> Optional[Produced]:
        """Every `return` of a `forward` returns the same activation."""
        returns = [node for node in _own_nodes(forward) if isinstance(node, cst.Return)]
        if not returns or any(r.value is None for r in returns):
            return None
        return _same([self._produced(r.value, forward, self.module, depth) for r in returns])

    def _layer(self, value: cst.BaseExpression) -> Optional[Activation]:
        """`nn.Softmax(dim=1)`, `nn.Sigmoid()`, `nn.Linear(8, 3)`: the layer and what it outputs."""
        if not isinstance(value, cst.Call):
            return None
        return _LAYERS.get(self.imports.qualified_name(value.func) or "")

    @cached_property
    def _forwards(self) -> dict[str, cst.FunctionDef]:
        """nn.Module subclasses of the file that define `forward` themselves, by class name (a
        name defined twice is left out)."""
        found: dict[str, Optional[cst.FunctionDef]] = {}
        for statement in iter_statements(self.module.body):
            if isinstance(statement, cst.ClassDef) and statement.name.value in self.modules.module_classes:
                methods = [s for s in suite_statements(statement.body) if isinstance(s, cst.FunctionDef) and s.name.value == "forward"]
                name = statement.name.value
                found[name] = methods[0] if len(methods) == 1 and name not in found else None
        return {name: forward for name, forward in found.items() if forward is not None}

    @cached_property
    def _grown_in_place(self) -> frozenset[str]:
        """Modules given more layers after they are built: `model.append(...)`, `self.net.add_module(...)`."""
        found = set()
        for node in descendants(self.module):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _GROWING_METHODS:
                receiver = dotted_name(node.func.value)
                if receiver is not None:
                    found.add(receiver)
        return frozenset(found)

    # -- callees -----------------------------------------------------------------------------

    def _callee_values(self, func: cst.BaseExpression, scope: Scope, module: cst.CSTNode) -> list[cst.BaseExpression]:
        """What a callee is bound to: `nn.CrossEntropyLoss()` itself, every value of a name in its
        function (or else at module level), or of `self.attr` in the class's methods; empty when
        anything else may bind it."""
        if isinstance(func, cst.Call):
            return [func]
        if isinstance(func, cst.Name):
            for where in (scope, module):
                bindings = self.scopes.of(where)
                name = func.value
                if name in bindings.opaque or name in bindings.unpacked or name in bindings.loop_sources:
                    return []
                if bindings.assigned(name):
                    return list(bindings.assigned(name))
            return []
        if isinstance(func, cst.Attribute):
            return [value for value, _ in self.scopes.instance_attribute_values(func, scope)]
        return []

    def _constructed_loss(self, value: cst.BaseExpression) -> Optional[Loss]:
        if not isinstance(value, cst.Call):
            return None
        return _LOSS_MODULES.get(self.imports.qualified_name(value.func) or "")


def _strip_value_preserving(value: cst.BaseExpression) -> cst.BaseExpression:
    """`probs.view(-1, c).float()` -> `probs`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _VALUE_PRESERVING:
        value = value.func.value
    return value


def _same(found: list[Optional[Produced]]) -> Optional[Produced]:
    """The first of `found` when there is at least one and all show the same activation."""
    if not found or any(p is None for p in found):
        return None
    first = found[0]
    return first if all(p.activation is first.activation for p in found) else None


def _own_nodes(function: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The nodes of a function's body, not those of the functions and classes nested in it."""
    pending = list(suite_statements(function.body))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, DEFINITIONS):
            pending.extend(iter_children(node))
