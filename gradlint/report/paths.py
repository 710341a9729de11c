from __future__ import annotations

import os
from functools import lru_cache


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


def repository_path(path: str, workspace_variable: str = "GITHUB_WORKSPACE") -> str:
    """Relative to the repository root, as CI annotations require: the directory the CI names in
    `workspace_variable` (GitHub's `GITHUB_WORKSPACE`, GitLab's `CI_PROJECT_DIR`) when set, else
    the enclosing git work tree of the file; the display path when neither holds it."""
    if path == "-" or path.startswith("<"):
        return path
    absolute = os.path.abspath(path)
    root = os.environ.get(workspace_variable) or _git_root(os.path.dirname(absolute))
    if root:
        try:
            relative = os.path.relpath(absolute, os.path.abspath(root))
        except ValueError:
            relative = ".."
        if not relative.startswith(".."):
            return relative.replace(os.sep, "/")
    return display_path(path)


@lru_cache(maxsize=256)
def _git_root(directory: str) -> str:
    """The nearest directory at or above `directory` that holds `.git` (a directory, or a file
    in a worktree or submodule); "" when there is none."""
    current = directory
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return ""
        current = parent
