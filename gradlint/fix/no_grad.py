"""The no-grad fix: the region of code to run under `torch.no_grad()` for a legacy volatile value,
what keeps a region from qualifying, and the edits that wrap or decorate it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional, Sequence, Union

import libcst as cst

from gradlint.analysis.functions import CallSite
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
from gradlint.fix.plan import Change, ReplaceLines
from gradlint.messages import snippet

if TYPE_CHECKING:
    from gradlint.context import FileContext


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
class Region:
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
    parts: Sequence[Region] = ()  # "runs": the runs
    ancestors: Sequence[cst.CSTNode] = ()  # "run": the nodes from the module down to its block
    anchors: Sequence[cst.Call] = ()  # calls of a function of the file that hand out a volatile value


@dataclass(frozen=True)
class NoGradPlan:
    """The no-grad form chosen for one volatile value: the fix's title, its changes, the region."""

    title: str
    changes: Sequence[Change]
    region: Region


class NoGradPlanner:
    """Where `torch.no_grad()` goes so that a volatile value (or what a call hands out under a
    true flag) is computed without a graph and nothing else changes: the smallest clear region
    (the function, a loop, the statements that use the value, or each run of them in a training
    loop) that computes no gradients, trains nothing and lets no graph escape. Asked by GL102."""

    def __init__(self, context: FileContext) -> None:
        self.context = context

    def plan_calls(self, sites: Sequence[CallSite], name: str) -> tuple[Optional[list[Change]], str]:
        """The changes that run each call in `sites` and the code that uses its result under
        no_grad, by the same policy as for a `Variable(..., volatile=True)` written there."""
        plans = []
        for site in sites:
            stack = path_to(self.context.module, site.call)
            plan, reason = self.plan(stack, (site.call,)) if stack is not None else (None, "it cannot be located")
            if plan is None:
                where = f"in `{site.scope.name.value}`" if site.scope is not None else "at module level"
                return None, f"for the call of `{name}` {where}, {reason}"
            plans.append(plan)
        kept: list[NoGradPlan] = []
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

    # -- where no_grad goes ---------------------------------------------------------------------

    def plan(self, stack: Sequence[cst.CSTNode], anchors: Sequence[cst.Call] = ()) -> tuple[Optional[NoGradPlan], str]:
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
                plan = self._build(region, stack)
                if plan is not None:
                    return plan, ""
                reason = "the code cannot be re-indented safely"
            reasons.append(reason)
            if region.kind == "runs":  # the closest the fix came: its reason is the one to act on
                return None, reason
        return None, reasons[0]

    def _candidates(
        self, path: Sequence[Placement], depth: int, scope: Optional[cst.FunctionDef], stack: Sequence[cst.CSTNode], anchors: tuple
    ) -> Iterator[Region]:
        """The forms to try, smallest clear one first (built lazily: the later ones cost more)."""
        start = next(position for position, placement in enumerate(path) if placement.depth >= depth)
        if scope is not None and (len(path) - start == 1 or _evaluation_name(scope.name.value)):
            yield Region("function", body_of(scope), path[: start + 1], scope, depth, path[start].index, anchors=anchors)
        for position in range(len(path) - 1, start - 1, -1):
            placement = path[position]
            if isinstance(placement.statement, (cst.For, cst.While)):
                yield Region("loop", [placement.statement], path[: position + 1], scope, depth, placement.index, anchors=anchors)
        last = path[-1]
        rest = list(last.block.body)[last.index :]
        sources = self._sources([last.statement], anchors)
        used = uses(rest, sources)
        yield Region("span", rest[: (used[-1] if used else 0) + 1], path, scope, depth, last.index, anchors=anchors)
        if used and self._binds_only(last.statement, scope):
            seed = frozenset(derived_names(rest[:1], sources))
            statements = rest[used[0] : used[-1] + 1]
            yield Region("uses", statements, path, scope, depth, last.index + used[0], last.statement, seed, anchors=anchors)
        if used:
            runs = self._runs(path, depth, scope, stack, rest, sources, anchors)
            if runs is not None:
                yield runs

    def _runs(
        self, path: Sequence[Placement], depth: int, scope: Optional[cst.FunctionDef], stack: Sequence[cst.CSTNode], rest, sources, anchors
    ) -> Optional[Region]:
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
            Region("run", run.statements, run.path, scope, depth, run.first, seed=seed, ancestors=run.ancestors, anchors=anchors)
            for run in found
        )
        statements = [statement for part in parts for statement in part.statements]
        binding = last.statement if binds_only else None
        return Region("runs", statements, path, scope, depth, last.index, binding, seed, parts, anchors=anchors)

    def _binds_only(self, statement: cst.BaseStatement, function: Optional[cst.FunctionDef]) -> bool:
        """`x = Variable(t, volatile=True)`: it computes nothing that no_grad would change."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Assign)):
            return False
        assign = statement.body[0]
        scope = function if function is not None else self.context.module
        return all(
            not isinstance(t.target, (cst.Attribute, cst.Subscript)) for t in assign.targets
        ) and self.context.values.is_history_free(assign.value, scope)

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

    def _blocker(self, region: Region) -> Optional[str]:
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

    def _training_blocker(self, region: Region) -> Optional[str]:
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

    def _escape_blocker(self, region: Region) -> Optional[str]:
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
        """`value` has no graph that no_grad would remove: it provably has no history (the one
        history fact), or it is a fresh recurrent state, or a Python container holding only such
        values (`truth += list(labels)`)."""
        context = self.context

        def free(node: cst.BaseExpression) -> bool:
            return context.values.is_history_free(node, scope) or _fresh_state(node, free)

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

    def _build(self, region: Region, stack: Sequence[cst.CSTNode]) -> Optional[NoGradPlan]:
        calls = self._volatile_calls(region.statements)
        if region.kind == "function":
            changes = decorate_with_no_grad(self.context, region.scope)
            if changes is None:
                return None
            ancestors = stack[: next(i for i, node in enumerate(stack) if node is region.scope) + 1]
            dropped = {id(call): call_without_argument(call, volatile_argument(call)) for call in calls}
            changes.extend(rewrite_within(self.context, region.scope.body, ancestors, lambda node: dropped.get(id(node))))
            return NoGradPlan(f"Run `{region.scope.name.value}` under `torch.no_grad()` and drop `volatile=`", changes, region)
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
        return NoGradPlan(f"Run {where} under `torch.no_grad()` and drop `volatile=`", changes, region)


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


def body_of(function: cst.FunctionDef) -> list[cst.BaseStatement]:
    return list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []


def flag_alone(call: cst.Call) -> bool:
    """The call passes no `requires_grad` that may be true (torch raises for both together)."""
    arguments = variable_arguments(call)
    return arguments is not None and (arguments.requires_grad is None or literal_flag(arguments.requires_grad) is False)


def _removable(call: cst.Call) -> bool:
    """Its `volatile=` is a literal that the fix can simply remove (under no_grad both mean nothing)."""
    argument = volatile_argument(call)
    return literal_flag(argument.value) is not None and flag_alone(call)


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


def _size(region: Region) -> int:
    return sum(1 for statement in region.statements for _ in own_nodes(statement))


def _change_key(change: Change) -> tuple:
    """What makes two changes the same edit: the nodes by identity, the text by value."""
    return (type(change).__name__, *(id(value) if isinstance(value, cst.CSTNode) else value for value in vars(change).values()))
