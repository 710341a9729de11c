"""Which array frameworks besides PyTorch a file uses: their tensors share method names with torch's."""

from __future__ import annotations

from gradlint.analysis.imports import ImportMap

# Frameworks whose tensors also have `.numpy()`; files importing them are not PyTorch training code.
OTHER_TENSOR_FRAMEWORKS = ("tensorflow", "keras", "jax", "mxnet", "paddle", "cupy")


def imports_other_tensor_framework(imports: ImportMap) -> bool:
    return any(imported.target.split(".", 1)[0] in OTHER_TENSOR_FRAMEWORKS for imported in imports.imports)
