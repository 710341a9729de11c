"""The losses of torch that still accept the legacy `size_average` / `reduce` flags, with their
parameter order (every parameter of these signatures is positional-or-keyword in torch 2.13), and
torch's own table that turns the two flags into a `reduction` string."""

from __future__ import annotations

from typing import Optional

LOSS_MODULE_PARAMETERS = {
    "BCELoss": ("weight", "size_average", "reduce", "reduction"),
    "BCEWithLogitsLoss": ("weight", "size_average", "reduce", "reduction", "pos_weight"),
    "CosineEmbeddingLoss": ("margin", "size_average", "reduce", "reduction"),
    "CrossEntropyLoss": ("weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"),
    "HingeEmbeddingLoss": ("margin", "size_average", "reduce", "reduction"),
    "KLDivLoss": ("size_average", "reduce", "reduction", "log_target"),
    "L1Loss": ("size_average", "reduce", "reduction"),
    "MSELoss": ("size_average", "reduce", "reduction"),
    "MarginRankingLoss": ("margin", "size_average", "reduce", "reduction"),
    "MultiLabelMarginLoss": ("size_average", "reduce", "reduction"),
    "MultiLabelSoftMarginLoss": ("weight", "size_average", "reduce", "reduction"),
    "MultiMarginLoss": ("p", "margin", "weight", "size_average", "reduce", "reduction"),
    "NLLLoss": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "NLLLoss2d": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "PoissonNLLLoss": ("log_input", "full", "size_average", "eps", "reduce", "reduction"),
    "SmoothL1Loss": ("size_average", "reduce", "reduction", "beta"),
    "SoftMarginLoss": ("size_average", "reduce", "reduction"),
    "TripletMarginLoss": ("margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
}

LOSS_FUNCTION_PARAMETERS = {
    "binary_cross_entropy": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "binary_cross_entropy_with_logits": ("input", "target", "weight", "size_average", "reduce", "reduction", "pos_weight"),
    "cosine_embedding_loss": ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
    "cross_entropy": ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"),
    "hinge_embedding_loss": ("input", "target", "margin", "size_average", "reduce", "reduction"),
    "kl_div": ("input", "target", "size_average", "reduce", "reduction", "log_target"),
    "l1_loss": ("input", "target", "size_average", "reduce", "reduction", "weight"),
    "margin_ranking_loss": ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
    "mse_loss": ("input", "target", "size_average", "reduce", "reduction", "weight"),
    "multi_margin_loss": ("input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction"),
    "multilabel_margin_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "multilabel_soft_margin_loss": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "nll_loss": ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"),
    "poisson_nll_loss": ("input", "target", "log_input", "full", "size_average", "eps", "reduce", "reduction"),
    "smooth_l1_loss": ("input", "target", "size_average", "reduce", "reduction", "beta"),
    "soft_margin_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "triplet_margin_loss": ("anchor", "positive", "negative", "margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
}

LEGACY_FLAGS = ("size_average", "reduce")
REDUCTION_SINCE = "0.4.1"  # the `reduction=` string that replaces them


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
