"""The rule contract: one class per rule, one rule per module (Fixit-style)."""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Optional, Sequence

import libcst as cst

from gradlint.analysis.tree import reachable_node_types
from gradlint.fix.plan import Applicability, Availability, Change, FixPlan, describe_fix
from gradlint.model import Report
from gradlint.rules.severity import Severity

if TYPE_CHECKING:
    from gradlint.context import FileContext


def example_source(text: str) -> str:
    """An example as written in a rule class: an escaped one-liner as it is, or a triple-quoted
    block (starting with a newline) dedented to the source it shows."""
    return textwrap.dedent(text[1:]) if text.startswith("\n") else text


@dataclass(frozen=True)
class Invalid:
    """An example the rule must flag; `fixed` is the source after applying its fixes (unsafe included).

    Optionally pinned: a finding of the rule at `line`/`column` (1-based, as reported), whose
    message contains `message`, and whose fix is titled `fix_title`."""

    code: str
    fixed: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    message: Optional[str] = None
    fix_title: Optional[str] = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", example_source(self.code))
        if self.fixed is not None:
            object.__setattr__(self, "fixed", example_source(self.fixed))


class Rule:
    """Base class. Subclasses define `visit_<Node>` / `leave_<Node>` methods and call `report`.

    One instance checks one file (`self.context`): an analysis that only this rule needs is a
    `functools.cached_property` of the rule, built once per file on first use, and lives beside
    the rule in its package (`rules/glNNN_name/`).

    The class docstring is the rule's documentation, in Markdown sections:
    What it does / Why is this bad? / Example / Use instead / Fix safety / Known limits.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    # Declared by every rule; `error` or `warning` by the policy of CONTRIBUTING.md ("Severity").
    severity: ClassVar[Optional[Severity]] = None
    # Whether findings come with a fix, and how safe those fixes can be (checked against INVALID).
    fix_availability: ClassVar[Availability] = Availability.NONE
    fix_applicabilities: ClassVar[tuple[Applicability, ...]] = ()
    # The file is analysed only when one of these strings occurs in its text (cheap prefilter),
    # and every one of `also_required` too (a step-order finding needs a step and a backward).
    triggers: ClassVar[tuple[str, ...]] = ()
    also_required: ClassVar[tuple[str, ...]] = ()
    # Names whose import the fixer removes once a fix of this rule has made it unused (for a
    # migration rule: whenever it is selected and the import is unused, whoever removed the last use).
    cleanup_imports: ClassVar[tuple[str, ...]] = ()
    # The migration this rule is part of: selected by `gradlint fix --migrate-<name>` and `--migrate`.
    migration: ClassVar[Optional[str]] = None
    # Its fixes change what other rules know (e.g. put code under `torch.no_grad()`, after which
    # values computed there carry no history), so they get fix rounds of their own, first.
    fixes_first: ClassVar[bool] = False
    # Its fixes rewrite PyTorch code: in a file that never imports torch they are offered as unsafe
    # (see gradlint/fix/torch_code.py). False for a rule whose safe fixes stand on Python alone.
    rewrites_torch: ClassVar[bool] = True
    # Left out of the default selection (as ruff's RUF100): on only when `select`,
    # `extend-select` or their command-line options name it (`GL900`, `GL9`, `GL`, `ALL`).
    opt_in: ClassVar[bool] = False
    VALID: ClassVar[Sequence[str]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "VALID" in vars(cls):
            cls.VALID = tuple(example_source(source) for source in cls.VALID)

    def __init__(self, context: "FileContext") -> None:
        self.context = context

    def report(self, node: cst.CSTNode, message: str, fix: Optional[FixPlan] = None) -> None:
        self.context.reports.append(Report(self.code, node, message, fix, self.context.top_statement()))

    def safe_fix(self, message: str, *changes: Change, needs_torch: Optional[str] = None) -> FixPlan:
        return FixPlan(Applicability.SAFE, message, changes, needs_torch)

    def unsafe_fix(self, message: str, *changes: Change, needs_torch: Optional[str] = None) -> FixPlan:
        return FixPlan(Applicability.UNSAFE, message, changes, needs_torch)

    @classmethod
    def fix_summary(cls) -> str:
        """The declared fix, as `gradlint rules` and SARIF print it ("safe", "sometimes unsafe", ...)."""
        return describe_fix(cls.fix_availability, cls.fix_applicabilities)

    @classmethod
    def documentation(cls) -> str:
        return textwrap.dedent(inspect.getdoc(cls) or "").strip()

    @classmethod
    def applies_to(cls, text: str) -> bool:
        return any(trigger in text for trigger in cls.triggers) and all(required in text for required in cls.also_required)

    @classmethod
    def visits_nodes(cls) -> bool:
        return any(attribute.startswith(("visit_", "leave_")) for attribute in dir(cls))


_CODE = re.compile(r"^GL\d{3}$")
# A rule with an analysis of its own is a package `glNNN_name/`: the rule class in this module of it.
RULE_IN_PACKAGE = "rule"


def is_rule_stem(name: str) -> bool:
    """`gl601_model_in_train_mode`: the name of a rule's module, or of its package."""
    return name.startswith("gl") and name[2:5].isdigit()


def check_rule_class(rule: "type[Rule]", module_name: str) -> None:
    """Registry invariants: a code, a kebab-case name, a module named after the code, a severity, a
    consistent fix declaration, and handlers only for node types the traversal reaches (a misspelled
    `visit_Cal` or a `visit_Comma` would otherwise never run, silently)."""
    if not _CODE.match(rule.code):
        raise TypeError(f"{rule.__name__}: bad code {rule.code!r}")
    if not re.match(r"^[a-z]+(-[a-z0-9]+)*$", rule.name):
        raise TypeError(f"{rule.__name__}: bad name {rule.name!r}")
    expected = f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
    parts = module_name.split(".")
    if parts[-1] != expected and parts[-2:] != [expected, RULE_IN_PACKAGE]:
        raise TypeError(f"{rule.__name__} must live in module {expected}.py or {expected}/{RULE_IN_PACKAGE}.py")
    if not isinstance(rule.severity, Severity):
        raise TypeError(f"{rule.__name__}: declare a severity (Severity.ERROR or Severity.WARNING)")
    if (rule.fix_availability is Availability.NONE) != (not rule.fix_applicabilities):
        raise TypeError(f"{rule.__name__}: declare fix applicabilities exactly when a fix is available")
    for attribute in dir(rule):
        prefix, _, node_type = attribute.partition("_")
        if prefix in ("visit", "leave") and node_type not in reachable_node_types():
            raise TypeError(f"{rule.__name__}.{attribute}: the traversal never reaches a `{node_type}` node")
    if rule.visits_nodes() and not rule.triggers:
        raise TypeError(f"{rule.__name__}: a rule needs prefilter triggers")
