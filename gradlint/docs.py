"""Render the rule catalog (`rules/*.md`), README's rule table and the registry's catalog module
(`gradlint/rules/_catalog.py`, what the rules declare, read without importing them) from the rule
classes.

`python -m gradlint.docs rules` rewrites them all; `--check` exits 1 when any is out of date.
"""

from __future__ import annotations

import sys
from pathlib import Path

from typing import TYPE_CHECKING, Union

from gradlint.config import LEGACY_STYLE_CODES
from gradlint.fix.kinds import Applicability, Availability
from gradlint.rules import ALL_MIGRATIONS, all_rules, describe
from gradlint.rules.info import RuleInfo
from gradlint.rules.severity import Severity

if TYPE_CHECKING:
    from gradlint.rules.base import Rule

# A rule as its class declares it, or as the catalog module records it: both answer alike.
AnyRule = Union["type[Rule]", RuleInfo]

# What each family of rules finds (README's table has one row per family).
FAMILIES = {
    "GL0": "files that cannot be analysed",
    "GL1": "the `Variable` API of PyTorch 0.3",
    "GL2": "training loops that accumulate gradients forever or never train",
    "GL3": "`.data`, which hides in-place mutations from autograd",
    "GL4": "detach mistakes that leak memory, raise, or silently do nothing",
    "GL5": "APIs removed or renamed since PyTorch 0.3",
    "GL6": "training semantics that silently go wrong",
    "GL7": "model definitions whose parameters are never trained, saved or moved",
    "GL9": "`# noqa` comments that suppress nothing (off unless selected)",
}
README_TABLE_START = "<!-- rule table: generated from the rule classes by `python -m gradlint.docs rules` -->"
README_TABLE_END = "<!-- end of rule table -->"
_KIND_TEXT = {Applicability.SAFE: "safe", Applicability.UNSAFE: "unsafe (`--unsafe-fixes`)"}


def fix_text(rule: AnyRule) -> str:
    """The declared fix in words: which kinds, and whether every finding has one."""
    if rule.fix_availability is Availability.NONE:
        return "none"
    kinds = [text for kind, text in _KIND_TEXT.items() if kind in rule.fix_applicabilities]
    text = kinds[0] if len(kinds) == 1 else f"{' or '.join(kinds)}, per form"
    return text if rule.fix_availability is Availability.ALWAYS else f"{text}, for some forms only"


def render_rule(rule: AnyRule) -> str:
    # The presets that select it (see `gradlint.rules.presets`), from the rule alone: a rule just
    # added is rendered before the catalog knows it.
    flags = [f"`--{ALL_MIGRATIONS}-{rule.migration}`", f"`--{ALL_MIGRATIONS}`"] if rule.migration is not None else []
    header = [f"# {rule.code} {rule.name}", "", f"{rule.summary}.", "", f"Severity: {rule.severity} ({rule.severity.meaning})."]
    header.append(f"Fix: {fix_text(rule)}.")
    if flags:
        header.append(f"Selected by `gradlint fix` {', '.join(flags)}.")
    if rule.opt_in:
        header.append(f"Off by default: enable with `--extend-select {rule.code}`.")
    elif rule.code in LEGACY_STYLE_CODES:
        header.append(
            f"Off by default (the legacy form still runs as meant, and current code writes it on purpose): "
            f"enable with `--extend-select {rule.code}`."
        )
    header.append(f"Suppress one finding with `# noqa: {rule.code}`.")
    return "\n".join(header) + "\n\n" + rule.documentation() + "\n"


def render_index() -> str:
    lines = [
        "# gradlint rules",
        "",
        "Generated from the rule classes by `python -m gradlint.docs rules`; do not edit by hand.",
        "[deprecations.md](deprecations.md) lists every torch deprecation harvested from torch's sources",
        "with the rule that reports it.",
        "",
        "| code | name | severity | fix | what it finds |",
        "|---|---|---|---|---|",
    ]
    for rule in all_rules():
        lines.append(f"| [{rule.code}]({rule.code}.md) | {rule.name} | {rule.severity} | {fix_text(rule)} | {rule.summary} |")
    return "\n".join(lines) + "\n"


def render_readme_table() -> str:
    """One row per rule family: its codes, names, what it finds, and its fixes."""
    lines = ["| code | name | finds | fix |", "|---|---|---|---|"]
    for family, finds in FAMILIES.items():
        members = [rule for rule in all_rules() if rule.code.startswith(family)]
        if not members:
            continue
        codes = members[0].code if len(members) == 1 else f"{members[0].code}–{members[-1].code}"
        names = ", ".join(rule.name for rule in members)
        lines.append(f"| {codes} | {names} | {finds} | {_family_fixes(members)} |")
    return "\n".join(lines) + "\n"


def _family_fixes(members: list[AnyRule]) -> str:
    """The kinds of fix a family's rules offer: `safe / unsafe / none`."""
    kinds = {kind.value for rule in members for kind in rule.fix_applicabilities}
    if any(rule.fix_availability is Availability.NONE for rule in members):
        kinds.add("none")
    return " / ".join(kind for kind in ("safe", "unsafe", "none") if kind in kinds)


def with_readme_table(readme: str) -> str:
    """`readme` with the text between the rule-table markers regenerated (unchanged without markers)."""
    start = readme.find(README_TABLE_START)
    end = readme.find(README_TABLE_END)
    if start < 0 or end < start:
        return readme
    head = readme[: start + len(README_TABLE_START)]
    return f"{head}\n{render_readme_table()}{readme[end:]}"


def rendered_catalog() -> dict[str, str]:
    catalog = {f"{rule.code}.md": render_rule(rule) for rule in all_rules()}
    catalog["README.md"] = render_index()
    return catalog


CATALOG_MODULE = Path(__file__).resolve().parent / "rules" / "_catalog.py"


def catalog_source() -> str:
    """The text of the registry's catalog module, from the rule classes."""
    lines = [
        '"""What every rule declares, for the registry to answer without importing the rules.',
        "",
        "Generated from the rule classes by `python -m gradlint.docs rules`; do not edit by hand.",
        '"""',
        "",
        "from gradlint.rules.info import RuleInfo",
        "",
        "RULES = (",
    ]
    for rule in all_rules():
        lines.append("    RuleInfo(")
        for name, value in vars(describe(rule)).items():
            if name == "doc":
                lines.append("        doc=(")
                lines.extend(f"            {line!r}" for line in value.splitlines(keepends=True))
                lines.append("        ),")
            else:
                lines.append(f"        {name}={_literal(value)},")
        lines.append("    ),")
    lines.append(")")
    return "\n".join(lines) + "\n"


def _literal(value: object) -> str:
    """A catalog value as Python source: enums by their plain value (`RuleInfo` makes them again)."""
    if isinstance(value, tuple):
        items = [_literal(item) for item in value]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if isinstance(value, (Applicability, Availability, Severity)):
        return repr(value.value)
    return repr(value)


# Pages of the catalog directory that another generator writes (and another test keeps in sync):
# bench/deprecations/coverage.py lists the harvested torch deprecations with the rules that report them.
OTHER_PAGES = frozenset({"deprecations.md"})


def stale_files(directory: Path) -> list[str]:
    """Catalog files that are missing, different, or no longer generated."""
    expected = rendered_catalog()
    stale = [name for name, text in expected.items() if _read(directory / name) != text]
    stale += sorted(p.name for p in directory.glob("*.md") if p.name not in expected and p.name not in OTHER_PAGES)
    readme = _readme_of(directory)
    if readme.exists() and with_readme_table(_read(readme)) != _read(readme):
        stale.append(f"../{readme.name}")
    return stale


def write_catalog(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    expected = rendered_catalog()
    for name, text in expected.items():
        (directory / name).write_text(text, encoding="utf-8", newline="\n")
    for path in directory.glob("*.md"):
        if path.name not in expected and path.name not in OTHER_PAGES:
            path.unlink()
    readme = _readme_of(directory)
    if readme.exists():
        readme.write_text(with_readme_table(_read(readme)), encoding="utf-8", newline="\n")


def _readme_of(catalog: Path) -> Path:
    """The project README beside the catalog directory."""
    return catalog.parent / "README.md"


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def main(argv: list[str]) -> int:
    check = "--check" in argv
    directory = Path(next((arg for arg in argv if not arg.startswith("--")), "rules"))
    if check:
        stale = [str(directory / name) for name in stale_files(directory)]
        if _read(CATALOG_MODULE) != catalog_source():
            stale.append(str(CATALOG_MODULE))
        for name in stale:
            print(f"out of date: {name}")
        return 1 if stale else 0
    write_catalog(directory)
    write_catalog_module()
    return 0


def write_catalog_module(path: Path = CATALOG_MODULE) -> None:
    path.write_text(catalog_source(), encoding="utf-8", newline="\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
