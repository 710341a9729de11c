"""Which attributes a file reads (as opposed to only assigning them)."""

from __future__ import annotations

from functools import cached_property
from typing import Optional

import libcst as cst

from gradlint.analysis.tree import iter_children


class AttributeReads:
    def __init__(self, module: cst.Module) -> None:
        self.module = module

    @cached_property
    def _reads(self) -> list[cst.Attribute]:
        """Every attribute expression of the file that is not an assignment target."""
        return [node for node, parent in _attributes(self.module) if not isinstance(parent, cst.AssignTarget)]

    @cached_property
    def names(self) -> set[str]:
        """Attribute names read somewhere: `cfg.require_grad` read back makes `require_grad` one."""
        return {node.attr.value for node in self._reads}

    def texts(self, attribute: str) -> set[str]:
        """The source text of every read of `attribute`: {'self.requires_grad', 'model.requires_grad'}."""
        return {self.module.code_for_node(node).strip() for node in self._reads if node.attr.value == attribute}


def _attributes(module: cst.Module) -> list[tuple[cst.Attribute, Optional[cst.CSTNode]]]:
    """Every attribute expression of the file, with its parent node."""
    found: list[tuple[cst.Attribute, Optional[cst.CSTNode]]] = []
    pending: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(module, None)]
    while pending:
        node, parent = pending.pop()
        if isinstance(node, cst.Attribute):
            found.append((node, parent))
        pending.extend((child, node) for child in iter_children(node))
    return found
