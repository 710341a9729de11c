"""Reporters: pure functions from findings (and, for text, the sources they point into) to text.

Each format's module is imported when its renderer is first asked for: the command line lists the
formats (`--output-format`) at start-up, before any finding exists."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from gradlint.report.options import HUMAN_FORMATS, RenderOptions

if TYPE_CHECKING:
    from gradlint.model import Finding

Renderer = Callable[[Sequence["Finding"], RenderOptions], str]


class Renderers(Mapping):
    """Format name -> renderer, each renderer's module imported on first use."""

    def __init__(self, where: dict[str, tuple[str, str]]) -> None:
        self._where = where  # format -> (module of gradlint.report, function)

    def __getitem__(self, name: str) -> Renderer:
        module, function = self._where[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), function)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


FORMATS: Mapping[str, Renderer] = Renderers(
    {
        "text": ("text", "render_text"),
        "full": ("text", "render_full"),
        "concise": ("text", "render_concise"),
        "grouped": ("grouped", "render_grouped"),
        "json": ("json", "render_json"),
        "json-lines": ("json_lines", "render_json_lines"),
        "junit": ("junit", "render_junit"),
        "github": ("github", "render_github"),
        "gitlab": ("gitlab", "render_gitlab"),
        "pylint": ("pylint", "render_pylint"),
        "rdjson": ("rdjson", "render_rdjson"),
        "sarif": ("sarif", "render_sarif"),
        "azure": ("azure", "render_azure"),
    }
)


def render(findings: Sequence[Finding], output_format: str, options: RenderOptions = RenderOptions()) -> str:
    return FORMATS[output_format](findings, options)


def _from_text(name: str) -> Callable[..., str]:
    """The function `name` of `gradlint.report.text`, imported when it is first called."""

    def call(*args, **kwargs) -> str:
        return getattr(importlib.import_module(f"{__name__}.text"), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


render_fix_summary = _from_text("render_fix_summary")
render_fixed_only = _from_text("render_fixed_only")
render_statistics = _from_text("render_statistics")


__all__ = ["FORMATS", "HUMAN_FORMATS", "RenderOptions", "render", "render_fix_summary", "render_fixed_only", "render_statistics"]
