"""Start a new rule: `python -m gradlint.scaffold GL601 model-in-train-mode`.

Creates the rule module (`gradlint/rules/gl601_model_in_train_mode.py`), its fixture folder
(`fixtures/GL601_model_in_train_mode/` with bad.py, good.py and test_runtime.py) and regenerates
the catalog and README's rule table. Nothing else has to change: the registry finds the module.
A rule that grows an analysis of its own becomes a package (`gl601_model_in_train_mode/rule.py`
with the analysis beside it), which the registry finds as well.
The templates are starting points that fail the rule tests until they are filled in.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from gradlint import docs

_CODE = re.compile(r"^GL\d{3}$")
_NAME = re.compile(r"^[a-z]+(-[a-z0-9]+)*$")

RULE_TEMPLATE = '''from __future__ import annotations

import libcst as cst

from gradlint.rules.base import Invalid, Rule, Severity


class {class_name}(Rule):
    """
    ## What it does
    Flags ... (one paragraph: the pattern, as a user would write it).

    ## Why is this bad?
    What torch 2.13 does with it, measured (numbers, the exception raised, what never moves).

    ## Example
    ```python
    ...
    ```

    ## Use instead
    ```python
    ...
    ```

    ## Fix safety
    No fix yet. (Safe only when the rewrite is exactly equivalent under torch 2.13; otherwise
    unsafe, applied with `--unsafe-fixes`.)

    ## Known limits
    What is deliberately not reported.
    """

    code = "{code}"
    name = "{name}"
    summary = "..."
    # ERROR when the reported code raises or silently goes wrong under torch 2.13; WARNING when it
    # runs as meant through a legacy API or at a cost (CONTRIBUTING.md, "Severity").
    severity = Severity.ERROR
    # The file is analysed only when one of these strings occurs in it: a word every finding needs.
    triggers = ("{trigger}",)

    VALID = ()
    INVALID = ()

    def visit_Call(self, node: cst.Call) -> None:
        pass
'''

BAD_TEMPLATE = '''"""{code} {name}: the mistake. Mark each expected finding with a trailing `# expect: {code}` comment."""

import torch
'''

GOOD_TEMPLATE = '''"""{code} {name}: the correct form (no finding)."""

import torch
'''

TEST_TEMPLATE = '''"""{code} under torch 2.13: run bad.py and good.py and show the difference with numbers
(gradients against an analytic or finite-difference value, parameters that never move, an exception
that is raised); where the rule has a fix, show that the fixed bad.py behaves like good.py
(`fixture_files.fixed()`)."""

import torch


def test_the_mistake_differs_from_the_correct_form(fixture_files):
    bad, good = fixture_files.bad(), fixture_files.good()
    raise NotImplementedError("compare bad and good with numbers")
'''


@dataclass(frozen=True)
class NewRule:
    code: str
    name: str

    @property
    def stem(self) -> str:
        return f"{self.code.lower()}_{self.name.replace('-', '_')}"

    @property
    def class_name(self) -> str:
        return "".join(part.capitalize() for part in self.name.split("-"))

    def files(self, root: Path) -> dict[Path, str]:
        """Every file the scaffold writes, by path, with its content."""
        fields = {"code": self.code, "name": self.name, "class_name": self.class_name, "trigger": self.name.split("-")[0]}
        folder = root / "fixtures" / f"{self.code}_{self.name.replace('-', '_')}"
        return {
            root / "gradlint" / "rules" / f"{self.stem}.py": RULE_TEMPLATE.format(**fields),
            folder / "bad.py": BAD_TEMPLATE.format(**fields),
            folder / "good.py": GOOD_TEMPLATE.format(**fields),
            folder / "test_runtime.py": TEST_TEMPLATE.format(**fields),
        }


class ScaffoldError(Exception):
    pass


def create(code: str, name: str, root: Path) -> list[Path]:
    """Write the new rule's module and fixture folder under `root`; the paths written."""
    rule = NewRule(code.upper(), name)
    if not _CODE.match(rule.code):
        raise ScaffoldError(f"bad rule code {code!r}: expected GL followed by three digits")
    if not _NAME.match(rule.name):
        raise ScaffoldError(f"bad rule name {name!r}: expected kebab-case, such as model-in-train-mode")
    existing = sorted((root / "gradlint" / "rules").glob(f"{rule.code.lower()}_*"))  # a module, or a rule package
    if existing:
        raise ScaffoldError(f"{rule.code} exists already: {existing[0].relative_to(root)}")
    written = rule.files(root)
    for path, text in written.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
    return sorted(written)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m gradlint.scaffold GL601 rule-name", file=sys.stderr)
        return 2
    root = Path.cwd()
    try:
        written = create(argv[0], argv[1], root)
    except ScaffoldError as error:
        print(f"gradlint.scaffold: {error}", file=sys.stderr)
        return 2
    for path in written:
        print(f"created {path.relative_to(root)}")
    # A fresh registry sees the new module: regenerate the catalogs and README's table from it.
    docs.all_rules.cache_clear()
    docs.write_catalog(root / "rules")
    docs.write_catalog_module(root / "gradlint" / "rules" / "_catalog.py")
    print("regenerated rules/, gradlint/rules/_catalog.py and the rule table in README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
