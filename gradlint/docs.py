"""Render the rule catalog (`rules/*.md`) from the rule classes.

`python -m gradlint.docs rules` rewrites the catalog; `--check` exits 1 when it is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gradlint.config import PRESETS
from gradlint.fix.plan import Applicability, Availability
from gradlint.rules import all_rules
from gradlint.rules.base import Rule

_KIND_TEXT = {Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe (`--unsafe-fixes`)"}


def fix_text(rule: "type[Rule]") -> str:
    """The declared fix in words: which kinds, and whether every finding has one."""
    if rule.fix_availability is Availability.NONE:
        return "none"
    kinds = [text for kind, text in _KIND_TEXT.items() if kind in rule.fix_applicabilities]
    text = kinds[0] if len(kinds) == 1 else f"{' or '.join(kinds)}, per form"
    return text if rule.fix_availability is Availability.ALWAYS else f"{text}, for some forms only"


def render_rule(rule: "type[Rule]") -> str:
    presets = [f"`--{name}`" for name, codes in PRESETS.items() if rule.code in codes]
    header = [f"# {rule.code} {rule.name}", "", f"{rule.summary}.", "", f"Fix: {fix_text(rule)}."]
    if presets:
        header.append(f"Selected by `gradlint fix` {', '.join(presets)}.")
    header.append(f"Suppress one finding with `# noqa: {rule.code}`.")
    return "\n".join(header) + "\n\n" + rule.documentation() + "\n"


def render_index() -> str:
    lines = [
        "# gradlint rules",
        "",
        "Generated from the rule classes by `python -m gradlint.docs rules`; do not edit by hand.",
        "",
        "| code | name | fix | what it finds |",
        "|---|---|---|---|",
    ]
    for rule in all_rules():
        lines.append(f"| [{rule.code}]({rule.code}.md) | {rule.name} | {fix_text(rule)} | {rule.summary} |")
    return "\n".join(lines) + "\n"


def rendered_catalog() -> dict[str, str]:
    catalog = {f"{rule.code}.md": render_rule(rule) for rule in all_rules()}
    catalog["README.md"] = render_index()
    return catalog


def stale_files(directory: Path) -> list[str]:
    """Catalog files that are missing, different, or no longer generated."""
    expected = rendered_catalog()
    stale = [name for name, text in expected.items() if _read(directory / name) != text]
    stale += sorted(p.name for p in directory.glob("*.md") if p.name not in expected)
    return stale


def write_catalog(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    expected = rendered_catalog()
    for name, text in expected.items():
        (directory / name).write_text(text, encoding="utf-8", newline="\n")
    for path in directory.glob("*.md"):
        if path.name not in expected:
            path.unlink()


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def main(argv: list[str]) -> int:
    check = "--check" in argv
    directory = Path(next((arg for arg in argv if not arg.startswith("--")), "rules"))
    if check:
        stale = stale_files(directory)
        for name in stale:
            print(f"out of date: {directory / name}")
        return 1 if stale else 0
    write_catalog(directory)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
