"""Which attributes a file reads (as opposed to only assigning them)."""

from __future__ import annotations

from functools import cached_property

import libcst as cst

from gradlint.analysis.semantic.nodes import NodeIndex


class AttributeReads:
    def __init__(self, module: cst.Module, nodes: NodeIndex) -> None:
        self.module = module
        self.nodes = nodes

    @cached_property
    def _reads(self) -> list[cst.Attribute]:
        """Every attribute expression of the file that is not an assignment target."""
        nodes = self.nodes
        return [
            node for node in nodes.subtree(self.module) if type(node) is cst.Attribute and type(nodes.parent(node)) is not cst.AssignTarget
        ]

    @cached_property
    def names(self) -> set[str]:
        """Attribute names read somewhere: `cfg.require_grad` read back makes `require_grad` one."""
        return {node.attr.value for node in self._reads}

    def texts(self, attribute: str) -> set[str]:
        """The source text of every read of `attribute`: {'self.requires_grad', 'model.requires_grad'}."""
        return {self.module.code_for_node(node).strip() for node in self._reads if node.attr.value == attribute}
