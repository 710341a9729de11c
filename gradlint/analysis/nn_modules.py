"""Is an expression an `nn.Module` instance? (For rules about module-level attributes.)"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.roles import MODULE_INSTANCE
from gradlint.analysis.scopes import ScopeTable, enclosing_scope, self_name
from gradlint.analysis.syntax import dotted_name, iter_statements
from gradlint.analysis.tree import descendants

# Capitalised names of torch.nn that build tensors, not modules.
TENSOR_CLASSES = torch_api.short_names(torch_api.functions("parameter") | torch_api.functions("buffer"))
# Module containers whose items (and slices) are modules; ParameterList/ParameterDict hold tensors.
MODULE_CONTAINERS = torch_api.functions("module-container")
TENSOR_CONTAINERS = torch_api.short_names(torch_api.functions("parameter-container"))


class NnModuleEvidence:
    def __init__(self, module: cst.Module, imports: ImportMap, scopes: ScopeTable) -> None:
        self.imports = imports
        self.scopes = scopes
        self.module_classes = self._module_classes(module)
        self.attribute_values: dict[str, list[cst.BaseExpression]] = {}  # `self.embedding` -> assigned values
        for statement in iter_statements(module.body):
            if isinstance(statement, cst.Assign):
                for target in statement.targets:
                    if isinstance(target.target, cst.Attribute):
                        name = dotted_name(target.target)
                        if name is not None:
                            self.attribute_values.setdefault(name, []).append(statement.value)

    def _module_classes(self, module: cst.Module) -> set[str]:
        """Classes of this file that subclass nn.Module, directly or through each other."""
        classes = [s for s in iter_statements(module.body) if isinstance(s, cst.ClassDef)]
        found: set[str] = set()
        changed = True
        while changed:
            changed = False
            for cls in classes:
                if cls.name.value in found:
                    continue
                if any(self._is_module_class(base.value, found) for base in cls.bases):
                    found.add(cls.name.value)
                    changed = True
        return found

    def _is_module_class(self, node: cst.BaseExpression, local: set[str]) -> bool:
        if isinstance(node, cst.Name) and node.value in local:
            return True
        qualified = self.imports.qualified_name(node) or ""
        last = qualified.rsplit(".", 1)[-1]
        return qualified.startswith(("torch.nn.", "torchvision.models.")) and last[:1].isupper() and last not in TENSOR_CLASSES

    def instance_of_method(self, stack: Sequence[cst.CSTNode]) -> Optional[str]:
        """The instance parameter (`self`) of the method of an `nn.Module` subclass of this file
        that the node at the end of `stack` is written in, its nested functions included; None
        outside such a class and in static and class methods, which have no instance."""
        owner, method = _class_and_method(stack)
        if owner is None or method is None or owner.name.value not in self.module_classes:
            return None
        if any(dotted_name(d.decorator) in _NO_INSTANCE_DECORATORS for d in method.decorators):
            return None
        return self_name(method)

    def consults_mode(self, stack: Sequence[cst.CSTNode], instance: str) -> bool:
        """The method around the node at the end of `stack` tests `<instance>.training` in a
        condition (`if self.training:`, `x if self.training else y`, `if not self.training: return`):
        it decides per mode itself."""
        _, method = _class_and_method(stack)
        if method is None:
            return False
        flag = f"{instance}.training"
        for node in descendants(method.body):
            if isinstance(node, (cst.If, cst.IfExp, cst.While, cst.Assert)):
                if any(dotted_name(part) == flag for part in descendants(node.test)):
                    return True
        return False

    def is_module_item(self, node: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> bool:
        """A module reached through a container: `model.layers[0]`, `model.features[:10]`, or `m`
        in `for m in model.features[:10]`."""
        if isinstance(node, cst.Subscript):
            return self.holds_modules(node.value, stack)
        return isinstance(node, cst.Name) and self._iterates_modules(node.value, stack)

    def is_module(self, node: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> bool:
        if isinstance(node, cst.Name) and node.value == "self":
            owner = _enclosing_class(stack)
            return owner is not None and owner.name.value in self.module_classes
        name = dotted_name(node)
        if name is None:
            return False
        if isinstance(node, cst.Name):
            values = self.scopes.values_of(node.value, enclosing_scope(stack))
            if any(self.constructs_module(value) for value in values):
                return True
            if values:
                return False
        else:
            values = self.attribute_values.get(name, [])
            if any(self.constructs_module(value) for value in values):
                return True
            if any(self._constructs_tensor(value) for value in values):
                return False  # `self.embedding = nn.Parameter(...)`
        return bool(MODULE_INSTANCE.match(name.rsplit(".", 1)[-1]))

    def holds_modules(self, node: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> bool:
        """`node` is a Sequential/ModuleList/ModuleDict, so its items and slices are modules:
        `model[0]` on a module, `self.layers` built as `nn.ModuleList(...)` in this file,
        `model.features` of a torchvision model."""
        if isinstance(node, cst.Attribute):
            built = [v for key, values in self.attribute_values.items() if key.rsplit(".", 1)[-1] == node.attr.value for v in values]
            if built and all(self._constructs_container(value) for value in built):
                return self.is_module(node.value, stack) or dotted_name(node) in self.attribute_values
            owner = node.value
            if isinstance(owner, cst.Name) and not built:
                values = self.scopes.values_of(owner.value, enclosing_scope(stack))
                return bool(values) and all(self._constructs_torchvision_model(value) for value in values)
            return False
        name = dotted_name(node)
        values = self.scopes.values_of(node.value, enclosing_scope(stack)) if isinstance(node, cst.Name) else []
        if values:
            return all(self._constructs_container(value) or self._constructs_torchvision_model(value) for value in values)
        return name is not None and isinstance(node, cst.Name) and self.is_module(node, stack)

    def _iterates_modules(self, name: str, stack: Sequence[cst.CSTNode]) -> bool:
        """`m` in `for m in model.features[:10]` or `for m in self.layers`: each item is a module."""
        scope = enclosing_scope(stack)
        sources = self.scopes.loop_sources_of(name, scope)
        if not sources or self.scopes.values_of(name, scope):
            return False
        return all(
            position is None
            and (
                (isinstance(source, cst.Subscript) and self.holds_modules(source.value, stack))
                or (isinstance(source, cst.Attribute) and self.holds_modules(source, stack))
            )
            for source, position in sources
        )

    def _constructs_container(self, value: cst.BaseExpression) -> bool:
        return isinstance(value, cst.Call) and self.imports.qualified_name(value.func) in MODULE_CONTAINERS

    def _constructs_torchvision_model(self, value: cst.BaseExpression) -> bool:
        """`torchvision.models.vgg16(...)`: a model whose indexable attributes are Sequentials."""
        if not isinstance(value, cst.Call):
            return False
        qualified = self.imports.qualified_name(value.func) or ""
        return qualified.startswith("torchvision.models.") and qualified.rsplit(".", 1)[-1][:1].islower()

    def _constructs_tensor(self, value: cst.BaseExpression) -> bool:
        """`nn.Parameter(...)`, `torch.randn(...)`, `torch.zeros(...)`..."""
        if not isinstance(value, cst.Call):
            return False
        parts = (self.imports.qualified_name(value.func) or "").split(".")
        return parts[0] == "torch" and (parts[-1] in TENSOR_CLASSES or (len(parts) == 2 and parts[1][:1].islower()))

    def is_built_module(self, node: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> bool:
        """`node` is a name or attribute chain that this file binds only to module constructions:
        `model = Net().to(device)` in the enclosing scope, `self.fc = nn.Linear(4, 2)` in a method
        of the class; a parameter, a loop variable or a value built elsewhere is not evidence."""
        return bool(self.module_constructions(node, stack))

    def module_constructions(self, node: cst.BaseExpression, stack: Sequence[cst.CSTNode]) -> list[cst.Call]:
        """The constructor calls of the modules `node` is bound to (`Net()` for `model =
        Net().to(device)`), when `is_built_module`; else empty."""
        if isinstance(node, cst.Name):
            values = self.scopes.of(enclosing_scope(stack)).plain_values(node.value)
            if values is None:
                return []
        elif isinstance(node, cst.Attribute):
            values = [value for value, _ in self.scopes.instance_attribute_values(node, enclosing_scope(stack))]
            if not values:
                key = dotted_name(node)
                values = self.attribute_values.get(key, []) if key is not None and not key.startswith("self.") else []
        else:
            return []
        constructions = [_without_returns_self(value) for value in values]
        return constructions if constructions and all(self._constructs_module(value) for value in constructions) else []

    def constructs_module(self, value: cst.BaseExpression) -> bool:
        """`value` builds a module: `nn.Linear(4, 2)`, a module class of this file, a torchvision
        model, also through the methods that return the module itself (`Net().to(device).eval()`)."""
        return self._constructs_module(_without_returns_self(value))

    def _constructs_module(self, value: cst.BaseExpression) -> bool:
        if not isinstance(value, cst.Call):
            return False
        return self._is_module_class(value.func, self.module_classes) or (
            (self.imports.qualified_name(value.func) or "").startswith("torchvision.models.")
        )


_NO_INSTANCE_DECORATORS = frozenset({"staticmethod", "classmethod"})
# nn.Module methods that return the module they are called on.
_RETURN_SELF = torch_api.module_methods("returns-self")


def _without_returns_self(value: cst.BaseExpression) -> cst.BaseExpression:
    """`Net()` for `Net().to(device).eval()`."""
    while isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value in _RETURN_SELF:
        value = value.func.value
    return value


def _class_and_method(stack: Sequence[cst.CSTNode]) -> tuple[Optional[cst.ClassDef], Optional[cst.FunctionDef]]:
    """The innermost class around the end of `stack`, and its method the end is written in."""
    owner = _enclosing_class(stack)
    if owner is None:
        return None, None
    position = next(i for i, node in enumerate(stack) if node is owner)
    return owner, next((node for node in stack[position + 1 :] if isinstance(node, cst.FunctionDef)), None)


def _enclosing_class(stack: Sequence[cst.CSTNode]) -> Optional[cst.ClassDef]:
    for node in reversed(stack):
        if isinstance(node, cst.ClassDef):
            return node
    return None
