"""What each function of a file does for the code that calls it.

`FunctionSummaries` computes, once per function and only when asked, whether it returns a value
with autograd history, whether it runs without grad, whether it resets gradients, calls backward or
steps an optimizer (from the training analysis), which parameters flow to its result, and where in
the file its result is backpropagated. Which `def` a call runs is `functions.FunctionTable`'s answer.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis.functions import CallSite, FunctionTable, call_sites, mentioned_keys
from gradlint.analysis.grad_mode import disables_grad, grad_mode_of, may_enable_grad
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import ScopeTable
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable
from gradlint.analysis.syntax import child_statements, iter_statements, parameter_names, suite_statements
from gradlint.analysis.tree import descendants

if TYPE_CHECKING:
    from gradlint.analysis.grad_tracking import GradEvidence
    from gradlint.analysis.training import BackwardSite, TrainingAnalysis


class FunctionSummary:
    """What one function does for its callers. Each fact is computed on first use."""

    def __init__(self, function: cst.FunctionDef, owner: "FunctionSummaries") -> None:
        self.function = function
        self._owner = owner

    @property
    def name(self) -> str:
        return self.function.name.value

    @cached_property
    def decorated_without_grad(self) -> bool:
        """`@torch.no_grad()`, `@torch.no_grad`, `@torch.inference_mode()`..."""
        return any(disables_grad(d.decorator, self._owner.imports) for d in self.function.decorators)

    @cached_property
    def call_sites(self) -> tuple[CallSite, ...]:
        """The calls of this function in the file (resolved as `FunctionTable.resolve` does)."""
        return tuple(self._owner.call_sites.get(id(self.function), ()))

    @cached_property
    def called_only_without_grad(self) -> bool:
        """Called in this file, and every one of those calls runs with autograd off."""
        return bool(self.call_sites) and all(site.without_grad for site in self.call_sites)

    @property
    def runs_without_grad(self) -> bool:
        """Its body runs with autograd off: decorated so, or called only from no-grad regions."""
        return self.decorated_without_grad or self.called_only_without_grad

    @cached_property
    def returns(self) -> tuple[cst.BaseExpression, ...]:
        """The values of its own `return` statements (nested defs and lambdas excluded)."""
        return tuple(
            statement.value
            for statement in _own_statements(self.function)
            if isinstance(statement, cst.Return) and statement.value is not None
        )

    @cached_property
    def returned_list_items(self) -> Optional[tuple[cst.BaseExpression, ...]]:
        """What the list it returns holds: when every `return` gives one local name, bound in the
        function only to `[]` and otherwise only the receiver of `name.append(value)` statements
        (`res = []` ... `res.append(acc)` ... `return res`), the values appended; None otherwise."""
        names = {value.value for value in self.returns if isinstance(value, cst.Name)}
        if len(names) != 1 or not all(isinstance(value, cst.Name) for value in self.returns):
            return None
        name = names.pop()
        bindings = self._owner.scopes.of(self.function)
        values = bindings.plain_values(name)  # None: a parameter, or bound to values not seen
        if not values or not all(isinstance(value, cst.List) and not value.elements for value in values):
            return None
        items = [call.args[0].value for call in self._appends_to(name)]
        occurrences = sum(isinstance(node, cst.Name) and node.value == name for node in descendants(self.function.body))
        # Every mention accounted for: the bindings, the returns and the appends; no other use can change the list.
        return tuple(items) if occurrences == len(values) + len(self.returns) + len(items) else None

    def unshared_returned_value(self, position: int, is_fresh: Callable[[cst.BaseExpression], bool]) -> Optional[cst.BaseExpression]:
        """The value bound to the local name at `position` of the tuple the function returns (`return
        z, idx`), when each call hands its caller a new such value and keeps no other reference to
        it: a plain function whose last statement is its only `return`, a tuple display; the name
        bound once, by `name = value` with `is_fresh(value)`, and otherwise read only as an index
        into a local bound only to values `is_fresh` accepts (`c[range(n), idx] = 1.0`). None otherwise."""
        name = self._returned_tuple_name(position)
        uses = self._owner.scope_uses.of(self.function) if self._owner.scope_uses is not None and name is not None else None
        if uses is None or any(isinstance(node, (cst.Global, cst.Nonlocal)) for node in descendants(self.function.body)):
            return None
        values = self._owner.scopes.of(self.function).plain_values(name)
        if values is None or len(values) != 1 or not is_fresh(values[0]):
            return None
        statement = uses.parent(values[0])
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            return None  # `a = name = value`: `a` holds it too
        reads = [node for node in descendants(self.function.body) if isinstance(node, cst.Name) and node.value == name]
        others = [
            read for read in reads if read is not statement.targets[0].target and read is not self.returns[0].elements[position].value
        ]
        return values[0] if all(self._read_as_index_of_fresh(read, uses, is_fresh) for read in others) else None

    def _returned_tuple_name(self, position: int) -> Optional[str]:
        """The name at `position` of the tuple display returned by the function's last statement,
        its only `return`, when the function is plain (not decorated, async or a generator)."""
        function = self.function
        if (
            function.decorators
            or function.asynchronous is not None
            or any(isinstance(node, (cst.Yield, cst.Await)) for node in descendants(function.body))
        ):
            return None
        if sum(isinstance(statement, cst.Return) for statement in _own_statements(function)) != 1:
            return None
        last = suite_statements(function.body)[-1] if suite_statements(function.body) else None
        if not (isinstance(last, cst.SimpleStatementLine) and len(last.body) == 1 and isinstance(last.body[0], cst.Return)):
            return None
        value = last.body[0].value
        if not isinstance(value, cst.Tuple) or len(self.returns) != 1 or position >= len(value.elements):
            return None
        if any(isinstance(element, cst.StarredElement) for element in value.elements):
            return None
        element = value.elements[position].value
        return element.value if isinstance(element, cst.Name) else None

    def _read_as_index_of_fresh(self, read: cst.Name, uses: ScopeUses, is_fresh: Callable[[cst.BaseExpression], bool]) -> bool:
        """`read` is an index of `array[...]`, `array` a local bound only to values `is_fresh` accepts
        (indexing such an array, or storing into it, keeps no reference to the index)."""
        index = uses.parent(read)
        element = uses.parent(index) if isinstance(index, cst.Index) else None
        subscript = uses.parent(element) if isinstance(element, cst.SubscriptElement) else None
        if not isinstance(subscript, cst.Subscript) or not isinstance(subscript.value, cst.Name):
            return False
        values = self._owner.scopes.of(self.function).plain_values(subscript.value.value)
        return bool(values) and all(is_fresh(value) for value in values)

    def _appends_to(self, name: str) -> list[cst.Call]:
        """The statements `name.append(value)` of its own body."""
        found = []
        for statement in _own_statements(self.function):
            call = statement.value if isinstance(statement, cst.Expr) else None
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "append"
                and isinstance(call.func.value, cst.Name)
                and call.func.value.value == name
                and len(call.args) == 1
                and call.args[0].keyword is None
                and not call.args[0].star
            ):
                found.append(call)
        return found

    @cached_property
    def result_arguments(self) -> Optional[tuple[CallSite, ...]]:
        """The calls its result is handed to (each with the function it is written in), when that is all that happens to it: the function is
        only called in this file (never handed over as a value, and no other file mentions it),
        each call is the one argument of a call or the whole value of `name = f(...)`, and each
        read of `name` in the calling scope is the one argument of a call (`action = select_action(s)`
        ... `env.step(action)`). None when the result may reach anything else."""
        sites = self._owner.only_calls(self.function)
        if not sites or self._owner.scope_uses is None:
            return None
        found: list[CallSite] = []
        for site in sites:
            uses = self._owner.scope_uses.of(site.scope if site.scope is not None else self._owner.module)
            receivers = _receivers_of(site.call, uses)
            if receivers is None:
                return None
            found.extend(CallSite(receiver, site.scope, site.without_grad) for receiver in receivers)
        return tuple(found)

    @cached_property
    def returns_grad(self) -> bool:
        """Some `return` gives a value that carries autograd history when the function runs with grad on."""
        return any(self._owner.carries_grad(value, self.function) for value in self.returns)

    @cached_property
    def returns_number(self) -> bool:
        """Every `return` gives a Python number (`.item()`, `float(...)`, a sum of `.item()`s, a
        total of such numbers), so its callers never receive a tensor from it."""
        return self._owner.all_returns(self, "numbers")

    @cached_property
    def returns_no_tensor(self) -> bool:
        """Every `return` gives a Python number or another array library's value (`np.mean(losses)`),
        so its callers never receive a tensor from it."""
        return self._owner.all_returns(self, "no tensor")

    @cached_property
    def returns_graphless(self) -> bool:
        """Every value it returns was computed with autograd off (a no-grad decorator, or a no-grad
        block around the `return` or around every assignment of the returned name), so none has a graph."""
        if not self.returns:
            return False
        if not self.decorated_without_grad:
            return all(self._owner.computed_in_no_grad_block(value, self.function) for value in self.returns)
        return all(self._owner.computed_without_grad(value, self.function) for value in self.returns)

    @cached_property
    def parameters_to_return(self) -> frozenset[str]:
        """Its parameters whose values may flow into what it returns (through local assignments)."""
        bindings = self._owner.scopes.of(self.function)
        reaching: set[str] = set()
        pending = [name for value in self.returns for name in _names_in(value)]
        while pending:
            name = pending.pop()
            if name in reaching:
                continue
            reaching.add(name)
            for value in bindings.assigned(name):
                pending.extend(_names_in(value))
        return frozenset(reaching & set(parameter_names(self.function.params)))

    @cached_property
    def _events(self):
        return self._owner.training.events_of(self.function) if self._owner.training is not None else []

    @property
    def resets_grad(self) -> bool:
        return self._has_event("reset")

    @property
    def calls_backward(self) -> bool:
        return self._has_event("backward")

    @property
    def steps_optimizer(self) -> bool:
        return self._has_event("step")

    def _has_event(self, kind: str) -> bool:
        return any(event.kind.value == kind for event in self._events)

    @property
    def backward_sites(self) -> tuple["BackwardSite", ...]:
        """The backward passes its result reaches: `f(x).backward()`, or `l = f(x)` ... `l.backward()`."""
        return self._owner.backward_sites_by_callee.get(self.name, ())

    @property
    def result_reaches_backward(self) -> bool:
        return bool(self.backward_sites)


class FunctionSummaries:
    """Summaries of every function of a file, built lazily and shared by the rules."""

    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        scopes: ScopeTable,
        table: FunctionTable,
        grads: Optional["GradEvidence"] = None,
        training: Optional["TrainingAnalysis"] = None,
        scope_uses: Optional[ScopeUsesTable] = None,
        only_calls: Optional[Callable[[cst.FunctionDef], Sequence[CallSite]]] = None,
    ) -> None:
        self.module = module
        self.imports = imports
        self.scopes = scopes
        self.table = table
        self.grads = grads
        self.training = training
        self.scope_uses = scope_uses
        # The calls of a module-level function when they are every mention of it (see `TensorEvidence.only_calls`).
        self._only_calls = only_calls
        self._summaries: dict[int, FunctionSummary] = {}
        self._returning: set[int] = set()  # functions whose `returns_grad` is being computed (recursion)
        # Per question, the functions whose `returns_number` or `returns_no_tensor` is being computed (recursion).
        self._judging: dict[str, set[int]] = {"numbers": set(), "no tensor": set()}

    def of(self, function: cst.FunctionDef) -> FunctionSummary:
        found = self._summaries.get(id(function))
        if found is None:
            found = self._summaries[id(function)] = FunctionSummary(function, self)
        return found

    def of_call(self, call: cst.Call, scope: Optional[cst.CSTNode]) -> Optional[FunctionSummary]:
        """The summary of the function `call` runs, when it is defined in this file and evident."""
        function = self.table.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
        return None if function is None else self.of(function)

    def named(self, name: str) -> list[FunctionSummary]:
        """Summaries of every function of the file called `name` (functions, methods, nested defs)."""
        return [self.of(function) for function in self.table.all if function.name.value == name]

    # -- facts used by the summaries --------------------------------------------------------

    def only_calls(self, function: cst.FunctionDef) -> Sequence[CallSite]:
        return self._only_calls(function) if self._only_calls is not None else ()

    def all_returns(self, summary: FunctionSummary, question: str) -> bool:
        """`summary.returns_number` ("numbers") or `summary.returns_no_tensor` ("no tensor"): a plain
        function (not a coroutine, a generator, nor wrapped by a decorator that may change its
        result) whose returns the tensor evidence calls numbers (or values that are no tensor),
        each read where it is returned (`loss = loss.item()` then `return loss`)."""
        function = summary.function
        judging = self._judging[question]
        if self.grads is None or not summary.returns or id(function) in judging or function.asynchronous is not None:
            return False  # in a recursion: unknown
        plain = ("staticmethod", "classmethod")
        if not all(
            (isinstance(d.decorator, cst.Name) and d.decorator.value in plain) or disables_grad(d.decorator, self.imports)
            for d in function.decorators
        ):
            return False
        tensors = self.grads.tensors
        judge = tensors.is_python_number if question == "numbers" else tensors.is_not_tensor
        judging.add(id(function))
        try:
            found = all(judge(tensors.reaching_value(value, function), function) for value in summary.returns)
        finally:
            judging.discard(id(function))
        return found and not any(isinstance(node, cst.Yield) for node in descendants(function.body))

    def carries_grad(self, value: cst.BaseExpression, function: cst.FunctionDef) -> bool:
        if isinstance(value, cst.Call):
            callee = self.of_call(value, function)
            if callee is not None and id(callee.function) not in self._returning:
                self._returning.add(id(callee.function))
                try:
                    if callee.returns_grad:
                        return True
                finally:
                    self._returning.discard(id(callee.function))
        return self.grads is not None and self.grads.carries_grad(value, function)

    def computed_without_grad(self, value: cst.BaseExpression, function: cst.FunctionDef) -> bool:
        """`value`, returned by a no-grad function, was computed there (not a parameter or attribute
        passed through, not inside `torch.enable_grad()`)."""
        if isinstance(value, (cst.Call, cst.BinaryOperation, cst.UnaryOperation)):
            return not self._may_enable_grad_inside(value, function)
        if not isinstance(value, cst.Name):
            return False
        bindings = self.scopes.of(function)
        values = bindings.assigned(value.value)
        if not values or value.value in bindings.opaque:
            return False
        return all(
            isinstance(v, (cst.Call, cst.BinaryOperation, cst.UnaryOperation))
            and grad_mode_of(bindings.withs_around(v), self.imports) is not True
            and not self._may_enable_grad_inside(v, function)
            for v in values
        )

    def computed_in_no_grad_block(self, value: cst.BaseExpression, function: cst.FunctionDef) -> bool:
        """`value`, returned by `function`, is computed inside `with torch.no_grad():` there."""
        bindings = self.scopes.of(function)
        if not isinstance(value, cst.Name):
            return grad_mode_of(bindings.withs_around(value), self.imports) is False and self._computed_here(value, function)
        if value.value in bindings.opaque:
            return False
        values = bindings.assigned(value.value)
        return bool(values) and all(
            grad_mode_of(bindings.withs_around(v), self.imports) is False and self._computed_here(v, function) for v in values
        )

    def _computed_here(self, value: cst.BaseExpression, function: cst.FunctionDef) -> bool:
        return isinstance(value, (cst.Call, cst.BinaryOperation, cst.UnaryOperation)) and not self._may_enable_grad_inside(value, function)

    def _may_enable_grad_inside(self, value: cst.BaseExpression, function: cst.FunctionDef) -> bool:
        """A call in `value` runs a local function that turns autograd back on."""
        for node in descendants(value):
            if isinstance(node, cst.Call):
                callee = self.table.resolve(node, function)
                if callee is not None and any(may_enable_grad(d.decorator, self.imports) for d in callee.decorators):
                    return True
        return False

    @cached_property
    def call_sites(self) -> dict[int, list[CallSite]]:
        """id(function) -> its resolved calls in the file, with the grad mode each runs in."""
        return call_sites(self.module, self.table, self.imports)

    @cached_property
    def backward_sites_by_callee(self) -> dict[str, tuple["BackwardSite", ...]]:
        """Function name -> the backward passes (the training analysis's sites) that backpropagate
        its result.

        `f(x).backward()`, `(f(x) + g).backward()`, `scaler.scale(f(x)).backward()`,
        `accelerator.backward(f(x))`, or `l = f(x)` then `l.backward()` in the same function (an
        attribute, `self.l = f(x)`, anywhere in the file). Matched by the called name:
        `trainer.loss(x)` on a receiver whose class is unknown still names the method `loss`. A
        caller's local `loss = train(...)` says nothing of a `loss.backward()` inside `train`.
        """
        if self.training is None:
            return {}
        # (scope, key) -> the names called in the values assigned to it: names, not calls, so that
        # a file assigning `loss = ...` in every function does not hand each backward all of those
        # calls. An attribute's scope is the file (None).
        sources: dict[tuple[Optional[int], str], set[Optional[str]]] = {}
        for statement in iter_statements(self.module.body):
            if isinstance(statement, cst.Assign):
                names = {_called_name(call) for call in _calls_in(statement.value)}
                for target in statement.targets:
                    for key in mentioned_keys(target.target):
                        sources.setdefault(self._key_in_scope(statement, key), set()).update(names)
        found: dict[str, list["BackwardSite"]] = {}
        for site in self.training.file_backward_sites:
            if site.tensor is None:
                continue
            feeding = {_called_name(call) for call in _calls_in(site.tensor)}
            for key in mentioned_keys(site.tensor):
                feeding |= sources.get(self._key_in_scope(site.call, key), set())
            for name in feeding - {None}:
                found.setdefault(name, []).append(site)
        return {name: tuple(sites) for name, sites in found.items()}

    def _key_in_scope(self, node: cst.CSTNode, key: str) -> tuple[Optional[int], str]:
        """`key` as read or bound at `node`: a plain name belongs to the function around `node` (or
        the module), an attribute chain (`self.loss`) to the whole file."""
        if "." in key or self.scope_uses is None:
            return None, key
        function = self.scope_uses.nodes.enclosing_function(node)
        return id(function if function is not None else self.module), key


def _receivers_of(call: cst.Call, uses: ScopeUses) -> Optional[list[cst.Call]]:
    """The calls `call`'s result is the one argument of, directly or through the name it is
    assigned to (every read of which must be such an argument); None for any other use."""
    parent = uses.parent(call)
    receiver = _one_argument_of(parent, uses)
    if receiver is not None:
        return [receiver]
    if not (isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name)):
        return None
    found = []
    for occurrence in uses.occurrences(parent.targets[0].target.value):
        holder = uses.parent(occurrence)
        if isinstance(holder, cst.AssignTarget):
            continue  # a binding; any value it binds is read only where the reads below allow
        receiver = _one_argument_of(holder, uses)
        if receiver is None:
            return None
        found.append(receiver)
    return found


def _one_argument_of(holder: Optional[cst.CSTNode], uses: ScopeUses) -> Optional[cst.Call]:
    """The call whose one positional argument is the `Arg` `holder`."""
    if not isinstance(holder, cst.Arg) or holder.keyword is not None or holder.star:
        return None
    call = uses.parent(holder)
    return call if isinstance(call, cst.Call) and len(call.args) == 1 else None


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    return [current for current in descendants(node) if isinstance(current, cst.Call)]


def _called_name(call: cst.Call) -> Optional[str]:
    """`f` for `f(x)`, `g` for `self.g(x)` or `obj.g(x)`."""
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _own_statements(function: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The statements (and small statements) of a function body, nested defs and classes excluded."""
    pending = list(reversed(suite_statements(function.body)))
    while pending:
        statement = pending.pop()
        yield statement
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif not isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            pending.extend(reversed(child_statements(statement)))


def _names_in(node: cst.CSTNode) -> set[str]:
    return {current.value for current in descendants(node) if isinstance(current, cst.Name)}
