"""The rule contract is verified, not trusted: declared fixes against what the examples produce,
handlers against the node types the traversal reaches, pinned examples, documentation examples,
one-line messages."""

from __future__ import annotations

import re
import textwrap
from typing import Iterable

import libcst as cst
import pytest

from gradlint.context import FileContext
from gradlint.engine import lint_bytes, parse
from gradlint.fix.edits import EditBuilder
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules import all_codes, all_rules
from gradlint.rules.base import Invalid, Rule, Severity, check_rule_class, example_source
from gradlint.source import LineIndex
from gradlint.walker import walk
from gradlint.rules.noqa_rule import NoqaRule
from support import ROOT, example_codes, lint

RULES = [rule for rule in all_rules() if rule.INVALID]
INVALID = [(rule, example) for rule in all_rules() for example in rule.INVALID]
FIXTURE_FILES = sorted((ROOT / "fixtures").glob("GL*/*.py"))


# ---------------------------------------------------------------------------------------------
# Declared fixes against the fixes the INVALID examples produce.


def fixes_of(rule: "type[Rule]", source: str) -> list:
    """For each finding of `rule` alone on `source`: its fix's applicability, or None without a fix
    (a plan that cannot become edits counts as no fix, as it does for the user)."""
    if issubclass(rule, NoqaRule):  # judged after the traversal, from the other rules' findings
        return [None if f.fix is None else f.fix.applicability for f in lint(source, *example_codes(rule)) if f.code == rule.code]
    module, _ = parse(source)
    assert module is not None, source
    context = FileContext("example.py", source, module)
    walk(context, [rule(context)])
    builder = EditBuilder(context, context.positions, LineIndex.of(source))
    found = []
    for report in context.reports:
        builder.hint = report.top
        fix = builder.fix(report.fix) if report.fix is not None else None
        found.append(None if fix is None else fix.applicability)
    return found


def observed_fix(rule: "type[Rule]", sources: Iterable[str]) -> tuple[Availability, frozenset[Applicability]]:
    seen = [kind for source in sources for kind in fixes_of(rule, source)]
    kinds = frozenset(kind for kind in seen if kind is not None)
    if not kinds:
        return Availability.NONE, kinds
    return (Availability.ALWAYS if None not in seen else Availability.SOMETIMES), kinds


def declared_fix(rule: "type[Rule]") -> tuple[Availability, frozenset[Applicability]]:
    return rule.fix_availability, frozenset(rule.fix_applicabilities)


@pytest.mark.parametrize("rule", RULES, ids=[rule.code for rule in RULES])
def test_declared_fix_is_what_the_invalid_examples_produce(rule):
    observed = observed_fix(rule, [example.code for example in rule.INVALID])
    assert observed == declared_fix(rule), f"{rule.code} declares {declared_fix(rule)}, its examples show {observed}"


class _AlwaysSafeOnPaper(Rule):
    """Declares always-safe fixes; emits an unsafe one for `a.b` and none for `a.c`."""

    code = "GL999"
    name = "always-safe-on-paper"
    severity = Severity.WARNING
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE,)
    triggers = (".",)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "b":
            self.report(node, "m", self.unsafe_fix("f", Replace(node, "a")))
        elif node.attr.value == "c":
            self.report(node, "m")
        elif node.attr.value == "d":
            self.report(node, "m", self.safe_fix("f", Replace(node, "a")))


def test_a_rule_declaring_always_safe_that_emits_an_unsafe_fix_is_caught():
    assert observed_fix(_AlwaysSafeOnPaper, ["a.b\n"]) != declared_fix(_AlwaysSafeOnPaper)


def test_a_rule_declaring_always_safe_that_emits_no_fix_is_caught():
    assert observed_fix(_AlwaysSafeOnPaper, ["a.d\n", "a.c\n"]) == (Availability.SOMETIMES, {Applicability.SAFE})
    assert observed_fix(_AlwaysSafeOnPaper, ["a.c\n"]) != declared_fix(_AlwaysSafeOnPaper)
    assert observed_fix(_AlwaysSafeOnPaper, ["a.d\n"]) == declared_fix(_AlwaysSafeOnPaper)


def test_sometimes_needs_examples_with_and_without_a_fix():
    for rule in all_rules():
        if rule.fix_availability is Availability.SOMETIMES:
            seen = [kind for example in rule.INVALID for kind in fixes_of(rule, example.code)]
            assert None in seen and any(kind is not None for kind in seen), rule.code


def test_the_registry_rejects_a_fix_declaration_without_applicabilities():
    class Undeclared(_AlwaysSafeOnPaper):
        fix_applicabilities = ()

    with pytest.raises(TypeError, match="applicabilities"):
        check_rule_class(Undeclared, "gradlint.rules.gl999_always_safe_on_paper")


# ---------------------------------------------------------------------------------------------
# Handlers for node types the traversal never reaches are rejected at import.


def _rule_with(handler: str) -> "type[Rule]":
    return type("Synthetic", (_AlwaysSafeOnPaper,), {handler: lambda self, node: None})


@pytest.mark.parametrize(
    "handler", ["visit_Comma", "visit_Add", "leave_Add", "visit_SimpleWhitespace", "visit_Cal", "leave_Colon", "visit_LeftParen"]
)
def test_a_handler_for_a_node_type_never_reached_is_rejected(handler):
    with pytest.raises(TypeError, match=handler):
        check_rule_class(_rule_with(handler), "gradlint.rules.gl999_always_safe_on_paper")


@pytest.mark.parametrize("handler", ["visit_Call", "leave_Call", "visit_MatchCase", "visit_Param", "visit_CompIf", "visit_Module"])
def test_a_handler_for_a_reached_node_type_is_accepted(handler):
    check_rule_class(_rule_with(handler), "gradlint.rules.gl999_always_safe_on_paper")


def test_a_real_traversal_meets_only_reachable_node_types():
    """The computed set covers what the traversal meets over the project's own sources and data."""
    from gradlint.analysis.tree import descendants, reachable_node_types

    sources = [*(ROOT / "gradlint").rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "fixtures").rglob("*.py")]
    met = set()
    for path in sources:
        module, _ = parse(path.read_text(encoding="utf-8", errors="replace"))
        if module is not None:
            met.update(type(node).__name__ for node in descendants(module))
    assert len(met) > 60 and met <= reachable_node_types()


# ---------------------------------------------------------------------------------------------
# Pinned examples: position, message and fix title.


def _matches(example: Invalid, finding) -> bool:
    return (
        (example.line is None or finding.location.row == example.line)
        and (example.column is None or finding.location.column == example.column)
        and (example.message is None or example.message in finding.message)
        and (example.fix_title is None or (finding.fix is not None and finding.fix.message == example.fix_title))
    )


@pytest.mark.parametrize("rule, example", INVALID, ids=[rule.code for rule, _ in INVALID])
def test_invalid_example_shows_what_it_pins(rule, example):
    findings = [f for f in lint(example.code, *example_codes(rule)) if f.code == rule.code]
    assert any(_matches(example, finding) for finding in findings), [(f.location, f.message, f.fix) for f in findings]


def test_a_good_share_of_invalid_examples_pin_position_and_message():
    pinned = [example for _, example in INVALID if example.line is not None and example.message is not None]
    assert len(pinned) * 3 >= len(INVALID)


def test_a_wrong_pin_does_not_match():
    finding = lint("from torch.autograd import Variable\nx = Variable(t)\n", "GL101")[0]
    assert _matches(Invalid("", line=2, column=5, message="no-op wrapper", fix_title="Replace with `t.detach()`"), finding)
    assert not _matches(Invalid("", line=2, column=6), finding)
    assert not _matches(Invalid("", message="something else"), finding)
    assert not _matches(Invalid("", fix_title="Replace with `t`"), finding)


def test_examples_written_as_blocks_are_dedented():
    block = """
        for x in data:
            loss.backward()
        """
    assert example_source(block) == "for x in data:\n    loss.backward()\n"
    assert example_source("x = 1\n") == "x = 1\n"
    assert Invalid(block).fixed is None
    assert Invalid(block, block).fixed == "for x in data:\n    loss.backward()\n"


def test_valid_examples_written_as_blocks_are_dedented():
    class Blocks(_AlwaysSafeOnPaper):
        VALID = (
            """
            if a:
                b
            """,
        )

    assert Blocks.VALID == ("if a:\n    b\n",)


# ---------------------------------------------------------------------------------------------
# The documentation's own examples.


def _code_blocks(documentation: str, heading: str) -> list[str]:
    section = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", documentation, re.S | re.M)
    return re.findall(r"```python\n(.*?)```", section.group(1), re.S) if section else []


DOCUMENTED = [rule for rule in all_rules() if _code_blocks(rule.documentation(), "Example")]


def test_every_rule_that_has_source_to_show_shows_it():
    assert {rule.code for rule in all_rules()} - {rule.code for rule in DOCUMENTED} == {"GL002"}  # bytes, not code


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[rule.code for rule in DOCUMENTED])
def test_documented_example_is_flagged(rule):
    for block in _code_blocks(rule.documentation(), "Example"):
        assert any(f.code == rule.code for f in lint(textwrap.dedent(block), *example_codes(rule))), block


@pytest.mark.parametrize("rule", DOCUMENTED, ids=[rule.code for rule in DOCUMENTED])
def test_documented_alternative_is_not_flagged(rule):
    blocks = _code_blocks(rule.documentation(), "Use instead")
    assert blocks, f"{rule.code}: `Use instead` shows no code"
    for block in blocks:
        assert [f for f in lint(textwrap.dedent(block), *example_codes(rule)) if f.code == rule.code] == [], block


# ---------------------------------------------------------------------------------------------
# Messages are one line.


def test_no_message_of_an_example_or_fixture_spans_lines():
    sources = [example.code for _, example in INVALID] + [source for rule in all_rules() for source in rule.VALID]
    findings = [f for source in sources for f in lint(source)]
    for path in FIXTURE_FILES:
        findings += lint_bytes(path.read_bytes(), str(path), frozenset(all_codes())).findings
    assert findings
    for finding in findings:
        assert "\n" not in finding.message and "\r" not in finding.message, finding
        assert finding.fix is None or "\n" not in finding.fix.message, finding


def test_a_multi_line_expression_is_quoted_on_one_line():
    source = "import torch\nx = torch.nn.functional.mse_loss(\n    a, b).data[0]\n"
    (finding,) = lint(source, "GL103")
    assert "\n" not in finding.message and "\n" not in finding.fix.message
