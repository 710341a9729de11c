"""Per-file state handed to every rule: the tree, the traversal stack and the shared analyses."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

import libcst as cst

from gradlint.analysis.grad_mode import runs_without_grad
from gradlint.analysis.grad_tracking import GradEvidence
from gradlint.analysis.attributes import AttributeReads
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.modules import ModuleEvidence
from gradlint.analysis.roles import Roles
from gradlint.analysis.scopes import Scope, ScopeTable, enclosing_scope
from gradlint.analysis.tensors import ScalarEvidence, TensorEvidence
from gradlint.analysis.training import TrainingAnalysis
from gradlint.positions import LazyPositions, member_statement, placement_units

if TYPE_CHECKING:
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
    def training(self) -> TrainingAnalysis:
        return TrainingAnalysis(self.module, self.imports, self.tensors)

    @cached_property
    def grads(self) -> GradEvidence:
        return GradEvidence(self.imports, self.scopes, self.tensors)

    @cached_property
    def modules(self) -> ModuleEvidence:
        """Which expressions are `nn.Module` instances."""
        return ModuleEvidence(self.module, self.imports, self.scopes)

    @cached_property
    def attribute_reads(self) -> AttributeReads:
        return AttributeReads(self.module)

    @cached_property
    def roles(self) -> Roles:
        """The roles names play: models, generator and discriminator, optimizers..."""
        return Roles()

    def carries_grad(self, node: cst.BaseExpression) -> bool:
        return self.grads.carries_grad(node, self.scope())

    def without_grad(self) -> bool:
        """True when the node being visited runs with autograd off (no_grad block or decorator)."""
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
    def positions(self) -> LazyPositions:
        """Node -> CodeRange, resolved per top-level statement and only when needed."""
        return LazyPositions(self.module, self.text)

    def top_statement(self) -> Optional[cst.CSTNode]:
        """The statement positions are resolved in for the node being visited (top-level, or a
        member of a top-level class)."""
        return member_statement(self.stack)

    @cached_property
    def _statement_tops(self) -> dict[int, cst.CSTNode]:
        """id(statement) -> the statement positions are resolved in (see `top_statement`)."""
        units: dict[int, cst.CSTNode] = {}
        placement_units(self.module.body, units)
        return units

    def top_of(self, statement: Optional[cst.CSTNode]) -> Optional[cst.CSTNode]:
        """The top-level statement holding `statement` (any statement, nested or small)."""
        return None if statement is None else self._statement_tops.get(id(statement))

    def position_hint(self, near: Optional[cst.CSTNode] = None) -> Optional[cst.CSTNode]:
        """The top-level statement to resolve positions in: the one being visited, or `near`'s."""
        return self.top_statement() or self.top_of(near)

    def line_of(self, node: cst.CSTNode, near: Optional[cst.CSTNode] = None) -> int:
        """`near`: a statement holding `node`, for rules that report outside the traversal."""
        return self.positions.lookup(node, self.position_hint(near)).start.line

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)
