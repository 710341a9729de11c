"""What in a file relies on the machinery `nn.Module` gives its instances:

- `call_machinery`: the first call that attaches code only calling a module runs (a hook, a
  hook-based utility such as `torch.nn.utils.weight_norm`, pruning, `fully_shard`, quantization's
  `prepare`, compilation in place): `module.forward(x)` skips it, `module(x)` runs it. A file that
  attaches none gives `module.forward(x)` and `module(x)` the same meaning as far as it shows.
- `ModuleInstanceUses`: which module classes of the file have an instance used as a module in it
  (called, moved, asked for its parameters or state, registered in another module): each of those
  raises AttributeError unless `nn.Module.__init__` ran.

What torch's API does is read from the API table (`call-only` and `needs-init` rows).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.nn_module_classes import NnModuleClass, NnModuleClasses
from gradlint.analysis.nn_modules import NnModuleEvidence
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.scopes import self_name
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants

CALL_ONLY_FUNCTIONS = torch_api.functions("call-only")
CALL_ONLY_METHODS = torch_api.module_methods("call-only")
# Module methods that raise on an instance whose `nn.Module.__init__` never ran.
STATE_METHODS = torch_api.module_methods("needs-init")
MODULE_CONTAINERS = torch_api.functions("module-container")
# A method name other objects have too (`re.compile`, a CUDA program's `compile()`): only on a module.
_COMPILE = CALL_ONLY_METHODS - torch_api.module_methods("module-only")
_CALL_ONLY_WORDS = tuple(sorted(CALL_ONLY_METHODS | torch_api.short_names(CALL_ONLY_FUNCTIONS)))


def call_machinery(nodes: NodeIndex, text: str, imports: ImportMap, modules: NnModuleEvidence) -> Optional[cst.Call]:
    """The first call of the file (in source order) that attaches to a module code only calling
    it runs: `m.register_forward_hook(...)` and the other hook registrations (on anything but an
    imported name), `m.compile()` on a module (not `re.compile`, nor a CUDA program's), and the
    table's `call-only` functions (`weight_norm`, `prune.l1_unstructured`, `fully_shard`,
    `prepare`, the global `register_module_forward_hook`...). None when the file makes none."""
    if not any(word in text for word in _CALL_ONLY_WORDS):
        return None  # the walk is needed only when a file spells one of them
    for node in nodes.subtree(nodes.root):
        if isinstance(node, cst.Call) and _attaches_call_machinery(node, nodes, imports, modules):
            return node
    return None


def _attaches_call_machinery(call: cst.Call, nodes: NodeIndex, imports: ImportMap, modules: NnModuleEvidence) -> bool:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in CALL_ONLY_METHODS and imports.qualified_name(func.value) is None:
        if func.attr.value not in _COMPILE:
            return True
        stack = [*reversed(list(nodes.ancestors(call))), call]
        return modules.is_module(func.value, stack)
    return imports.qualified_name(func) in CALL_ONLY_FUNCTIONS


class ModuleInstanceUses:
    """Which module classes of the file have an instance used as a module in the file. The
    constructions of the file's module classes are found with one walk, on the first question;
    each class's are then followed when it is asked about."""

    def __init__(self, module: cst.Module, imports: ImportMap, nodes: NodeIndex, classes: NnModuleClasses) -> None:
        self._module = module
        self._imports = imports
        self._nodes = nodes
        self._classes = classes
        self._constructions: Optional[dict[str, list[cst.Call]]] = None  # class name -> the calls of that name
        self._answers: dict[str, bool] = {}

    def used_as_module(self, cls: NnModuleClass) -> bool:
        """An instance of `cls` (built by its name in this file) is called (`Net()(x)`, `net(x)`),
        given a method that needs `nn.Module`'s state (`net.to(device)`, `net.parameters()`,
        `net.eval()`...), or registered in another module (`self.block = Block()` in a module
        class, `nn.Sequential(Block())`), directly or through the name it is bound to."""
        if cls.name not in self._answers:
            if self._constructions is None:
                self._constructions = {}
                for node in descendants(self._module):
                    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in self._classes.by_name:
                        self._constructions.setdefault(node.func.value, []).append(node)
            calls = self._constructions.get(cls.name, [])
            self._answers[cls.name] = any(self._instance_used(call, cls) for call in calls)
        return self._answers[cls.name]

    def _instance_used(self, construction: cst.Call, cls: NnModuleClass) -> bool:
        if self._used_in_place(construction, cls):
            return True
        assignment = self._nodes.parent(construction)
        if not isinstance(assignment, cst.Assign) or assignment.value is not construction:
            return False
        return any(self._bound_instance_used(target.target, construction, cls) for target in assignment.targets)

    def _used_in_place(self, instance: cst.BaseExpression, cls: NnModuleClass) -> bool:
        """`instance` (a construction, or a read of the name or attribute holding one) is called,
        given a state method the class does not define itself, or handed to a module container
        where it is written."""
        parent = self._nodes.parent(instance)
        if isinstance(parent, cst.Call) and parent.func is instance:
            return True
        if isinstance(parent, cst.Attribute) and parent.value is instance:
            method = parent.attr.value
            call = self._nodes.parent(parent)
            return method in STATE_METHODS and not cls.defines_in_lineage(method) and isinstance(call, cst.Call) and call.func is parent
        return self._in_module_container(instance)

    def _in_module_container(self, node: cst.CSTNode) -> bool:
        """`nn.Sequential(node)`, `nn.ModuleList([node, ...])`, `nn.ModuleList([node for ...])`."""
        current = self._nodes.parent(node)
        while isinstance(current, (cst.Element, cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp, cst.DictElement, cst.Dict)):
            current = self._nodes.parent(current)
        if not isinstance(current, cst.Arg):
            return False
        call = self._nodes.parent(current)
        return isinstance(call, cst.Call) and self._imports.qualified_name(call.func) in MODULE_CONTAINERS

    def _bound_instance_used(self, target: cst.BaseExpression, construction: cst.Call, cls: NnModuleClass) -> bool:
        """The instance bound to `target` is used as a module: a local name read so in its
        function (or at module level), or an attribute of `self` registered in a module class
        or read so in the class's methods."""
        if isinstance(target, cst.Name):
            scope = self._nodes.enclosing_function(construction) or self._module
            reads = [
                node for node in descendants(scope) if isinstance(node, cst.Name) and node.value == target.value and node is not target
            ]
            return any(self._used_in_place(read, cls) for read in reads)
        owner = self._nodes.enclosing_class(construction)
        method = self._nodes.enclosing_function(construction)
        if not isinstance(target, cst.Attribute) or owner is None or method is None:
            return False
        instance = self_name(method)
        if not (isinstance(target.value, cst.Name) and target.value.value == instance):
            return False
        if self._classes.of(owner) is not None:
            return True  # a sub-module of a module class: every use of that module reaches it
        written = dotted_name(target)
        return any(
            isinstance(node, cst.Attribute) and node is not target and dotted_name(node) == written and self._used_in_place(node, cls)
            for node in descendants(owner)
        )
