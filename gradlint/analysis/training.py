"""The structure of a training iteration: backward calls, optimizer steps, gradient resets and
manual updates, in source order, for every loop and function body of a file.

Built once per file and shared by the training-step rules. Calls to functions and methods
defined in the same file are followed (transitively), and closures passed to `opt.step(closure)`
count where the step runs them; a step given a loss (`opt.step(loss)`) is a framework wrapper's
own training step (LOSS_STEP), not torch's `step(closure)`.

Each backward, step and reset event carries its typed site: which loss a backward call
backpropagates and through what (`BackwardSite`), which optimizer a step steps (`StepSite`), what
a reset clears (`ResetSite`). `Region.before` / `Region.after` say what runs before or after an
event in one pass over a body (one iteration, for a loop). A `LoadSite` is a
`model.load_state_dict(...)`: which module gets which weights.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cached_property
from typing import Callable, Iterator, Optional, Sequence, Union

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.functions import FunctionTable
from gradlint.analysis.grad_mode import is_no_grad_with
from gradlint.analysis.grad_tracking import mentioned_names
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.optimizers import OptimizerOracle
from gradlint.analysis.parameter_flow import parameter_sources
from gradlint.analysis.roles import GAN_NETWORK, Role, Roles
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.syntax import DEFINITIONS, calls_method, child_statements, dotted_name, is_bool_literal, suite_statements
from gradlint.analysis.tensors import TensorEvidence
from gradlint.analysis.tree import descendants, is_leaf_type, iter_children

BACKWARD_CALLS = frozenset({"torch.autograd.backward"})
# `opt.zero_grad()`, `model.cleargrads()`, `utils.zero_grads(model)`, `zero_grad(model)`, `clear_grad()`...
ZERO_NAME = re.compile(r"^(?:zero_?grads?|zero_gradients|reset_?grads?|clear_?grads?|cleargrads)$", re.IGNORECASE)


# In-place writes of a `.grad`: a reset (`zero_`, `fill_`, or `mul_` by 0), `detach_`, and the
# updates that add to it or copy into it.
_GRAD_RESETS = torch_api.methods("fills") | {"mul_"}
_DETACH_IN_PLACE = torch_api.methods("identity", "clears") - torch_api.methods("reshapes")
_GRAD_UPDATES = torch_api.methods("accumulates") | torch_api.methods("copies-in")
_RANDOM_FACTORIES = torch_api.functions("random")
# Reductions of a whole tensor to a number one can backpropagate: `output.sum()`, `output.mean()`.
_WHOLE_REDUCTIONS = torch_api.methods("reduction", without=("int",))


class Wrapper(Enum):
    """What a backward call goes through besides the tensor's own `backward()`."""

    NONE = "none"  # `loss.backward()`, `torch.autograd.backward(loss)`
    SCALER = "scaler"  # `scaler.scale(loss).backward()`: a GradScaler multiplies the loss first
    ACCELERATOR = "accelerator"  # `accelerator.backward(loss)`: Hugging Face Accelerate
    FABRIC = "fabric"  # `fabric.backward(loss)`: Lightning Fabric
    OTHER = "other"  # `model_engine.backward(loss)` (DeepSpeed), `self.manual_backward(loss)` (Lightning)


# The one list of backward wrappers. Objects whose `.backward(loss)` backpropagates its argument,
# by the last name of the receiver (`accelerator`, `self.accelerator`, `trainer.fabric`)...
WRAPPER_OBJECTS = {
    "accelerator": Wrapper.ACCELERATOR,
    "fabric": Wrapper.FABRIC,
    "engine": Wrapper.OTHER,
    "model_engine": Wrapper.OTHER,
    # torch's optimizers have no `backward`: `optimizer.backward(loss)` is a wrapping optimizer's
    # (ColossalAI's, apex's FP16_Optimizer) that scales and backpropagates its argument.
    "optimizer": Wrapper.OTHER,
}
# ...and methods that backpropagate their argument whatever their receiver.
WRAPPER_METHODS = {"manual_backward": Wrapper.OTHER}


@dataclass(frozen=True)
class BackwardSite:
    """One call that backpropagates: what it backpropagates, and through what."""

    call: cst.Call
    wrapper: Wrapper
    # What is backpropagated, as written: the receiver of `x.backward()`, the argument of
    # `torch.autograd.backward(x)` / `accelerator.backward(x)`, the tensor in `scaler.scale(x)`;
    # `loss / k` in `(loss / k).backward()`. None when it is not written out (`accelerator.backward(**kw)`).
    tensor: Optional[cst.BaseExpression]
    # The tensor's own `backward()` method: `x.backward()`, `scaler.scale(x).backward()` (whose
    # arguments are then Tensor.backward's: gradient, retain_graph, create_graph, inputs).
    tensor_method: bool = False
    scaler: Optional[cst.BaseExpression] = None  # `scaler` of `scaler.scale(loss).backward()`
    gradient: Optional[cst.BaseExpression] = None  # `g` of `y.backward(g)` / `torch.autograd.backward(y, g)`
    retain_graph: Optional[cst.BaseExpression] = None  # the value given for `retain_graph`

    @property
    def loss(self) -> Optional[cst.BaseExpression]:
        """The loss before it is scaled: `loss` of `(loss / k).backward()`; `tensor` when unscaled."""
        return _split_scaling(self.tensor)[0]

    @property
    def factor(self) -> Optional[cst.BaseExpression]:
        """`k` of `loss / k`, `loss * k` or `k * loss` (a number) backpropagated; None when unscaled."""
        return _split_scaling(self.tensor)[1]

    @property
    def scaled(self) -> bool:
        """The loss is multiplied or divided on its way in (`loss / k`, `scaler.scale(loss)`)."""
        return self.scaler is not None or self.factor is not None

    @property
    def retains_graph(self) -> Optional[bool]:
        """`retain_graph=True` (True), left out or `False` (False), or a value not known here (None)."""
        value = self.retain_graph
        if value is None or is_bool_literal(value, False):
            return False
        return True if is_bool_literal(value, True) else None


@dataclass(frozen=True)
class StepSite:
    """One `step()` call: which optimizer it steps, directly or through a GradScaler."""

    call: cst.Call
    optimizer: Optional[cst.BaseExpression]  # `opt` of `opt.step()` and of `scaler.step(opt)`
    scaler: Optional[cst.BaseExpression] = None  # `scaler` of `scaler.step(opt)`
    closure: Optional[cst.BaseExpression] = None  # `closure` of `opt.step(closure)`


class ResetForm(Enum):
    METHOD = "method"  # `opt.zero_grad()`, `model.zero_grad(set_to_none=True)`, `model.cleargrads()`
    FUNCTION = "function"  # `zero_grad(model)`, `utils.zero_grads(model)`
    ASSIGNED = "assigned"  # `p.grad = None`
    IN_PLACE = "in-place"  # `p.grad.zero_()`, `p.grad.mul_(0)`


@dataclass(frozen=True)
class ResetSite:
    """One statement or call that clears gradients."""

    node: cst.CSTNode
    form: ResetForm
    target: Optional[cst.BaseExpression]  # what is reset: `opt`, `model`, `p.grad`; None when unknown


@dataclass(frozen=True)
class LoadSite:
    """One `load_state_dict(...)` call: weights loaded into a module (or an optimizer, a scheduler:
    the receiver is whatever has the method)."""

    call: cst.Call
    receiver: cst.BaseExpression  # `model` of `model.load_state_dict(state)`
    state: Optional[cst.BaseExpression]  # `state` of `model.load_state_dict(state)`, `torch.load(path)`
    strict: Optional[cst.BaseExpression] = None  # the value given for `strict`


def load_site(call: cst.Call) -> Optional[LoadSite]:
    """The state-dict load `call` is, None when it calls no `load_state_dict`."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value != "load_state_dict":
        return None
    bound = bind(call, _LOAD_STATE_DICT)
    return LoadSite(call, func.value, bound.passed("state_dict"), bound.passed("strict"))


def load_statement(statement: cst.CSTNode) -> Optional[LoadSite]:
    """The load a statement consists of: `model.load_state_dict(...)` alone on its line."""
    if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1:
        return None
    expression = statement.body[0]
    if type(expression) is not cst.Expr or type(expression.value) is not cst.Call:
        return None
    return load_site(expression.value)


Site = Union[BackwardSite, StepSite, ResetSite]


class Kind(Enum):
    BACKWARD = "backward"
    STEP = "step"
    RESET = "reset"
    UPDATE = "update"
    # `opt.step(loss)`: a framework's optimizer wrapper that backpropagates the loss it is given and
    # steps (tianshou's); torch's `Optimizer.step` takes only a closure, so no torch step either.
    LOSS_STEP = "loss-step"
    # What the analysed body's own statements say; never carried out of a helper to its callers.
    OTHER_BACKWARD = "other-backward"  # `x.backward()` on a receiver that is not evidently a tensor
    OTHER_STEP = "other-step"  # `x.step()` of an object the file gives no evidence is an optimizer
    FORWARD = "forward"  # a GAN's generator or discriminator is called: `D(x)`, `self.netG(z)`
    ASSIGN = "assign"  # `name = value`


# What running a statement does to gradients and parameters: what a helper does where it is called.
EFFECTS = frozenset({Kind.BACKWARD, Kind.STEP, Kind.RESET, Kind.UPDATE, Kind.LOSS_STEP})
# Events that make a loop an optimisation loop: each iteration backpropagates or updates parameters.
OPTIMISING = frozenset({Kind.BACKWARD, Kind.OTHER_BACKWARD, Kind.STEP, Kind.UPDATE, Kind.LOSS_STEP})
# The words an optimising event's code spells: a backward call (`backward`, `manual_backward`,
# `torch.autograd.backward`), an optimizer step (the attribute `step`) or a manual update (`.grad`).
_OPTIMISING_WORD = re.compile(r"backward|\bstep\b|\bgrad\b")


def may_optimise(text: str) -> bool:
    """Whether code of `text` can hold an OPTIMISING event: a cheap text fact that spares the
    whole-file event analysis of files (model definitions) that never spell one."""
    return _OPTIMISING_WORD.search(text) is not None


@dataclass(frozen=True)
class Event:
    kind: Kind
    node: cst.CSTNode  # the call / statement that does it (a helper's call site when `via` is set)
    statement: cst.CSTNode  # the statement of the analysed body that contains it
    optimizer: Optional[str] = None  # dotted text of the optimizer stepped (through a scaler) / reset
    conditional: bool = False  # inside an if / loop / except branch of the analysed body
    nested_loop: bool = False  # inside a loop nested in the analysed body
    via: Optional[cst.CSTNode] = None  # the helper call it came through
    resets_all: bool = False  # `model.zero_grad()`, or a reset we cannot attribute
    line: Optional[cst.CSTNode] = None  # the innermost simple statement line holding it
    no_grad: bool = False  # inside a no-grad `with` of the analysed body
    role: Optional[Role] = None  # FORWARD: the network called
    target: Optional[str] = None  # ASSIGN: the name bound
    # The backward, step or reset itself (inside the helper when `via` is set); None for other kinds.
    site: Optional[Site] = None

    @property
    def direct(self) -> bool:
        """Written in the analysed body itself (not through a helper), outside nested loops."""
        return self.via is None and not self.nested_loop

    @property
    def calls_backward(self) -> bool:
        """Any `backward()`: of a tensor (BACKWARD) or of something not evidently one."""
        return self.kind is Kind.BACKWARD or self.kind is Kind.OTHER_BACKWARD

    @property
    def calls_step(self) -> bool:
        """Any `step()` (`optimizer` names what it steps): an optimizer's, a wrapper's `step(loss)`, or
        one the file cannot confirm."""
        return self.kind is Kind.STEP or self.kind is Kind.OTHER_STEP or self.kind is Kind.LOSS_STEP


@dataclass
class Region:
    """A loop body or function body, with its events in source order."""

    owner: cst.CSTNode  # For / While / FunctionDef
    events: list[Event] = field(default_factory=list)

    def of(self, kind: Kind) -> list[Event]:
        return [event for event in self.events if event.kind is kind]

    def before(self, event: Event, *kinds: Kind) -> list[Event]:
        """The events of `kinds` (any kind when none is given) that run before `event` in one pass
        over the body: in the same iteration, for a loop."""
        return _of_kinds(self.events[: self._position(event)], kinds)

    def after(self, event: Event, *kinds: Kind) -> list[Event]:
        """The events of `kinds` (any kind when none is given) that run after `event` in one pass
        over the body, up to the end of the iteration for a loop."""
        return _of_kinds(self.events[self._position(event) + 1 :], kinds)

    def _position(self, event: Event) -> int:
        return next(index for index, current in enumerate(self.events) if current is event)


@dataclass(frozen=True)
class _Place:
    """Where in the analysed body a statement runs."""

    scope: Optional[cst.FunctionDef]
    conditional: bool = False
    nested_loop: bool = False
    no_grad: bool = False

    def event(self, kind: Kind, node: cst.CSTNode, statement: cst.CSTNode, **fields) -> Event:
        return Event(kind, node, statement, conditional=self.conditional, nested_loop=self.nested_loop, no_grad=self.no_grad, **fields)

    def branch(self) -> _Place:
        return _Place(self.scope, True, self.nested_loop, self.no_grad)

    def loop(self) -> _Place:
        return _Place(self.scope, True, True, self.no_grad)


class TrainingAnalysis:
    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        tensors: TensorEvidence,
        functions: Optional[FunctionTable] = None,
        is_tensor: Optional[Callable[[cst.BaseExpression, Optional[cst.CSTNode]], bool]] = None,
        spells_backward: bool = True,
    ) -> None:
        """`is_tensor(node, scope)`: the value model's answer (the tensor evidence's when not given).
        `spells_backward`: the file (or a name it imports) spells `backward`; without it the file
        has no backward call, and is not searched for one."""
        self.module = module
        self._spells_backward = spells_backward
        self.imports = imports
        self.tensors = tensors
        self.is_tensor = is_tensor if is_tensor is not None else tensors.is_tensor
        self.roles = Roles()
        self._functions = functions if functions is not None else FunctionTable.build(module)
        self._summaries: dict[int, list[Event]] = {}
        self._in_progress: set[int] = set()
        self._backward_sites: dict[int, Optional[BackwardSite]] = {}

    @cached_property
    def optimizers(self) -> OptimizerOracle:
        return OptimizerOracle(self.module, self.imports)

    def backward_site(self, call: cst.Call) -> Optional[BackwardSite]:
        """The backward pass `call` runs (`loss.backward()`, `accelerator.backward(loss)`...), or
        None when it calls no `backward`. Whether the receiver is a tensor is not asked here: the
        events tell BACKWARD (a tensor's) from OTHER_BACKWARD."""
        key = id(call)
        if key not in self._backward_sites:
            self._backward_sites[key] = backward_site(call, self.imports)
        return self._backward_sites[key]

    def backward_sites_in(self, node: cst.CSTNode) -> Iterator[BackwardSite]:
        """Every backward call written inside `node`, nested definitions included."""
        for current in descendants(node):
            if type(current) is cst.Call:
                site = self.backward_site(current)
                if site is not None:
                    yield site

    @cached_property
    def file_backward_sites(self) -> tuple[BackwardSite, ...]:
        """Every backward call of the file, found in one walk."""
        return tuple(self.backward_sites_in(self.module)) if self._spells_backward else ()

    @cached_property
    def backpropagated_names(self) -> tuple[cst.Name, ...]:
        """The names the file's backward calls backpropagate: `loss` of `loss.backward()`,
        `(loss / k).backward()`, `scaler.scale(loss).backward()`, `accelerator.backward(loss)`."""
        return tuple(site.loss for site in self.file_backward_sites if isinstance(site.loss, cst.Name))

    @cached_property
    def loops(self) -> list[Region]:
        return [Region(node, self._events(suite_statements(node.body), _Place(scope))) for node, scope in _loops(self.module)]

    @cached_property
    def functions(self) -> list[Region]:
        return [Region(node, self._function_events(node)) for node in self._functions.all]

    @cached_property
    def module_region(self) -> Region:
        """The module's own statements (function and class bodies run only where they are called)."""
        return Region(self.module, self._events(self.module.body, _Place(None)))

    @cached_property
    def _loop_regions(self) -> dict[int, Region]:
        return {id(region.owner): region for region in self.loops}

    def optimises(self, loop: cst.CSTNode) -> bool:
        """Every iteration of `loop` (a For/While of the file) may backpropagate or update parameters:
        its body (nested loops and helpers included) calls backward, steps an optimizer or updates a
        tensor from its own `.grad`."""
        region = self._loop_regions.get(id(loop))
        return region is not None and any(event.kind in OPTIMISING for event in region.events)

    def events_of(self, function: cst.FunctionDef) -> list[Event]:
        """What calling `function` does, in source order (helpers it calls followed)."""
        return self._function_events(function)

    def events_in(self, statements: Sequence[cst.CSTNode], scope: Optional[cst.FunctionDef]) -> list[Event]:
        """What running `statements` (of `scope`, None for the module) does, helpers followed."""
        return self._events(statements, _Place(scope))

    def branch_paths(self, region: Region) -> list[Region]:
        """One region per branch of each `if`/`elif`/`else` of `region`'s body (nested ones too): the
        body's statements up to the `if`, then that branch's, as if taken for sure. What runs after
        the `if` is left out, so an event of the branch is compared only with what precedes it."""
        owner = region.owner
        if not isinstance(owner, (cst.For, cst.While, cst.FunctionDef)) or not region.of(Kind.STEP):
            return []
        scope = _scope_of(owner, self._loop_scopes)
        paths: list[Region] = []
        self._branch_paths(list(suite_statements(owner.body)), [], scope, paths)
        return paths

    @cached_property
    def _loop_scopes(self) -> dict[int, Optional[cst.FunctionDef]]:
        return {id(node): scope for node, scope in _loops(self.module)}

    def _branch_paths(self, body: list, prefix: list[Event], scope, paths: list[Region]) -> None:
        place = _Place(scope)
        before = list(prefix)
        for statement in body:
            if isinstance(statement, cst.If):
                head = [*before, *self._expression_events(statement.test, statement, place)]
                for branch in _branches(statement):
                    statements = list(suite_statements(branch))
                    paths.append(Region(statement, [*head, *self._events(statements, place)]))
                    self._branch_paths(statements, head, scope, paths)
            before.extend(self._statement_events(statement, place))

    def runs_backward_before(self, loop: Region) -> bool:
        """Some body that holds `loop` calls backward before entering it (a loop primed before its first step)."""
        inside = {id(event.node) for event in loop.events}
        if not inside:
            return False
        for region in [self.module_region, *self.functions, *self.loops]:
            if region.owner is loop.owner or not any(id(event.node) in inside for event in region.events):
                continue  # the loop itself, or a body that does not hold it
            for event in region.events:
                if id(event.node) in inside:
                    break
                if event.kind is Kind.BACKWARD and not event.conditional and not event.nested_loop:
                    return True
        return False

    def steps_before(self, loop: Region) -> bool:
        """Some body that holds `loop` steps an optimizer before entering it (a warm-up loop, a first step)."""
        return self._runs_before(loop, lambda event: event.kind is Kind.STEP)

    def scope_of(self, region: Region) -> Optional[cst.FunctionDef]:
        """The function whose body holds `region` (None at module level)."""
        return _scope_of(region.owner, self._loop_scopes)

    def loop_of(self, site: Site) -> Optional[cst.CSTNode]:
        """The innermost For/While whose body runs `site` itself (not through a nested loop or a
        helper); None outside loops. Its guard inside that loop is `guard_of` the loop's event."""
        return self._innermost_loops.get(id(site.node if isinstance(site, ResetSite) else site.call))

    @cached_property
    def _innermost_loops(self) -> dict[int, cst.CSTNode]:
        return {id(event.node): region.owner for region in self.loops for event in region.events if event.direct}

    def _runs_before(self, loop: Region, matches) -> bool:
        inside = {id(event.node) for event in loop.events}
        for region in [self.module_region, *self.functions, *self.loops]:
            if region.owner is loop.owner or not any(id(event.node) in inside for event in region.events):
                continue
            for event in region.events:
                if id(event.node) in inside:
                    break
                if matches(event):
                    return True
        return False

    def guard_of(self, event: Event) -> Optional[cst.If]:
        """The innermost `if` of the analysed body whose branch holds `event` (its call, or the
        helper call it came through); None when it runs unguarded."""
        target = id(event.node)
        guard: Optional[cst.If] = None
        current: Optional[cst.CSTNode] = event.statement
        while current is not None:
            if isinstance(current, cst.If):
                branch = next((b for b in _branches(current) if _holds(b, target)), None)
                if branch is None:
                    return guard  # in the test of the `if`
                guard, current = current, branch
            current = next((child for child in _child_blocks(current) if _holds(child, target)), None)
        return guard

    def steps_fresh_parameters(self, loop: Region) -> bool:
        """Every optimizer the loop steps is built afresh in each iteration over tensors or a model
        also built there (`x = z.detach().clone()`, `opt = SGD([x])`): each step sees one backward.

        A fresh optimizer alone is not enough: gradients live on the parameters, so a model kept
        across iterations accumulates them whatever optimizer steps it.
        """
        steps = loop.of(Kind.STEP)
        return bool(steps) and all(self._built_over_fresh_tensors(loop, step) for step in steps)

    def _built_over_fresh_tensors(self, loop: Region, step: Event) -> bool:
        optimizer = _constructed_before(loop, step.optimizer, step)
        if optimizer is None or not self.optimizers.is_optimizer(optimizer.targets[0].target):
            return False
        params = _params_argument(optimizer.value)
        if params is None:
            return False
        sources = parameter_sources(params)
        return bool(sources) and all(_constructed_before(loop, name, step) is not None for name in sources)

    def trains_on_noise(self, loop: Region) -> bool:
        """Every backward the loop runs itself backpropagates a whole reduction (`.sum()`,
        `.mean()`) of one forward call whose inputs are all drawn by torch's random factories in
        the same iteration (`output = model(torch.rand(20, 10)); output.sum().backward()`): the
        loop reads no data and its loss measures nothing, a demonstration or a test of the
        training machinery. A GAN's generator loss (`D(G(z))`) takes a model's output as input,
        and a loss with a target or a criterion is no bare reduction: neither is noise."""
        backwards = loop.of(Kind.BACKWARD)
        return bool(backwards) and all(self._backpropagates_noise(loop, event) for event in backwards)

    def _backpropagates_noise(self, loop: Region, backward: Event) -> bool:
        if not backward.direct or not isinstance(backward.site, BackwardSite) or backward.site.factor is not None:
            return False
        reduced = _whole_reduction(self._made_in(loop, backward.site.loss, backward))
        forward = self._made_in(loop, reduced, backward)
        if not isinstance(forward, cst.Call) or self.imports.qualified_name(forward.func) is not None or not forward.args:
            return False
        return all(_is_literal(arg.value) or self._is_random_draw(self._made_in(loop, arg.value, backward)) for arg in forward.args)

    def _made_in(self, loop: Region, node: Optional[cst.BaseExpression], before: Event) -> Optional[cst.BaseExpression]:
        """What a name stands for when the loop body binds it, unconditionally, before `before`
        (`output` of `output = model(x)`); any other expression as it is."""
        if isinstance(node, cst.Name):
            assigned = _constructed_before(loop, node.value, before)
            return assigned.value if assigned is not None else None
        return node

    def _is_random_draw(self, node: Optional[cst.BaseExpression]) -> bool:
        return isinstance(node, cst.Call) and self.imports.qualified_name(node.func) in _RANDOM_FACTORIES

    @cached_property
    def frozen_generator(self) -> bool:
        """The file freezes a GAN's generator somewhere: `G.requires_grad_(False)`, or
        `p.requires_grad = False` / `p.requires_grad_(False)` for p in its parameters."""
        return _freezes_network(self.module, Role.GENERATOR)

    # -- events of a block ------------------------------------------------------------------

    def _events(self, body: Sequence[cst.CSTNode], place: _Place) -> list[Event]:
        events: list[Event] = []
        for statement in body:
            events.extend(self._statement_events(statement, place))
        return events

    def _statement_events(self, statement, place: _Place) -> list[Event]:
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            return []  # a definition runs nothing; helpers and closures are followed at their call
        if isinstance(statement, (cst.For, cst.While)):
            inner = self._events(suite_statements(statement.body), place.loop())
            orelse = self._events(child_statements(statement.orelse) if statement.orelse else (), place.branch())
            header = self._expression_events(statement.iter if isinstance(statement, cst.For) else statement.test, statement, place)
            return [*header, *(_restate(e, statement) for e in inner + orelse)]
        if isinstance(statement, cst.If):
            test = self._expression_events(statement.test, statement, place)
            branches = self._events(child_statements(statement), place.branch())
            return [*test, *(_restate(e, statement) for e in branches)]
        if isinstance(statement, (cst.With, cst.Try, cst.TryStar, cst.Match)):
            inner = []
            if isinstance(statement, cst.With):
                for item in statement.items:
                    inner.extend(self._expression_events(item.item, statement, place))
                body_place = replace(place, no_grad=True) if is_no_grad_with(statement, self.imports) else place
                inner.extend(self._events(suite_statements(statement.body), body_place))
            elif isinstance(statement, (cst.Try, cst.TryStar)):
                inner.extend(self._events(suite_statements(statement.body), place))
                rest = [s for s in child_statements(statement) if s not in suite_statements(statement.body)]
                inner.extend(self._events(rest, place.branch()))
            else:
                inner.extend(self._events(child_statements(statement), place.branch()))
            return [_restate(e, statement) for e in inner]
        if isinstance(statement, cst.SimpleStatementLine):
            events = []
            for small in statement.body:
                events.extend(self._small_events(small, statement, place))
            return events
        # A small statement of a one-line suite (`if x: opt.step()`).
        return self._small_events(statement, statement, place)

    def _small_events(self, small, statement, place: _Place) -> list[Event]:
        if isinstance(small, cst.Assign) and _assigns_grad(small):
            reset = ResetSite(small, ResetForm.ASSIGNED, _grad_target(small))
            return [place.event(Kind.RESET, small, statement, resets_all=True, line=statement, site=reset)]
        if isinstance(small, (cst.Assign, cst.AugAssign)) and _is_manual_update(small):
            return [place.event(Kind.UPDATE, small, statement, line=statement)]
        events = [
            replace(event, line=statement) if event.via is None else event for event in self._expression_events(small, statement, place)
        ]
        target = _assigned_name(small)
        if target is not None:
            events.append(place.event(Kind.ASSIGN, small, statement, target=target, line=statement))
        return events

    def _expression_events(self, expression, statement, place: _Place) -> list[Event]:
        events: list[Event] = []
        for call in _calls_in(expression):
            events.extend(self._call_events(call, statement, place))
        return events

    def _call_events(self, call: cst.Call, statement, place: _Place) -> list[Event]:
        events = self._effect_events(call, statement, place)
        if calls_method(call, "backward") and not any(e.kind is Kind.BACKWARD and e.via is None for e in events):
            events = [place.event(Kind.OTHER_BACKWARD, call, statement, site=self.backward_site(call)), *events]
        role = self.roles.gan_network(call.func)
        return events if role is None else [place.event(Kind.FORWARD, call, statement, role=role), *events]

    def _effect_events(self, call: cst.Call, statement, place: _Place) -> list[Event]:
        make = lambda kind, **kw: place.event(kind, call, statement, **kw)  # noqa: E731
        func = call.func
        qualified = self.imports.qualified_name(func)
        if qualified in BACKWARD_CALLS or calls_method(call, "backward", *WRAPPER_METHODS):
            site = self.backward_site(call)
            if site is not None and self._is_tensor_backward(site, place.scope):
                return [make(Kind.BACKWARD, site=site)]
        if isinstance(func, cst.Attribute):
            receiver, method = func.value, func.attr.value
            if method == "step":
                return self._step_events(call, receiver, statement, place)
            if ZERO_NAME.match(method):
                if qualified is not None:  # `utils.zero_grads(model)`: a module's function
                    return [make(Kind.RESET, resets_all=True, site=ResetSite(call, ResetForm.FUNCTION, _first_argument(call)))]
                optimizer = dotted_name(receiver)
                reset = ResetSite(call, ResetForm.METHOD, receiver)
                if self.optimizers.is_optimizer(receiver):
                    return [make(Kind.RESET, optimizer=optimizer, site=reset)]
                return [make(Kind.RESET, optimizer=optimizer, resets_all=True, site=reset)]
            if method in _GRAD_RESETS | _DETACH_IN_PLACE and _mentions_grad(receiver):
                if method not in _GRAD_RESETS:
                    return []
                return [make(Kind.RESET, resets_all=True, site=ResetSite(call, ResetForm.IN_PLACE, receiver))]
            if method in _GRAD_UPDATES and _updates_own_grad(receiver, [a.value for a in call.args]):
                return [make(Kind.UPDATE)]
        helper = self._functions.resolve(call, place.scope)
        if helper is not None:
            return self._called(helper, call, statement, place)
        if isinstance(func, cst.Name) and ZERO_NAME.match(func.value):  # `zero_grad(model)` imported from elsewhere
            return [make(Kind.RESET, resets_all=True, site=ResetSite(call, ResetForm.FUNCTION, _first_argument(call)))]
        return []

    def _called(self, helper: cst.FunctionDef, call: cst.Call, statement, place: _Place) -> list[Event]:
        """The effects of running `helper`, attributed to the call that runs it."""
        return [
            replace(
                e,
                node=call,
                statement=statement,
                conditional=place.conditional or e.conditional,
                nested_loop=place.nested_loop or e.nested_loop,
                via=call,
                line=None,
            )
            for e in self._function_events(helper)
            if e.kind in EFFECTS
        ]

    def _step_events(self, call, receiver, statement, place: _Place) -> list[Event]:
        make = lambda kind, **kw: place.event(kind, call, statement, **kw)  # noqa: E731
        if self.optimizers.is_grad_scaler(receiver) and call.args:
            stepped = call.args[0].value
            if self.optimizers.is_optimizer(stepped) or dotted_name(stepped) is not None:
                return [make(Kind.STEP, optimizer=dotted_name(stepped), site=StepSite(call, stepped, scaler=receiver))]
            return []
        if not self.optimizers.is_optimizer(receiver):
            return [make(Kind.OTHER_STEP, optimizer=dotted_name(receiver), site=StepSite(call, receiver))]
        if self._steps_a_loss(call, place.scope):
            return [make(Kind.LOSS_STEP, optimizer=dotted_name(receiver), site=StepSite(call, receiver))]
        events = []
        for arg in call.args:  # a closure runs inside the step
            events.extend(self._closure_events(arg.value, call, statement, place))
        site = StepSite(call, receiver, closure=bind(call, _OPTIMIZER_STEP).passed("closure"))
        events.append(make(Kind.STEP, optimizer=dotted_name(receiver), site=site))
        return events

    def _steps_a_loss(self, call: cst.Call, scope: Optional[cst.FunctionDef]) -> bool:
        """`opt.step(actor_loss)`: what `step` is given is evidently a tensor (never a lambda or a
        function of the file), which torch's `Optimizer.step(closure)` would call and fail on."""
        given = bind(call, _OPTIMIZER_STEP).passed("closure")
        if given is None or isinstance(given, cst.Lambda):
            return False
        if isinstance(given, cst.Name) and self._functions.named(given.value, scope) is not None:
            return False
        return self.is_tensor(given, scope)

    def _closure_events(self, value, call, statement, place: _Place) -> list[Event]:
        if isinstance(value, cst.Lambda):
            return [replace(e, node=call, via=call) for e in self._expression_events(value.body, statement, place) if e.kind in EFFECTS]
        if isinstance(value, cst.Name):
            function = self._functions.named(value.value, place.scope)
            if function is not None:
                return self._called(function, call, statement, place)
        return []

    def _function_events(self, function: cst.FunctionDef) -> list[Event]:
        key = id(function)
        if key in self._summaries:
            return self._summaries[key]
        if key in self._in_progress:
            return []  # recursion: stop following
        self._in_progress.add(key)
        try:
            events = self._events(suite_statements(function.body), _Place(function))
        finally:
            self._in_progress.discard(key)
        self._summaries[key] = events
        return events

    def _is_tensor_backward(self, site: BackwardSite, scope) -> bool:
        """`loss.backward()`, `(loss / k).backward()`, `scaler.scale(loss).backward()`,
        `accelerator.backward(loss)`, `torch.autograd.backward(loss)`; not `solver.backward()`."""
        call = site.call
        if site.wrapper is Wrapper.NONE and site.tensor_method:
            return self._is_backward_receiver(site.tensor, scope)
        if site.wrapper in _OBJECT_WRAPPERS and calls_method(call, "backward"):
            return bool(call.args)  # `accelerator.backward()` without a loss is not a backward pass of ours
        return True

    def _is_backward_receiver(self, receiver: cst.BaseExpression, scope) -> bool:
        if self.tensors.is_tensor(receiver, scope) or _looks_like_loss_value(receiver):
            return True
        # `l = compute(...)` then `l.backward()`: a value computed by a function call, not an object.
        if isinstance(receiver, cst.Name) and scope is not None:
            values = self.tensors.scopes.values_of(receiver.value, scope)
            return bool(values) and all(_computed_value(value) for value in values)
        return False


_OBJECT_WRAPPERS = frozenset(WRAPPER_OBJECTS.values())


# The signatures the sites read their arguments from.
_TENSOR_BACKWARD = Signature.of_names(("gradient", "retain_graph", "create_graph", "inputs"))
_AUTOGRAD_BACKWARD = Signature.of_names(("tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables", "inputs"))
# `accelerator.backward(loss, **kwargs)`, `fabric.backward(tensor, *args, **kwargs)`: the keywords reach `Tensor.backward`.
_WRAPPER_BACKWARD = Signature.of_names(("loss", "*", "retain_graph", "**kwargs"))
_OPTIMIZER_STEP = Signature.of_names(("closure",))
_LOAD_STATE_DICT = Signature.of_names(("state_dict", "strict", "assign"))


def backward_site(call: cst.Call, imports: ImportMap) -> Optional[BackwardSite]:
    """What `call` backpropagates and through what; None when it runs no backward pass."""
    func = call.func
    if type(func) is cst.Attribute:
        method = func.attr.value
        if method in WRAPPER_METHODS:  # `self.manual_backward(loss)`
            bound = bind(call, _WRAPPER_BACKWARD)
            return BackwardSite(call, WRAPPER_METHODS[method], bound.passed("loss"), retain_graph=bound.passed("retain_graph"))
        if method != "backward":
            return None
    elif type(func) is not cst.Name:
        return None
    if imports.qualified_name(func) in BACKWARD_CALLS:  # torch.autograd.backward(tensors, grad_tensors, retain_graph, ...)
        bound = bind(call, _AUTOGRAD_BACKWARD)
        gradient, retain = bound.passed("grad_tensors"), bound.passed("retain_graph")
        return BackwardSite(call, Wrapper.NONE, bound.passed("tensors"), gradient=gradient, retain_graph=retain)
    if type(func) is not cst.Attribute:
        return None
    receiver = func.value
    wrapper = WRAPPER_OBJECTS.get(_last_name(receiver))
    if wrapper is not None:  # `accelerator.backward(loss, retain_graph=...)`
        bound = bind(call, _WRAPPER_BACKWARD)
        return BackwardSite(call, wrapper, bound.passed("loss"), retain_graph=bound.passed("retain_graph"))
    # Tensor.backward(gradient, retain_graph, create_graph, inputs)
    bound = bind(call, _TENSOR_BACKWARD)
    gradient, retain = bound.passed("gradient"), bound.passed("retain_graph")
    if type(receiver) is cst.Call and type(receiver.func) is cst.Attribute and receiver.func.attr.value == "scale":
        tensor = receiver.args[0].value if len(receiver.args) == 1 else None
        return BackwardSite(call, Wrapper.SCALER, tensor, True, receiver.func.value, gradient, retain)
    return BackwardSite(call, Wrapper.NONE, receiver, True, gradient=gradient, retain_graph=retain)


def _split_scaling(tensor: Optional[cst.BaseExpression]) -> tuple[Optional[cst.BaseExpression], Optional[cst.BaseExpression]]:
    """(loss, factor) of `loss / k`, `loss * k`, `k * loss` (k a number literal); (tensor, None) otherwise."""
    if type(tensor) is not cst.BinaryOperation:
        return tensor, None
    operator = type(tensor.operator)
    if operator is cst.Divide:
        return tensor.left, tensor.right
    if operator is cst.Multiply:
        if type(tensor.left) in (cst.Integer, cst.Float):
            return tensor.right, tensor.left
        return tensor.left, tensor.right
    return tensor, None


def _last_name(node: cst.BaseExpression) -> Optional[str]:
    """`accelerator` of `accelerator` and of `self.accelerator`."""
    if type(node) is cst.Name:
        return node.value
    return node.attr.value if type(node) is cst.Attribute else None


def _first_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    return call.args[0].value if call.args else None


def _grad_target(statement: cst.Assign) -> Optional[cst.BaseExpression]:
    """`p.grad` of `p.grad = None`."""
    return next((t.target for t in statement.targets if isinstance(t.target, cst.Attribute) and t.target.attr.value == "grad"), None)


def _of_kinds(events: Sequence[Event], kinds: Sequence[Kind]) -> list[Event]:
    return [event for event in events if not kinds or event.kind in kinds]


def _constructed_before(loop: Region, name: Optional[str], before: Event) -> Optional[cst.Assign]:
    """`name = f(...)` run unconditionally by the loop body itself before `before`."""
    found = None
    for event in loop.events:
        if event is before:
            return found
        if event.kind is Kind.ASSIGN and event.target == name and event.direct and not event.conditional:
            found = event.node if isinstance(event.node.value, cst.Call) else None
    return None


def _whole_reduction(node: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    """`output` of `output.sum()` / `output.mean()` (no dim, no other argument); None otherwise."""
    if type(node) is not cst.Call or node.args or type(node.func) is not cst.Attribute:
        return None
    return node.func.value if node.func.attr.value in _WHOLE_REDUCTIONS else None


def _is_literal(node: cst.BaseExpression) -> bool:
    return isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)) or is_bool_literal(node, True) or is_bool_literal(node, False)


def _params_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The parameters handed to an optimizer's constructor: its first argument or `params=`."""
    for position, arg in enumerate(call.args):
        if (arg.keyword is None and position == 0 and not arg.star) or (arg.keyword is not None and arg.keyword.value == "params"):
            return arg.value
    return None


def _assigned_name(small: cst.CSTNode) -> Optional[str]:
    """`name` for `name = value` (one target, a plain name)."""
    if type(small) is cst.Assign and len(small.targets) == 1 and type(small.targets[0].target) is cst.Name:
        return small.targets[0].target.value
    return None


def _freezes_network(module: cst.Module, role: Role) -> bool:
    """`net.requires_grad_(False)` or `p.requires_grad = False` for p in `net.parameters()`, where
    `net` (any name the statement mentions) is named as a network of `role`."""
    named = GAN_NETWORK[role]
    pending: list[tuple[cst.CSTNode, bool]] = [(module, False)]
    while pending:
        node, over_network = pending.pop()
        if isinstance(node, cst.For) and any(named.match(name) for name in mentioned_names(node.iter)):
            over_network = True
        if _freezes(node) and (over_network or any(named.match(name) for name in mentioned_names(node))):
            return True
        pending.extend((child, over_network) for child in iter_children(node))
    return False


def _freezes(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "requires_grad_":
        return bool(node.args) and is_bool_literal(node.args[0].value, False)
    if isinstance(node, cst.Assign):
        return is_bool_literal(node.value, False) and any(
            isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad" for t in node.targets
        )
    return False


def _scope_of(owner: cst.CSTNode, loop_scopes: dict[int, Optional[cst.FunctionDef]]) -> Optional[cst.FunctionDef]:
    return owner if isinstance(owner, cst.FunctionDef) else loop_scopes.get(id(owner))


def _branches(statement: cst.If) -> Iterator[cst.BaseSuite]:
    """The suites of an `if`, its `elif`s and its `else`, in order."""
    current: Optional[cst.CSTNode] = statement
    while isinstance(current, cst.If):
        yield current.body
        current = current.orelse
    if isinstance(current, cst.Else):
        yield current.body


def _holds(node: cst.CSTNode, target: int) -> bool:
    return any(id(current) == target for current in descendants(node))


def _child_blocks(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements directly inside a compound statement or block (an `if`'s branch included)."""
    if isinstance(node, (cst.IndentedBlock, cst.SimpleStatementSuite)):
        return list(node.body)
    if isinstance(node, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
        return []
    return list(child_statements(node))


def _restate(event: Event, statement: cst.CSTNode) -> Event:
    """The same event, attributed to the enclosing statement of the analysed body."""
    return replace(event, statement=statement)


def _computed_value(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation):
        return True
    if isinstance(node, cst.Call):
        name = dotted_name(node.func)
        return name is not None and not name.rsplit(".", 1)[-1][:1].isupper()
    return False


def _looks_like_loss_value(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.BinaryOperation):
        return _looks_like_loss_value(node.left) or _looks_like_loss_value(node.right)
    if isinstance(node, cst.Subscript):
        return _looks_like_loss_value(node.value)
    name = dotted_name(node)
    return name is not None and "loss" in name.rsplit(".", 1)[-1].lower()


def _calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Calls in an expression or small statement, outermost first; lambdas and defs excluded."""
    # Exact type tests: these node classes have no subclasses, and isinstance against LibCST's
    # ABC-derived classes is the slow path of this hot loop.
    pending = [node]
    while pending:
        current = pending.pop()
        kind = type(current)
        if kind in DEFINITIONS:
            continue
        if kind is cst.Call:
            yield current
        elif is_leaf_type(kind):  # names and literals: most of what is walked
            continue
        pending.extend(reversed(iter_children(current)))


_EMPTY = cst.Module(body=[])


def _text(node: cst.CSTNode) -> str:
    """Source text of an expression with the `.data` hop dropped: `p.data` and `p` are the same tensor."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        node = node.value
    return "".join(_EMPTY.code_for_node(node).split())


def _grad_owners(node: cst.CSTNode) -> set[str]:
    """The text of `X` for every `X.grad` (or `X.data.grad`) read in an expression."""
    return {_text(current.value) for current in descendants(node) if isinstance(current, cst.Attribute) and current.attr.value == "grad"}


def _updates_own_grad(target: cst.CSTNode, values: Sequence[cst.CSTNode]) -> bool:
    """`w` (or `w.data`, `params[i]`) is changed in place from its own `.grad`: the same tensor keeps collecting gradients."""
    owners = set().union(*(_grad_owners(value) for value in values))
    return bool(owners) and _text(target) in owners  # rendering the target only when a `.grad` is read


def _mentions_grad(node: cst.CSTNode) -> bool:
    return any(isinstance(current, cst.Attribute) and current.attr.value == "grad" for current in descendants(node))


def _assigns_grad(statement: cst.Assign) -> bool:
    """`p.grad = None` / `p.grad = torch.zeros_like(p)`: a reset."""
    return any(isinstance(t.target, cst.Attribute) and t.target.attr.value == "grad" for t in statement.targets)


def _is_manual_update(statement) -> bool:
    """`w -= lr * w.grad`, `w.data -= lr * w.grad.data`, `w.data = w.data - lr * w.grad`: the tensor
    updated is the one whose `.grad` is read, and it stays the same object.

    Not `perturbed = x + eps * x.grad.sign()` (a new tensor; x is not updated) nor the rebinding
    `w = w - lr * w.grad` (a new tensor each iteration, whose `.grad` starts empty: GL403's business).
    """
    if isinstance(statement, cst.AugAssign):
        return isinstance(statement.operator, (cst.SubtractAssign, cst.AddAssign)) and _updates_own_grad(
            statement.target, [statement.value]
        )
    if len(statement.targets) != 1:
        return False
    target = dotted_name(statement.targets[0].target)
    return target is not None and target.endswith(".data") and _updates_own_grad(statement.targets[0].target, [statement.value])


def _loops(module: cst.Module) -> list[tuple[cst.CSTNode, Optional[cst.FunctionDef]]]:
    found: list[tuple[cst.CSTNode, Optional[cst.FunctionDef]]] = []

    def visit(body, scope) -> None:
        for statement in body:
            if isinstance(statement, (cst.For, cst.While)):
                found.append((statement, scope))
            if isinstance(statement, cst.FunctionDef):
                visit(suite_statements(statement.body), statement)
            elif not isinstance(statement, cst.SimpleStatementLine):
                visit(child_statements(statement), scope)

    visit(module.body, None)
    return found
