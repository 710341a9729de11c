"""Data loaders that shuffle through a `torch.utils.data.DistributedSampler`, by their construction
in the file: `loader = DataLoader(dataset, sampler=sampler)` with
`sampler = DistributedSampler(dataset)` (or the sampler built inline), in the same function or in
the methods of a class (`self.loader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.syntax import dotted_name, is_bool_literal

DISTRIBUTED_SAMPLERS = frozenset({"torch.utils.data.distributed.DistributedSampler", "torch.utils.data.DistributedSampler"})
DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# Wrappers that iterate the loader they are given: `enumerate(loader)`, `tqdm(loader)`.
ITERATING_WRAPPERS = frozenset({"enumerate", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm"})


@dataclass(frozen=True)
class DistributedLoader:
    loader: str  # dotted text of the loader iterated
    sampler: Optional[str]  # dotted text of the sampler variable; None when built inline
    constructions: tuple[cst.Call, ...]  # the `DataLoader(...)` calls


class SamplerEvidence:
    def __init__(self, imports: ImportMap, scopes: ScopeTable) -> None:
        self.imports = imports
        self.scopes = scopes

    def iterated_loader(self, iterable: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """The loader a `for` header iterates: `loader`, `enumerate(loader)`, `enumerate(tqdm(loader))`."""
        while isinstance(iterable, cst.Call) and iterable.args and self._wrapper(iterable.func):
            iterable = iterable.args[0].value
        return iterable if dotted_name(iterable) is not None else None

    def shuffling_distributed_loader(self, loader: cst.BaseExpression, scope: Scope) -> Optional[DistributedLoader]:
        """`loader` is built by `DataLoader(..., sampler=S)` (every binding of it) with S a
        `DistributedSampler` that shuffles (the default)."""
        values = self._values(loader, scope)
        if not values:
            return None
        samplers = set()
        for value in values:
            sampler = self._sampler_argument(value) if self._is_call_of(value, DATA_LOADERS) else None
            if sampler is None:
                return None
            if isinstance(sampler, cst.Call):
                if not self._shuffling_sampler(sampler):
                    return None
                samplers.add(None)
                continue
            built = self._values(sampler, scope)
            if not built or not all(self._shuffling_sampler(v) for v in built):
                return None
            samplers.add(dotted_name(sampler))
        if len(samplers) != 1:
            return None
        return DistributedLoader(dotted_name(loader) or "", samplers.pop(), tuple(values))

    def _values(self, node: cst.BaseExpression, scope: Scope) -> list[cst.BaseExpression]:
        if isinstance(node, cst.Name):
            return self.scopes.values_of(node.value, scope)
        if isinstance(node, cst.Attribute):
            return [value for value, _ in self.scopes.instance_attribute_values(node, scope)]
        return []

    def _shuffling_sampler(self, value: cst.BaseExpression) -> bool:
        if not self._is_call_of(value, DISTRIBUTED_SAMPLERS):
            return False
        return not any(
            arg.keyword is not None and arg.keyword.value == "shuffle" and not is_bool_literal(arg.value, True) for arg in value.args
        )

    def _is_call_of(self, value: cst.BaseExpression, names: frozenset[str]) -> bool:
        return isinstance(value, cst.Call) and self.imports.qualified_name(value.func) in names

    def _wrapper(self, func: cst.BaseExpression) -> bool:
        qualified = self.imports.qualified_name(func) or dotted_name(func)
        return qualified in ITERATING_WRAPPERS

    @staticmethod
    def _sampler_argument(call: cst.Call) -> Optional[cst.BaseExpression]:
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "sampler":
                value = arg.value
                return value if isinstance(value, (cst.Call, cst.Name, cst.Attribute)) else None
        return None
