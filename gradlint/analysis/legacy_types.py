"""PyTorch 0.3 type tests: `type(x) == Variable`, the legacy tensor type classes
(`torch.FloatTensor`, `torch.cuda.LongTensor`, ...) and `x.type() == "torch.FloatTensor"`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap

# Legacy tensor type class prefix -> the dtype it stands for (its `torch.<dtype>` attribute).
_DTYPES = {
    "Float": "float32",
    "Double": "float64",
    "Half": "float16",
    "BFloat16": "bfloat16",
    "Byte": "uint8",
    "Char": "int8",
    "Short": "int16",
    "Int": "int32",
    "Long": "int64",
    "Bool": "bool",
}


@dataclass(frozen=True)
class LegacyTensorType:
    """`torch.cuda.FloatTensor` is LegacyTensorType("float32", cuda=True)."""

    dtype: str
    cuda: bool


def legacy_tensor_type(qualified: Optional[str]) -> Optional[LegacyTensorType]:
    """The legacy type a qualified name (`torch.FloatTensor`) or type string (`x.type()`) names."""
    if qualified is None or not qualified.endswith("Tensor"):
        return None
    module, _, name = qualified.rpartition(".")
    if module not in ("torch", "torch.cuda"):
        return None
    dtype = _DTYPES.get(name[: -len("Tensor")])
    return LegacyTensorType(dtype, module == "torch.cuda") if dtype is not None else None


@dataclass(frozen=True)
class TypeComparison:
    """`type(subject) == cls` (also `is`, `!=`, `is not`, `subject.__class__`, either side)."""

    subject: cst.BaseExpression
    cls: cst.BaseExpression
    negated: bool  # `!=` / `is not`


_EQUAL = (cst.Equal, cst.Is)
_NOT_EQUAL = (cst.NotEqual, cst.IsNot)


def type_comparison(node: cst.Comparison, imports: ImportMap) -> Optional[TypeComparison]:
    if len(node.comparisons) != 1:
        return None
    operator = node.comparisons[0].operator
    if not isinstance(operator, _EQUAL + _NOT_EQUAL):
        return None
    left, right = node.left, node.comparisons[0].comparator
    for side, other in ((left, right), (right, left)):
        subject = _type_subject(side, imports)
        if subject is not None and _type_subject(other, imports) is None:
            return TypeComparison(subject, other, isinstance(operator, _NOT_EQUAL))
    return None


def _type_subject(node: cst.BaseExpression, imports: ImportMap) -> Optional[cst.BaseExpression]:
    """`x` for `type(x)` (the builtin) and `x.__class__`."""
    if isinstance(node, cst.Attribute) and node.attr.value == "__class__":
        return node.value
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "type"
        and "type" not in imports.bindings
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
    ):
        return node.args[0].value
    return None


@dataclass(frozen=True)
class TypeStringComparison:
    """`x.type() == "torch.cuda.FloatTensor"` (also `!=`, either side)."""

    subject: cst.BaseExpression
    legacy: LegacyTensorType
    negated: bool


def type_string_comparison(node: cst.Comparison) -> Optional[TypeStringComparison]:
    if len(node.comparisons) != 1:
        return None
    operator = node.comparisons[0].operator
    if not isinstance(operator, (cst.Equal, cst.NotEqual)):
        return None
    left, right = node.left, node.comparisons[0].comparator
    for side, other in ((left, right), (right, left)):
        if _is_type_call(side) and isinstance(other, cst.SimpleString):
            text = other.evaluated_value
            legacy = legacy_tensor_type(text) if isinstance(text, str) else None
            if legacy is not None:
                return TypeStringComparison(side.func.value, legacy, isinstance(operator, cst.NotEqual))
    return None


def _is_type_call(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "type" and not node.args
