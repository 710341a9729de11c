"""The rule registry: every `glNNN_*.py` module in this package contributes one Rule subclass, and
so does every `glNNN_*/` package, from its `rule.py` (a rule with an analysis of its own keeps that
analysis beside it in its package).

What the rules declare is also in the generated `_catalog` module (`rule_infos()`): what needs only
a rule's code, name, severity, documentation or triggers imports no rule and no LibCST, and a rule's
module is imported when a rule class is asked for (`rule_by_code`, or the engine for a file that
gets past the rule's prefilter). `python -m gradlint.docs rules` regenerates the catalog from the
classes, and a test keeps the two equal.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import TYPE_CHECKING

from gradlint.rules.info import RuleInfo

if TYPE_CHECKING:
    from gradlint.rules.base import Rule
    from gradlint.rules.file_rule import FileFailure, FileRule
    from gradlint.rules.noqa_rule import NoqaRule


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule class, found by importing every rule module, each checked against the registry's
    invariants (the source of the catalog, and of the tests that hold every rule to them)."""
    from gradlint.rules.base import RULE_IN_PACKAGE, Rule, check_rule_class, is_rule_stem

    found: dict[str, type[Rule]] = {}
    for info in pkgutil.iter_modules(__path__):
        if not is_rule_stem(info.name):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}" + (f".{RULE_IN_PACKAGE}" if info.ispkg else ""))
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__:
                check_rule_class(value, module.__name__)
                if value.code in found:
                    raise TypeError(f"duplicate rule code {value.code}")
                found[value.code] = value
    return tuple(found[code] for code in sorted(found))


def describe(rule: type[Rule]) -> RuleInfo:
    """A rule class as the catalog records it."""
    from gradlint.rules.file_rule import FileRule
    from gradlint.rules.noqa_rule import NoqaRule

    return RuleInfo(
        code=rule.code,
        name=rule.name,
        summary=rule.summary,
        severity=rule.severity,
        fix_availability=rule.fix_availability,
        fix_applicabilities=tuple(rule.fix_applicabilities),
        triggers=tuple(rule.triggers),
        also_required=tuple(rule.also_required),
        migration=rule.migration,
        fixes_first=rule.fixes_first,
        opt_in=rule.opt_in,
        visits=rule.visits_nodes(),
        failure=rule.failure.value if issubclass(rule, FileRule) else None,
        judges_noqa=issubclass(rule, NoqaRule),
        module=rule.__module__,
        class_name=rule.__qualname__,
        doc=rule.documentation(),
    )


@lru_cache(maxsize=None)
def rule_infos() -> tuple[RuleInfo, ...]:
    """Every rule as the catalog describes it, in code order (as `all_rules()`), importing none."""
    from gradlint.rules._catalog import RULES

    return RULES


@lru_cache(maxsize=None)
def _infos_by_code() -> dict[str, RuleInfo]:
    return {info.code: info for info in rule_infos()}


def rule_info(code: str) -> RuleInfo:
    return _infos_by_code()[code]


@lru_cache(maxsize=None)
def rule_by_code(code: str) -> type[Rule]:
    """The rule class of `code`, its module imported on first use (KeyError for an unknown code)."""
    return rule_info(code).load()


@lru_cache(maxsize=None)
def severity_of(code: str) -> str:
    """The declared severity of a rule ("error" or "warning"), as every output format reports it."""
    return rule_info(code).severity.value


@lru_cache(maxsize=None)
def all_codes() -> tuple[str, ...]:
    return tuple(info.code for info in rule_infos())


ALL_MIGRATIONS = "migrate"


@lru_cache(maxsize=None)
def presets() -> dict[str, tuple[str, ...]]:
    """`gradlint fix` presets, from the rules' declared migrations: `migrate-<name>` selects the
    rules of one migration, `migrate` every migration rule."""
    found: dict[str, tuple[str, ...]] = {}
    for info in rule_infos():
        if info.migration is not None:
            name = f"{ALL_MIGRATIONS}-{info.migration}"
            found[name] = found.get(name, ()) + (info.code,)
    found[ALL_MIGRATIONS] = tuple(code for codes in found.values() for code in codes)
    return found


def migration_codes(codes: frozenset[str]) -> set[str]:
    """The migration rules among `codes`: the imports they make obsolete are cleaned up whenever
    they are fixed, also where an earlier run (or a person) removed the last use."""
    return {code for code in codes if rule_info(code).migration is not None}


@lru_cache(maxsize=None)
def codes_fixed_first() -> frozenset[str]:
    return frozenset(info.code for info in rule_infos() if info.fixes_first)


@lru_cache(maxsize=None)
def noqa_rules() -> tuple[type[NoqaRule], ...]:
    """The rules about `# noqa` comments, judged after all the others."""
    return tuple(rule_by_code(info.code) for info in rule_infos() if info.judges_noqa)


@lru_cache(maxsize=None)
def noqa_rule_infos() -> tuple[RuleInfo, ...]:
    """`noqa_rules()` as the catalog describes them: whether one applies needs no import."""
    return tuple(info for info in rule_infos() if info.judges_noqa)


@lru_cache(maxsize=None)
def opt_in_codes() -> frozenset[str]:
    """The rules the default selection leaves out: on only when a selector names them."""
    return frozenset(info.code for info in rule_infos() if info.opt_in)


def file_rules() -> tuple[type[FileRule], ...]:
    """The rules reported for a file as a whole, before any node is visited."""
    return tuple(rule_by_code(info.code) for info in rule_infos() if info.failure is not None)


@lru_cache(maxsize=None)
def file_rule_codes() -> frozenset[str]:
    """The codes of `file_rules()`: findings on a file that could not be read as Python, which a
    line's noqa comment cannot silence."""
    return frozenset(info.code for info in rule_infos() if info.failure is not None)


@lru_cache(maxsize=None)
def rule_for_failure(failure: FileFailure) -> type[FileRule]:
    """The one rule that reports `failure`."""
    found = [info for info in rule_infos() if info.failure == failure.value]
    if len(found) != 1:
        raise LookupError(f"{len(found)} rules report {failure.value} files; exactly one must")
    return rule_by_code(found[0].code)
