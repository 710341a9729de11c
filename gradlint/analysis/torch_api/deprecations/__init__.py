"""Every deprecated public torch API that no older GL5xx table covers, by how a program reaches it:
a dotted name, a keyword argument of a call, or a tensor method. Each area file holds its part; the
harvest that confirmed each row under torch 2.13 is bench/deprecations/."""

from __future__ import annotations

from gradlint.analysis.torch_api.deprecations import core, libs
from gradlint.analysis.torch_api.deprecations.record import Deprecated

CALLABLES: dict[str, Deprecated] = {**core.CALLABLES, **libs.CALLABLES}
KEYWORDS: dict[tuple[str, str], Deprecated] = {**core.KEYWORDS, **libs.KEYWORDS}
METHODS: dict[str, Deprecated] = {**core.METHODS, **libs.METHODS}
MEMBERS: dict[str, Deprecated] = {**core.MEMBERS, **libs.MEMBERS}


def of_subsystems(
    subsystems: bool,
) -> tuple[dict[str, Deprecated], dict[tuple[str, str], Deprecated], dict[str, Deprecated], dict[str, Deprecated]]:
    """The rows of the deprecated subsystems (`subsystems`: GL518's), or every other row (GL517's)."""

    def kept(table: dict) -> dict:
        return {key: entry for key, entry in table.items() if bool(entry.subsystem) == subsystems}

    return kept(CALLABLES), kept(KEYWORDS), kept(METHODS), kept(MEMBERS)


__all__ = ["CALLABLES", "KEYWORDS", "MEMBERS", "METHODS", "Deprecated", "of_subsystems"]
