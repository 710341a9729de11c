"""What an expression of the file evaluates to: one record per expression, and the questions rules
ask of it ("is it a tensor", "is it 0-dim", "does it carry history", "what is its shape").

The answers come from the file's evaluators (tensor, number, 0-dim, grad, history, shape, module
and optimizer evidence). Each question is asked of its evaluator once per expression and scope and
remembered; a question runs only the evaluator it needs, and `record` assembles every field for
callers that want the whole value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Mapping, NamedTuple, Optional, TypeVar

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.attribute_values import sealed_attribute_values
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.narrowing import PARAMETER, Narrowing
from gradlint.analysis.scopes import Scope, ScopeTable, self_name
from gradlint.analysis.semantic.arguments import UNKNOWN, Signature, bind
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.shapes import Callee, ModuleFacts, static_shape
from gradlint.analysis.syntax import child_statements, is_bool_literal, keyword_arg
from gradlint.analysis.tensors import iterates_parameters
from gradlint.analysis.values.evident import EvidentTensors
from gradlint.analysis.values.record import Certainty, Dim, Grad, Kind, Shape, ValueRecord
from gradlint.model.project import PassedValue

if TYPE_CHECKING:
    from gradlint.analysis.command_line import CommandLineOptions
    from gradlint.analysis.grad_tracking import GeneratorOutputs, GradEvidence
    from gradlint.analysis.history import HistoryEvidence
    from gradlint.analysis.nn_modules import NnModuleEvidence
    from gradlint.analysis.optimizers import OptimizerOracle
    from gradlint.analysis.scalars import ScalarEvidence
    from gradlint.analysis.semantic.scope import ScopeUsesTable
    from gradlint.analysis.tensors import TensorEvidence

Answer = TypeVar("Answer")

_PARAMETER_CLASSES = torch_api.functions("parameter")
# Factories that make a leaf requiring grad when given `requires_grad=True`.
_GRAD_FLAG_FACTORIES = torch_api.functions("grad-flag")
# Module methods giving the module's tensors one by one (`model.parameters()`); the `named_`
# ones give (name, tensor) pairs.
_TENSOR_GENERATORS = frozenset(
    name for name in torch_api.module_methods("generator", without=("submodules",)) if not name.startswith("named_")
)
_TUPLE_METHODS = torch_api.methods("tuple")
_TUPLE_FUNCTIONS = torch_api.functions("tuple")
_LEGACY_TYPED = torch_api.functions("legacy")
_RETURNS_SELF = torch_api.module_methods("returns-self")
_MAX_DEPTH = 4


class _FileFunctions(NamedTuple):
    defs: dict[str, list[cst.FunctionDef]]  # every `def` of the file by name, methods and nested ones too
    declared_global: set[str]  # the names a `global` statement declares


@dataclass(frozen=True)
class Evaluators:
    """The file's evaluators, each built when first asked for (they are shared with the rest of
    the file's analyses, which build them lazily too)."""

    tensors: Callable[[], "TensorEvidence"]
    scalars: Callable[[], "ScalarEvidence"]
    grads: Callable[[], "GradEvidence"]
    generator_outputs: Callable[[], "GeneratorOutputs"]
    history: Callable[[], "HistoryEvidence"]
    nn_modules: Callable[[], "NnModuleEvidence"]
    optimizers: Callable[[], "OptimizerOracle"]
    options: Callable[[], "CommandLineOptions"]
    scope_uses: Callable[[], "ScopeUsesTable"]


class ValueModel:
    """Per file: `record(node, scope)` and the one-field questions, each remembered per node and scope."""

    def __init__(
        self,
        imports: ImportMap,
        scopes: ScopeTable,
        nodes: NodeIndex,
        evaluators: Evaluators,
        passed: Mapping[str, PassedValue] = {},
        class_of: Callable[[cst.FunctionDef], Optional[cst.ClassDef]] = lambda function: None,
        sealed: frozenset[str] = frozenset(),
    ) -> None:
        """`passed`: what the run's constructions pass to the constructor parameters the file's
        classes keep on `self` ("Trainer.D", see `analysis.constructor_arguments`); `class_of`:
        the class a method is defined in; `sealed`: the attributes of the file's classes that
        only the class's own methods store in the run ("Trainer.batch_size")."""
        self.imports = imports
        self.scopes = scopes
        self.nodes = nodes
        self._evaluators = evaluators
        self._passed = passed
        self._class_of = class_of
        self._sealed = sealed
        self._evident = EvidentTensors(imports, scopes, self.is_tensor)
        self._narrowing = Narrowing(imports, nodes, evaluators.scope_uses, self._surely_tensor, class_of)
        # question -> (id(node), id(scope)) -> (node, scope, answer); the node and scope are kept
        # so that their ids are not reused by other objects while the answer is remembered.
        self._answers: dict[str, dict[tuple[int, int], tuple[cst.CSTNode, Optional[Scope], object]]] = {}
        self._stacks: dict[int, list[cst.CSTNode]] = {}

    def _remember(self, question: str, node: cst.CSTNode, scope: Optional[Scope], ask: Callable[[], Answer]) -> Answer:
        table = self._answers.get(question)
        if table is None:
            table = self._answers[question] = {}
        key = (id(node), id(scope))
        found = table.get(key)
        if found is None:
            found = table[key] = (node, scope, ask())
        return found[2]  # type: ignore[return-value]

    # -- the whole record -------------------------------------------------------------------------

    def record(self, node: cst.BaseExpression, scope: Optional[Scope]) -> ValueRecord:
        """Every field of `node`'s value evaluated in `scope`; the same record on every call."""
        return self._remember("record", node, scope, lambda: self._assemble(node, scope))

    def _assemble(self, node: cst.BaseExpression, scope: Optional[Scope]) -> ValueRecord:
        kind = self.kind(node, scope)
        tensor_like = kind in (Kind.TENSOR, Kind.PARAMETER)
        shape = self.shape(node, scope) if tensor_like else None
        return ValueRecord(
            kind=kind,
            certainty=self.certainty(node, scope),
            grad=self.grad(node, scope) if kind not in (Kind.NN_MODULE, Kind.OPTIMIZER) else Grad.UNKNOWN,
            dim=self.dim(node, scope) if tensor_like else Dim.UNKNOWN,
            shape=shape,
            dtype=self.dtype(node, scope) if tensor_like else None,
        )

    # -- kind -------------------------------------------------------------------------------------

    def kind(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Kind:
        """What sort of object `node` is. Evidence of a Python number outweighs a tensor's name;
        a module, an optimizer, a parameter are told apart before the tensor evidence is asked."""
        return self._remember("kind", node, scope, lambda: self._kind(node, scope))

    def _kind(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Kind:
        narrowed = self.narrowed(node, scope)
        if narrowed is not None:
            return Kind.PARAMETER if narrowed == PARAMETER or self.is_parameter(node, scope) else Kind.TENSOR
        if self.is_python_number(node, scope):
            return Kind.NUMBER
        other = self._object_kind(node, scope, 0)
        if other is not None:
            return other
        return Kind.TENSOR if self.is_tensor(node, scope) else Kind.UNKNOWN

    def _object_kind(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int) -> Optional[Kind]:
        """PARAMETER, OPTIMIZER, MODULE or TENSORS, by construction, binding or name; None otherwise."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Call):
            return self._call_kind(node, scope)
        if isinstance(node, (cst.List, cst.Tuple)):
            elements = node.elements
            tensors = elements and all(
                not isinstance(element, cst.StarredElement) and self.is_tensor(element.value, scope) for element in elements
            )
            return Kind.TENSORS if tensors else None
        if self.is_parameter(node, scope) and self.is_tensor(node, scope):
            return Kind.PARAMETER
        if isinstance(node, (cst.Name, cst.Attribute)):
            if self.is_nn_module(node, scope):
                return Kind.NN_MODULE
            if self._evaluators.optimizers().is_optimizer(node):
                return Kind.OPTIMIZER
        if isinstance(node, cst.Name):
            return self._bound_kind(node.value, scope, depth)
        return None

    def _bound_kind(self, name: str, scope: Optional[Scope], depth: int) -> Optional[Kind]:
        """The kind every visible binding of `name` agrees on (`p = nn.Parameter(...)`)."""
        values = self.scopes.values_of(name, scope)
        kinds = {self._object_kind(value, scope, depth + 1) for value in values}
        return kinds.pop() if len(kinds) == 1 else None

    def _call_kind(self, call: cst.Call, scope: Optional[Scope]) -> Optional[Kind]:
        qualified = self.imports.qualified_name(call.func)
        if qualified in _PARAMETER_CLASSES:
            return Kind.PARAMETER
        if self._evaluators.optimizers().is_optimizer_class(call.func):
            return Kind.OPTIMIZER
        if self._evaluators.nn_modules().constructs_module(call):
            return Kind.NN_MODULE
        if qualified in _TUPLE_FUNCTIONS:
            return Kind.TENSORS
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _TENSOR_GENERATORS and self.is_nn_module(func.value, scope):
                return Kind.TENSORS
            if method in _TUPLE_METHODS and self.is_tensor(func.value, scope):
                return Kind.TENSORS
        return None

    # -- how the kind is known ----------------------------------------------------------------------

    def certainty(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Certainty:
        """How `node`'s kind is known. For tensors: CONSTRUCTED for a public torch function's
        result, BOUND when every binding makes it one (`is_bound_tensor`) or the file evidently
        builds it (`is_evident_tensor`), else NAMED: evidence the tensor evaluator does not tell
        apart from a name (a model or criterion call, a loop over a loader) counts as NAMED, so
        NAMED means "at least by name"."""
        return self._remember("certainty", node, scope, lambda: self._certainty(node, scope))

    def _certainty(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Certainty:
        kind = self.kind(node, scope)
        if kind is Kind.UNKNOWN:
            return Certainty.NONE
        if isinstance(node, cst.Call):
            if kind is Kind.NUMBER and self._evaluators.tensors().returns_number(node, scope):
                return Certainty.BOUND  # through the returns of a function of the file
            constructed = kind is not Kind.TENSOR or self._evident.constructs(node, scope)
            return Certainty.CONSTRUCTED if constructed else self._tensor_certainty(node, scope)
        if kind is Kind.TENSOR:
            return self._tensor_certainty(node, scope)
        if kind is Kind.NN_MODULE:
            bound = self._evaluators.nn_modules().module_constructions(node, self._stack(scope)) or _is_self(node)
            return Certainty.BOUND if bound else Certainty.NAMED
        if kind is Kind.OPTIMIZER:
            return Certainty.BOUND if self._bound_to_optimizer(node, scope) else Certainty.NAMED
        # Numbers, parameters and containers are never known by name alone.
        return Certainty.BOUND if isinstance(node, (cst.Name, cst.Attribute, cst.Subscript)) else Certainty.CONSTRUCTED

    def _tensor_certainty(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Certainty:
        if self.is_bound_tensor(node, scope) or self.is_evident_tensor(node, scope) or self.narrowed(node, scope) is not None:
            return Certainty.BOUND
        return Certainty.NAMED

    def _bound_to_optimizer(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        optimizers = self._evaluators.optimizers()
        values = self.scopes.values_of(node.value, scope) if isinstance(node, cst.Name) else []
        return any(isinstance(value, cst.Call) and optimizers.is_optimizer_class(value.func) for value in values)

    # -- grad state, dimensions, shape, dtype -------------------------------------------------------

    def grad(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Grad:
        """REQUIRES_GRAD for a parameter or a factory given `requires_grad=True`, HISTORY when the
        grad evidence says it carries a graph, FREE when the history evidence proves it carries
        none, else UNKNOWN."""
        return self._remember("grad", node, scope, lambda: self._grad(node, scope))

    def _grad(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Grad:
        if self.kind(node, scope) is Kind.PARAMETER or self._requires_grad_leaf(node, scope):
            return Grad.REQUIRES_GRAD
        if self.carries_grad(node, scope):
            return Grad.HISTORY
        if scope is not None and self.is_history_free(node, scope):
            return Grad.FREE
        return Grad.UNKNOWN

    def _requires_grad_leaf(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """A factory given `requires_grad=True`, or a name every visible binding of which is one."""
        if isinstance(node, cst.Name):
            values = self.scopes.values_of(node.value, scope)
            return bool(values) and all(_requires_grad_factory(value, self.imports) for value in values)
        return _requires_grad_factory(node, self.imports)

    def dim(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Dim:
        """ZERO for a 0-dim tensor (a loss, a full reduction, a literal shape `()`), N for a
        literal shape with dimensions, else UNKNOWN."""
        shape = self.shape(node, scope)
        if shape is not None:
            return Dim.ZERO if shape == () else Dim.N
        return Dim.ZERO if self.is_scalar(node, scope) else Dim.UNKNOWN

    def dtype(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[str]:
        """The dtype the code spells for `node` (`dtype=torch.float64`, `torch.LongTensor(...)`),
        qualified; through a name when every binding in its function spells the same one."""
        return self._remember("dtype", node, scope, lambda: self._dtype(node, scope, 0))

    def _dtype(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int) -> Optional[str]:
        if depth > _MAX_DEPTH:
            return None
        if isinstance(node, cst.Call):
            return self._call_dtype(node)
        if isinstance(node, cst.Name) and scope is not None:
            values = self.scopes.of(scope).plain_values(node.value)
            if not values:
                return None
            dtypes = {self._dtype(value, scope, depth + 1) for value in values}
            return dtypes.pop() if len(dtypes) == 1 else None
        return None

    def _call_dtype(self, call: cst.Call) -> Optional[str]:
        qualified = self.imports.qualified_name(call.func)
        if qualified is None or not qualified.startswith("torch."):
            return None
        if qualified in _LEGACY_TYPED:
            row = torch_api.function(qualified)
            spelled = row.value("dtype") if row is not None else None
            return f"torch.{spelled}" if spelled else None
        dtype = keyword_arg(call, "dtype")
        return self.imports.qualified_name(dtype.value) if dtype is not None else None

    # -- one-field questions: each asks one evaluator ------------------------------------------------

    def is_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """Evidence (by construction, binding, name, or the code on the way to `node`) that `node` is a tensor."""
        return self._remember(
            "is_tensor", node, scope, lambda: self._evaluators.tensors().is_tensor(node, scope) or self.narrowed(node, scope) is not None
        )

    def is_known_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """A tensor with nothing against it, or proved one by the code on the way to `node`: enough
        for a safe fix that calls a tensor method."""
        return self._remember(
            "is_known_tensor",
            node,
            scope,
            lambda: self._evaluators.tensors().is_known_tensor(node, scope) or self.narrowed(node, scope) is not None,
        )

    def contradicts_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """Evidence that `node` is not a tensor: a Python number, another library's object, a file
        without torch; never where the code on the way to `node` proves a tensor."""
        return self._remember(
            "contradicts_tensor",
            node,
            scope,
            lambda: self._evaluators.tensors().contradicts_tensor(node, scope) and self.narrowed(node, scope) is None,
        )

    def _surely_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """A tensor by construction or by every binding, nothing against it (never by name alone)."""
        return (
            self.kind(node, scope) in (Kind.TENSOR, Kind.PARAMETER)
            and self.certainty(node, scope) is not Certainty.NAMED
            and not self.contradicts_tensor(node, scope)
        )

    def reads_other_library_value(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """The read `node` sees a binding made by another array library (`x = sp.load_npz(p).tocsr()`
        just before `x.data`), whatever the name's other bindings are."""
        if type(node) is not cst.Name or scope is None:
            return False
        assignment = self._reaching_assignment(node, scope)
        return assignment is not None and self._evaluators.tensors().is_other_library_call(assignment.value)

    def narrowed(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[str]:
        """`narrowing.PARAMETER` or `narrowing.TENSOR` where the code on the way to the read `node`
        proves it one (an `isinstance` branch, an earlier torch call that needs a tensor, `self.w`
        just assigned a tensor; see `analysis.narrowing`), else None."""
        return self._remember("narrowed", node, scope, lambda: self._narrowing.kind(node, scope))

    def is_python_number(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` evidently evaluates to a Python `int` or `float`, never a tensor."""
        return self._remember("is_python_number", node, scope, lambda: self._python_number(node, scope))

    def _python_number(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        return self._evaluators.tensors().is_python_number(node, scope) or self._evaluators.options().is_number(node, scope)

    def is_python_int(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` evidently evaluates to a Python `int`: an int literal, a command-line option
        declared `type=int` that always has a value (see `command_line`), or `self.batch_size`
        of a sealed attribute every value of which is one (see `attribute_values`)."""
        return self._remember("is_python_int", node, scope, lambda: self._python_int(node, scope, 0))

    def _python_int(self, node: cst.BaseExpression, scope: Optional[Scope], depth: int) -> bool:
        if type(node) is cst.Integer or self._evaluators.options().is_int(node, scope):
            return True
        if depth >= _MAX_DEPTH:
            return False
        values = sealed_attribute_values(node, scope, self.nodes.root, self.scopes, self._class_of, self._sealed)
        return values is not None and all(self._python_int(value, method, depth + 1) for value, method in values)

    def is_bound_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """A name every binding of which in `scope` makes a tensor, or `self.w` every value the
        class binds to which is one; never by the name alone, nor a parameter of the function."""
        return self._remember("is_bound_tensor", node, scope, lambda: self._bound_tensor(node, scope))

    def _bound_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        if type(node) is cst.Name:
            return self._evaluators.tensors().is_bound_to_tensor(node.value, scope)
        return type(node) is cst.Attribute and self._evaluators.tensors().is_instance_tensor(node, scope)

    def is_evident_tensor(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """Built here by public torch functions and tensor methods, through names every binding of
        which is one (see `values.evident`): no name, model call or loop variable counts."""
        return self._remember("is_evident_tensor", node, scope, lambda: self._evident.is_evident(node, scope))

    def is_parameter(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """A parameter or buffer by its spelling or its loop: `.weight` / `.bias`, a loop variable
        over a model's parameters or buffers (`for p in model.parameters()`), or a name read in
        the branch of `isinstance(p, nn.Parameter)`."""
        return self._remember("is_parameter", node, scope, lambda: self._parameter(node, scope))

    def _parameter(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        if self.narrowed(node, scope) == PARAMETER:
            return True  # in the branch of `isinstance(p, nn.Parameter)`
        if isinstance(node, cst.Attribute):
            return node.attr.value in ("weight", "bias")
        if not isinstance(node, cst.Name):
            return False
        return any(iterates_parameters(source, position) for source, position in self.scopes.loop_sources_of(node.value, scope))

    def is_nn_module(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` is an `nn.Module`: built as one, `self` in a module class, or named like a model."""
        return self._remember("is_nn_module", node, scope, lambda: self._evaluators.nn_modules().is_module(node, self._stack(scope)))

    def is_scalar(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """A 0-dim tensor under torch 2.x: a loss, a full reduction, or a name bound to one."""
        return self._remember("is_scalar", node, scope, lambda: self._evaluators.scalars().is_scalar(node, scope))

    def is_one_number_read(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` is a fresh 0-dim tensor read out of a one-number tensor (`torch.multinomial(p, 1)[0]`),
        where 0.3 gave a Python number, or a name bound once to one."""
        return self._remember("is_one_number_read", node, scope, lambda: self._evaluators.scalars().is_one_number_read(node, scope))

    def shape(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[Shape]:
        """The shape the code states for the tensor `node` evaluates to (see `analysis.shapes`)."""
        return self._remember("shape", node, scope, lambda: self._static_shape(node, scope))

    def _static_shape(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[Shape]:
        return static_shape(node, self.imports, self.scopes, scope, self._module_facts, self._reaching_assignment)

    def _reaching_assignment(self, node: cst.Name, scope: Scope) -> Optional[cst.Assign]:
        return self._evaluators.scope_uses().of(scope).reaching_assignment(node)

    @cached_property
    def _module_facts(self) -> ModuleFacts:
        return ModuleFacts(
            self._module_constructions,
            self._forward_of,
            self.is_nn_module,
            sizes=self._constructor_sizes,
            passed_output=self._passed_output,
            called=self._called,
        )

    def _called(self, func: cst.BaseExpression, scope: Optional[Scope]) -> Optional[Callee]:
        """The lambda or module-level `def` of the file a call of the name `func` runs: every
        binding of the name, in the innermost function binding it or else at module level, is the
        same lambda (or the lambda a one-line `def` returns); or the name is bound by one plain
        module-level `def` and nothing else in the file."""
        root = self.nodes.root
        if type(func) is not cst.Name or not isinstance(root, cst.Module) or func.value in self._file_functions.declared_global:
            return None
        name = func.value
        where = scope if scope is not None else root
        levels = [where, *(node for node in self.nodes.ancestors(where) if type(node) in (cst.FunctionDef, cst.Lambda))]
        for level in [*levels, root] if levels[-1] is not root else levels:
            if type(level) is cst.Lambda:
                if any(param.name.value == name for param in _lambda_params(level)):
                    return None
                continue
            values = self.scopes.of(level).plain_values(name)
            if values is None:
                return None
            if values:
                if self._file_functions.defs.get(name):
                    return None
                callees = [self._callee_value(value, level) for value in values]
                first = callees[0]
                same = first is not None and all(callee is not None and callee[0] is first[0] for callee in callees)
                return first if same else None
        defs = self._file_functions.defs.get(name, [])
        if len(defs) != 1 or defs[0].decorators or defs[0].asynchronous is not None:
            return None
        return (defs[0], defs[0]) if any(statement is defs[0] for statement in root.body) else None

    def _callee_value(self, value: cst.BaseExpression, level: Scope) -> Optional[Callee]:
        """A lambda, or the lambda returned by the one statement of the `def` a call runs
        (`get_distribution_sampler(mu, sigma)` returning `lambda n: ...`)."""
        if type(value) is cst.Lambda:
            return (value, level)
        if type(value) is not cst.Call or any(arg.star for arg in value.args):
            return None
        callee = self._called(value.func, level)
        if callee is None or type(callee[0]) is not cst.FunctionDef:
            return None
        body = callee[0].body.body
        only = body[0].body[0] if len(body) == 1 and type(body[0]) is cst.SimpleStatementLine and len(body[0].body) == 1 else None
        returned = only.value if type(only) is cst.Return else None
        return (returned, callee[0]) if type(returned) is cst.Lambda else None

    @cached_property
    def _file_functions(self) -> _FileFunctions:
        """The file's `def`s and `global` names: one walk over its statements."""
        defs: dict[str, list[cst.FunctionDef]] = {}
        declared: set[str] = set()
        root = self.nodes.root
        pending = list(root.body) if isinstance(root, cst.Module) else []
        while pending:
            statement = pending.pop()
            if type(statement) is cst.SimpleStatementLine:
                declared.update(name.name.value for small in statement.body if type(small) is cst.Global for name in small.names)
                continue
            if type(statement) is cst.FunctionDef:
                defs.setdefault(statement.name.value, []).append(statement)
            pending.extend(child_statements(statement))
        return _FileFunctions(defs, declared)

    def passed_value(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[PassedValue]:
        """What every construction in the run passes for the constructor parameter stored as
        `self.<attribute>` (`node`), read in a method of a top-level class of the file."""
        if not self._passed or type(node) is not cst.Attribute or type(node.value) is not cst.Name:
            return None
        if not isinstance(scope, cst.FunctionDef) or node.value.value != self_name(scope):
            return None
        owner = self._class_of(scope)
        root = self.nodes.root
        if owner is None or not isinstance(root, cst.Module) or not any(statement is owner for statement in root.body):
            return None
        return self._passed.get(f"{owner.name.value}.{node.attr.value}")

    def _passed_output(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[Shape]:
        """The shape a module passed to the constructor returns whatever its input (`self.D(x)`)."""
        passed = self.passed_value(node, scope)
        return passed.output_shape if passed is not None else None

    def _module_constructions(self, node: cst.BaseExpression, scope: Optional[Scope]) -> list[cst.Call]:
        """The constructor calls of the modules `node` is bound to (see `NnModuleEvidence`), a
        name rebound to itself moved or switched (`D = D.cuda()`) counting as its construction."""
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return []
        modules = self._evaluators.nn_modules()
        constructions = modules.module_constructions(node, self._stack(scope))
        if constructions or not isinstance(node, cst.Name):
            return constructions
        values = self.scopes.values_of(node.value, scope)
        built = [_without_module_methods(value) for value in values if not _rebinds_itself(value, node.value)]
        if built and len(built) < len(values) and all(isinstance(value, cst.Call) and modules.constructs_module(value) for value in built):
            return built  # type: ignore[return-value]
        return []

    def _forward_of(self, construction: cst.Call) -> Optional[cst.FunctionDef]:
        """The `forward` of the file's top-level module class `construction` builds (`Net()`)."""
        func = construction.func
        if not isinstance(func, cst.Name) or func.value not in self._evaluators.nn_modules().module_classes:
            return None
        return self._forwards.get(func.value)

    @cached_property
    def _forwards(self) -> dict[str, cst.FunctionDef]:
        """Top-level class name -> its `forward` method, for the file's classes that define one."""
        return self._methods_named("forward")

    @cached_property
    def _inits(self) -> dict[str, cst.FunctionDef]:
        return self._methods_named("__init__")

    def _methods_named(self, name: str) -> dict[str, cst.FunctionDef]:
        found: dict[str, cst.FunctionDef] = {}
        root = self.nodes.root
        for statement in root.body if isinstance(root, cst.Module) else ():
            if isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
                for member in statement.body.body:
                    if isinstance(member, cst.FunctionDef) and member.name.value == name:
                        found[statement.name.value] = member
        return found

    def _constructor_sizes(self, construction: cst.Call) -> Optional[tuple[cst.FunctionDef, dict[str, int]]]:
        """For `Net(hidden=50, out=d_out)` building a module class of the file: its `__init__`, and
        the integers the call gives the parameters `__init__` never rebinds (a literal or default,
        or a module-level name bound only to one literal)."""
        func = construction.func
        if not isinstance(func, cst.Name) or func.value not in self._evaluators.nn_modules().module_classes:
            return None
        init = self._inits.get(func.value)
        if init is None:
            return None
        signature = Signature.of(init)
        bound = bind(construction, signature, receiver=cst.Name("self"))
        if bound.starred or not bound.fits:
            return None
        rebound = self.scopes.of(init)
        known: dict[str, int] = {}
        for name in (*signature.positional_only, *signature.positional, *signature.keyword_only):
            value = bound.value(name)
            if name == bound.receiver_parameter or value is None or value is UNKNOWN or rebound.assigned(name):
                continue
            number = self._module_integer(value, construction)
            if number is not None:
                known[name] = number
        return init, known

    def _module_integer(self, value: cst.BaseExpression, construction: cst.Call) -> Optional[int]:
        """An integer literal, or a name the code around `construction` does not bind and the file
        binds at module level only to one integer literal (`d_output_size = 1`)."""
        if isinstance(value, cst.Integer):
            return int(value.value) if value.value.isdigit() else None
        if not isinstance(value, cst.Name):
            return None
        name = value.value
        for scope in self.nodes.ancestors(construction):
            if isinstance(scope, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                if not isinstance(scope, cst.FunctionDef):
                    return None
                local = self.scopes.of(scope)
                if local.assigned(name) or name in local.opaque or name in local.loop_sources or name in local.unpacked:
                    return None
        root = self.nodes.root
        module = self.scopes.of(root)
        values = module.assigned(name)
        if not values or name in module.opaque or name in module.loop_sources or name in module.unpacked:
            return None
        numbers = {value.value for value in values if isinstance(value, cst.Integer) and value.value.isdigit()}
        return int(numbers.pop()) if len(numbers) == 1 and len(values) == len([v for v in values if isinstance(v, cst.Integer)]) else None

    def rank(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[int]:
        """The number of dimensions the code states for `node`, or None."""
        shape = self.shape(node, scope)
        return None if shape is None else len(shape)

    def carries_grad(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` evidently carries autograd history (a model's output, a loss, ops on parameters)."""
        return self._remember("carries_grad", node, scope, lambda: self._evaluators.grads().carries_grad(node, scope))

    def is_generator_output(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        """`node` is evidently a GAN generator's output that still carries the generator's graph."""
        return self._remember("is_generator_output", node, scope, lambda: self._evaluators.generator_outputs().carries_grad(node, scope))

    def is_history_free(self, node: cst.BaseExpression, scope: Scope) -> bool:
        """`node` provably carries no autograd history in the program as it is."""
        return self._remember("is_history_free", node, scope, lambda: self._evaluators.history().is_history_free(node, scope))

    def _stack(self, scope: Optional[Scope]) -> list[cst.CSTNode]:
        """The nodes from the file down to `scope`, as the module evidence reads a traversal stack."""
        top = scope if scope is not None else self.nodes.root
        stack = self._stacks.get(id(top))
        if stack is None:
            stack = self._stacks[id(top)] = [*reversed(list(self.nodes.ancestors(top))), top]
        return stack


def _lambda_params(function: cst.Lambda) -> list[cst.Param]:
    params = function.params
    stars = [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return [*params.posonly_params, *params.params, *params.kwonly_params, *stars]


def _without_module_methods(value: cst.BaseExpression) -> cst.BaseExpression:
    """`Net()` for `Net().to(device).eval()`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _RETURNS_SELF:
        value = value.func.value
    return value


def _rebinds_itself(value: cst.BaseExpression, name: str) -> bool:
    """`D.cuda()` assigned to `D`: the same module, moved or switched."""
    base = _without_module_methods(value)
    return base is not value and isinstance(base, cst.Name) and base.value == name


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


def _requires_grad_factory(node: cst.BaseExpression, imports: ImportMap) -> bool:
    """`torch.zeros(3, requires_grad=True)`: a leaf that requires grad."""
    if not isinstance(node, cst.Call) or imports.qualified_name(node.func) not in _GRAD_FLAG_FACTORIES:
        return False
    flag = keyword_arg(node, "requires_grad")
    return flag is not None and is_bool_literal(flag.value, True)
