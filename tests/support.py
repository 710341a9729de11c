"""Helpers shared by the tests (on the pytest python path)."""

from __future__ import annotations

from pathlib import Path

from gradlint.engine import lint_text
from gradlint.rules import all_codes

ROOT = Path(__file__).resolve().parent.parent


def lint(source: str, *codes: str, path: str = "example.py"):
    """Findings for `source` with the given codes (all rules by default)."""
    return lint_text(source, path, frozenset(codes or all_codes())).findings


def write(path: Path, text) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
