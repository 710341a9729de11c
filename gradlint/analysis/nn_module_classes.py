"""The `nn.Module` subclasses a file defines: their bases, methods and what their methods assign to
`self`, for rules about how a model is defined (registration, `__init__`, `forward`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import self_name
from gradlint.analysis.syntax import dotted_name, iter_statements
from gradlint.analysis.tree import descendants, iter_children

TORCH_MODULE = "torch.nn.Module"
# Capitalised names of torch.nn that are not module classes.
_NOT_MODULES = torch_api.short_names(
    torch_api.functions("parameter") | torch_api.functions("buffer") | torch_api.functions("parameter-container")
)
# Factories whose result is a model.
_MODEL_FACTORIES = frozenset({"timm.create_model"})
_NO_INSTANCE_DECORATORS = frozenset({"staticmethod", "classmethod"})
# Module methods that raise before `nn.Module.__init__`, and those returning the module itself.
_STATE_METHODS = torch_api.module_methods("needs-init")
_RETURNS_SELF = torch_api.module_methods("returns-self")
_STATE_CLASSES = torch_api.functions("parameter") | torch_api.functions("buffer")


@dataclass(frozen=True)
class SelfAssignment:
    """`self.<attribute> = value` written in `method` of a module class."""

    method: cst.FunctionDef
    attribute: str
    value: cst.BaseExpression
    statement: cst.CSTNode  # the Assign, AnnAssign or AugAssign


class NnModuleClass:
    """One class of the file that subclasses `nn.Module`, directly or through classes of the file."""

    def __init__(self, node: cst.ClassDef, owner: "NnModuleClasses") -> None:
        self.node = node
        self.name = node.name.value
        self._owner = owner

    @cached_property
    def methods(self) -> dict[str, cst.FunctionDef]:
        """The functions defined directly in the class body, by name (the last definition wins)."""
        found: dict[str, cst.FunctionDef] = {}
        for statement in _class_body(self.node):
            if isinstance(statement, cst.FunctionDef):
                found[statement.name.value] = statement
        return found

    @cached_property
    def class_attributes(self) -> frozenset[str]:
        """Names bound in the class body other than by `def` (`forward = _forward_impl`)."""
        names: set[str] = set()
        for statement in _class_body(self.node):
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    targets = small.targets if isinstance(small, cst.Assign) else [small] if isinstance(small, cst.AnnAssign) else []
                    names.update(t.target.value for t in targets if isinstance(t.target, cst.Name))
        return frozenset(names)

    @property
    def init(self) -> Optional[cst.FunctionDef]:
        return self.methods.get("__init__")

    @cached_property
    def local_bases(self) -> tuple["NnModuleClass", ...]:
        """The bases that are module classes of this file."""
        found = (self._owner.base_class(base.value, self.node) for base in self.node.bases if base.keyword is None and not base.star)
        return tuple(cls for cls in found if cls is not None)

    def base_kinds(self) -> Iterator[str]:
        """For each base: "module" (`nn.Module` itself), "torch" (another torch.nn module class),
        "local" (a module class of this file) or "other"."""
        for base in self.node.bases:
            if base.keyword is not None or base.star:
                yield "other"
            elif self._owner.base_class(base.value, self.node) is not None:
                yield "local"
            else:
                qualified = self._owner.imports.qualified_name(base.value) or ""
                yield "module" if qualified == TORCH_MODULE else "torch" if _is_torch_module_class(qualified) else "other"

    @cached_property
    def provably_module(self) -> bool:
        """Every base is `nn.Module`, a torch.nn module class, or a class of this file that is
        provably a module itself; no metaclass or other keyword."""
        return bool(self.node.bases) and not self.node.keywords and self._provable(frozenset())

    def _provable(self, seen: frozenset[int]) -> bool:
        if id(self.node) in seen or self.node.keywords:
            return False
        kinds = list(self.base_kinds())
        if not kinds or "other" in kinds:
            return False
        return all(base._provable(seen | {id(self.node)}) for base in self.local_bases)

    @cached_property
    def module_before_other_bases(self) -> bool:
        """The class lists module bases (provably modules, as `provably_module` asks) first and
        other classes after them (`class Net(nn.Module, Mixin)`), with no metaclass or other
        keyword: `nn.Module`'s methods (`__setattr__`, `__getattr__`, `__call__`) come first in
        its method resolution order, whatever the other classes define."""
        kinds = list(self.base_kinds())
        if self.node.keywords or "other" not in kinds or kinds[0] == "other":
            return False
        first_other = kinds.index("other")
        if any(kind != "other" for kind in kinds[first_other:]):
            return False
        if any(base.keyword is not None or base.star for base in self.node.bases):
            return False
        return all(base._provable(frozenset({id(self.node)})) for base in self.local_bases)

    @cached_property
    def direct_module_only(self) -> bool:
        """The class's only base is `nn.Module` itself."""
        return list(self.base_kinds()) == ["module"]

    def lineage(self) -> Iterator["NnModuleClass"]:
        """The class and its ancestors among the module classes of this file."""
        pending, seen = [self], set()
        while pending:
            current = pending.pop()
            if id(current.node) in seen:
                continue
            seen.add(id(current.node))
            yield current
            pending.extend(current.local_bases)

    def only_plain_module_ancestry(self) -> bool:
        """Every ancestor outside the file is `nn.Module` itself (no torch class with a `forward`)."""
        return self.provably_module and all(kind in ("module", "local") for cls in self.lineage() for kind in cls.base_kinds())

    def defines_in_lineage(self, name: str) -> bool:
        """`name` is a method or class attribute of the class or of one of its ancestors of this file."""
        return any(name in cls.methods or name in cls.class_attributes for cls in self.lineage())

    @cached_property
    def self_assignments(self) -> tuple[SelfAssignment, ...]:
        """`self.x = ...` (and `self.x: T = ...`, `self.x += ...`) in every method, nested blocks included."""
        found: list[SelfAssignment] = []
        for method in self.methods.values():
            instance = self_name(method)
            if instance is None or any(dotted_name(d.decorator) in _NO_INSTANCE_DECORATORS for d in method.decorators):
                continue
            for statement in iter_statements(method.body.body):
                for target, value in _assigned(statement):
                    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == instance:
                        found.append(SelfAssignment(method, target.attr.value, value, statement))
        return tuple(found)

    @cached_property
    def init_needs_module_state(self) -> bool:
        """`__init__` itself (not a function or class nested in it) assigns to `self` a module,
        a parameter or a buffer it builds (`self.fc = nn.Linear(2, 2)`, `self.w =
        nn.Parameter(...)`, also through `.to(device)`), or calls on `self` a method of
        `nn.Module` that needs its state and that the class does not define itself
        (`self.register_buffer(...)`, `self.apply(init)`, `self.to(device)`): without
        `nn.Module.__init__` each raises AttributeError while the instance is built."""
        init = self.init
        instance = self_name(init) if init is not None else None
        if instance is None:
            return False
        for node in _own_code(init.body):
            if isinstance(node, (cst.Assign, cst.AnnAssign)):
                if any(_is_attribute_of(target, instance) and self._owner.builds_module_state(value) for target, value in _assigned(node)):
                    return True
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and _is_attribute_of(node.func, instance):
                method = node.func.attr.value
                if method in _STATE_METHODS and not self.defines_in_lineage(method):
                    return True
        return False

    def assignments_to(self, attribute: str) -> list[SelfAssignment]:
        return [a for a in self.self_assignments if a.attribute == attribute]

    def subclasses(self) -> list["NnModuleClass"]:
        return [cls for cls in self._owner if cls is not self and self in cls.lineage()]

    @cached_property
    def parameter_free(self) -> bool:
        """An instance holds nothing whose registration matters: no parameter, no training mode, no
        buffer of its own, and only sub-modules that are parameter-free themselves (`nn.ReLU()`,
        torchaudio's `Resample`, another such class of the file). Its ancestors outside the file
        are `nn.Module` itself, and everything its methods store on `self` is a plain value (a
        literal, an argument whose default is one, a torch factory's tensor) or such a module."""
        return self._owner.parameter_free(self)


class NnModuleClasses:
    """The module classes of one file. A name defined more than once (`class Net` written twice,
    or once per branch) is a class per definition: a base names the definition written before the
    class that names it, and `by_name` holds the last one, which the name means once the file ran."""

    def __init__(self, module: cst.Module, imports: ImportMap) -> None:
        self.module = module
        self.imports = imports
        classes = [s for s in iter_statements(module.body) if isinstance(s, cst.ClassDef)]
        self._definitions: dict[str, list[cst.ClassDef]] = {}
        for cls in classes:
            self._definitions.setdefault(cls.name.value, []).append(cls)
        self._position = {id(cls): position for position, cls in enumerate(classes)}
        self._by_node: dict[int, NnModuleClass] = {}
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if id(cls) not in self._by_node and any(self._is_module_base(base, cls) for base in cls.bases):
                    self._by_node[id(cls)] = NnModuleClass(cls, self)
                    changed = True
        self.by_name: dict[str, NnModuleClass] = {
            name: self._by_node[id(definitions[-1])]
            for name, definitions in self._definitions.items()
            if id(definitions[-1]) in self._by_node
        }

    def _is_module_base(self, base: cst.Arg, cls: cst.ClassDef) -> bool:
        if base.keyword is not None or base.star:
            return False
        if self.base_class(base.value, cls) is not None:
            return True
        return _is_torch_module_class(self.imports.qualified_name(base.value) or "")

    def base_class(self, base: cst.BaseExpression, cls: cst.ClassDef) -> Optional[NnModuleClass]:
        """The module class of this file the base `base` of `cls` names: the one definition of
        the name, or, for a name defined several times, the last written before `cls`."""
        if not isinstance(base, cst.Name):
            return None
        definitions = [d for d in self._definitions.get(base.value, []) if d is not cls]
        if len(definitions) > 1 or base.value == cls.name.value:
            definitions = [d for d in definitions if self._position[id(d)] < self._position[id(cls)]][-1:]
        return self._by_node.get(id(definitions[0])) if len(definitions) == 1 else None

    def of(self, node: cst.ClassDef) -> Optional[NnModuleClass]:
        return self._by_node.get(id(node))

    def __iter__(self) -> Iterator[NnModuleClass]:
        return iter(self._by_node.values())

    def constructs_module(self, node: cst.BaseExpression) -> bool:
        """`node` builds a new module: `nn.Linear(...)`, a module class of this file, a torchvision
        model (`models.resnet18()`) or `timm.create_model(...)`. A module passed in is not built."""
        if not isinstance(node, cst.Call):
            return False
        if isinstance(node.func, cst.Name) and node.func.value in self.by_name:
            return True
        qualified = self.imports.qualified_name(node.func) or ""
        return _is_torch_module_class(qualified) or qualified.startswith("torchvision.models.") or qualified in _MODEL_FACTORIES

    def builds_module_state(self, node: cst.BaseExpression) -> bool:
        """`node` builds what `nn.Module.__setattr__` keeps in the module's own dictionaries: a
        module (`constructs_module`), a parameter or a buffer, also through the methods that
        return it (`nn.Linear(2, 2).to(device)`, `nn.Parameter(t).cuda()`)."""
        while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _RETURNS_SELF:
            node = node.func.value
        if self.constructs_module(node):
            return True
        return isinstance(node, cst.Call) and self.imports.qualified_name(node.func) in _STATE_CLASSES

    def builds_stateful_module(self, node: cst.BaseExpression) -> bool:
        """`node` builds a module with parameters, buffers or a training mode (not `nn.ReLU()`, nor
        a module class of this file that is `parameter_free`)."""
        return self.constructs_module(node) and not self.builds_parameter_free_module(node)

    def builds_parameter_free_module(self, node: cst.BaseExpression) -> bool:
        """`node` builds a module without parameters, state of its own or a training mode: a
        stateless `torch.nn` layer, a parameter-free torchaudio transform, a `parameter_free`
        module class of this file."""
        return self._builds_parameter_free(node, frozenset())

    def _builds_parameter_free(self, node: cst.BaseExpression, seen: frozenset[int]) -> bool:
        if not isinstance(node, cst.Call):
            return False
        if isinstance(node.func, cst.Name) and node.func.value in self.by_name:
            cls = self.by_name[node.func.value]
            return self._parameter_free(cls, seen) if seen else cls.parameter_free  # judged once per class
        qualified = self.imports.qualified_name(node.func) or ""
        if qualified.startswith("torch.nn."):
            return qualified.rsplit(".", 1)[-1] in STATELESS_LAYERS
        return qualified in TORCHAUDIO_PARAMETER_FREE

    def parameter_free(self, cls: NnModuleClass) -> bool:
        return self._parameter_free(cls, frozenset())

    def _parameter_free(self, cls: NnModuleClass, seen: frozenset[int]) -> bool:
        if id(cls.node) in seen or not cls.only_plain_module_ancestry():
            return False
        seen = seen | {id(cls.node)}
        return all(self._holds_nothing(member, seen) for member in cls.lineage())

    def _holds_nothing(self, cls: NnModuleClass, seen: frozenset[int]) -> bool:
        """No method of `cls` registers state by hand, reads the training mode, or stores on
        `self` anything but plain values and parameter-free modules."""
        if any(_registers_state(node, self.imports) for node in descendants(cls.node)):
            return False
        if any(
            _stores_out_of_sight(statement, self_name(method))
            for method in cls.methods.values()
            for statement in iter_statements(method.body.body)
        ):
            return False
        return all(
            self._builds_parameter_free(assignment.value, seen) or _plain_value(assignment.value, assignment.method, self.imports)
            for assignment in cls.self_assignments
        )

    def spelling(self, qualified: str) -> Optional[str]:
        """How the file names `torch.nn.<X>` (`nn.ModuleList` or `torch.nn.ModuleList`), if it can."""
        leaf = qualified.rsplit(".", 1)[-1]
        for candidate in (f"nn.{leaf}", qualified):
            if self.imports.qualified_name(cst.parse_expression(candidate)) == qualified:
                return candidate
        return None

    @cached_property
    def referenced_names(self) -> dict[str, int]:
        """How many times each identifier occurs in the file as a name or an attribute."""
        counts: dict[str, int] = {}
        for node in descendants(self.module):
            if isinstance(node, cst.Name):
                counts[node.value] = counts.get(node.value, 0) + 1
            elif isinstance(node, cst.SimpleString) and node.value[1:-1].isidentifier():
                counts[node.value[1:-1]] = counts.get(node.value[1:-1], 0) + 1  # getattr(m, "name")
        return counts


def _is_torch_module_class(qualified: str) -> bool:
    """`torch.nn.Linear`, `torch.nn.Module`, `torchvision.models.ResNet`: a module class."""
    if not qualified.startswith(("torch.nn.", "torchvision.models.")):
        return False
    parts = qualified.split(".")
    last = parts[-1]
    if qualified.startswith("torch.nn.") and parts[2] in ("functional", "init", "utils", "parameter"):
        return False
    return last[:1].isupper() and last not in _NOT_MODULES and not last.isupper()


def _is_attribute_of(node: cst.BaseExpression, instance: str) -> bool:
    """`<instance>.<name>`."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == instance


def _own_code(body: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of a function body, without the functions, lambdas and classes nested in it."""
    pending = [body]
    while pending:
        current = pending.pop()
        yield current
        pending.extend(child for child in iter_children(current) if not isinstance(child, (cst.FunctionDef, cst.ClassDef, cst.Lambda)))


def _class_body(node: cst.ClassDef) -> list[cst.CSTNode]:
    if isinstance(node.body, cst.IndentedBlock):
        return list(node.body.body)
    return []


def _assigned(statement: cst.CSTNode) -> Iterator[tuple[cst.BaseExpression, cst.BaseExpression]]:
    if isinstance(statement, cst.Assign):
        for target in statement.targets:
            yield target.target, statement.value
    elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
        yield statement.target, statement.value


PARAMETER_CLASSES = torch_api.functions("parameter")
# Tensor methods that return the tensor itself when nothing changes, a converted copy otherwise.
CONVERSIONS = torch_api.module_methods("converts")


def parameter_conversion(node: cst.BaseExpression, imports: ImportMap) -> Optional[tuple[cst.Call, cst.Arg]]:
    """`nn.Parameter(t).cuda()`, `Parameter(t).half().to(d)`: conversions applied to a parameter
    just made. Returns the `Parameter(...)` call and its data argument."""
    if not _is_conversion(node):
        return None
    receiver = node.func.value
    while _is_conversion(receiver):
        receiver = receiver.func.value
    if not isinstance(receiver, cst.Call) or imports.qualified_name(receiver.func) not in PARAMETER_CLASSES:
        return None
    for position, arg in enumerate(receiver.args):
        if (position == 0 and arg.keyword is None and not arg.star) or (arg.keyword is not None and arg.keyword.value == "data"):
            return receiver, arg
    return None


def _is_conversion(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in CONVERSIONS


# torch.nn modules without parameters, buffers or a training mode: losing them from a container
# changes nothing.
STATELESS_LAYERS = torch_api.short_names(torch_api.functions("stateless"))
# torchaudio's transforms without parameters or a training mode, measured with torchaudio 2.11 under
# torch 2.13 (torchaudio is not installed with gradlint's tests): their buffers, where they have any,
# are computed from the constructor's arguments (a window, a mel filterbank, a resampling kernel),
# so a checkpoint loses nothing without them. Not `MVDR` (running estimates) nor `PitchShift` (a
# lazy parameter).
TORCHAUDIO_PARAMETER_FREE = frozenset(
    f"torchaudio.transforms.{name}"
    for name in (
        "AddNoise", "AmplitudeToDB", "ComputeDeltas", "Convolve", "Deemphasis", "FFTConvolve", "Fade", "FrequencyMasking",
        "GriffinLim", "InverseMelScale", "InverseSpectrogram", "LFCC", "Loudness", "MFCC", "MelScale", "MelSpectrogram",
        "MuLawDecoding", "MuLawEncoding", "PSD", "Preemphasis", "RNNTLoss", "RTFMVDR", "Resample", "SlidingWindowCmn",
        "SoudenMVDR", "SpecAugment", "SpectralCentroid", "Spectrogram", "Speed", "SpeedPerturbation", "TimeMasking",
        "TimeStretch", "Vad", "Vol",
    )
)  # fmt: skip
# Calls that register state on a module by hand.
_REGISTERING_METHODS = torch_api.module_methods("registers")
# Builtins whose result is a plain number or string.
_PLAIN_BUILTINS = frozenset({"int", "float", "round", "str", "bool", "len", "abs", "min", "max"})
_SCALAR_ANNOTATIONS = frozenset({"int", "float", "str", "bool"})
_TENSOR_FACTORIES = torch_api.functions("factory")


def _registers_state(node: cst.CSTNode, imports: ImportMap) -> bool:
    """`self.register_buffer(...)`, `setattr(self, ...)`, `nn.Parameter(...)`, a read of `.training`."""
    if isinstance(node, cst.Attribute) and node.attr.value == "training":
        return True
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    if isinstance(func, cst.Attribute) and func.attr.value in _REGISTERING_METHODS:
        return True
    if isinstance(func, cst.Name) and func.value == "setattr":
        return True
    return imports.qualified_name(func) in PARAMETER_CLASSES


def _stores_out_of_sight(statement: cst.CSTNode, instance: Optional[str]) -> bool:
    """An attribute of `self` stored where `self_assignments` does not look: an unpacking, an
    augmented assignment, a loop or `with` target."""
    if instance is None:
        return False
    if isinstance(statement, cst.Assign):
        targets = [t.target for t in statement.targets if not isinstance(t.target, (cst.Attribute, cst.Name))]
    elif isinstance(statement, cst.AugAssign):
        targets = [statement.target]
    elif isinstance(statement, cst.For):
        targets = [statement.target]
    elif isinstance(statement, cst.With):
        targets = [item.asname.name for item in statement.items if item.asname is not None]
    else:
        return False
    return any(
        isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == instance
        for target in targets
        for node in descendants(target)
    )


def _plain_value(value: cst.BaseExpression, method: cst.FunctionDef, imports: ImportMap) -> bool:
    """A value stored on `self` that is evidently no module and no parameter: a literal, an
    argument of `method` whose default is a literal (not None) or whose annotation is a scalar
    type, an attribute of `self`, arithmetic on such values, a builtin's number or a torch
    factory's tensor (a plain tensor attribute is not registered)."""
    if isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("True", "False") or _plain_argument(value.value, method)
    if isinstance(value, cst.Attribute):
        return isinstance(value.value, cst.Name) and value.value.value == self_name(method)
    if isinstance(value, cst.UnaryOperation):
        return _plain_value(value.expression, method, imports)
    if isinstance(value, (cst.BinaryOperation, cst.BooleanOperation)):
        return _plain_value(value.left, method, imports) and _plain_value(value.right, method, imports)
    if isinstance(value, cst.Comparison):
        return True
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _plain_value(e.value, method, imports) for e in value.elements)
    if isinstance(value, cst.Call):
        if isinstance(value.func, cst.Name) and value.func.value in _PLAIN_BUILTINS:
            return True
        return imports.qualified_name(value.func) in _TENSOR_FACTORIES
    return False


def _plain_argument(name: str, method: cst.FunctionDef) -> bool:
    params = method.params
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        if param.name.value != name:
            continue
        annotation = param.annotation.annotation if param.annotation is not None else None
        if isinstance(annotation, cst.Name) and annotation.value in _SCALAR_ANNOTATIONS:
            return True
        default = param.default
        return default is not None and _literal(default)
    return False


def _literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False")
    if isinstance(node, cst.UnaryOperation):
        return _literal(node.expression)
    if isinstance(node, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _literal(e.value) for e in node.elements)
    return False


def container_items(value: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The items a list, tuple or dict display (or comprehension) holds: the values for a dict,
    the element expression for a comprehension. None for anything else."""
    if isinstance(value, (cst.List, cst.Tuple)):
        return [e.value for e in value.elements if isinstance(e, cst.Element)]
    if isinstance(value, cst.Dict):
        return [e.value for e in value.elements if isinstance(e, cst.DictElement)]
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return [value.elt]
    if isinstance(value, cst.DictComp):
        return [value.value]
    return None


def appended_items(function: cst.FunctionDef, receiver: str) -> list[cst.BaseExpression]:
    """What `function` appends to `receiver` (`self.layers`, `layers`) with `.append(x)` or `.insert(i, x)`."""
    found: list[cst.BaseExpression] = []
    for node in descendants(function.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("append", "insert"):
            if dotted_name(node.func.value) == receiver and node.args:
                found.append(node.args[-1].value)
    return found


def sole_list_binding(function: cst.FunctionDef, name: str) -> Optional[cst.List]:
    """The list display a local `name` of `function` is bound to, when that is its only binding."""
    bindings = [
        value
        for statement in iter_statements(function.body.body)
        for target, value in _assigned(statement)
        if isinstance(target, cst.Name) and target.value == name
    ]
    if len(bindings) != 1 or not isinstance(bindings[0], cst.List):
        return None
    if any(
        isinstance(node, (cst.For, cst.AugAssign, cst.NamedExpr, cst.CompFor)) and _binds(node, name) for node in descendants(function.body)
    ):
        return None
    return bindings[0]


def _binds(node: cst.CSTNode, name: str) -> bool:
    target = node.target
    return any(isinstance(part, cst.Name) and part.value == name for part in descendants(target))


def calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    for child in descendants(node):
        if isinstance(child, cst.Call):
            yield child
