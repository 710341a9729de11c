"""The shape of a tensor expression, where the code states it: a factory called with its sizes
(`torch.randn(4, 3)`), a nested list literal (`torch.tensor([[1.0, 2.0]])`), a view or reshape to
literal sizes (`x.view(-1, 1)`), `unsqueeze` of a known shape, what keeps its operand's shape
(`x.float()`, `x.detach()`, `x.data`, `Variable(x)`, `x.mul(2)`, `2 * x + 1`, broadcasting two
known shapes, `F.relu(x)`, `F.dropout(x)`), the output of a module built as `nn.Linear(k, n)` (or an
`nn.Sequential` of such layers and shape-keeping ones) called on a known shape, a name every binding
of which, in the same function, is such an expression, or a name whose read sees one such
assignment (`x = x.view(-1, 320)` then `x = self.fc(x)`), `torch.cat` of a known shape along a
literal dim, `x.t()`, a tensor made from a NumPy draw of a literal size
(`torch.Tensor(np.random.normal(mu, sigma, (1, n)))`), and a call of a lambda or a plain function of
the file (`preprocess(x)` with `preprocess = lambda data: decorate(data, 2.0)`): what its body
returns for the shapes of the arguments. A size the code does not spell as an integer literal is None;
the rank (the length of the shape) is still known."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Optional, Sequence, Union

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.syntax import suite_statements
from gradlint.analysis.tree import descendants, iter_children

Shape = tuple[Optional[int], ...]

# Factories whose positional arguments are the sizes: `f(2, 3)` or `f((2, 3))`.
_SIZED_FACTORIES = torch_api.functions("sized")
_DATA_FACTORIES = torch_api.functions("list", without=("legacy",))
# `torch.FloatTensor([0, 1])` takes data, `torch.FloatTensor(2)` a size: only a list literal is data.
_LEGACY_DATA_FACTORIES = torch_api.functions("list", "legacy")
_RESHAPING_IN_PLACE = torch_api.methods("reshapes")
_VIEWS_TO_SIZES = frozenset({"view", "reshape"}) & torch_api.methods("view")
_UNSQUEEZE = "unsqueeze"
_TRANSPOSE = "t"
_TYPE_NAME = "type"
_RESIZE = "resize_"
_TORCH_MODULES = "torch.nn."
_SIZE = "size"
_SHAPE = "shape"
_LENGTH = "len"
_SELF = "self"
# Methods whose result has the receiver's shape; the elementwise ones only with number arguments.
_SHAPE_KEEPING = torch_api.methods("same-layout") | torch_api.methods("converts", without=("view",))
_ELEMENTWISE = torch_api.methods("elementwise")
_DROPS_DIM = torch_api.methods("drops-dim")
_VARIABLE = torch_api.functions("variable")
_SHAPE_KEEPING_LAYERS = torch_api.functions("keeps-shape")
# Functions whose result has their first argument's shape: value by value (`torch.sigmoid(x)`,
# `F.relu(x)`), or a dropout.
_SHAPE_KEEPING_FUNCTIONS = torch_api.functions("keeps-strides") | torch_api.functions("dropout")
_CONTAINERS = torch_api.functions("module-container")
_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
_MAX_DEPTH = 7  # bindings followed: `out = D(G(z))` with `z = Variable(torch.randn(n, k)).cuda()`

_MAX_CLASS_NESTING = 2
# Calls of the file's own functions followed, one inside another: `preprocess(x)` with
# `preprocess = lambda data: decorate_with_diffs(data, 2.0)`.
_MAX_CALL_NESTING = 3
_CONCATENATE = "torch.cat"
# NumPy's random draws whose `size` fixes the array's shape whatever their other arguments
# (numpy raises when those do not broadcast to it): the position of `size`.
_NUMPY_SIZE_POSITIONS = (("numpy.random.normal", 2), ("numpy.random.uniform", 2))

# A lambda or a plain `def` of the file, and the scope the names of its body are read in.
Callee = tuple[Union[cst.Lambda, cst.FunctionDef], Scope]


@dataclass(frozen=True)
class ModuleFacts:
    """What the caller knows of the file's modules: the constructor calls of the modules a callee
    is bound to (`nn.Linear(4, 1)` for `fc` in `fc(x)`; empty when not every binding builds one),
    the `forward` of the file's module class a constructor call builds, and whether an expression
    is a module (`self.reshape(x, 2)` is a method of the module, not a tensor's `reshape`)."""

    constructions: Callable[[cst.BaseExpression, Optional[Scope]], Sequence[cst.Call]]
    forward: Callable[[cst.Call], Optional[cst.FunctionDef]]
    is_module: Callable[[cst.BaseExpression, Optional[Scope]], bool]
    # The file's module class a constructor call builds: its `__init__`, and the integers the call
    # gives its parameters (a literal, or a module-level name bound only to one).
    sizes: Callable[[cst.Call], Optional[tuple[cst.FunctionDef, Mapping[str, int]]]] = lambda construction: None
    # The output shape of a module another file of the run passes to the constructor and the
    # class keeps on `self` (`self.D(x)`), when its `forward` gives one whatever its input.
    passed_output: Callable[[cst.BaseExpression, Optional[Scope]], Optional[Shape]] = lambda node, scope: None
    # The lambda or module-level function of the file a call of this callee runs, when every
    # binding of the name is the same one (`preprocess = lambda data: ...`, or the lambda a
    # function returns: `d_sampler = get_distribution_sampler(mu, sigma)`).
    called: Callable[[cst.BaseExpression, Optional[Scope]], Optional[Callee]] = lambda func, scope: None


# The `name = value` statement a read of `name` sees in its function, or None (`ScopeUses.reaching_assignment`).
ReachingAssignment = Callable[[cst.Name, Scope], Optional[cst.Assign]]


def static_rank(node: cst.BaseExpression, imports: ImportMap, scopes: ScopeTable, scope: Optional[Scope]) -> Optional[int]:
    """The number of dimensions of `node`, or None when the code does not say it."""
    shape = static_shape(node, imports, scopes, scope)
    return None if shape is None else len(shape)


def static_shape(
    node: cst.BaseExpression,
    imports: ImportMap,
    scopes: ScopeTable,
    scope: Optional[Scope],
    modules: Optional[ModuleFacts] = None,
    reaching: Optional[ReachingAssignment] = None,
) -> Optional[Shape]:
    """The shape of the tensor `node` evaluates to, or None when the code does not say it.
    `modules` says which modules a callee is, for the shape of a module's output; `reaching`, which
    assignment a read sees, for a name bound more than once."""
    shapes = _Shapes(imports, scopes, modules)
    shapes.reaching = reaching
    return shapes.shape(node, scope, 0)


class _Shapes:
    def __init__(
        self,
        imports: ImportMap,
        scopes: ScopeTable,
        modules: Optional[ModuleFacts],
        names: Optional[dict[str, Optional[Shape]]] = None,
        nesting: int = 0,
        sizes: Optional[tuple[cst.FunctionDef, Mapping[str, int]]] = None,
    ) -> None:
        self.imports = imports
        self.scopes = scopes
        self.modules = modules
        # Inside a module class's `forward`, the shapes its names hold at the statement evaluated.
        self.names = names
        self.nesting = nesting
        # Inside a module class's `forward`: its `__init__` and the integers its parameters hold.
        self.sizes = sizes
        self.reaching: Optional[ReachingAssignment] = None

    def shape(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int) -> Optional[Shape]:
        if depth > _MAX_DEPTH:
            return None
        kind = type(node)
        if kind is cst.Call:
            stated = _call_shape(node, self.imports)
            return stated if stated is not None else self._derived_shape(node, scope, depth)
        if kind is cst.Name and self.names is not None:
            return self.names.get(node.value)
        if kind is cst.Name and scope is not None:
            if _reshaped_in_place(scope, node.value):
                return self._resized_shape(node, scope) if isinstance(scope, cst.FunctionDef) else None
            bound = self._bound_shape(node.value, scope, depth)
            return bound if bound is not None else self._reaching_shape(node, scope, depth)
        if kind is cst.BinaryOperation and isinstance(node.operator, _ARITHMETIC):
            return self._broadcast(node.left, node.right, scope, depth)
        if kind is cst.UnaryOperation and isinstance(node.operator, cst.Minus):
            return self.shape(node.expression, scope, depth + 1)
        if kind is cst.Attribute and node.attr.value == "data":
            return self.shape(node.value, scope, depth + 1)
        return None

    def _bound_shape(self, name: str, scope: Scope, depth: int) -> Optional[Shape]:
        values = self.scopes.of(scope).plain_values(name)
        if not values:
            return None
        shapes = {self.shape(value, scope, depth + 1) for value in values}
        return shapes.pop() if len(shapes) == 1 else None

    def _resized_shape(self, read: cst.Name, scope: cst.FunctionDef) -> Optional[Shape]:
        """`label.data.resize_(bs)` earlier in the block that holds the read (or a block around
        it, within the same loop iteration), nothing between touching `label` but its methods
        that keep its shape and the torch modules it is given to: one dimension per size."""
        name = read.value
        if any(type(value) is cst.Name and value.value == name for values in self.scopes.of(scope).values.values() for value in values):
            return None  # an alias may be resized elsewhere
        path = _statement_path(suite_statements(scope.body), read)
        if path is None or _reshapes(path[-1][0][path[-1][1]], name):
            return None
        for statements, index, loop_body in reversed(path):
            for statement in reversed(statements[:index]):
                sizes = self._resize_sizes(statement, name, scope)
                if sizes is not None:
                    return sizes
                if not self._leaves_shape(statement, name, scope):
                    return None
            if loop_body:
                return None  # the previous iteration's later statements come before
        return None

    def _resize_sizes(self, statement: cst.CSTNode, name: str, scope: cst.FunctionDef) -> Optional[Shape]:
        """The sizes of `name.resize_(a, b)` / `name.data.resize_(a, b)` written as `statement`,
        each a Python int (a literal, `x.size(0)`...)."""
        if type(statement) is not cst.SimpleStatementLine or len(statement.body) != 1 or type(statement.body[0]) is not cst.Expr:
            return None
        call = statement.body[0].value
        if type(call) is not cst.Call or type(call.func) is not cst.Attribute or call.func.attr.value != _RESIZE:
            return None
        receiver = call.func.value
        if type(receiver) is cst.Attribute and receiver.attr.value == "data":
            receiver = receiver.value
        if not _is_name(receiver, name) or not call.args or any(arg.star or arg.keyword is not None for arg in call.args):
            return None
        if not all(self._is_int(arg.value, scope, 0) for arg in call.args):
            return None
        return tuple(_integer(arg.value) for arg in call.args)

    def _leaves_shape(self, statement: cst.CSTNode, name: str, scope: cst.FunctionDef) -> bool:
        """`statement` mentions `name` only to call its methods that keep its shape (`label.data.fill_(1)`),
        to read its attributes, or to give it to a torch module (`criterion(out, label)`)."""
        pending: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = [(statement, ())]
        while pending:
            node, above = pending.pop()
            if _is_name(node, name) and not self._shape_kept_by(node, above, scope):
                return False
            pending.extend((child, (*above[-2:], node)) for child in iter_children(node))
        return True

    def _shape_kept_by(self, node: cst.Name, above: tuple[cst.CSTNode, ...], scope: cst.FunctionDef) -> bool:
        """What holds the mention `node` (its nearest ancestors last) keeps the tensor's shape."""
        parent = above[-1] if above else None
        if type(parent) is cst.Attribute and parent.value is node:
            if parent.attr.value in _RESHAPING_IN_PLACE:
                return False
            if parent.attr.value == "data":
                outer = above[-2] if len(above) > 1 else None
                return type(outer) is cst.Attribute and outer.attr.value not in _RESHAPING_IN_PLACE and outer.attr.value != "data"
            return True
        if type(parent) is cst.Arg and len(above) > 1 and type(above[-2]) is cst.Call and self.modules is not None:
            constructions = self.modules.constructions(above[-2].func, scope)
            return bool(constructions) and all(
                (self.imports.qualified_name(construction.func) or "").startswith(_TORCH_MODULES) for construction in constructions
            )
        return False

    def _reaching_shape(self, node: cst.Name, scope: Scope, depth: int) -> Optional[Shape]:
        """The shape of the value assigned by the statement the read `node` sees. Each step goes to
        an earlier statement, so it is not counted against the depth (`x = x.view(-1, 320)`,
        `x = F.relu(self.fc1(x))`, `x = self.fc2(x)` is one chain)."""
        if self.reaching is None or _reshaped_in_place(scope, node.value):
            return None
        assignment = self.reaching(node, scope)
        return self.shape(assignment.value, scope, depth) if assignment is not None else None

    def _broadcast(self, left: cst.BaseExpression, right: cst.BaseExpression, scope: Optional[Scope], depth: int) -> Optional[Shape]:
        """`a * b`: the broadcast of two known shapes; a number literal has shape ()."""
        shapes = [() if _is_number_literal(side) else self.shape(side, scope, depth + 1) for side in (left, right)]
        if None in shapes or shapes == [(), ()]:
            return None  # unknown, or two numbers (a Python number, not a tensor)
        return broadcast(shapes[0], shapes[1])

    def _derived_shape(self, call: cst.Call, scope: Optional[Scope], depth: int) -> Optional[Shape]:
        """The shape of a call computed from its argument's or receiver's shape."""
        if any(arg.star for arg in call.args):
            return None
        positional = [arg.value for arg in call.args if arg.keyword is None]
        func = call.func
        if type(func) is cst.Attribute and not self._module_method(func.value, scope):
            method = func.attr.value
            if method in _VIEWS_TO_SIZES:
                return _view_sizes(positional) if len(positional) == len(call.args) else None
            if method == _TYPE_NAME and not call.args:
                return None  # `x.type()` is the type's name
            if method == _TRANSPOSE and not call.args:
                shape = self.shape(func.value, scope, depth + 1)
                return shape[::-1] if shape is not None and len(shape) <= 2 else None  # torch raises above 2-D
            if method == _UNSQUEEZE or method in _SHAPE_KEEPING or method in _ELEMENTWISE:
                return self._method_shape(method, func.value, call, scope, depth)
            if method in _DROPS_DIM and len(call.args) == 1 and positional:
                return self._reduced_shape(func.value, positional[0], scope, depth)
        qualified = self.imports.qualified_name(func)
        if (qualified in _VARIABLE or qualified in _SHAPE_KEEPING_FUNCTIONS) and positional:
            return self.shape(positional[0], scope, depth + 1)
        if (qualified in _DATA_FACTORIES or qualified in _LEGACY_DATA_FACTORIES) and len(positional) == 1:
            return self._ndarray_shape(positional[0])  # `torch.Tensor(np.random.normal(0, 1, (1, n)))`
        if qualified == _CONCATENATE:
            return self._concatenated(call, scope, depth)
        if qualified in _SIZED_FACTORIES and len(positional) == 1 and self._is_int(positional[0], scope, depth):
            return (_integer(positional[0]),)  # `torch.ones(n)` with `n = x.size(0)`: one dimension
        returned = self._call_output(func, positional, len(call.args), scope, depth)
        if returned is not None:
            return returned
        if self.modules is not None and len(positional) == 1 and len(call.args) == 1:
            return self._module_output(func, positional[0], scope, depth)
        return None

    def _ndarray_shape(self, node: cst.BaseExpression) -> Optional[Shape]:
        """The shape of a NumPy random draw given a literal `size` (`np.random.normal(mu, sigma, (1, n))`)."""
        if type(node) is not cst.Call or any(arg.star for arg in node.args):
            return None
        position = dict(_NUMPY_SIZE_POSITIONS).get(self.imports.qualified_name(node.func) or "")
        if position is None:
            return None
        size = next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "size"), None)
        positional = [arg.value for arg in node.args if arg.keyword is None]
        if size is None and len(positional) > position:
            size = positional[position]
        if type(size) is cst.Integer:
            return (_integer(size),)
        if type(size) is not cst.Tuple or not size.elements or any(type(element) is cst.StarredElement for element in size.elements):
            return None
        return tuple(_integer(element.value) for element in size.elements)  # each an int, or numpy raises

    def _concatenated(self, call: cst.Call, scope: Optional[Scope], depth: int) -> Optional[Shape]:
        """`torch.cat([a, b], 1)` where `a`'s shape is known and has at least two dimensions (a 1-D
        `a` may be an empty tensor, which `cat` skips): `a`'s shape, the sizes along `dim` added
        when every part's is known. The other parts have `a`'s sizes elsewhere, or `cat` raises."""
        parts = call.args[0].value if call.args and call.args[0].keyword is None else None
        dims = [arg.value for arg in call.args[1:] if arg.keyword is None or arg.keyword.value == "dim"]
        if type(parts) not in (cst.List, cst.Tuple) or not parts.elements or len(dims) > 1 or len(call.args) != 1 + len(dims):
            return None
        if any(type(element) is cst.StarredElement for element in parts.elements):
            return None
        dim = _integer_literal(dims[0]) if dims else 0
        shapes = [self.shape(element.value, scope, depth + 1) for element in parts.elements]
        first = shapes[0]
        if dim is None or first is None or len(first) < 2 or not -len(first) <= dim < len(first):
            return None
        at = dim % len(first)
        sizes = [shape[at] if shape is not None and len(shape) == len(first) else None for shape in shapes]
        total = None if None in sizes else sum(sizes)  # type: ignore[arg-type]
        return (*first[:at], total, *first[at + 1 :])

    def _call_output(
        self, func: cst.BaseExpression, arguments: list[cst.BaseExpression], count: int, scope: Optional[Scope], depth: int
    ) -> Optional[Shape]:
        """`f(x)` where `f` is a lambda or a plain function of the file: what its body returns for
        the shapes of the arguments, given by position to as many plain parameters."""
        if self.modules is None or self.nesting >= _MAX_CALL_NESTING or type(func) is not cst.Name or len(arguments) != count:
            return None
        if self.names is not None and func.value in self.names:
            return None  # a parameter of the function evaluated
        callee = self.modules.called(func, scope)
        if callee is None:
            return None
        function, body_scope = callee
        params = function.params
        if params.posonly_params or params.kwonly_params or params.star_kwarg or isinstance(params.star_arg, (cst.Param, cst.ParamStar)):
            return None
        if len(params.params) != len(arguments):
            return None
        names = {param.name.value: self.shape(argument, scope, depth + 1) for param, argument in zip(params.params, arguments)}
        if type(function) is cst.Lambda:
            inner = _Shapes(self.imports, self.scopes, self.modules, names, self.nesting + 1)
            return inner.shape(function.body, body_scope, 0)
        if any(type(node) is cst.Attribute and node.attr.value in _RESHAPING_IN_PLACE for node in descendants(function)):
            return None
        return self._returned(function, names, None)

    def _module_method(self, receiver: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`receiver` is a module (or `self`): its methods are the class's, not a tensor's."""
        if type(receiver) is cst.Name and receiver.value == _SELF:
            return True
        return self.modules is not None and self.modules.is_module(receiver, scope)

    def _is_int(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int) -> bool:
        """`node` is a Python int, not a shape: a literal, `x.size(0)`, `x.shape[0]`, `len(...)`, or a
        name every binding of which in its function is one."""
        if depth > _MAX_DEPTH:
            return False
        if isinstance(node, cst.Integer):
            return True
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Name):
                return func.value == _LENGTH and self.imports.qualified_name(func) is None
            return (
                isinstance(func, cst.Attribute)
                and func.attr.value == _SIZE
                and len(node.args) == 1
                and _integer(node.args[0].value) is not None
            )
        if isinstance(node, cst.Subscript):
            value = node.value
            return isinstance(value, cst.Attribute) and value.attr.value == _SHAPE and len(node.slice) == 1
        if isinstance(node, cst.Name) and scope is not None and self.names is None:
            bindings = self.scopes.of(scope)
            values = bindings.assigned(node.value)
            if not values or node.value in bindings.opaque or node.value in bindings.loop_sources or node.value in bindings.unpacked:
                return False
            return all(self._is_int(value, scope, depth + 1) for value in values)
        return False

    def _method_shape(
        self, method: str, receiver: cst.BaseExpression, call: cst.Call, scope: Optional[Scope], depth: int
    ) -> Optional[Shape]:
        shape = self.shape(receiver, scope, depth + 1)
        if shape is None:
            return None
        if method == _UNSQUEEZE:
            only = call.args[0] if len(call.args) == 1 else None
            dim = _integer_literal(only.value) if only is not None and only.keyword is None else None
            if dim is None or not -len(shape) - 1 <= dim <= len(shape):
                return None
            at = dim if dim >= 0 else len(shape) + 1 + dim
            return (*shape[:at], 1, *shape[at:])
        if method in _ELEMENTWISE and not all(_is_number_literal(arg.value) for arg in call.args):
            return None  # a tensor argument may broadcast
        return shape

    def _reduced_shape(self, receiver: cst.BaseExpression, dim: cst.BaseExpression, scope: Optional[Scope], depth: int) -> Optional[Shape]:
        """`x.sum(0)`: the receiver's shape without the dim reduced over (a 1-D `x` gives `()`)."""
        shape = self.shape(receiver, scope, depth + 1)
        at = _integer_literal(dim)
        if shape is None or at is None or not -len(shape) <= at < len(shape):
            return None
        at = at if at >= 0 else len(shape) + at
        return (*shape[:at], *shape[at + 1 :])

    def _module_output(
        self, callee: cst.BaseExpression, argument: cst.BaseExpression, scope: Optional[Scope], depth: int
    ) -> Optional[Shape]:
        """`fc(x)` where every binding of `fc` builds the same kind of layer."""
        assert self.modules is not None
        constructions = self.modules.constructions(callee, scope)
        if not constructions:
            return self.modules.passed_output(callee, scope) if self.names is None else None
        # Unknown, the input's shape may still leave the output's known (`.view(-1, 1)` at the end).
        shape = self.shape(argument, scope, depth + 1)
        outputs = {self._layer_output(construction, shape) for construction in constructions}
        return outputs.pop() if len(outputs) == 1 else None

    def _layer_output(self, construction: cst.Call, shape: Optional[Shape]) -> Optional[Shape]:
        """The output shape of the module `construction` builds, given its input's shape."""
        torch_layer = _layer_output(construction, shape, self.imports, self._size_of(construction))
        if torch_layer is not None or self.modules is None or self.nesting >= _MAX_CLASS_NESTING:
            return torch_layer
        forward = self.modules.forward(construction)
        return self._forward_output(forward, shape, self.modules.sizes(construction)) if forward is not None else None

    def _size_of(self, construction: cst.Call) -> Callable[[cst.BaseExpression], Optional[int]]:
        """How a layer's size argument is read: a literal, or inside a module class's `forward`, a
        parameter of its `__init__` for a layer built there (`nn.Linear(hidden, output_size)`)."""
        if self.sizes is None or not _holds(self.sizes[0], construction):
            return _integer
        known = self.sizes[1]
        return lambda node: known.get(node.value) if type(node) is cst.Name else _integer(node)

    def _forward_output(
        self, forward: cst.FunctionDef, shape: Optional[Shape], sizes: Optional[tuple[cst.FunctionDef, Mapping[str, int]]]
    ) -> Optional[Shape]:
        """What a `forward(self, x)` made of assignments and one final `return` gives for an input
        of `shape`, statement by statement; None for any other body."""
        params = forward.params
        if len(params.params) != 2 or isinstance(params.star_arg, (cst.Param, cst.ParamStar)) or params.kwonly_params or params.star_kwarg:
            return None
        return self._returned(forward, {params.params[1].name.value: shape}, sizes)

    def _returned(
        self, function: cst.FunctionDef, names: dict[str, Optional[Shape]], sizes: Optional[tuple[cst.FunctionDef, Mapping[str, int]]]
    ) -> Optional[Shape]:
        """What a body made of assignments to names and one final `return` gives, the shapes of
        its parameters in `names`, statement by statement; None for any other body."""
        inner = _Shapes(self.imports, self.scopes, self.modules, names, self.nesting + 1, sizes)
        body = _without_docstring(function.body.body)
        for index, statement in enumerate(body):
            if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
                return None
            small = statement.body[0]
            if isinstance(small, cst.Return):
                return inner.shape(small.value, function, 0) if small.value is not None and index == len(body) - 1 else None
            if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
                return None
            names[small.targets[0].target.value] = inner.shape(small.value, function, 0)
        return None


def _without_docstring(body: Sequence[cst.CSTNode]) -> Sequence[cst.CSTNode]:
    first = body[0] if body else None
    if type(first) is cst.SimpleStatementLine and len(first.body) == 1 and type(first.body[0]) is cst.Expr:
        if isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
            return body[1:]
    return body


def broadcast(left: Shape, right: Shape) -> Optional[Shape]:
    """The shape two operands broadcast to, or None when a pair of sizes may not broadcast."""
    rank = max(len(left), len(right))
    padded = [(1,) * (rank - len(shape)) + tuple(shape) for shape in (left, right)]
    sizes: list[Optional[int]] = []
    for first, second in zip(*padded):
        if first == 1:
            sizes.append(second)
        elif second == 1 or first == second:
            sizes.append(first)
        elif first is None or second is None:
            sizes.append(None)
        else:
            return None  # torch raises
    return tuple(sizes)


def _layer_output(
    construction: cst.Call,
    shape: Optional[Shape],
    imports: ImportMap,
    size_of: Optional[Callable[[cst.BaseExpression], Optional[int]]] = None,
) -> Optional[Shape]:
    """The output shape of the torch module `construction` builds, given its input's shape;
    `size_of` reads a size argument (an integer literal by default)."""
    if shape is None:
        return None
    size_of = size_of or _integer
    qualified = imports.qualified_name(construction.func)
    if qualified in _SHAPE_KEEPING_LAYERS:
        return shape
    if qualified in _CONTAINERS:
        if not construction.args or any(arg.star or arg.keyword is not None for arg in construction.args):
            return None
        for layer in construction.args:
            if not isinstance(layer.value, cst.Call):
                return None
            shape = _layer_output(layer.value, shape, imports, size_of)
            if shape is None:
                return None
        return shape
    row = torch_api.function(qualified) if qualified is not None else None
    position = row.value("out-features") if row is not None else None
    if position is None or not shape:
        return None
    features = _out_features(construction, int(position), size_of)
    return (*shape[:-1], features) if features is not None else None


def _out_features(construction: cst.Call, position: int, size_of: Callable[[cst.BaseExpression], Optional[int]]) -> Optional[int]:
    keyword = next((arg for arg in construction.args if arg.keyword is not None and arg.keyword.value == "out_features"), None)
    if keyword is not None:
        return size_of(keyword.value)
    positional = [arg for arg in construction.args if arg.keyword is None]
    if any(arg.star for arg in positional) or len(positional) <= position:
        return None
    return size_of(positional[position].value)


def _view_sizes(sizes: list[cst.BaseExpression]) -> Optional[Shape]:
    """`x.view(-1, 1)` or `x.view((-1, 1))`: one dimension per size; -1 is a size not spelled."""
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        if any(isinstance(element, cst.StarredElement) for element in sizes[0].elements):
            return None
        sizes = [element.value for element in sizes[0].elements]
    elif len(sizes) == 1 and _integer_literal(sizes[0]) is None:
        return None  # `x.view(shape)`: an int or a whole shape
    if not sizes:
        return None
    return tuple(_integer(size) for size in sizes)


def _integer_literal(node: cst.BaseExpression) -> Optional[int]:
    """An integer literal, negative ones included."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _integer(node.expression)
        return -inner if inner is not None else None
    return _integer(node)


def _is_number_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _reshaped_in_place(scope: Scope, name: str) -> bool:
    """`x.unsqueeze_(0)`, `x.data.resize_(...)` or `x.data = ...` somewhere in the scope."""
    for node in descendants(scope):
        kind = type(node)  # exact types: see analysis/syntax.py
        if kind is cst.Attribute and node.attr.value in _RESHAPING_IN_PLACE and _is_name(_without_data(node.value), name):
            return True
        if kind is cst.AssignTarget and type(node.target) is cst.Attribute and _is_name(node.target.value, name):
            if node.target.attr.value == "data":
                return True
    return False


def _reshapes(statement: cst.CSTNode, name: str) -> bool:
    """`statement` calls a method reshaping `name` in place (`name.resize_(...)`, `name.data.t_()`)."""
    return any(
        type(node) is cst.Attribute and node.attr.value in _RESHAPING_IN_PLACE and _is_name(_without_data(node.value), name)
        for node in descendants(statement)
    )


def _without_data(node: cst.BaseExpression) -> cst.BaseExpression:
    """`x` for `x.data`: in place, the tensor's `.data` changes the tensor itself."""
    return node.value if type(node) is cst.Attribute and node.attr.value == "data" else node


Path = list[tuple[Sequence[cst.CSTNode], int, bool]]


def _statement_path(statements: Sequence[cst.CSTNode], read: cst.CSTNode) -> Optional[Path]:
    """From `statements` down to the statement holding `read`: each block, the position in it of
    the statement on the way, and whether the block is a loop's body."""
    path: Path = []
    loop_body = False
    while True:
        index = next((i for i, statement in enumerate(statements) if _holds(statement, read)), None)
        if index is None:
            return None
        path.append((statements, index, loop_body))
        inner = next(((block, loop) for block, loop in _blocks(statements[index]) if any(_holds(s, read) for s in block)), None)
        if inner is None:
            return path
        statements, loop_body = inner


def _blocks(statement: cst.CSTNode) -> list[tuple[Sequence[cst.CSTNode], bool]]:
    """The statement blocks of a compound statement (not of a nested function or class), each
    with whether it is a loop's body."""
    kind = type(statement)
    if kind in (cst.FunctionDef, cst.ClassDef) or kind is cst.SimpleStatementLine:
        return []
    blocks = [(suite_statements(getattr(statement, "body", None)), kind in (cst.For, cst.While))]
    orelse = getattr(statement, "orelse", None)
    while orelse is not None:
        blocks.append((suite_statements(orelse.body), False))
        orelse = orelse.orelse if type(orelse) is cst.If else None
    blocks += [(suite_statements(handler.body), False) for handler in getattr(statement, "handlers", ())]
    final = getattr(statement, "finalbody", None)
    if final is not None:
        blocks.append((suite_statements(final.body), False))
    return blocks


def _holds(statement: cst.CSTNode, node: cst.CSTNode) -> bool:
    return any(inner is node for inner in descendants(statement))


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return type(node) is cst.Name and node.value == name


def _call_shape(call: cst.Call, imports: ImportMap) -> Optional[Shape]:
    if any(arg.star for arg in call.args):
        return None
    qualified = imports.qualified_name(call.func)
    positional = [arg.value for arg in call.args if arg.keyword is None]
    if qualified in _SIZED_FACTORIES:
        return _sizes(positional)
    if qualified in _DATA_FACTORIES and positional:
        return _data_shape(positional[0])
    if qualified in _LEGACY_DATA_FACTORIES and len(positional) == 1 and isinstance(positional[0], (cst.List, cst.Tuple)):
        return _data_shape(positional[0])
    return None


def _sizes(sizes: list[cst.BaseExpression]) -> Optional[Shape]:
    if not sizes:
        return None
    if len(sizes) == 1 and isinstance(sizes[0], (cst.Tuple, cst.List)):
        elements = sizes[0].elements
        if any(isinstance(element, cst.StarredElement) for element in elements):
            return None
        sizes = [element.value for element in elements]
    elif len(sizes) == 1 and not isinstance(sizes[0], cst.Integer):
        return None  # `torch.randn(n)`: n may be an int or a whole shape
    # Each size is an int (torch raises otherwise): one dimension each.
    return tuple(_integer(size) for size in sizes)


def _integer(node: cst.BaseExpression) -> Optional[int]:
    return int(node.value) if isinstance(node, cst.Integer) and node.value.isdigit() else None


def _data_shape(data: cst.BaseExpression) -> Optional[Shape]:
    """The shape of a list literal of numbers, when it is rectangular."""
    if isinstance(data, (cst.Integer, cst.Float)) or (
        isinstance(data, cst.UnaryOperation) and isinstance(data.expression, (cst.Integer, cst.Float))
    ):
        return ()
    if not isinstance(data, (cst.List, cst.Tuple)) or not data.elements:
        return None
    if any(isinstance(element, cst.StarredElement) for element in data.elements):
        return None
    inner = {_data_shape(element.value) for element in data.elements}
    if len(inner) != 1 or None in inner:
        return None
    return (len(data.elements), *inner.pop())


def legacy_softmax_dim(rank: int) -> int:
    """The dimension `softmax` and its kin pick without `dim` (torch.nn.functional._get_softmax_dim):
    0 for 0-, 1- and 3-D input, 1 otherwise. Measured under torch 2.13 for ranks 0 to 4."""
    return 0 if rank in (0, 1, 3) else 1
