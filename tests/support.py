"""Helpers shared by the tests (on the pytest python path)."""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import libcst as cst

from gradlint.analysis.tree import descendants
from gradlint.context import FileContext
from gradlint.engine import lint_text
from gradlint.rules import all_codes
from gradlint.rules.noqa_rule import NoqaRule

ROOT = Path(__file__).resolve().parent.parent

# Legacy PyTorch 0.3 code whose findings (GL101 at 6:9, GL103 at 8:12) all have safe fixes.
LEGACY_EVALUATE = """\
import torch
from torch.autograd import Variable


def evaluate(model, batch, target):
    x = Variable(batch)
    loss = torch.nn.functional.mse_loss(model(x), target)
    return loss.data[0]
"""


def lint(source: str, *codes: str, path: str = "example.py"):
    """Findings for `source` with the given codes (all rules by default)."""
    return lint_text(source, path, frozenset(codes or all_codes())).findings


def example_codes(rule) -> tuple[str, ...]:
    """The rules an example of `rule` is checked with: the rule alone, or, for a rule about
    `# noqa` comments, every rule (it judges the codes of the rules selected with it)."""
    return all_codes() if issubclass(rule, NoqaRule) else (rule.code,)


def parses(path: Path) -> bool:
    """CPython parses the file (fixtures of GL001 do not)."""
    try:
        ast.parse(path.read_bytes())
    except SyntaxError:
        return False
    return True


def write(path: Path, text) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def readme_block(heading: str, language: str = "yaml") -> str:
    """The first fenced `language` block of the README section that starts with `heading`."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n")
    section = text[start + len(heading) + 2 :]
    following = re.search(r"^#{1,3} ", section, flags=re.MULTILINE)
    section = section[: following.start()] if following else section
    block = re.search(rf"^```{language}\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)
    assert block, f"no {language} block under {heading!r} in README.md"
    return block.group(1)


def last_value(source: str) -> tuple[FileContext, cst.BaseExpression, cst.CSTNode]:
    """The context, the value of the last `probe = ...` assignment, and its scope."""
    text = textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    found = None
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef):
            scope = node
        if isinstance(node, cst.Assign) and isinstance(node.targets[0].target, cst.Name) and node.targets[0].target.value == "probe":
            found = (node.value, scope if any(n is node for n in descendants(scope)) else module)
    assert found is not None
    return context, found[0], found[1]
