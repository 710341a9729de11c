"""Per-file state handed to every rule: the tree, the traversal stack and the shared analyses."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable, enclosing_scope
from gradlint.analysis.tensors import ScalarEvidence, TensorEvidence

if TYPE_CHECKING:
    from gradlint.analysis.grad_tracking import GradEvidence
    from gradlint.analysis.training import TrainingAnalysis
    from gradlint.rules.base import Report


class FileContext:
    def __init__(self, path: str, text: str, module: cst.Module) -> None:
        self.path = path
        self.text = text
        self.module = module
        self.reports: list["Report"] = []
        # Ancestors of the node being visited, the node itself last. Maintained by the walker.
        self.stack: list[cst.CSTNode] = []

    @cached_property
    def imports(self) -> ImportMap:
        return ImportMap.build(self.module)

    @cached_property
    def scopes(self) -> ScopeTable:
        return ScopeTable()

    @cached_property
    def tensors(self) -> TensorEvidence:
        return TensorEvidence(self.imports, self.scopes)

    @cached_property
    def scalars(self) -> ScalarEvidence:
        return ScalarEvidence(self.imports, self.scopes, self.tensors)

    def is_scalar(self, node: cst.BaseExpression) -> bool:
        return self.scalars.is_scalar(node, self.scope())

    @cached_property
    def training(self) -> "TrainingAnalysis":
        from gradlint.analysis.training import TrainingAnalysis

        return TrainingAnalysis(self.module, self.imports, self.tensors)

    @cached_property
    def grads(self) -> "GradEvidence":
        from gradlint.analysis.grad_tracking import GradEvidence

        return GradEvidence(self.imports, self.scopes, self.tensors)

    def carries_grad(self, node: cst.BaseExpression) -> bool:
        return self.grads.carries_grad(node, self.scope())

    def without_grad(self) -> bool:
        """True when the node being visited runs with autograd off (no_grad block or decorator)."""
        from gradlint.analysis.grad_mode import runs_without_grad

        return runs_without_grad(self.stack, self.imports)

    def scope(self) -> Scope:
        """The function (or module) enclosing the node being visited."""
        return enclosing_scope(self.stack)

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        return self.tensors.is_tensor(node, self.scope())

    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        return self.imports.qualified_name(node)

    def parent(self, levels: int = 1) -> Optional[cst.CSTNode]:
        index = -1 - levels
        return self.stack[index] if len(self.stack) >= levels + 1 else None

    @cached_property
    def positions(self):
        """Node -> CodeRange for the whole module. Computed at most once, and only when needed."""
        return MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)

    def line_of(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)
