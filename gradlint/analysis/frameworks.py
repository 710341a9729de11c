"""Which array frameworks a file uses: PyTorch itself, and the others whose tensors share method names with torch's."""

from __future__ import annotations

from gradlint.analysis.imports import ImportMap

# Frameworks whose tensors also have `.numpy()`; files importing them are not PyTorch training code.
OTHER_TENSOR_FRAMEWORKS = ("tensorflow", "keras", "jax", "mxnet", "paddle", "cupy")
# Array and symbolic libraries whose objects share names with tensors' (`.data`, `.add`, `.numpy`).
ARRAY_LIBRARIES = ("numpy", "pandas", "scipy", "sympy")


def imports_other_tensor_framework(imports: ImportMap) -> bool:
    return any(imported.target.split(".", 1)[0] in OTHER_TENSOR_FRAMEWORKS for imported in imports.imports)


def is_other_library(qualified: str) -> bool:
    """`qualified` names a function or class of another array or tensor library (`numpy.ma.masked_array`)."""
    return qualified.split(".", 1)[0] in (*ARRAY_LIBRARIES, *OTHER_TENSOR_FRAMEWORKS)


def imports_torch(imports: ImportMap) -> bool:
    """The file imports torch or one of its modules."""
    return any(imported.target.split(".", 1)[0] == "torch" for imported in imports.imports)
