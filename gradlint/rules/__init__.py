"""The rule registry: every `glNNN_*.py` module in this package contributes one Rule subclass, and
so does every `glNNN_*/` package, from its `rule.py` (a rule with an analysis of its own keeps that
analysis beside it in its package)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from gradlint.rules.base import RULE_IN_PACKAGE, Rule, check_rule_class, is_rule_stem
from gradlint.rules.file_rule import FileFailure, FileRule
from gradlint.rules.noqa_rule import NoqaRule


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
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


def rule_by_code(code: str) -> type[Rule]:
    for rule in all_rules():
        if rule.code == code:
            return rule
    raise KeyError(code)


@lru_cache(maxsize=None)
def severity_of(code: str) -> str:
    """The declared severity of a rule ("error" or "warning"), as every output format reports it."""
    return rule_by_code(code).severity.value


def all_codes() -> tuple[str, ...]:
    return tuple(rule.code for rule in all_rules())


ALL_MIGRATIONS = "migrate"


@lru_cache(maxsize=None)
def presets() -> dict[str, tuple[str, ...]]:
    """`gradlint fix` presets, from the rules' declared migrations: `migrate-<name>` selects the
    rules of one migration, `migrate` every migration rule."""
    found: dict[str, tuple[str, ...]] = {}
    for rule in all_rules():
        if rule.migration is not None:
            name = f"{ALL_MIGRATIONS}-{rule.migration}"
            found[name] = found.get(name, ()) + (rule.code,)
    found[ALL_MIGRATIONS] = tuple(code for codes in found.values() for code in codes)
    return found


def migration_codes(codes: frozenset[str]) -> set[str]:
    """The migration rules among `codes`: the imports they make obsolete are cleaned up whenever
    they are fixed, also where an earlier run (or a person) removed the last use."""
    return {code for code in codes if rule_by_code(code).migration is not None}


@lru_cache(maxsize=None)
def codes_fixed_first() -> frozenset[str]:
    return frozenset(rule.code for rule in all_rules() if rule.fixes_first)


@lru_cache(maxsize=None)
def noqa_rules() -> tuple[type[NoqaRule], ...]:
    """The rules about `# noqa` comments, judged after all the others."""
    return tuple(rule for rule in all_rules() if issubclass(rule, NoqaRule))


@lru_cache(maxsize=None)
def opt_in_codes() -> frozenset[str]:
    """The rules the default selection leaves out: on only when a selector names them."""
    return frozenset(rule.code for rule in all_rules() if rule.opt_in)


def file_rules() -> tuple[type[FileRule], ...]:
    """The rules reported for a file as a whole, before any node is visited."""
    return tuple(rule for rule in all_rules() if issubclass(rule, FileRule))


@lru_cache(maxsize=None)
def file_rule_codes() -> frozenset[str]:
    """The codes of `file_rules()`: findings on a file that could not be read as Python, which a
    line's noqa comment cannot silence."""
    return frozenset(rule.code for rule in file_rules())


@lru_cache(maxsize=None)
def rule_for_failure(failure: FileFailure) -> type[FileRule]:
    """The one rule that reports `failure`."""
    found = [rule for rule in file_rules() if rule.failure is failure]
    if len(found) != 1:
        raise LookupError(f"{len(found)} rules report {failure.value} files; exactly one must")
    return found[0]
