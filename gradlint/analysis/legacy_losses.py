"""Which torch loss a call names and its parameter order, when it still accepts the legacy
`size_average` / `reduce` flags (the table is `torch_api.legacy_losses`), and torch's own table that
turns the two flags into a `reduction` string."""

from __future__ import annotations

from typing import Optional

from gradlint.analysis.torch_api.legacy_losses import LOSS_FUNCTION_PARAMETERS, LOSS_MODULE_PARAMETERS


def loss_parameters(qualified_name: Optional[str]) -> Optional[tuple[str, ...]]:
    """The parameters (in order, `self` excluded) of the torch loss module or functional loss
    named `qualified_name`, when it accepts the legacy flags."""
    if qualified_name is None:
        return None
    module, _, name = qualified_name.rpartition(".")
    if module in ("torch.nn", "torch.nn.modules.loss"):
        return LOSS_MODULE_PARAMETERS.get(name)
    if module == "torch.nn.functional":
        return LOSS_FUNCTION_PARAMETERS.get(name)
    return None


def legacy_reduction(size_average: Optional[bool], reduce: Optional[bool]) -> str:
    """`torch.nn._reduction.legacy_get_string`: None means the default (True) and `reduce=False`
    wins over `size_average`."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    if reduce:
        return "sum"
    return "none"
