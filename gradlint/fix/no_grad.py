"""The no-grad fix: the region of code to run under `torch.no_grad()` for a legacy volatile value,
what keeps a region from qualifying, and the edits that wrap or decorate it."""

from __future__ import annotations

import builtins
import dataclasses
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Sequence, Union

import libcst as cst

from gradlint.analysis.functions import CallSite, only_called
from gradlint.analysis.grad_mode import disables_grad, may_enable_grad, runs_without_grad
from gradlint.analysis.legacy import literal_flag, variable_arguments, volatile_argument
from gradlint.analysis.regions import (
    Placement,
    bound_names,
    binding_values,
    contains,
    continuation,
    derived_names,
    holds_only,
    in_place_method,
    mentions,
    outer_stores,
    overlap,
    own_nodes,
    path_to,
    placements,
    read_names,
    reads_before_rebinding,
    returned_values,
    scope_depth,
    stable_derived_names,
    use_runs,
    uses,
    yields_or_awaits,
)
from gradlint.analysis.roles import NOT_OPTIMIZER, OPTIMIZER, is_fresh_state_method
from gradlint.analysis.local_calls import names_bound_by
from gradlint.analysis.scopes import class_methods, self_name
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.string_formats import literal_format_call, shown_arguments
from gradlint.analysis.syntax import DEFINITIONS, iter_statements, parameter_names, suite_statements
from gradlint.analysis.tree import iter_children
from gradlint.analysis.training import Kind
from gradlint.analysis.values.record import Kind as ValueKind
from gradlint.fix.builders import call_without_argument, decorate_with_no_grad, indentation, render_at, rewrite_within, wrap_in_no_grad
from gradlint.fix.plan import Change, Replace, ReplaceLines
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
# What tells code whether autograd recorded a value: under no_grad these read differently.
GRAD_STATE_ATTRIBUTES = frozenset({"requires_grad", "grad_fn", "is_leaf", "grad"})
GRAD_STATE_CALLS = frozenset({"is_grad_enabled", "register_hook", "retain_grad"})
_BLOCKING_EVENTS = {
    Kind.BACKWARD: "it calls `.backward()`",
    Kind.OTHER_BACKWARD: "it calls `.backward()`",
    Kind.STEP: "it steps an optimizer",
    Kind.LOSS_STEP: "it steps an optimizer",
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
    region: Optional[Region]  # None: the changes serve several regions (the uses of an attribute)
    exact: bool = False  # the program computes the same values with and without it (a safe fix)


class NoGradPlanner:
    """Where `torch.no_grad()` goes so that a volatile value (or what a call hands out under a
    true flag) is computed without a graph and nothing else changes: the smallest clear region
    (the function, a loop, the statements that use the value, or each run of them in a training
    loop) that computes no gradients, trains nothing and lets no graph escape. Asked by GL102."""

    def __init__(self, context: FileContext, flag: Optional[cst.BaseExpression] = None) -> None:
        self.context = context
        # A flag that is not a literal (`volatile=self.test`): the code runs under
        # `torch.set_grad_enabled(not flag)`, which is what the flag asked for wherever grad is on around it.
        self.flag = flag
        # The file's functions a call in a region runs: whether each computes the same under no_grad.
        self._alike: dict[int, bool] = {}
        self._judging: set[int] = set()
        self._only_called: dict[int, bool] = {}

    def plan_calls(self, sites: Sequence[CallSite], name: str) -> tuple[Optional[NoGradPlan], str]:
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
        return self._merged(plans, f"the calls of `{name}`")

    def _merged(self, plans: Sequence[NoGradPlan], what: str) -> tuple[Optional[NoGradPlan], str]:
        """One plan doing what each of `plans` does, a region nested in another wrapped once."""
        kept: list[NoGradPlan] = []
        for plan in sorted(plans, key=lambda plan: -_size(plan.region)):
            if not any(contains(other.region.statements, plan.region.statements) for other in kept):  # two uses in one loop: wrapped once
                kept.append(plan)
        if overlap([plan.region.statements for plan in kept]):
            return None, f"the code around {what} overlaps"
        changes: list[Change] = []
        seen: set[tuple] = set()
        for plan in kept:
            for change in plan.changes:
                key = _change_key(change)
                if key not in seen:  # `import torch` comes once
                    seen.add(key)
                    changes.append(change)
        return NoGradPlan("", changes, None, all(plan.exact for plan in kept)), ""

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
        statement = path[-1].statement
        if not anchors and self._builds_no_graph([statement], scope):
            attributes = _stored_attributes(statement, scope)
            if attributes and self.flag is not None:
                return None, "it is stored on `self` with a flag the code that reads it does not see"
            if attributes:  # `self.sample_z_ = Variable(noise, volatile=True)`: its readers are the code to run without grad
                return self._plan_attribute_readers(statement, attributes, scope)
        reasons = []
        for region in self._candidates(path, depth, scope, stack, tuple(anchors)):
            if region.kind != "function" and self._builds_no_graph(region.statements, scope):
                continue  # no_grad around it would change nothing: the value's meaning is where it is used
            if self.flag is not None and region.kind == "function":
                continue  # a decorator cannot read the flag
            reason = self._blocker(region) or self._flag_blocker(region)
            if reason is None:
                plan = self._build(region, stack)
                if plan is not None:
                    return plan, ""
                reason = "the code cannot be re-indented safely"
            reasons.append(reason)
            if region.kind == "runs":  # the closest the fix came: its reason is the one to act on
                return None, reason
        return None, reasons[0] if reasons else "nothing computed from it in this function builds a graph"

    def _plan_attribute_readers(
        self, binding: cst.BaseStatement, attributes: frozenset[str], scope: cst.FunctionDef
    ) -> tuple[Optional[NoGradPlan], str]:
        """The volatile value stored on `self` (`self.sample_z_`) is used by methods of its class
        (`self.G(self.sample_z_)` in `visualize_results`): each computation reading it runs under
        no_grad, and the flag is dropped where it is stored."""
        shown = ", ".join(f"`self.{name}`" for name in sorted(attributes))
        class_def = self.context.function_table.class_of(scope)
        if class_def is None:
            return None, f"it is stored in {shown}, and what reads it is not known"
        plans, under_no_grad = [], False
        for method, read in _attribute_reads(class_def, attributes):
            stack = path_to(self.context.module, read)
            if stack is None:
                return None, f"a use of {shown} cannot be located"
            if method is scope and self.context.nodes.comes_before(read, binding):
                continue  # filled before the volatile value is stored
            if runs_without_grad(stack, self.context.imports) or self._builds_no_graph([placements(stack)[-1].statement], method):
                under_no_grad = True  # already without grad, or a copy that builds nothing (`.cuda()`)
                continue
            plan, reason = self.plan(stack, (read,))
            if plan is None:
                return None, f"for its use in `{method.name.value}`, {reason}"
            plans.append(plan)
        if not plans and not under_no_grad:
            return None, f"nothing in its class reads {shown}"
        merged, reason = self._merged(plans, f"the uses of {shown}") if plans else (NoGradPlan("", [], None, True), "")
        if merged is None:
            return None, reason
        dropped = [Replace(call, call_without_argument(call, volatile_argument(call))) for call in self._volatile_calls([binding])]
        title = f"Run the code that uses {shown} under `torch.no_grad()` and drop `volatile=`"
        return NoGradPlan(title, [*dropped, *merged.changes], None, merged.exact), ""

    def _flag_blocker(self, region: Region) -> Optional[str]:
        """Why `set_grad_enabled(not flag)` at the start of the region would not read the flag the
        `Variable` call read: the region binds a name the flag reads, or holds another flag."""
        if self.flag is None:
            return None
        if bound_names(region.statements) & read_names(self.flag):
            return f"it binds what `{self._flag_text()}` reads"
        body = body_of(region.scope) if region.scope is not None else list(self.context.module.body)
        for name in read_names(self.flag):
            values = binding_values(body, name)
            if values is None or len(values) > 1:  # bound again: the flag may differ where the code runs
                return f"`{name}` is bound more than once, so `{self._flag_text()}` may change before the code runs"
        flags = {self.context.code_for(volatile_argument(call).value) for call in self._volatile_calls(region.statements)}
        if flags - {self.context.code_for(self.flag)}:
            return "another `Variable` call there has another flag"
        return None

    def _flag_text(self) -> str:
        return snippet(self.context.code_for(self.flag), 40, "flag")

    def _grad_mode(self) -> str:
        """What the wrapped code runs under, as the title says it."""
        if self.flag is None:
            return "`torch.no_grad()`"
        return f"`torch.set_grad_enabled({_negated(self.context.code_for(self.flag))})`"

    def _builds_no_graph(self, statements: Sequence[cst.CSTNode], scope: Optional[cst.FunctionDef]) -> bool:
        """Running `statements` computes nothing autograd could record, so no_grad around them
        changes nothing: assignments and returns of values without history computed without one
        (`z = Variable(torch.rand(n), volatile=True)`, `img = img.cuda()`), `pass`, and `if`s of
        those whose test computes no tensor."""
        where = scope if scope is not None else self.context.module
        free = lambda value: self.context.values.is_history_free(value, where) or holds_only(value, free)  # noqa: E731
        computes_free = lambda value: free(value) and all(map(free, self._computations(value)))  # noqa: E731
        for statement in statements:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Pass):
                        continue
                    if isinstance(small, cst.Return) and small.value is not None and computes_free(small.value):
                        continue  # `return Variable(source[i], volatile=evaluation)`: its callers use it
                    if not (isinstance(small, cst.Assign) and _plain_targets(small) and computes_free(small.value)):
                        return False
            elif isinstance(statement, cst.If):
                orelse = statement.orelse
                if not (
                    self._test_builds_no_graph(statement.test)
                    and self._builds_no_graph(list(suite_statements(statement.body)), scope)
                    and (
                        orelse is None
                        or self._builds_no_graph([orelse] if isinstance(orelse, cst.If) else list(suite_statements(orelse.body)), scope)
                    )
                ):
                    return False
            else:
                return False
        return True

    def _computations(self, value: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
        """The calls and operations computing `value` that may build a graph: `model(x).data` has
        no history, but computing it builds one. Not those computing what `Variable(...)` is
        given: it was a plain tensor in 0.3, and the wrapper drops any history it has now."""
        pending = [value]
        while pending:
            node = pending.pop()
            if isinstance(node, cst.Call) and self.context.calls_variable(node.func):
                yield node
                continue
            if isinstance(node, (cst.Call, cst.BinaryOperation)) and not _is_text(node):
                yield node
            pending.extend(child for child in iter_children(node) if not isinstance(child, DEFINITIONS))

    def _test_builds_no_graph(self, test: cst.BaseExpression) -> bool:
        """An `if` test that reads flags only: `args.cuda`, `torch.cuda.is_available()`."""
        for node in own_nodes(test):
            if isinstance(node, cst.Call):
                qualified = self.context.imports.qualified_name(node.func) or ""
                if not qualified.startswith("torch.cuda."):
                    return False
        return True

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
        yield from self._enclosing_uses(path, start, scope, depth, anchors)

    def _enclosing_uses(
        self, path: Sequence[Placement], start: int, scope: Optional[cst.FunctionDef], depth: int, anchors: tuple
    ) -> Iterator[Region]:
        """The same forms one block further out each time, from the statement that holds the
        value (an `if gpu: z = z.cuda() else: ...`) to its uses after it (`samples = G(z)`):
        only those uses when that statement computes nothing, else the statements from it."""
        for position in range(len(path) - 2, start - 1, -1):
            placement = path[position]
            rest = list(placement.block.body)[placement.index :]
            sources = self._sources([placement.statement], anchors)
            used = uses(rest, sources)
            if not used:
                continue
            if self._builds_no_graph([placement.statement], scope):
                seed = frozenset(derived_names(rest[:1], sources))
                statements = rest[used[0] : used[-1] + 1]
                yield Region(
                    "uses",
                    statements,
                    path[: position + 1],
                    scope,
                    depth,
                    placement.index + used[0],
                    placement.statement,
                    seed,
                    anchors=anchors,
                )
            yield Region("span", rest[: used[-1] + 1], path[: position + 1], scope, depth, placement.index, anchors=anchors)

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
            if not self._builds_no_graph(run.statements, scope)  # `if cuda: x = x.cuda()` stays as it is
        )
        if not parts:
            return None
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
            if id(node) in anchored or (isinstance(node, cst.Call) and self._is_volatile_call(node))
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

    def _syntax_blocker(self, statements: Sequence[cst.BaseStatement], other_flags: bool = True) -> Optional[str]:
        """What in `statements` computes gradients or sets the grad state; with `other_flags`, also
        a `Variable` call whose flag the region's grad mode would not follow (under no_grad the
        flag has no effect: a function the region calls may hold one)."""
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
                    if (
                        self.context.calls_variable(node.func)
                        and volatile_argument(node) is not None
                        and not _removable(node)
                        and self.flag is None
                        and other_flags
                    ):
                        return "another `Variable` call there has a flag that is not a literal"
                elif isinstance(node, cst.Attribute) and node.attr.value == "requires_grad" and _is_assigned(node, statement):
                    return "it sets `requires_grad`"
        return None

    def _escape_blocker(self, region: Region, strict: bool = False) -> Optional[str]:
        """A value whose graph no_grad would remove is seen by code outside the region. `strict`:
        only values that provably have no history may leave it, and nothing may be returned
        that has one, whoever calls the function (no evidence taken from names)."""
        statements = region.statements
        scope = region.scope if region.scope is not None else self.context.module
        sources = self._sources(statements, region.anchors)
        derived = derived_names(statements, sources, region.seed) | region.seed
        source_ids = {id(source) for source in sources}
        free = lambda value: self._graph_free(value, scope, strict)  # noqa: E731
        local = bound_names(statements)
        after = [] if region.kind == "function" else continuation(region.path, region.first, len(statements), region.scope_depth)
        escaping = reads_before_rebinding(after, local) | (_declared_outer(region.scope) & local)
        project = self.context.project
        if strict and region.scope is None and project is not None:
            escaping |= local & project.reimported  # a global another file imports
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
            if strict:
                return "it returns a value with a graph"
            if not mentions(value, derived, source_ids):
                return "it returns a value with a graph that does not come from the volatile one"
            if region.scope is not None and self._caller_may_backpropagate(region.scope):
                return "a caller backpropagates through what it returns"
        return None

    def _graph_free(self, value: cst.BaseExpression, scope, strict: bool = False) -> bool:
        """`value` has no graph that no_grad would remove: it provably has no history (the one
        history fact), or it is a fresh recurrent state (not when `strict`: known by its name),
        or a Python container holding only such values (`truth += list(labels)`)."""
        context = self.context

        def free(node: cst.BaseExpression) -> bool:
            return context.values.is_history_free(node, scope) or (not strict and _fresh_state(node, free))

        return free(value) or holds_only(value, free)

    def _exact(self, region: Region) -> bool:
        """Running the region under no_grad changes no value the program reads: it builds a graph
        nobody uses (no backward or step in it, checked by `_blocker`), nothing in it asks
        whether a value requires grad or modifies in place what may require it, and only values
        that provably have no history leave it."""
        if region.kind == "runs":
            return all(self._exact(part) for part in region.parts)
        scope = region.scope if region.scope is not None else self.context.module
        sources = self._sources(region.statements, region.anchors)
        derived = derived_names(region.statements, sources, region.seed) | region.seed
        source_ids = {id(source) for source in sources}
        computed_here = lambda receiver: mentions(receiver, derived, source_ids)  # noqa: E731
        return self._reads_alike(region.statements, scope, computed_here) and self._escape_blocker(region, strict=True) is None

    def _reads_alike(self, statements: Sequence[cst.CSTNode], scope, computed_here: Callable[[cst.BaseExpression], bool]) -> bool:
        """Nothing `statements` do reads differently under no_grad: no grad state is asked for, no
        value that may require grad is changed in place (`computed_here`: receivers computed from
        the volatile value, which never required grad), no tensor is shown as text, and no value
        that may hold a graph is handed to code that may backpropagate through it."""
        for statement in statements:
            for node in own_nodes(statement):
                if isinstance(node, cst.Attribute) and node.attr.value in GRAD_STATE_ATTRIBUTES:
                    return False
                if isinstance(node, cst.Call) and isinstance(node.func, (cst.Attribute, cst.Name)):
                    name = node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value
                    if name in GRAD_STATE_CALLS:
                        return False
                    if in_place_method(name) and isinstance(node.func, cst.Attribute):
                        receiver = node.func.value
                        if not (self.context.values.is_history_free(receiver, scope) or computed_here(receiver)):
                            return False  # a leaf that requires grad may be changed in place only without grad
                    if literal_format_call(node):
                        shown = shown_arguments(node)
                        if shown is None or not all(self._graph_free(value, scope, strict=True) for value in shown):
                            return False  # `"{}".format(out)`: the text shows `grad_fn`
                    elif self._hands_out_graph(node, scope):
                        return False
                elif isinstance(node, cst.AugAssign) and not self._augmented_alike(node.target, scope, computed_here):
                    return False  # `model.weight += d` raises with grad on, and changes the weight without
                elif _shown(node) is not None and not self._graph_free(_shown(node), scope, strict=True):
                    return False  # `"%s" % out`, `f"{out}"`: the text shows `grad_fn`
        return True

    def _augmented_alike(self, target: cst.BaseExpression, scope, computed_here: Callable[[cst.BaseExpression], bool]) -> bool:
        """`target += v` changes a tensor in place: alike with and without grad unless the tensor may
        be a leaf that requires grad (or a view of one). Such a tensor comes from outside the scope's
        assignments: an attribute or item (`model.weight`), a parameter, a loop variable (`for p in
        model.parameters()`), a global, or a name the scope binds to one of those (`w = model.weight`);
        a name the scope assigns only what it computes holds no leaf."""
        if self.context.values.is_history_free(target, scope) or computed_here(target):
            return True
        if not isinstance(target, cst.Name):
            return False
        uses = self.context.scope_uses.of(scope)
        if target.value in uses.unseen_bindings or target.value in uses.loop_targets:
            return False
        values = self.context.scopes.of(scope).plain_values(target.value)
        return bool(values) and not any(isinstance(value, (cst.Name, cst.Attribute, cst.Subscript)) for value in values)

    def _hands_out_graph(self, call: cst.Call, scope) -> bool:
        """A function of another file, or not known to be torch's or a model, gets a value that may
        hold a graph: it may backpropagate through it, which no_grad would break."""
        values = self.context.values
        qualified = self.context.imports.qualified_name(call.func) or ""
        if qualified.split(".")[0] in _NO_AUTOGRAD_PACKAGES or _is_builtin(call.func, self.context):
            return False
        if (
            qualified.startswith("torch.")
            or values.is_nn_module(call.func, scope)
            or self._global_module(call.func, scope)
            or self._module_parameter(call.func, scope)
        ):
            return False
        if isinstance(call.func, cst.Attribute) and values.is_tensor(call.func.value, scope):
            return False  # a tensor method
        function = self._file_function(call)
        if function is not None:
            return not self._runs_alike(function)
        return any(not self._free_here(arg.value, call, scope) for arg in call.args)

    def _module_parameter(self, func: cst.BaseExpression, scope) -> bool:
        """`criterion(out, y)` in `def validate(loader, model, criterion)`, where every call of the
        function passes a module for `criterion` and the function never rebinds it."""
        if not isinstance(func, cst.Name) or not isinstance(scope, cst.FunctionDef) or func.value not in parameter_names(scope.params):
            return False
        if any(func.value in names_bound_by(statement) for statement in suite_statements(scope.body)):
            return False
        sites = self.context.functions.only_calls(scope)
        if not sites:
            return False
        signature = Signature.of(scope)
        method = self.context.function_table.class_of(scope) is not None
        for site in sites:
            receiver = site.call.func.value if method and isinstance(site.call.func, cst.Attribute) else None
            argument = bind(site.call, signature, receiver=receiver).passed(func.value)
            if argument is None or not self.context.values.is_nn_module(argument, site.scope or self.context.module):
                return False
        return True

    def _global_module(self, func: cst.BaseExpression, scope) -> bool:
        """`criterion(out, y)` in a function, `criterion` a name of the module bound only to modules
        (`criterion = nn.CrossEntropyLoss()`) and nowhere else: not in the function, nor by `global`.
        Not in a nested function, where the name may be a variable of the function around it."""
        if not isinstance(func, cst.Name) or not isinstance(scope, cst.FunctionDef):
            return False
        name, module, table = func.value, self.context.module, self.context.function_table
        if table.module_level.get(scope.name.value) is not scope and table.class_of(scope) not in module.body:
            return False
        if name in self.context.scope_uses.of(scope).unseen_bindings or self.context.scopes.of(scope).plain_values(name) != []:
            return False  # bound in the function: a parameter, a local
        if name in self.context.scope_uses.of(module).unseen_bindings:
            return False  # a def, an import, a `global` statement somewhere
        values = self.context.scopes.of(module).plain_values(name)
        return bool(values) and all(self.context.values.kind(value, module) is ValueKind.NN_MODULE for value in values)

    def _file_function(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        """The module-level `def` of this file that `call` runs for sure: its name is mentioned in
        the file only where it is defined and called, so nothing rebinds or shadows it."""
        if not isinstance(call.func, cst.Name):
            return None
        function = self.context.function_table.module_level.get(call.func.value)
        if function is None:
            return None
        sites = self.context.functions.of(function).call_sites
        known = self._only_called.get(id(function))
        if known is None:
            known = self._only_called[id(function)] = only_called(self.context.module, function, sites)
        return function if known and any(site.call is call for site in sites) else None

    def _runs_alike(self, function: cst.FunctionDef) -> bool:
        """A call of `function` computes the same under no_grad: its body (which then runs without
        grad too) trains nothing, computes no gradients, reads nothing differently and stores
        no value that may hold a graph into an object its caller or the module can see (what it
        returns goes back to the code around the call, which judges it there)."""
        known = self._alike.get(id(function))
        if known is not None:
            return known
        if id(function) in self._judging:
            return True  # a recursive call: the rest of the body decides
        self._judging.add(id(function))
        try:
            alike = self._body_runs_alike(function)
        finally:
            self._judging.discard(id(function))
        if not alike or not self._judging:  # a True reached while a caller was being judged may rest on its assumption
            self._alike[id(function)] = alike
        return alike

    def _body_runs_alike(self, function: cst.FunctionDef) -> bool:
        body = body_of(function)
        if function.asynchronous is not None or yields_or_awaits(body):
            return False
        if any(not disables_grad(d.decorator, self.context.imports) for d in function.decorators):
            return False  # a decorator may run other code around it
        if self._training_reason(body, function) is not None or self._syntax_blocker(body, other_flags=False) is not None:
            return False
        if not self._reads_alike(body, function, lambda receiver: False):
            return False
        parameters = set(parameter_names(function.params))
        local = bound_names(body) - parameters  # a parameter's object is the caller's, even if the name is rebound
        free = lambda value: self._graph_free(value, function, strict=True)  # noqa: E731
        for name in _declared_outer(function) & bound_names(body):
            values = binding_values(body, name)
            if values is None or not all(map(free, values)):
                return False
        for node in (node for statement in body for node in own_nodes(statement)):
            if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and node.target.value in parameters:
                if not free(node.value):
                    return False  # `x += out` changes the caller's tensor in place
        return all(free(value) for _, value in outer_stores(body, local))

    def _free_here(self, value: cst.BaseExpression, call: cst.Call, scope) -> bool:
        """`value`, read by `call`, has no history: provably for every binding of its name, or for
        the bindings that reach the call (`samples = samples.data.numpy()` after `samples = G(z)`)."""
        if self._graph_free(value, scope, strict=True) or _is_text(value):
            return True
        root = value
        while isinstance(root, cst.Subscript):
            root = root.value
        if not isinstance(root, cst.Name) or root is not value and not isinstance(value, cst.Subscript):
            return False
        reaching = _reaching_values(self.context.module, call, root.value)
        return reaching is not None and all(self._graph_free(bound, scope, strict=True) for bound in reaching)

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
        return self.context.calls_variable(call.func) and volatile_argument(call) is not None

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
            return NoGradPlan(
                f"Run `{region.scope.name.value}` under `torch.no_grad()` and drop `volatile=`", changes, region, self._exact(region)
            )
        dropping = _DropVolatile(calls)
        changes = []
        for part in region.parts or (region,):
            outer = part.ancestors or stack[: part.path[-1].depth + 1]
            wrapped = wrap_in_no_grad(self.context, part.statements, outer, lambda statement: statement.visit(dropping))
            if wrapped is None:
                return None
            if self.flag is not None:
                wrapped = [self._under_flag(change) for change in wrapped]
            # `import torch`, when it is added, is added once
            changes.extend(wrapped if not changes else [change for change in wrapped if isinstance(change, ReplaceLines)])
        if region.binding is not None:  # the whole line, like the wrapped ones
            binding = region.binding.visit(_DropVolatile(self._volatile_calls([region.binding])))
            binding_ancestors = stack[: region.path[-1].depth + 1]
            text = render_at(self.context, binding.with_changes(leading_lines=()), indentation(self.context, binding_ancestors))
            changes.append(ReplaceLines(region.binding, region.binding, text))
        where = {"loop": "the loop", "runs": "each piece of code that uses it"}.get(region.kind, "the code that uses it")
        # `set_grad_enabled(True)` turns grad back on under a caller's no_grad: exact only where nothing can be around it
        exact = self._exact(region) and (self.flag is None or region.scope is None)
        return NoGradPlan(f"Run {where} under {self._grad_mode()} and drop `volatile=`", changes, region, exact)

    def _under_flag(self, change: Change) -> Change:
        """The wrapping `with` of `change` made `with torch.set_grad_enabled(not flag):`."""
        if not isinstance(change, ReplaceLines):
            return change
        header, newline, rest = change.text.partition(self.context.module.default_newline)
        alias = header.strip()[len("with ") : -len(".no_grad():")]
        indent = header[: len(header) - len(header.lstrip())]
        mode = f"{indent}with {alias}.set_grad_enabled({_negated(self.context.code_for(self.flag))}):"
        return dataclasses.replace(change, text=mode + newline + rest)


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


# Packages whose functions never run autograd on what they are given.
_NO_AUTOGRAD_PACKAGES = frozenset({"os", "sys", "time", "math", "json", "pickle", "logging", "shutil", "random", "numpy", "scipy"})


# Builtins that show a tensor's `grad_fn`: what they print changes under no_grad.
_SHOWING_BUILTINS = frozenset({"print", "str", "repr", "format", "vars", "id"})


def _is_builtin(func: cst.BaseExpression, context: FileContext) -> bool:
    """`len(...)`, `int(...)`: a Python builtin the file does not rebind that reads no grad state."""
    return (
        isinstance(func, cst.Name)
        and func.value in dir(builtins)
        and func.value not in _SHOWING_BUILTINS
        and context.imports.qualified_name(func) in (None, func.value)
        and func.value not in context.function_table.module_level
    )


def _is_text(value: cst.BaseExpression) -> bool:
    """A string, `+` / `%` with a string literal or a literal's `.format(...)`: the result is a
    string (or it raises)."""
    while isinstance(value, cst.BinaryOperation):
        if _is_text(value.right):
            return True
        value = value.left
    if isinstance(value, cst.Call):
        return literal_format_call(value)
    return isinstance(value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))


_NUMBER_CONVERSIONS = re.compile(r"%[-#0 +]*(?:\d+|\*)?(?:\.(?:\d+|\*))?[diouxXeEfFgGc%]")


def _shown(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The value a string formatting shows as text (a tensor's text shows its `grad_fn`):
    `"%s" % out` or `f"{out}"`; None when it formats numbers only (`"%.3f" % loss`, `f"{x:.2f}"`)."""
    if isinstance(node, cst.FormattedStringExpression):
        return node.expression if node.format_spec is None else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo) and isinstance(node.left, cst.SimpleString):
        text = node.left.evaluated_value
        if isinstance(text, str) and not _NUMBER_CONVERSIONS.sub("", text).count("%"):
            return None
        return node.right
    return None


def _negated(flag: str) -> str:
    """`not flag`, or `train` for `not train`."""
    expression = cst.parse_expression(flag)
    if isinstance(expression, cst.UnaryOperation) and isinstance(expression.operator, cst.Not) and not expression.lpar:
        return flag.strip()[len("not") :].strip()
    simple = isinstance(expression, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
    return f"not {flag}" if simple else f"not ({flag})"


def _reaching_values(module: cst.Module, node: cst.CSTNode, name: str) -> Optional[list[cst.BaseExpression]]:
    """The values the bindings of `name` that reach `node` give it, walking back through the
    statements before it and the `if`s around it; None when a loop, a definition or a binding
    that is not a plain assignment is met first, or the start of the function is reached."""
    stack = path_to(module, node)
    if stack is None:
        return None
    for placement in reversed(placements(stack)):
        body = list(placement.block.body)
        for sibling in reversed(body[: placement.index]):
            if name in bound_names([sibling]):
                return _last_values(sibling, name)
        if isinstance(placement.owner, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            return None  # a loop may repeat; a function's parameters are bound by its callers
    return None


def _last_values(statement: cst.CSTNode, name: str) -> Optional[list[cst.BaseExpression]]:
    """What `name` holds after `statement` runs (it binds `name`): every `if` branch must bind it."""
    if isinstance(statement, cst.SimpleStatementLine):
        values = binding_values([statement], name)
        return values[-1:] if values else None
    if not isinstance(statement, cst.If) or statement.orelse is None:
        return None
    found = []
    for branch in (statement.body, statement.orelse if isinstance(statement.orelse, cst.If) else statement.orelse.body):
        body = [branch] if isinstance(branch, cst.If) else list(suite_statements(branch))
        last = next((s for s in reversed(body) if name in bound_names([s])), None)
        values = _last_values(last, name) if last is not None else None
        if values is None:
            return None
        found.extend(values)
    return found


def _plain_targets(assign: cst.Assign) -> bool:
    """Every target is a name or an attribute, alone or in a tuple (no `d[k] = v`, which may run code)."""
    return all(isinstance(target, (cst.Tuple, cst.List, cst.Name, cst.Attribute)) for target in _assign_targets(assign))


def _stored_attributes(statement: cst.BaseStatement, method: Optional[cst.FunctionDef]) -> frozenset[str]:
    """The attributes of the method's `self` that a simple assignment stores into (`self.z, self.y = ...`)."""
    owner = self_name(method) if method is not None else None
    if owner is None or not isinstance(statement, cst.SimpleStatementLine):
        return frozenset()
    return frozenset(
        target.attr.value
        for small in statement.body
        if isinstance(small, cst.Assign)
        for target in _assign_targets(small)
        if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == owner
    )


def _attribute_reads(class_def: cst.ClassDef, attributes: frozenset[str]) -> Iterator[tuple[cst.FunctionDef, cst.Attribute]]:
    """Each read of `self.<one of attributes>` in the methods of `class_def` (stores left out)."""
    for method in class_methods(class_def):
        owner = self_name(method)
        if owner is None:
            continue
        stored = {id(target) for node in own_nodes(method.body) if isinstance(node, cst.Assign) for target in _assign_targets(node)}
        for node in own_nodes(method.body):
            if (
                isinstance(node, cst.Attribute)
                and node.attr.value in attributes
                and isinstance(node.value, cst.Name)
                and node.value.value == owner
                and id(node) not in stored
            ):
                yield method, node


def _assign_targets(assign: cst.Assign) -> Iterator[cst.BaseExpression]:
    pending = [target.target for target in assign.targets]
    while pending:
        target = pending.pop()
        yield target
        if isinstance(target, (cst.Tuple, cst.List)):
            pending.extend(element.value for element in target.elements)


def _size(region: Optional[Region]) -> int:
    if region is None:
        return 0
    return sum(1 for statement in region.statements for _ in own_nodes(statement))


def _change_key(change: Change) -> tuple:
    """What makes two changes the same edit: the nodes by identity, the text by value."""
    return (type(change).__name__, *(id(value) if isinstance(value, cst.CSTNode) else value for value in vars(change).values()))
