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
    """The file imports torch or one of its modules (`import torch`, `from torch.nn import *`), or
    brings in what a local module of its project imports from torch (`from common import torch`,
    `from .layers import *` where `layers` does `from torch import nn`)."""
    if any(_is_torch(imported.target) for imported in imports.imports) or any(_is_torch(module) for module in imports.star_modules):
        return True
    project = imports.project
    if project is None:
        return False
    # The project's names are the file's own spellings of what it brings in from local modules.
    return any(_is_torch(target) for target in project.names.values()) or any(
        _is_torch(star.fallback or "") for star in project.stars.values()
    )


def _is_torch(qualified: str) -> bool:
    return qualified.split(".", 1)[0] == "torch"
