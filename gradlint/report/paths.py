from __future__ import annotations

import os


def display_path(path: str) -> str:
    """Relative to the working directory when inside it, as given otherwise."""
    if path == "-" or not os.path.isabs(path):
        return path
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def absolute_path(path: str) -> str:
    return path if path.startswith("<") or path == "-" else os.path.abspath(path)
