"""The rule contract: one class per rule, one rule per module (Fixit-style)."""

from __future__ import annotations

import inspect
import re
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Optional, Sequence, Union

import libcst as cst

from gradlint.model import SAFE, UNSAFE

if TYPE_CHECKING:
    from gradlint.context import FileContext

# What a rule's fixes can be: always safe, always unsafe, or safe for some forms only.
FIX_SAFE = SAFE
FIX_UNSAFE = UNSAFE
FIX_SOMETIMES = "sometimes"


@dataclass(frozen=True)
class Replace:
    """Replace `node` (without its own parentheses) by `replacement`."""

    node: cst.CSTNode
    replacement: Union[cst.CSTNode, str]


@dataclass(frozen=True)
class InsertLineBefore:
    """Insert a whole line of `text` before the line on which `statement` starts."""

    statement: cst.CSTNode
    text: str


@dataclass(frozen=True)
class RemoveLine:
    """Remove the line(s) holding `statement` (a statement alone on its line)."""

    statement: cst.CSTNode


@dataclass(frozen=True)
class ReplaceLines:
    """Replace the whole lines from `first`'s line to `last`'s line by `text` (complete lines)."""

    first: cst.CSTNode
    last: cst.CSTNode
    text: str


Change = Union[Replace, InsertLineBefore, RemoveLine, ReplaceLines]


@dataclass(frozen=True)
class FixPlan:
    applicability: str
    message: str
    changes: tuple[Change, ...]


@dataclass(frozen=True)
class Report:
    rule: "type[Rule]"
    node: cst.CSTNode
    message: str
    fix: Optional[FixPlan]
    top: Optional[cst.CSTNode] = None  # the top-level statement it was reported in (a position hint)


@dataclass(frozen=True)
class Invalid:
    """An example the rule must flag; `fixed` is the source after applying its fixes (unsafe included)."""

    code: str
    fixed: Optional[str] = None


class Rule:
    """Base class. Subclasses define `visit_<Node>` / `leave_<Node>` methods and call `report`.

    The class docstring is the rule's documentation, in Markdown sections:
    What it does / Why is this bad? / Example / Use instead / Fix safety / Known limits.
    """

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    fix_availability: ClassVar[Optional[str]] = None
    # The file is analysed only when one of these strings occurs in its text (cheap prefilter).
    triggers: ClassVar[tuple[str, ...]] = ()
    # Names whose import the fixer removes once a fix of this rule has made it unused.
    cleanup_imports: ClassVar[tuple[str, ...]] = ()
    VALID: ClassVar[Sequence[str]] = ()
    INVALID: ClassVar[Sequence[Invalid]] = ()

    def __init__(self, context: "FileContext") -> None:
        self.context = context

    def report(self, node: cst.CSTNode, message: str, fix: Optional[FixPlan] = None, *, near: Optional[cst.CSTNode] = None) -> None:
        """`near`: a statement holding `node`, when reporting outside the traversal (from visit_Module)."""
        self.context.reports.append(Report(type(self), node, message, fix, self.context.position_hint(near if near is not None else node)))

    def safe_fix(self, message: str, *changes: Change) -> FixPlan:
        return FixPlan(SAFE, message, changes)

    def unsafe_fix(self, message: str, *changes: Change) -> FixPlan:
        return FixPlan(UNSAFE, message, changes)

    @classmethod
    def documentation(cls) -> str:
        return textwrap.dedent(inspect.getdoc(cls) or "").strip()

    @classmethod
    def applies_to(cls, text: str) -> bool:
        return any(trigger in text for trigger in cls.triggers)

    @classmethod
    def visits_nodes(cls) -> bool:
        return any(attribute.startswith(("visit_", "leave_")) for attribute in dir(cls))


_CODE = re.compile(r"^GL\d{3}$")


def check_rule_class(rule: "type[Rule]", module_name: str) -> None:
    """Registry invariants: a code, a kebab-case name, a module named after the code."""
    if not _CODE.match(rule.code):
        raise TypeError(f"{rule.__name__}: bad code {rule.code!r}")
    if not re.match(r"^[a-z]+(-[a-z0-9]+)*$", rule.name):
        raise TypeError(f"{rule.__name__}: bad name {rule.name!r}")
    expected = f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
    if module_name.rsplit(".", 1)[-1] != expected:
        raise TypeError(f"{rule.__name__} must live in module {expected}.py")
    if rule.visits_nodes() and not rule.triggers:
        raise TypeError(f"{rule.__name__}: a rule needs prefilter triggers")
