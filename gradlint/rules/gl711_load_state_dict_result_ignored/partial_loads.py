"""Which `strict=False` loads are partial on purpose: into a model the code made differ from the
checkpoint (adapters or LoRA layers added, a head replaced), or checked by an assertion that
follows."""

from __future__ import annotations

import re
from functools import cached_property

import libcst as cst

from gradlint.analysis.functions import mentioned_keys
from gradlint.analysis.scopes import Scope
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.syntax import dotted_name
from gradlint.analysis.training import LoadSite
from gradlint.analysis.tree import descendants

# Parts of identifiers that name layers a base checkpoint does not hold (`lora_r`, `LoraConfig`,
# `LoRALinear`, `get_peft_model`, `add_adapter`, `AdapterConfig`; not `LoggerAdapter`): a model with
# them loads its base weights with `strict=False`.
ADDED_LAYERS = re.compile(r"(?:^|_)(?:lora|peft|adapters?)(?=_|$|[A-Z0-9])|Lora|LoRA|Peft|PEFT|^Adapter")


class PartialLoads:
    def __init__(self, module: cst.Module, nodes: NodeIndex) -> None:
        self.module = module
        self.nodes = nodes

    def intended(self, load: LoadSite, scope: Scope) -> bool:
        """The load leaves keys out on purpose, or the code checks what it loaded."""
        return self.adds_layers or self._reshaped_before(load, scope) or self._asserted_after(load, scope)

    @cached_property
    def adds_layers(self) -> bool:
        """The file builds models with adapter, LoRA or PEFT layers (any identifier naming them)."""
        for node in descendants(self.module):
            if isinstance(node, cst.Name) and ADDED_LAYERS.search(node.value):
                return True
        return False

    def _reshaped_before(self, load: LoadSite, scope: Scope) -> bool:
        """`model.fc = nn.Identity()` (or `del model.head`) before the load in the same function:
        the model no longer has the checkpoint's layout."""
        receiver = dotted_name(load.receiver)
        for node in descendants(scope):
            targets = []
            if isinstance(node, cst.Assign):
                targets = [target.target for target in node.targets]
            elif isinstance(node, cst.Del):
                targets = [node.target]
            for target in targets:
                name = dotted_name(target)
                if name is not None and name.startswith(f"{receiver}.") and self.nodes.comes_before(node, load.call):
                    return True
        return False

    def _asserted_after(self, load: LoadSite, scope: Scope) -> bool:
        """An `assert` or an assertion call (`torch.testing.assert_close`, `self.assertEqual`) after
        the load in the same function, about the loaded model (`assert torch.allclose(model(x), y)`)
        or a value taken from it after the load (`pruned = hasattr(model.fc, "weight_orig")`)."""
        later = [node for node in descendants(scope) if self.nodes.comes_after(node, load.call)]
        about = {dotted_name(load.receiver)}
        for node in later:
            if isinstance(node, cst.Assign) and about & mentioned_keys(node.value):
                about |= {target.target.value for target in node.targets if isinstance(target.target, cst.Name)}
        for node in later:
            if isinstance(node, cst.Assert) or (isinstance(node, cst.Call) and _names_assertion(node.func)):
                if about & mentioned_keys(node):
                    return True
        return False


def _names_assertion(func: cst.BaseExpression) -> bool:
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
    return name.startswith("assert")
