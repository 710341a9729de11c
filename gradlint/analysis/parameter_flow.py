"""Where a model's parameters go inside one function body (or the module body): names bound to
the one-shot generators `model.parameters()` and friends and the calls and loops that consume
them, optimizers built from a model's parameters, and sub-modules of that model replaced later.

Statements are addressed by their path: (block, index) pairs from the body down to the statement.
A statement runs after another whenever that one runs when it sits in a later statement of the
same block; statements in different branches, or in a branch the other is not in, do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.syntax import dotted_name, iter_statements, keyword_arg, positional_args
from gradlint.analysis.optimizers import parameter_owners
from gradlint.analysis.tree import descendants

# Module methods that return a generator, exhausted by the first loop over it.
GENERATOR_METHODS = torch_api.module_methods("generator")
# Calls that iterate their argument to the end.
ITERATING_BUILTINS = frozenset({"list", "tuple", "set", "frozenset", "dict", "sum", "sorted", "any", "all", "max", "min"})
# Calls that wrap an iterable lazily: whoever consumes the wrapper consumes the argument.
LAZY_WRAPPERS = frozenset({"filter", "map", "zip", "enumerate", "iter", "reversed", "itertools.chain", "itertools.islice"})
# Functions given a model's parameters that iterate them (`clip_grad_norm_(params, 1.0)`).
PARAMETER_CONSUMERS = frozenset({"clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "clip_grad_norm", "get_total_norm"})
_MODULE_CONTAINERS = torch_api.short_names(torch_api.functions("module-container"))
# torch.nn layers that hold no parameters: putting one in after the optimizer was built loses nothing.
PARAMETERLESS_LAYERS = torch_api.short_names(torch_api.functions("parameterless"))

# (id of the block, index of the statement in it, index of a small statement in its line)
Path = tuple[tuple[int, int, int], ...]


def runs_after(first: Path, second: Path) -> bool:
    """`second` runs after `first` whenever `first` runs: it is (or is nested in) a later
    statement of the block `first` is in."""
    depth = len(first) - 1
    return (
        len(second) > depth
        and second[:depth] == first[:depth]
        and second[depth][0] == first[depth][0]
        and second[depth][1:] > first[depth][1:]
    )


@dataclass(frozen=True)
class Placed:
    """A statement of the scope's own body, where it is and the loops of the scope around it."""

    statement: cst.CSTNode
    path: Path
    loops: tuple[cst.CSTNode, ...]

    def expressions(self) -> tuple[cst.CSTNode, ...]:
        """The parts of the statement evaluated where it stands (a compound statement's header)."""
        statement = self.statement
        if isinstance(statement, cst.For):
            return (statement.target, statement.iter)
        if isinstance(statement, (cst.If, cst.While)):
            return (statement.test,)
        if isinstance(statement, cst.With):
            return tuple(statement.items)
        if isinstance(statement, cst.Match):
            return (statement.subject,)
        if isinstance(statement, (cst.Try, cst.TryStar, cst.FunctionDef, cst.ClassDef)):
            return ()
        return (statement,)


def placed_statements(scope: Scope) -> Iterator[Placed]:
    """The statements of `scope`'s own body in source order (nested functions and classes are
    yielded as statements, not entered)."""
    body = scope.body.body if isinstance(scope, cst.FunctionDef) else scope.body
    yield from _placed(body, (), ())


def _placed(block: object, path: Path, loops: tuple[cst.CSTNode, ...]) -> Iterator[Placed]:
    statements = block if isinstance(block, (list, tuple)) else getattr(block, "body", ())
    for index, statement in enumerate(statements):
        here = (*path, (id(block), index, 0))
        if isinstance(statement, cst.BaseSmallStatement):  # in a one-line suite: `if x: y`
            yield Placed(statement, here, loops)
            continue
        if isinstance(statement, cst.SimpleStatementLine):
            for position, small in enumerate(statement.body):
                yield Placed(small, (*path, (id(block), index, position)), loops)
            continue
        yield Placed(statement, here, loops)
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        looped = (*loops, statement) if isinstance(statement, (cst.For, cst.While)) else loops
        yield from _placed(getattr(statement, "body", ()), here, looped)  # a `match` has cases only
        for handler in getattr(statement, "handlers", ()):
            yield from _placed(handler.body, here, loops)
        for case in getattr(statement, "cases", ()):
            yield from _placed(case.body, here, loops)
        for name in ("orelse", "finalbody"):
            other = getattr(statement, name, None)
            if isinstance(other, cst.If):
                yield from _placed((other,), here, loops)
            elif other is not None:
                yield from _placed(other.body, here, loops)


def generator_call(value: Optional[cst.BaseExpression]) -> Optional[cst.Call]:
    """`model.parameters()`, `self.net.named_parameters()`, `model.children()`..."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value in GENERATOR_METHODS
        and dotted_name(value.func.value) is not None
    ):
        return value
    return None


# Module methods whose result hands over the module's parameters (`named_parameters()` with their names).
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})


def parameter_sources(params: cst.BaseExpression) -> Optional[frozenset[str]]:
    """The names (dotted) whose parameters or tensors an optimizer's `params` argument holds: `m`
    for `m.parameters()`, also through `list(...)`, `filter(predicate, ...)`, `itertools.chain`,
    a comprehension over them (`[p for p in m.parameters() if p.requires_grad]`), a dict of them
    and its `.values()` (`{n: p for n, p in m.named_parameters()}.values()`), parameter groups
    (`[{"params": m.parameters(), "lr": lr}]`), displays (`[x, y]`) and sums; None when some part
    is none of those. Names a comprehension or lambda binds are not sources."""
    return _sources(params, frozenset())


def _sources(node: cst.BaseExpression, bound: frozenset[str]) -> Optional[frozenset[str]]:
    if isinstance(node, (cst.Name, cst.Attribute)):
        name = dotted_name(node)
        if name is None:
            return None
        return frozenset() if name.split(".", 1)[0] in bound else frozenset({name})
    if isinstance(node, cst.Call):
        return _call_sources(node, bound)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return _all_sources([element.value for element in node.elements], bound)
    if isinstance(node, cst.Dict):
        return _dict_sources(node, bound)
    if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        return _comprehension_sources(node, bound)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        return _all_sources([node.left, node.right], bound)
    return None


def _call_sources(call: cst.Call, bound: frozenset[str]) -> Optional[frozenset[str]]:
    func = call.func
    if isinstance(func, cst.Attribute) and not call.args and func.attr.value in (*_PARAMETER_METHODS, "values"):
        return _sources(func.value, bound)  # `m.parameters()`, `groups.values()`
    called = dotted_name(func)
    if called not in ITERATING_BUILTINS | LAZY_WRAPPERS | {"chain"} or called == "map":
        return None
    if any(arg.keyword is not None or arg.star for arg in call.args):
        return None
    iterables = call.args[1:] if called == "filter" else call.args  # a predicate hands over nothing
    return _all_sources([arg.value for arg in iterables], bound)


def _dict_sources(node: cst.Dict, bound: frozenset[str]) -> Optional[frozenset[str]]:
    """A parameter group's `"params"` entry, or every value of another dict (`{...}.values()`)."""
    if not all(isinstance(element, cst.DictElement) for element in node.elements):
        return None
    for element in node.elements:
        if isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == "params":
            return _sources(element.value, bound)
    return _all_sources([element.value for element in node.elements], bound)


def _comprehension_sources(node, bound: frozenset[str]) -> Optional[frozenset[str]]:
    """What the iterables hand over and what the element reads besides the loop's own names."""
    found: set[str] = set()
    clause = node.for_in
    while clause is not None:
        iterated = _sources(clause.iter, bound)
        if iterated is None:
            return None
        found |= iterated
        bound = bound | {target.value for target in descendants(clause.target) if isinstance(target, cst.Name)}
        clause = clause.inner_for_in
    element = _sources(node.value if isinstance(node, cst.DictComp) else node.elt, bound)
    return None if element is None else frozenset(found | element)


def _all_sources(expressions: list[cst.BaseExpression], bound: frozenset[str]) -> Optional[frozenset[str]]:
    found: set[str] = set()
    for expression in expressions:
        part = _sources(expression, bound)
        if part is None:
            return None
        found |= part
    return frozenset(found)


# -- generators consumed twice ------------------------------------------------------------


class Use:
    CONSUMED = "consumed"  # iterated to the end where it stands
    NEXT = "next"  # `next(params)`: the code relies on the generator
    OTHER = "other"  # anything else (stored, passed to an unknown function, returned)


@dataclass(frozen=True)
class Consumption:
    name: cst.Name  # the read of the bound name
    consumer: cst.CSTNode  # the call, loop or comprehension that iterates it
    placed: Placed


@dataclass(frozen=True)
class GeneratorReuse:
    """A name bound to a one-shot generator that a second consumer (or a second pass of a loop)
    reads after the first consumer has exhausted it."""

    value: cst.Call  # `model.parameters()` at the binding
    first: Consumption
    second: Consumption  # `second is first` when the consumer runs again in a loop
    list_safe: bool  # every read of the binding iterates it: a list works everywhere


class GeneratorConsumers:
    """How the reads of a name are used: consumed by iteration, or not evidently so."""

    def __init__(self, imports: ImportMap, is_optimizer_class: Callable[[cst.BaseExpression], bool], nodes: NodeIndex) -> None:
        self.imports = imports
        self.is_optimizer_class = is_optimizer_class
        self.nodes = nodes

    def classify(self, node: cst.CSTNode) -> tuple[str, Optional[cst.CSTNode]]:
        """The use of `node` (a read), and the consumer when consumed."""
        child, wrapped_in_group = node, False
        for parent in self.nodes.ancestors(node):
            if isinstance(parent, cst.For) and child is parent.iter:
                return Use.CONSUMED, parent
            if isinstance(parent, cst.CompFor) and child is parent.iter:
                child = parent
                continue
            if isinstance(parent, (cst.ListComp, cst.SetComp, cst.DictComp)) and child is parent.for_in:
                return Use.CONSUMED, parent
            if isinstance(parent, cst.GeneratorExp) and child is parent.for_in:
                child = parent
                continue
            if isinstance(parent, cst.Arg):
                child = parent
                continue
            if isinstance(parent, cst.DictElement) and child is parent.value and _string(parent.key) in ("params", "parameters"):
                child, wrapped_in_group = parent, True
                continue
            if isinstance(parent, (cst.Dict, cst.List, cst.Tuple, cst.Element)) and wrapped_in_group:
                child = parent
                continue
            if isinstance(parent, cst.Call) and isinstance(child, cst.Arg):
                return self._call_use(parent, child, wrapped_in_group)
            return Use.OTHER, None
        return Use.OTHER, None

    def _call_use(self, call: cst.Call, arg: cst.Arg, in_group: bool) -> tuple[str, Optional[cst.CSTNode]]:
        qualified = self.imports.qualified_name(call.func) or dotted_name(call.func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if self.is_optimizer_class(call.func) and (arg is _first_argument(call) or _keyword(arg) == "params"):
            return Use.CONSUMED, call
        if in_group:
            return Use.OTHER, None
        if qualified == "next":
            return Use.NEXT, None
        if (qualified in ITERATING_BUILTINS or last in PARAMETER_CONSUMERS) and arg is _first_argument(call):
            return Use.CONSUMED, call
        if qualified in LAZY_WRAPPERS and arg.keyword is None:
            return self.classify(call)
        return Use.OTHER, None


def reused_generators(scope: Scope, consumers: GeneratorConsumers) -> list[GeneratorReuse]:
    """Names of `scope` bound to `model.parameters()` (and the other generators of a module)
    that are consumed twice on one path, or by a consumer inside a loop the binding is outside of."""
    placed = list(placed_statements(scope))
    bindings = [(index, *_generator_binding(binding.statement)) for index, binding in enumerate(placed)]
    bindings = [(index, target, value) for index, target, value in bindings if target is not None and value is not None]
    if not bindings:
        return []  # most scopes bind no generator: spare them the walk of their nested code
    nested_reads = _names_read_in_nested_code(placed)
    consumers.nodes.subtree(scope.body if isinstance(scope, cst.FunctionDef) else scope)  # the questions below stay inside it
    found: list[GeneratorReuse] = []
    for index, target, value in bindings:
        binding = placed[index]
        if target in nested_reads:
            continue
        reuse = _reuse_after(target, value, binding, placed[index + 1 :], consumers)
        if reuse is not None:
            found.append(reuse)
    return found


def _reuse_after(
    name: str, value: cst.Call, binding: Placed, following: list[Placed], consumers: GeneratorConsumers
) -> Optional[GeneratorReuse]:
    consumed: list[Consumption] = []
    list_safe = True
    for place in following:
        rebinds = _binds(place.statement, name)
        for expression in place.expressions():
            for node in consumers.nodes.subtree(expression):
                if not (type(node) is cst.Name and node.value == name) or _is_store(node, consumers.nodes.parent(node)):
                    continue
                use, consumer = consumers.classify(node)
                if use == Use.NEXT:
                    return None
                if use == Use.OTHER:
                    list_safe = False
                elif consumer is not None:
                    consumed.append(Consumption(node, consumer, place))
        if rebinds:
            break
    for first in consumed:
        for second in consumed:
            if runs_after(first.placed.path, second.placed.path) and runs_after(binding.path, first.placed.path):
                return GeneratorReuse(value, first, second, list_safe)
    for consumption in consumed:
        if _loop_repeating(consumption, binding, name):
            return GeneratorReuse(value, consumption, consumption, list_safe)
    return None


def _loop_repeating(consumption: Consumption, binding: Placed, name: str) -> bool:
    """The consumer sits in a loop that the binding is outside of and that never rebinds the name."""
    outer = [loop for loop in consumption.placed.loops if loop not in binding.loops]
    if not outer or not runs_after(binding.path, consumption.placed.path):
        return False
    loop = outer[0]
    return not any(_binds(statement, name) for statement in iter_statements([loop])) and not _stops(loop)


def _stops(loop: cst.CSTNode) -> bool:
    """A `break` or `return` in the loop: it may run its body once."""
    return any(isinstance(node, (cst.Break, cst.Return)) for node in descendants(loop.body))


def _generator_binding(statement: cst.CSTNode) -> tuple[Optional[str], Optional[cst.Call]]:
    if isinstance(statement, (cst.Assign, cst.AnnAssign)):
        targets = statement.targets if isinstance(statement, cst.Assign) else ()
        target = targets[0].target if len(targets) == 1 else getattr(statement, "target", None)
        value = generator_call(statement.value)
        if isinstance(target, cst.Name) and value is not None:
            return target.value, value
    return None, None


def _binds(statement: cst.CSTNode, name: str) -> bool:
    """`statement` (re)binds `name`: an assignment, a loop or `with` target, `del`, an import."""
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets]
    elif isinstance(statement, (cst.AnnAssign, cst.AugAssign)):
        targets = [statement.target]
    elif isinstance(statement, cst.For):
        targets = [statement.target]
    elif isinstance(statement, cst.With):
        targets = [item.asname.name for item in statement.items if item.asname is not None]
    elif isinstance(statement, cst.Del):
        targets = [statement.target]
    elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
        return statement.name.value == name
    else:
        return isinstance(statement, (cst.Import, cst.ImportFrom, cst.Global, cst.Nonlocal))
    return any(name in _bound_names(target) for target in targets)


def _bound_names(target: cst.CSTNode) -> set[str]:
    """The plain names a target binds: `a`, `a, (b, *c)`; not `a.b` nor `a[i]`."""
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _bound_names(element.value)}
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return set()


def _is_store(node: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    if isinstance(parent, cst.AssignTarget) or (isinstance(parent, (cst.AnnAssign, cst.AugAssign)) and parent.target is node):
        return True
    if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is node:
        return True
    return isinstance(parent, cst.Attribute) and parent.attr is node


def _names_read_in_nested_code(placed: list[Placed]) -> set[str]:
    """Names read inside nested functions, classes and lambdas: when those run is not known."""
    names: set[str] = set()
    for place in placed:
        roots = [place.statement] if isinstance(place.statement, (cst.FunctionDef, cst.ClassDef)) else []
        for expression in place.expressions():
            roots.extend(node for node in descendants(expression) if isinstance(node, cst.Lambda))
        for root in roots:
            names.update(node.value for node in descendants(root) if isinstance(node, cst.Name))
    return names


def _first_argument(call: cst.Call) -> Optional[cst.Arg]:
    positional = positional_args(call)
    return positional[0] if positional else None


def _keyword(arg: cst.Arg) -> Optional[str]:
    return arg.keyword.value if arg.keyword is not None else None


def _string(node: Optional[cst.BaseExpression]) -> Optional[str]:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


# -- sub-modules replaced after the optimizer was built -------------------------------------


@dataclass(frozen=True)
class StaleOptimizer:
    """An optimizer built from `owner`'s parameters, a sub-module of `owner` replaced after it,
    and the optimizer used after the replacement without being rebuilt or extended."""

    optimizer: str  # dotted text of the optimizer's name
    owner: str  # dotted text of the model
    construction: cst.Call
    replacement: cst.CSTNode  # the assignment, `add_module` or `setattr` call
    replaced: str  # what is replaced: `model.fc`, `model.add_module("head", ...)`
    use: cst.CSTNode  # the later `step()` (or the call the optimizer is handed to)


class OptimizerRebuilds:
    """Optimizers of one scope built from a model's parameters, and what happens to the model after."""

    def __init__(
        self,
        is_optimizer_class: Callable[[cst.BaseExpression], bool],
        adds_parameters: Callable[[cst.BaseExpression], bool],
    ) -> None:
        self.is_optimizer_class = is_optimizer_class
        self.adds_parameters = adds_parameters  # the value is a module that holds parameters

    def stale_optimizers(self, scope: Scope) -> list[StaleOptimizer]:
        placed = list(placed_statements(scope))
        found = []
        for index, place in enumerate(placed):
            built = self._construction(place.statement, placed[:index])
            if built is None:
                continue
            optimizer, call, owners = built
            stale = self._stale_after(optimizer, call, owners, place, placed[index + 1 :])
            if stale is not None:
                found.append(stale)
        return found

    def _construction(self, statement: cst.CSTNode, before: list[Placed]) -> Optional[tuple[str, cst.Call, set[str]]]:
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1):
            return None
        optimizer = dotted_name(statement.targets[0].target)
        call = statement.value
        if optimizer is None or not (isinstance(call, cst.Call) and self.is_optimizer_class(call.func)):
            return None
        argument = _first_argument(call) or keyword_arg(call, "params")
        if argument is None:
            return None
        owners = parameter_owners(argument.value)
        if not owners and isinstance(argument.value, cst.Name):
            owners = _owners_bound_to(argument.value.value, before)
        return (optimizer, call, owners) if owners else None

    def _stale_after(
        self, optimizer: str, call: cst.Call, owners: set[str], built: Placed, following: list[Placed]
    ) -> Optional[StaleOptimizer]:
        replacement: Optional[tuple[Placed, str, str]] = None
        for place in following:
            statement = place.statement
            if replacement is None:
                if any(_binds_dotted(statement, owner) for owner in owners) or _binds_dotted(statement, optimizer):
                    return None
                if runs_after(built.path, place.path):
                    replaced = self._replaced_submodule(statement, owners)
                    if replaced is not None:
                        replacement = (place, *replaced)
                continue
            if _binds_dotted(statement, optimizer) or _extends(statement, optimizer):
                return None
            if any(_binds_dotted(statement, owner) for owner in owners):
                return None
            use = _optimizer_use(place, optimizer)
            if use is not None and runs_after(replacement[0].path, place.path):
                done, owner, replaced = replacement
                return StaleOptimizer(optimizer, owner, call, done.statement, replaced, use)
        return None

    def _replaced_submodule(self, statement: cst.CSTNode, owners: set[str]) -> Optional[tuple[str, str]]:
        """(owner, shown target) when `statement` puts a new module with parameters into `owner`."""
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target = dotted_name(statement.targets[0].target)
            if target is not None and self.adds_parameters(statement.value):
                owner = next((o for o in owners if target.startswith(f"{o}.")), None)
                if owner is not None:
                    return owner, target
            return None
        if not (isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call)):
            return None
        call = statement.value
        arguments = positional_args(call)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in ("add_module", "register_module") and len(arguments) == 2:
            owner = dotted_name(call.func.value)
            if owner in owners and self.adds_parameters(arguments[1].value):
                return owner, f"{owner}.{call.func.attr.value}(...)"
        if dotted_name(call.func) == "setattr" and len(arguments) == 3:
            owner = dotted_name(arguments[0].value)
            if owner in owners and self.adds_parameters(arguments[2].value):
                return owner, f"setattr({owner}, ...)"
        return None


def _owners_bound_to(name: str, before: list[Placed]) -> set[str]:
    """The models whose parameters the last binding of `name` before holds (`params = model.parameters()`)."""
    for place in reversed(before):
        statement = place.statement
        if _binds(statement, name):
            if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
                return parameter_owners(statement.value)
            return set()
    return set()


def _binds_dotted(statement: cst.CSTNode, dotted: str) -> bool:
    """`statement` rebinds `dotted` (or the name it starts from)."""
    root = dotted.split(".", 1)[0]
    if isinstance(statement, cst.Assign):
        targets = [dotted_name(t.target) for t in statement.targets]
        if any(t == dotted or t == root for t in targets):
            return True
    return "." not in dotted and _binds(statement, dotted)


def _extends(statement: cst.CSTNode, optimizer: str) -> bool:
    """`optimizer.add_param_group(...)` or anything touching `optimizer.param_groups`."""
    for node in descendants(statement):
        if isinstance(node, cst.Attribute) and dotted_name(node.value) == optimizer:
            if node.attr.value in ("add_param_group", "param_groups", "load_state_dict"):
                return True
    return False


def _optimizer_use(place: Placed, optimizer: str) -> Optional[cst.CSTNode]:
    """`optimizer.step()` in the statement, or the optimizer handed to a call (a training loop)."""
    for expression in place.expressions():
        for node in descendants(expression):
            if not isinstance(node, cst.Call):
                continue
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "step" and dotted_name(node.func.value) == optimizer:
                return node
            if any(dotted_name(arg.value) == optimizer for arg in node.args):
                return node
    return None


# -- the facts of one file ----------------------------------------------------------------


class ParameterFlow:
    """Both questions for the scopes of one file, on its imports, optimizer classes and module classes."""

    def __init__(
        self, imports: ImportMap, is_optimizer_class: Callable[[cst.BaseExpression], bool], module_classes: set[str], nodes: NodeIndex
    ) -> None:
        self.imports = imports
        self.module_classes = module_classes
        self.consumers = GeneratorConsumers(imports, is_optimizer_class, nodes)
        self.rebuilds = OptimizerRebuilds(is_optimizer_class, self.builds_parameterised_module)

    def reused_generators(self, scope: Scope) -> list[GeneratorReuse]:
        return reused_generators(scope, self.consumers)

    def stale_optimizers(self, scope: Scope) -> list[StaleOptimizer]:
        return self.rebuilds.stale_optimizers(scope)

    def builds_parameterised_module(self, value: cst.BaseExpression) -> bool:
        """`nn.Linear(...)`, a module class of this file, a torchvision model: a new module that
        (may) hold parameters; `nn.Identity()`, `nn.ReLU()`, empty containers hold none."""
        if not isinstance(value, cst.Call):
            return False
        if isinstance(value.func, cst.Name) and value.func.value in self.module_classes:
            return True
        qualified = self.imports.qualified_name(value.func) or ""
        last = qualified.rsplit(".", 1)[-1]
        if qualified.startswith("torchvision.models."):
            return True
        if not qualified.startswith("torch.nn.") or not last[:1].isupper() or last in ("Parameter", "Buffer"):
            return False
        if last in _MODULE_CONTAINERS:
            return any(self.builds_parameterised_module(arg.value) for arg in value.args)
        return last not in PARAMETERLESS_LAYERS


def scopes_of(module: cst.Module) -> Iterator[Scope]:
    """The module and every function of it, methods included."""
    yield module
    yield from (statement for statement in iter_statements(module.body) if isinstance(statement, cst.FunctionDef))
