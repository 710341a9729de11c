"""Which state dicts come straight from a checkpoint file, with nothing in the function adapting
their keys to the model or looking at the keys a load reports."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.tree import descendants

CHECKPOINT_READERS = frozenset(
    {
        "torch.load",
        "torch.hub.load_state_dict_from_url",
        "torch.utils.model_zoo.load_url",
        "safetensors.torch.load_file",
        "safetensors.torch.load",
    }
)
# Words that show the function looks at what a load matched.
KEY_CHECKS = ("missing_keys", "unexpected_keys", "incompatible_keys")
# Methods that edit a dict's keys in place (renaming, dropping).
KEY_EDITS = frozenset({"pop", "popitem", "update", "clear", "setdefault"})


class CheckpointEvidence:
    def __init__(self, imports: ImportMap, scopes: ScopeTable) -> None:
        self.imports = imports
        self.scopes = scopes

    def read_from_file(self, node: cst.BaseExpression, scope: Scope, depth: int = 0) -> Optional[cst.Call]:
        """The reading call when `node` is a checkpoint file's content as read (`torch.load(p)`,
        `ckpt["model"]` of one, a name every binding of which is one, its keys untouched in `scope`)."""
        if depth > 4:
            return None
        if isinstance(node, cst.Call):
            return node if self.imports.qualified_name(node.func) in CHECKPOINT_READERS else None
        if isinstance(node, cst.Subscript):
            return self.read_from_file(node.value, scope, depth + 1)
        if not isinstance(node, cst.Name):
            return None
        bindings = self.scopes.of(scope)
        values = bindings.assigned(node.value)
        if not values or node.value in bindings.opaque or self._keys_edited(node.value, scope):
            return None
        # `sd = sd["model"]` narrows the same checkpoint
        own = [value for value in values if not (isinstance(value, cst.Subscript) and dotted_name(value.value) == node.value)]
        found = [self.read_from_file(value, scope, depth + 1) for value in own]
        return found[0] if found and all(found) else None

    def checks_load_result(self, scope: Scope) -> bool:
        """The function looks at the keys a load reports (`result.missing_keys`...)."""
        return any(isinstance(node, cst.Name) and node.value in KEY_CHECKS for node in descendants(scope))

    def _keys_edited(self, name: str, scope: Scope) -> bool:
        """`sd[k] = v`, `del sd[k]`, `sd.pop(k)`, `sd.update(...)` in the scope: keys adapted to the model."""
        for node in descendants(scope):
            if isinstance(node, (cst.AssignTarget, cst.Del)):
                target = node.target
                if isinstance(target, cst.Subscript) and dotted_name(target.value) == name:
                    return True
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                if node.func.attr.value in KEY_EDITS and dotted_name(node.func.value) == name:
                    return True
        return False
