"""The legacy tensor type classes called as constructors (`torch.FloatTensor([1, 2])`,
`torch.LongTensor(n)`, `torch.Tensor(out, in)`) and what their arguments evidently are.

Measured under torch 2.13: a legacy constructor reads two or more positional arguments as sizes,
a single int (or `torch.Size`, NumPy integer) as a size, and a single sequence as data; a single
tensor is returned itself (aliased) when its type matches and raises otherwise, and a NumPy
array of the type's dtype is shared, not copied (a float64 array is copied by `torch.Tensor`). The legacy classes always build on the CPU, whatever
`torch.set_default_device` says, while `torch.empty` / `torch.tensor` follow the default device.
"""

from __future__ import annotations

from enum import Enum
from typing import Callable, Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.legacy_types import LegacyTensorType, legacy_tensor_type
from gradlint.analysis.scopes import Bindings, Scope, ScopeTable
from gradlint.analysis.semantic.arguments import Signature, bind
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable
from gradlint.analysis.summaries import FunctionSummaries
from gradlint.analysis.tree import descendants

# `torch.Tensor(...)`: the legacy constructor of the default dtype.
DEFAULT_TYPE = "torch.Tensor"
# Calls that change the default device, after which the legacy classes (CPU) and the modern
# factories (default device) build on different devices.
DEFAULT_DEVICE_SETTERS = frozenset({"torch.set_default_device", "torch.set_default_tensor_type"})
# Calls after which `torch.Tensor(...)` may make float64 tensors, which share a float64 array's memory.
DEFAULT_DTYPE_SETTERS = frozenset({"torch.set_default_dtype", "torch.set_default_tensor_type"})
# Builtins and tensor methods whose result is an int.
_INT_BUILTINS = frozenset({"len", "int"})
_INT_METHODS = torch_api.methods("count")
_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
_LITERAL_OPERATORS = (*_INT_OPERATORS, cst.Divide, cst.Power)
# Tensor methods whose result stays on the device of the tensor they are called on.
DEVICE_KEEPING_METHODS = (
    (torch_api.methods("view") | torch_api.methods("same-layout") | torch_api.methods("self"))
    - torch_api.methods("moves")
    - torch_api.methods("device-argument")
)
# torch factories whose result lives on the default device unless `device=` says otherwise.
CPU_FACTORIES = torch_api.functions("default-device")
# NumPy functions making float64 arrays (NumPy's default dtype on every platform, measured with
# NumPy 2.4): function -> position of its shape argument, the dtype being the keyword or the next
# position; function -> (position, keyword) of its size, without which it gives a float; functions
# whose positional arguments are the dimensions (none: a float).
_NUMPY_SHAPED = {"numpy.zeros": 0, "numpy.ones": 0, "numpy.empty": 0}
_NUMPY_SIZED = {"numpy.random.normal": (2, "size"), "numpy.random.uniform": (2, "size"), "numpy.random.standard_normal": (0, "size")}
_NUMPY_DIMENSIONED = frozenset({"numpy.random.rand", "numpy.random.randn"})
# `np.random.randint(low, high, size)`: an int64 array when given a size (NumPy's default int,
# measured with NumPy 2.4), a NumPy int without one.
_NUMPY_INT_SIZED = {"numpy.random.randint": (2, "size")}


class Evidence(Enum):
    EXACT = "exact"  # the argument is certainly this kind of value
    LIKELY = "likely"  # it is on every path gradlint sees, but a caller or an element could differ


def constructor_type(qualified: Optional[str]) -> Optional[tuple[Optional[LegacyTensorType], str]]:
    """(the legacy type or None for `torch.Tensor`, the qualified name) of a legacy constructor."""
    if qualified == DEFAULT_TYPE:
        return None, qualified
    legacy = legacy_tensor_type(qualified)
    return (legacy, qualified) if legacy is not None else None


def changes_default_device(module: cst.Module, imports: ImportMap) -> bool:
    """The file sets a default device (`torch.set_default_device`, `set_default_tensor_type`,
    `with torch.device(...)`): there the legacy classes and the modern factories part ways."""
    for node in descendants(module):
        kind = type(node)  # exact types (neither has subclasses): isinstance on LibCST's ABCs is slow
        if kind is cst.Call and imports.qualified_name(node.func) in DEFAULT_DEVICE_SETTERS:
            if not _cpu_default_type(node, imports):
                return True
        if kind is cst.WithItem and type(node.item) is cst.Call and imports.qualified_name(node.item.func) == "torch.device":
            return True
    return False


def changes_default_dtype(module: cst.Module, imports: ImportMap) -> bool:
    """The file calls `torch.set_default_dtype` or `torch.set_default_tensor_type`."""
    return any(type(node) is cst.Call and imports.qualified_name(node.func) in DEFAULT_DTYPE_SETTERS for node in descendants(module))


def _cpu_default_type(call: cst.Call, imports: ImportMap) -> bool:
    """`torch.set_default_tensor_type(torch.DoubleTensor)`: a CPU type leaves the default device
    alone (measured)."""
    if imports.qualified_name(call.func) != "torch.set_default_tensor_type" or len(call.args) != 1:
        return False
    value = call.args[0].value
    text = value.evaluated_value if isinstance(value, cst.SimpleString) else imports.qualified_name(value)
    legacy = legacy_tensor_type(text if isinstance(text, str) else None)
    return legacy is not None and not legacy.cuda


def literal_leaves(node: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The number and bool literals of a (nested) list or tuple display, None when any element is
    something else."""
    if isinstance(node, (cst.List, cst.Tuple)):
        leaves: list[cst.BaseExpression] = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None
            inner = literal_leaves(element.value)
            if inner is None:
                return None
            leaves.extend(inner)
        return leaves
    if _is_number_literal(node):
        return [node]
    return None


def _is_number_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _LITERAL_OPERATORS):
        return _is_number_literal(node.left) and _is_number_literal(node.right)
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)) and _is_number_literal(node.expression)


def is_float_literal(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, cst.Float)


class ArgumentEvidence:
    """Whether the single argument of a legacy constructor is evidently a size or data."""

    def __init__(
        self,
        imports: ImportMap,
        scopes: ScopeTable,
        module: cst.Module,
        is_python_int: Callable[[cst.BaseExpression, Scope], bool],
        uses: Optional[ScopeUsesTable] = None,
        summaries: Optional[FunctionSummaries] = None,
    ) -> None:
        self.imports = imports
        self.scopes = scopes
        self.module = module
        self.is_python_int = is_python_int  # the value model's answer (`opt.batchSize` declared `type=int`)
        self.uses = uses
        self.summaries = summaries  # their `only_calls`: every call of a function, when those are all the ways it runs

    def size(self, node: cst.BaseExpression, scope: Scope, depth: int = 0) -> Optional[Evidence]:
        """An int: a literal, `len(...)`, `x.size(i)`, `x.shape[i]`, int arithmetic, a value the value
        model knows to be a Python int (a command-line option declared `type=int`), or a name bound
        only to those (EXACT); a parameter that defaults to an int or that the function passes
        to `range()` or among the sizes of a constructor (LIKELY: a caller may pass a sequence)."""
        if depth > 6:
            return None
        if isinstance(node, cst.Integer):
            return Evidence.EXACT
        if isinstance(node, cst.Call):
            return Evidence.EXACT if self._int_call(node) else None
        if isinstance(node, cst.Subscript):
            return Evidence.EXACT if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape" else None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _INT_OPERATORS):
            return _weakest(self.size(node.left, scope, depth + 1), self.size(node.right, scope, depth + 1))
        if isinstance(node, cst.Name):
            return self._name_size(node.value, scope, depth)
        if isinstance(node, cst.Attribute) and self.is_python_int(node, scope):
            return Evidence.EXACT
        return None

    def data(self, node: cst.BaseExpression, scope: Scope, reaches: Callable[[cst.BaseExpression], bool]) -> Optional[Evidence]:
        """A sequence: a list or tuple display, a list comprehension, such a display repeated by an
        int (`[c] * x.size(0)`), or a name every binding of which that can reach the call is one
        (`reaches(value)` tells them). Whatever its elements, both constructors hand a list to the
        same conversion of torch (EXACT)."""
        if isinstance(node, (cst.List, cst.Tuple, cst.ListComp)):
            return Evidence.EXACT
        repeated = _repeated_display(node)
        if repeated is not None:
            # `[c] * n`: the display's elements, n times (a list whatever n is, when n is an int)
            display, times = repeated
            count = self.size(times, scope)
            return _weakest(self.data(display, scope, reaches), count) if count is not None else None
        if isinstance(node, cst.Name):
            plain = self._plain_values(node.value, scope)
            if plain is None:
                return None
            values = [value for value in plain if reaches(value)]
            if values and all(isinstance(value, (cst.List, cst.Tuple, cst.ListComp)) for value in values):
                return Evidence.EXACT
        return None

    def float64_array(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """A float64 NumPy array: a call that makes one (`makes_float64_array`), or a name every
        binding of which is one (item assignments and in-place arithmetic keep an array's dtype)."""
        if isinstance(node, cst.Call):
            return makes_float64_array(node, self.imports)
        values = self._plain_values(node.value, scope) if isinstance(node, cst.Name) else None
        return bool(values) and all(isinstance(value, cst.Call) and makes_float64_array(value, self.imports) for value in values)

    def unshared_array(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """A NumPy array no other name sees, whose memory a legacy constructor may share without
        anyone seeing it: a call that makes a new one (`np.random.randint(10, size=n)`), or the name
        `idx` read once from `z, idx = self.sample(n)`, the binding that reaches the read, where
        `sample` (every call of which is known) returns such an array it keeps no reference to."""
        if isinstance(node, cst.Call):
            return self.fresh_array(node, scope)
        if not isinstance(node, cst.Name) or not isinstance(scope, cst.FunctionDef) or self.uses is None:
            return False
        uses = self.uses.of(scope)
        found = _unpacking(uses.reaching_binding(node), node.value)
        if found is None or not self._only_read(node, found[0], uses) or not self._not_declared(node.value, scope):
            return False
        statement, position = found
        return self._returns_unshared_array(statement.value, position, scope)

    def fresh_array(self, call: cst.Call, scope: Scope) -> bool:
        """A call that returns a new NumPy array whenever it returns: a float64 one
        (`makes_float64_array`), or `np.random.randint(..., size=n)` with `n` evidently an int."""
        if makes_float64_array(call, self.imports):
            return True
        qualified = self.imports.qualified_name(call.func)
        if qualified not in _NUMPY_INT_SIZED or any(arg.star for arg in call.args):
            return False
        position, keyword = _NUMPY_INT_SIZED[qualified]
        positional = [arg.value for arg in call.args if arg.keyword is None]
        keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
        if set(keywords) - {"high", keyword} or len(positional) > position + 1:
            return False  # `dtype=` makes another type
        size = positional[position] if len(positional) > position else keywords.get(keyword)
        return size is not None and self._exact_size(size, scope)

    def _exact_size(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """An int: EXACT size evidence, or a parameter of a function every known call of which
        passes one (`bs` in `def sample(self, bs)`, called only as `self.sample(x.size(0))`)."""
        if self.size(node, scope) is Evidence.EXACT:
            return True
        if not isinstance(node, cst.Name) or not _is_parameter(node.value, scope) or self.summaries is None:
            return False
        bindings = self.scopes.of(scope)
        if bindings.assigned(node.value) or node.value in bindings.unpacked or node.value in bindings.loop_sources:
            return False
        sites = self.summaries.only_calls(scope)
        signature = Signature.of(scope)
        for site in sites:
            receiver = site.call.func.value if isinstance(site.call.func, cst.Attribute) else None
            bound = bind(site.call, signature, receiver=receiver)
            passed = bound.passed(node.value) if not bound.starred and bound.fits else None
            if passed is None or self.size(passed, site.scope or self.module) is not Evidence.EXACT:
                return False
        return bool(sites)

    def _only_read(self, node: cst.Name, statement: cst.Assign, uses: ScopeUses) -> bool:
        """`node` is the only read of its name that sees the binding `statement` (every read of the
        name must see a known binding: a closure or a loop could see this one)."""
        for occurrence in uses.occurrences(node.value):
            if occurrence is node or _bound_by(occurrence, uses):
                continue
            binding = uses.reaching_binding(occurrence)
            if binding is None or _unwrapped(binding) is statement:
                return False
        return True

    def _not_declared(self, name: str, function: cst.FunctionDef) -> bool:
        """No `global name` / `nonlocal name` in the function (the array would be a shared variable)."""
        return not any(
            isinstance(found, (cst.Global, cst.Nonlocal)) and any(item.name.value == name for item in found.names)
            for found in descendants(function.body)
        )

    def _returns_unshared_array(self, value: cst.BaseExpression, position: int, scope: cst.FunctionDef) -> bool:
        """`value` calls a function of the file, every call of which is known (so no override runs
        instead), that returns at `position` a fresh array it keeps no reference to."""
        if not isinstance(value, cst.Call) or self.summaries is None:
            return False
        summary = self.summaries.of_call(value, scope)
        if summary is None or not any(site.call is value for site in self.summaries.only_calls(summary.function)):
            return False
        method = summary.function
        is_fresh = lambda bound: isinstance(bound, cst.Call) and self.fresh_array(bound, method)  # noqa: E731
        return summary.unshared_returned_value(position, is_fresh) is not None

    def _plain_values(self, name: str, scope: Scope) -> Optional[list[cst.BaseExpression]]:
        """The values assigned to `name` seen from `scope`, when assignments are its only bindings."""
        found = self._bindings_of(name, scope)
        return found[0].plain_values(name) if found is not None else None

    def _int_call(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Name):
            return func.value in _INT_BUILTINS and func.value not in self.imports.bindings and len(call.args) == 1
        if isinstance(func, cst.Attribute) and func.attr.value in _INT_METHODS:
            # `x.size(0)` is an int, `x.size()` a torch.Size (also a size, but not one int)
            return func.attr.value != "size" or len(call.args) == 1
        return False

    def _bindings_of(self, name: str, scope: Scope) -> Optional[tuple[Bindings, Scope]]:
        """The bindings of the scope that binds `name` (the function, else the module)."""
        for candidate in dict.fromkeys((scope, self.module)):
            bindings = self.scopes.of(candidate)
            if any(name in table for table in (bindings.values, bindings.opaque, bindings.unpacked, bindings.loop_sources)):
                return bindings, candidate
        return None

    def _name_size(self, name: str, scope: Scope, depth: int) -> Optional[Evidence]:
        found = self._bindings_of(name, scope)
        if found is None:
            return None
        bindings, owner = found
        values = bindings.assigned(name)
        if name in bindings.unpacked or name in bindings.loop_sources:
            return None
        if name in bindings.opaque:
            return self._parameter_size(name, owner) if not values and _is_parameter(name, owner) else None
        return _weakest(*(self.size(value, owner, depth + 1) for value in values))

    def _parameter_size(self, name: str, function: cst.FunctionDef) -> Optional[Evidence]:
        for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
            if param.name.value == name and param.default is not None:
                if self.size(param.default, self.module, 1) is not None:
                    return Evidence.LIKELY
        for node in descendants(function.body):
            if isinstance(node, cst.Call) and self._sizes_of(node, name):
                return Evidence.LIKELY
        return None

    def _sizes_of(self, call: cst.Call, name: str) -> bool:
        """`range(name)` (the builtin) or `torch.FloatTensor(name, ...)` among several sizes."""
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        named = any(isinstance(value, cst.Name) and value.value == name for value in positional)
        if not named:
            return False
        if isinstance(call.func, cst.Name) and call.func.value == "range" and "range" not in self.imports.bindings:
            return True
        return len(positional) > 1 and constructor_type(self.imports.qualified_name(call.func)) is not None


def makes_float64_array(call: cst.Call, imports: ImportMap) -> bool:
    """`np.zeros((n, 10))`, `np.random.normal(mu, sigma, (1, n))`, `np.random.rand(n)`: a call that
    returns a new float64 `ndarray` whenever it returns."""
    if any(arg.star for arg in call.args):
        return False
    qualified = imports.qualified_name(call.func)
    positional = [arg for arg in call.args if arg.keyword is None]
    keywords = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    if qualified in _NUMPY_SHAPED:
        return len(positional) == 1 and not keywords - {"order"}
    if qualified in _NUMPY_SIZED:
        position, keyword = _NUMPY_SIZED[qualified]
        return len(positional) > position or keyword in keywords
    return qualified in _NUMPY_DIMENSIONED and bool(positional) and not keywords


def _unwrapped(statement: cst.CSTNode) -> cst.CSTNode:
    """The one small statement of a line, or the statement itself."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return statement.body[0]
    return statement


def _unpacking(statement: Optional[cst.CSTNode], name: str) -> Optional[tuple[cst.Assign, int]]:
    """(the assignment, the position of `name`) of `a, name = value`, a tuple of names without stars
    naming `name` once."""
    assign = _unwrapped(statement) if statement is not None else None
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Tuple):
        return None
    elements = assign.targets[0].target.elements
    if not all(isinstance(element, cst.Element) and isinstance(element.value, cst.Name) for element in elements):
        return None
    names = [element.value.value for element in elements]
    return (assign, names.index(name)) if names.count(name) == 1 else None


def _bound_by(occurrence: cst.Name, uses: ScopeUses) -> bool:
    """`occurrence` is only written: a name among an assignment's targets or a `for` target."""
    child, parent = occurrence, uses.parent(occurrence)
    while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
        child, parent = parent, uses.parent(parent)
    return isinstance(parent, cst.AssignTarget) or (isinstance(parent, cst.For) and parent.target is child)


def _repeated_display(node: cst.BaseExpression) -> Optional[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(the list display, the count) of `[c] * n` or `n * [c]`."""
    if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Multiply):
        return None
    if isinstance(node.left, cst.List):
        return node.left, node.right
    return (node.right, node.left) if isinstance(node.right, cst.List) else None


def _is_parameter(name: str, scope: Scope) -> bool:
    if not isinstance(scope, cst.FunctionDef):
        return False
    params = scope.params
    return any(param.name.value == name for param in (*params.posonly_params, *params.params, *params.kwonly_params))


def _weakest(*found: Optional[Evidence]) -> Optional[Evidence]:
    if not found or None in found:
        return None
    return Evidence.LIKELY if Evidence.LIKELY in found else Evidence.EXACT


def is_in_loop(stack: Sequence[cst.CSTNode], scope: Scope) -> bool:
    """A `for` or `while` between the scope and the node (its earlier iterations reach it)."""
    inside = False
    for node in stack:
        if node is scope:
            inside = True
        elif inside and isinstance(node, (cst.For, cst.While)):
            return True
    return False


def factory_without_device(node: cst.BaseExpression, imports: ImportMap) -> bool:
    """`torch.randn(2, 3)`: a torch factory call that names no device (default device, the CPU
    unless the file changes it), also behind methods that keep the device (`.view(2, 3)`)."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in DEVICE_KEEPING_METHODS:
        node = node.func.value
    if not isinstance(node, cst.Call) or imports.qualified_name(node.func) not in CPU_FACTORIES:
        return False
    return not any(arg.star or (arg.keyword is not None and arg.keyword.value == "device") for arg in node.args)
