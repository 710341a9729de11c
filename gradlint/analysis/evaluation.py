"""Evaluation loops: loops that run a model over held-out data to score it, without training it.

A loop is one when it iterates a validation or test set (`val_loader`, `test_dataloader`,
`self.eval_dl`, `dataloaders["val"]`), or iterates batches inside a function named like an
evaluation (`evaluate`, `validate`, `test`); calls a model (`model(x)`, `self.net(x)`,
`model.forward(x)`); scores or gathers what it computes (a metric, a loss, `+=`, `.append`,
`argmax`, `.item()`); and neither backpropagates nor steps an optimizer, nor asks for input
gradients (an adversarial evaluation). Names are the evidence, so every part must hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.torch_api.context_managers import grad_mode_managers
from gradlint.analysis.functions import mentioned_keys
from gradlint.analysis.grad_mode import disables_grad, may_enable_grad
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.regions import bound_names, own_nodes, read_names
from gradlint.analysis.roles import CRITERION, MODULE_INSTANCE
from gradlint.analysis.batch_loops import iterates_batches
from gradlint.analysis.scopes import ScopeTable
from gradlint.analysis.summaries import FunctionSummaries
from gradlint.analysis.syntax import DEFINITIONS, calls_method, dotted_name, suite_statements
from gradlint.analysis.training import TrainingAnalysis
from gradlint.analysis.tree import descendants, iter_children

# A validation or test set: `val_loader`, `testloader`, `eval_dataloader`, `valid_dl`, `test_data`.
EVALUATION_DATA = re.compile(
    r"^(?:\w+_)?(?:val|valid|validation|test|testing|eval|evaluation|dev|held_?out)_?(?:data_?)?"
    r"(?:loader|dataloader|dl|data|dataset|ds|set|batches|iter|iterator)s?(?:_\w+)?$",
    re.IGNORECASE,
)
# The split of a data set a string key names: `dataloaders["val"]`, `loaders["test"]`.
EVALUATION_SPLIT = re.compile(r"^(?:val|valid|validation|test|testing|eval|evaluation|dev)$", re.IGNORECASE)
# Words of a function name that say it scores a model: `evaluate`, `validate_epoch`, `run_test`.
EVALUATION_WORDS = frozenset({"eval", "evaluate", "evaluation", "test", "testing", "val", "valid", "validate", "validation"})
# Calls that turn autograd off or set it (`torch._C._set_grad_enabled` ends the same way).
_GRAD_MODE_SETTERS = tuple(sorted(torch_api.short_names(grad_mode_managers("sets") | grad_mode_managers("disables"))))
FUNCTIONAL_DROPOUTS = torch_api.short_names(torch_api.functions("dropout"))
# Methods whose result shows a score or a prediction being computed from an output: container
# updates, and tensor methods that rank, compare, reduce or read a number.
_SCORES = (
    torch_api.methods("ranks") | torch_api.methods("compares") | torch_api.methods("reduction") | torch_api.methods("detaches", "number")
)
SCORING_METHODS = frozenset({"append", "extend", "update", "add_"}) | _SCORES
# Calls on a model that are not its forward pass (or that disable grad themselves: `generate`).
NOT_FORWARD = frozenset({"generate"})
# Base classes whose framework runs the evaluation hooks with autograd off (Lightning, HF Trainer).
FRAMEWORK_PACKAGES = ("lightning", "pytorch_lightning", "lightning_fabric", "transformers", "trl")


@dataclass(frozen=True)
class EvaluationLoop:
    loop: cst.For
    scope: Optional[cst.FunctionDef]  # the function it is written in (None: module level)
    model_calls: tuple[cst.Call, ...]  # the forward passes of its body, in source order
    by_data: bool  # it iterates data named as a validation or test set (else: the function's name)


class EvaluationLoops:
    """The evaluation loops of one file, and what keeps them from building a graph."""

    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        scopes: ScopeTable,
        training: TrainingAnalysis,
        functions: FunctionSummaries,
        called_elsewhere: Optional[frozenset[str]] = None,
    ) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes
        self.training = training
        self.functions = functions
        self.called_elsewhere = called_elsewhere
        self._judged: dict[int, Optional[EvaluationLoop]] = {}

    @cached_property
    def all(self) -> dict[int, EvaluationLoop]:
        """Every evaluation loop of the file, by the id of its `for` (a walk of the whole tree:
        rules ask `of` about the loops they visit instead)."""
        found = {}
        for loop, scope in _for_loops(self.module):
            evaluation = self.of(loop, scope)
            if evaluation is not None:
                found[id(loop)] = evaluation
        return found

    def of(self, loop: cst.CSTNode, scope: Optional[cst.FunctionDef]) -> Optional[EvaluationLoop]:
        """The evaluation loop `loop` is (written in the function `scope`; None at module level),
        or None. Judged on demand: most files have no evaluation loop, and walking the whole tree
        for them costs more than judging the few loops a rule asks about."""
        key = id(loop)
        if key not in self._judged:
            self._judged[key] = self._evaluation(loop, scope) if isinstance(loop, cst.For) else None
        return self._judged[key]

    def _evaluation(self, loop: cst.For, scope: Optional[cst.FunctionDef]) -> Optional[EvaluationLoop]:
        by_data = self._iterates_evaluation_data(loop, scope)
        if not by_data and not (scope is not None and evaluation_name(scope.name.value) and iterates_batches(loop, self.scopes, scope)):
            return None
        calls = tuple(self._model_calls(loop))
        if not calls or not _scores(loop) or self._trains(loop) or _asks_for_input_gradients(loop, self.imports):
            return None
        if scope is not None and _asks_for_input_gradients(scope, self.imports):
            return None
        if self._backpropagated_later(loop, scope):
            return None
        return EvaluationLoop(loop, scope, calls, by_data)

    def _iterates_evaluation_data(self, loop: cst.For, scope: Optional[cst.FunctionDef]) -> bool:
        names = mentioned_keys(loop.iter)
        for name in list(names):
            if "." not in name:
                for value in self.scopes.values_of(name, scope if scope is not None else self.module):
                    names |= mentioned_keys(value)
        if any(EVALUATION_DATA.match(name.rsplit(".", 1)[-1]) for name in names):
            return True
        return any(isinstance(node, cst.Subscript) and _names_split(node) for node in own_nodes(loop.iter))

    def _model_calls(self, loop: cst.For) -> Iterator[cst.Call]:
        """Forward passes in the body that run with the grad mode the loop runs in (not inside a
        `with torch.no_grad():` of the body itself)."""
        pending: list[cst.CSTNode] = list(suite_statements(loop.body))
        while pending:
            node = pending.pop(0)
            if isinstance(node, DEFINITIONS):
                continue
            if isinstance(node, cst.With) and any(_sets_grad_mode(item.item, self.imports) for item in node.items):
                continue
            if isinstance(node, cst.Call) and is_forward_pass(node):
                yield node
            pending[0:0] = iter_children(node)

    def _trains(self, loop: cst.For) -> bool:
        if self.training.optimises(loop):
            return True
        return any(calls_method(node, "backward", "step") for node in own_nodes(loop))

    def _backpropagated_later(self, loop: cst.For, scope: Optional[cst.FunctionDef]) -> bool:
        """What the loop computes may reach a backward pass: the function's result is
        backpropagated, or a later `.backward()` reads a value computed from what the loop binds or
        gathers (`losses.append(l)`, then `sum(losses).backward()`)."""
        if scope is not None and self.functions.of(scope).result_reaches_backward:
            return True
        computed = bound_names([loop]) | _filled_names(loop)
        after = False
        for node in _in_source_order(scope.body if scope is not None else self.module):
            if node is loop:
                after = True
            elif not after:
                continue
            elif calls_method(node, "backward") and read_names(node.func.value) & computed:
                return True
            elif isinstance(node, (cst.Assign, cst.AugAssign)) and node.value is not None and read_names(node.value) & computed:
                targets = node.targets if isinstance(node, cst.Assign) else [node]
                computed |= {name.value for target in targets for name in own_nodes(target.target) if isinstance(name, cst.Name)}
        return False

    # -- grad mode around a loop ---------------------------------------------------------------

    def grad_mode_chosen(self, stack: Sequence[cst.CSTNode]) -> bool:
        """The code at the end of `stack` runs with a grad mode its author chose: inside a `with`
        that sets one (no_grad, inference_mode, enable_grad, set_grad_enabled(flag), a context held
        in a variable named for it), in a function decorated so or called only with grad off (in
        this file, transitively), or after `torch.set_grad_enabled(...)` in the same body."""
        for node in reversed(stack[:-1]):
            if isinstance(node, cst.With) and any(_sets_grad_mode(item.item, self.imports) for item in node.items):
                return True
            if isinstance(node, cst.FunctionDef):
                return self.function_runs_without_grad(node) or _sets_grad_mode_in(node, self.imports)
        return _sets_grad_mode_in(self.module, self.imports)

    def function_runs_without_grad(self, function: cst.FunctionDef, seen: Optional[set[int]] = None) -> bool:
        """Decorated with no_grad (or a wrapper named for it), or every call of it in the file runs
        with grad off, directly or from functions that do; or it is a method of a framework class
        whose hooks run without grad (a LightningModule, a Trainer subclass)."""
        seen = set() if seen is None else seen
        if id(function) in seen:
            return False
        seen.add(id(function))
        summary = self.functions.of(function)
        if summary.decorated_without_grad or any(_sets_grad_mode(d.decorator, self.imports) for d in function.decorators):
            return True
        if self.framework_method(function):
            return True
        sites = summary.call_sites
        if not sites:
            return False
        return all(site.without_grad or (site.scope is not None and self.function_runs_without_grad(site.scope, seen)) for site in sites)

    def may_be_called_elsewhere(self, function: cst.FunctionDef) -> bool:
        """A module-level function not called in its file that another file may call (with whatever
        grad mode): the run mentions it elsewhere, or the run does not show every importer."""
        if function.name.value not in self.functions.table.module_level or self.functions.of(function).call_sites:
            return False
        return self.called_elsewhere is not None and function.name.value in self.called_elsewhere

    def framework_method(self, function: cst.FunctionDef) -> bool:
        """A method of a class whose framework runs its evaluation hooks itself, with autograd off
        and the model in evaluation mode (a LightningModule, a Hugging Face Trainer subclass)."""
        owner = self.functions.table.class_of(function)
        return owner is not None and self._framework_class(owner)

    def _framework_class(self, owner: cst.ClassDef) -> bool:
        for base in owner.bases:
            qualified = self.imports.qualified_name(base.value) or dotted_name(base.value) or ""
            if qualified.split(".", 1)[0] in FRAMEWORK_PACKAGES or qualified.endswith(("LightningModule", "Trainer")):
                return True
        return False


# Unit tests run models on tiny inputs to check shapes and code paths, not to score them.
_TEST_FILE = re.compile(r"(^|[\\/])(tests?[\\/]|test_[^\\/]*\.py$|[^\\/]*_test\.py$)")


def is_test_file(path: str) -> bool:
    return bool(_TEST_FILE.search(path))


# The modules pytest collects by default: a few steps of training there exercise the machinery.
_TEST_MODULE = re.compile(r"(^|[\\/])(test_[^\\/]*|[^\\/]*_test)\.py$")


def is_test_module(path: str) -> bool:
    """A module of tests by pytest's default names (`test_*.py`, `*_test.py`), wherever it lies:
    unlike `is_test_file`, a script kept under a `tests/` folder as data is not one."""
    return bool(_TEST_MODULE.search(path))


def evaluation_name(name: str) -> bool:
    """`evaluate`, `validate_epoch`, `run_test`, `evalModel`; not a test case (`test_forward`) nor
    a name that also trains (`train_and_evaluate`)."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().strip("_").split("_")
    if words[0] == "test" and len(words) > 1 or "train" in words:
        return False
    return any(word.rstrip("0123456789") in EVALUATION_WORDS for word in words)


def is_forward_pass(call: cst.Call) -> bool:
    """`model(x)`, `self.net(x)`, `model.forward(x)`, `model_ema(x)`; not `Model(cfg)` (a
    constructor) nor `model.generate(...)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    if isinstance(func, cst.Attribute) and func.attr.value in NOT_FORWARD:
        return False
    name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    if name is None or not MODULE_INSTANCE.match(name):
        return False
    return not (name[:1].isupper() and len(name) > 1)


def _scores(loop: cst.For) -> bool:
    """The body computes a metric or gathers results: `+=`, `.append(...)`, `.item()`, a
    comparison, a criterion or metric call."""
    for node in own_nodes(loop.body):
        if isinstance(node, cst.AugAssign) or isinstance(node, cst.Comparison):
            return True
        if isinstance(node, cst.Call):
            name = dotted_name(node.func)
            last = name.rsplit(".", 1)[-1] if name is not None else ""
            if last in SCORING_METHODS or CRITERION.match(last) or re.search(r"acc|metric|score|loss|psnr|ssim|iou|f1", last, re.I):
                return True
    return False


def _asks_for_input_gradients(node: cst.CSTNode, imports: ImportMap) -> bool:
    """`x.requires_grad_()`, `x.requires_grad = True`, `torch.autograd.grad(...)`, a `.grad` read,
    `torch.enable_grad()`: the code needs autograd on (an adversarial evaluation, a saliency map)."""
    for current in own_nodes(node):
        if isinstance(current, cst.Attribute) and current.attr.value in ("grad", "requires_grad_", "requires_grad"):
            return True
        if isinstance(current, cst.Call):
            qualified = imports.qualified_name(current.func) or ""
            if qualified.startswith("torch.autograd.") or may_enable_grad(current, imports):
                return True
            if isinstance(current.func, cst.Attribute) and current.func.attr.value == "retain_grad":
                return True
    return False


def _sets_grad_mode(expression: cst.BaseExpression, imports: ImportMap) -> bool:
    if disables_grad(expression, imports) or may_enable_grad(expression, imports):
        return True
    # A context held in a variable or made by a project helper: `with ctx:`, `with maybe_no_grad():`.
    inner = expression.func if isinstance(expression, cst.Call) else expression
    name = dotted_name(inner) or ""
    return bool(re.search(r"grad|inference", name, re.IGNORECASE))


def _sets_grad_mode_in(scope: cst.CSTNode, imports: ImportMap) -> bool:
    """`torch.set_grad_enabled(False)` / `torch.inference_mode(True)` called as a statement of the body."""
    for node in own_nodes(scope.body if isinstance(scope, cst.FunctionDef) else scope):
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            qualified = imports.qualified_name(node.value.func) or ""
            if qualified.endswith(_GRAD_MODE_SETTERS):
                return True
    return False


def _names_split(subscript: cst.Subscript) -> bool:
    """`dataloaders["val"]`: a collection of loaders indexed by an evaluation split."""
    for element in subscript.slice:
        index = element.slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            if EVALUATION_SPLIT.match(index.value.evaluated_value or ""):
                return True
    return False


def _filled_names(loop: cst.For) -> set[str]:
    """Names of the collections the loop fills: `outputs` for `outputs.append(y)`."""
    return {
        node.func.value.value
        for node in own_nodes(loop)
        if isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("append", "extend", "add", "update", "insert")
        and isinstance(node.func.value, cst.Name)
    }


def _in_source_order(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and the nodes below it that run with it, in source order (nested defs and lambdas excluded)."""
    pending = [root]
    while pending:
        current = pending.pop()
        yield current
        if not isinstance(current, DEFINITIONS) or current is root:
            pending.extend(reversed(iter_children(current)))


def _for_loops(module: cst.Module) -> Iterator[tuple[cst.For, Optional[cst.FunctionDef]]]:
    pending: list[tuple[cst.CSTNode, Optional[cst.FunctionDef]]] = [(module, None)]
    while pending:
        node, scope = pending.pop()
        if type(node) is cst.For:
            yield node, scope
        if type(node) is cst.FunctionDef:
            scope = node
        pending.extend((child, scope) for child in reversed(iter_children(node)))


# -- training mode -------------------------------------------------------------------------------

# Layers whose output depends on `module.training`: dropout masks, batch statistics.
MODE_LAYER = re.compile(r"^(?:Lazy)?(?:Dropout[123]?d?|AlphaDropout|FeatureAlphaDropout|BatchNorm[123]d|SyncBatchNorm)$")
# Model zoos whose architectures have batch norm or dropout: `torchvision.models.resnet18()`, `timm.create_model(...)`.
MODEL_ZOOS = ("torchvision.models.", "timm.")


class TrainingModes:
    """Which layers of a file depend on the training mode, and where it switches the mode."""

    def __init__(self, module: cst.Module, imports: ImportMap, table) -> None:
        self.module = module
        self.imports = imports
        self.table = table

    @cached_property
    def builds_mode_layers(self) -> bool:
        """The file builds a dropout or batch-norm layer (`nn.Dropout(0.5)`, `nn.BatchNorm2d(64)`,
        also inside `nn.Sequential`), calls `F.dropout`, or builds a model from a zoo whose
        architectures have them: evaluation in training mode then changes the numbers."""
        for node in descendants(self.module):
            if type(node) is cst.Call:
                qualified = self.imports.qualified_name(node.func) or ""
                last = qualified.rsplit(".", 1)[-1]
                if qualified.startswith("torch.nn.") and (MODE_LAYER.match(last) or last in FUNCTIONAL_DROPOUTS):
                    return True
                if qualified.startswith(MODEL_ZOOS):
                    return True
        return False

    @cached_property
    def sets_evaluation_mode(self) -> bool:
        """Somewhere in the file: `x.eval()`, or `x.train(flag)` with a flag that may be False."""
        return any(_switches_to_evaluation(node) for node in descendants(self.module) if isinstance(node, cst.Call))

    def reachable(self, root: cst.CSTNode, scope: Optional[cst.FunctionDef]) -> Iterator[cst.CSTNode]:
        """The nodes that running `root` runs: its own, and those of the functions of the file it
        calls (transitively, each once)."""
        seen: set[int] = set()
        pending: list[tuple[cst.CSTNode, Optional[cst.FunctionDef]]] = [(root, scope)]
        while pending:
            node, where = pending.pop()
            for current in own_nodes(node):
                yield current
                if isinstance(current, cst.Call):
                    function = self.table.resolve(current, where)
                    if function is not None and id(function) not in seen:
                        seen.add(id(function))
                        pending.append((function.body, function))

    def switches_mode(self, root: cst.CSTNode, scope: Optional[cst.FunctionDef], method: str) -> list[cst.Call]:
        """The `.eval()` (method "eval") or `.train(...)` (method "train") calls running `root` makes."""
        return [node for node in self.reachable(root, scope) if calls_method(node, method) and _mode_call(node, method)]


def _mode_call(call: cst.Call, method: str) -> bool:
    """`m.eval()` (no argument: not a framework's `evaluate(x)`), `m.train()` / `m.train(flag)`."""
    return not call.args if method == "eval" else len(call.args) <= 1


def _switches_to_evaluation(call: cst.Call) -> bool:
    if calls_method(call, "eval"):
        return not call.args
    if calls_method(call, "train") and len(call.args) == 1:
        value = call.args[0].value
        return not (isinstance(value, cst.Name) and value.value == "True")
    return False


def model_of(call: cst.Call) -> Optional[str]:
    """The dotted text of the model a forward pass runs: `model` for `model(x)` and `model.forward(x)`."""
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "forward":
        func = func.value
    return dotted_name(func)
