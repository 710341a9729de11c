"""Fuzzing the engine and the fixer (issue 7, "Tests at scale").

Three sources of programs:

* hypothesmith: arbitrary syntactically valid Python (from the grammar, and from LibCST nodes).
  They almost never contain torch idioms, so most rules stay silent on them; they exercise the
  parser, the prefilter, the walker and the position machinery on unusual syntax.
* hypothesmith programs with torch and legacy snippets spliced in (statements inserted into random
  blocks, expressions wrapped in `Variable(...)`, `.data`, `.data[0]`), so the rules do fire on
  unusual surroundings.
* a grammar of training-loop statements (imports, loops, `def`/`class`, `with`, `try`, one-line
  bodies, `;`-joined statements, comments, tabs, CRLF, parenthesised continuation lines) built from
  the idioms every rule looks for.

The properties, with every rule selected and every fix enabled (unsafe included): checking never
raises and never reports an internal error; fixing returns text that compiles whenever the input
compiled (and the input, untouched, when it did not); a second fix changes nothing.

The mutation fuzz (bottom of the file) takes the fixture sources and the legacy examples, injects
legacy patterns at random valid positions with a LibCST transformer driven by hypothesis draws,
and checks `fix --migrate` (GL101-GL104, GL301-GL303): the output compiles, is idempotent, and no
migration finding with a safe fix is left.

Normal runs draw a bounded, derandomized number of examples (this file stays well under a minute);
`pytest tests/test_fuzz.py --hypothesis-profile=long` draws thousands, randomized.
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Optional

import hypothesmith
import libcst as cst
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from gradlint.engine import lint_text
from gradlint.fix.apply import fix_text
from gradlint.positions import LazyPositions
from gradlint.rules import all_codes
from gradlint.source import LineIndex
from support import ROOT

ALL = frozenset(all_codes())
MIGRATE = frozenset({"GL101", "GL102", "GL103", "GL104", "GL105", "GL106", "GL107", "GL301", "GL302", "GL303"})
# hypothesmith compiles what it generates: "'str' object is not callable; perhaps you missed a comma?"
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")
LONG = settings.get_current_profile_name() == "long"


def budget(examples: int) -> settings:
    """`examples` derandomized examples in a normal run; the long profile's count otherwise."""
    if LONG:
        return settings(deadline=None, suppress_health_check=list(HealthCheck))
    return settings(max_examples=examples, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


def compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning: "is" with a literal, invalid escapes...
        try:
            compile(text, "<fuzz>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


@contextmanager
def whole_module_positions():
    """Every position from LibCST's PositionProvider over the whole module (no per-statement shortcut)."""
    lookup = LazyPositions.lookup
    LazyPositions.lookup = lambda self, node, hint=None: self._whole()[node]
    try:
        yield
    finally:
        LazyPositions.lookup = lookup


def check_and_fix(source: str, codes: frozenset[str] = ALL, *, unsafe: bool = True) -> str:
    """The engine and fixer properties on one program; returns the fixed text."""
    note(f"source:\n{source}")
    outcome = lint_text(source, "fuzz.py", codes)
    assert outcome.error is None, outcome.error
    for finding in outcome.findings:
        assert 1 <= finding.location.row <= len(LineIndex.of(source).starts)
        assert finding.location <= finding.end_location
    if outcome.findings:
        # Positions are resolved statement by statement; LibCST's whole-module provider is the
        # oracle. A wrong offset could rewrite the wrong text and still compile.
        with whole_module_positions():
            expected = lint_text(source, "fuzz.py", codes)
        assert outcome.findings == expected.findings, "lazy positions differ from the whole-module ones"
    result = fix_text(source, "fuzz.py", codes, unsafe=unsafe)
    assert result.error is None, result.error
    if not compiles(source):
        assert result.text == source and result.applied == 0
        return source
    note(f"fixed:\n{result.text}")
    assert compiles(result.text), "the fix produced code that does not compile"
    again = fix_text(result.text, "fuzz.py", codes, unsafe=unsafe)
    assert again.error is None, again.error
    assert again.text == result.text, "a second fix changed the text"
    return result.text


# --------------------------------------------------------------------------------------------
# hypothesmith programs, as generated

# hypothesmith's grammar strategy builds a LALR parser of Python's grammar (seconds): built once, on
# the first draw, so that collecting this file (once per xdist worker) does not pay for it.
GRAMMAR_PROGRAMS = st.deferred(hypothesmith.from_grammar)


@budget(200)
@given(GRAMMAR_PROGRAMS)
def test_grammar_programs(source):
    check_and_fix(source)


@budget(30)
@given(hypothesmith.from_node())
def test_node_programs(source):
    check_and_fix(source)


# --------------------------------------------------------------------------------------------
# LibCST mutations: wrap expressions in legacy patterns, insert legacy statements

WRAPS = ("variable", "variable_volatile", "variable_grad", "data", "data_index")
# Expressions that can take `.attr` / `(...)` without parentheses of their own.
_ATOMIC = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.List,
    cst.Dict,
    cst.Set,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
    cst.SimpleString,
    cst.FormattedString,
)

SNIPPETS = (
    "x = Variable(torch.randn(3, 4))",
    "x = Variable(x, volatile=True)",
    "w = Variable(torch.randn(4, 1), requires_grad=True)",
    "loss = (out - y).pow(2).mean()",
    "loss.backward()",
    "optimizer.step()",
    "optimizer.zero_grad()",
    "print(loss.data[0])",
    "total += loss.data[0]",
    "w.data -= lr * w.grad.data",
    "w.grad.data.zero_()",
    "p.data.copy_(q.data)",
    "x.data = torch.zeros(3)",
    "y = x.data.numpy()",
    "if isinstance(x, Variable):\n    x = x.data\n",
    "for p in model.parameters():\n    p.data.add_(-lr, p.grad.data)\n",
    "w.require_grad = True",
    "total_loss += loss",
    "losses.append(loss)",
    "w = w - lr * w.grad",
    "arr = out.numpy()",
    "with torch.no_grad():\n    w -= lr * w.grad\n",
    "for x, y in loader:\n    out = model(Variable(x))\n    loss = criterion(out, Variable(y))\n    loss.backward()\n    optimizer.step()\n",
    "d_fake = netD(netG(z))\nd_loss = criterion(d_fake, zeros)\nd_loss.backward()\noptD.step()\n",
)
VARIABLE_IMPORTS = (
    ("from torch.autograd import Variable", "Variable"),
    ("from torch import autograd", "autograd.Variable"),
    ("import torch", "torch.autograd.Variable"),
    ("from torch.autograd import Variable as V", "V"),
)


def _parenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, _ATOMIC) or getattr(node, "lpar", None):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _call_argument(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` as the first of several call arguments: yields, bare tuples and generator expressions
    (whose parentheses a sole argument lends them) need their own there."""
    if isinstance(node, (cst.Yield, cst.Tuple, cst.GeneratorExp)) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


class _Stores(cst.CSTVisitor):
    """ids of every node inside an assignment, loop, `with`, `del` or walrus target."""

    def __init__(self) -> None:
        self.ids: set[int] = set()

    def _mark(self, node: Optional[cst.CSTNode]) -> None:
        if node is None:
            return
        pending = [node]
        while pending:
            current = pending.pop()
            self.ids.add(id(current))
            pending.extend(current.children)

    def visit_AssignTarget(self, node):
        self._mark(node.target)

    def visit_AugAssign(self, node):
        self._mark(node.target)

    def visit_AnnAssign(self, node):
        self._mark(node.target)

    def visit_For(self, node):
        self._mark(node.target)

    def visit_CompFor(self, node):
        self._mark(node.target)

    def visit_AsName(self, node):
        self._mark(node.name)

    def visit_Del(self, node):
        self._mark(node.target)

    def visit_NamedExpr(self, node):
        self._mark(node.target)


class Mutator(cst.CSTTransformer):
    """Wraps expressions in value positions in legacy patterns, as `decide` draws them.

    `decide(kind)` returns None (leave alone) or a choice: for an expression slot one of WRAPS,
    for a statement block the index of a SNIPPET to insert there.
    """

    def __init__(self, decide: Callable[[str], Optional[object]], variable: str, stores: set[int], snippets: bool) -> None:
        super().__init__()
        self.decide = decide
        self.variable = variable
        self.stores = stores
        self.snippets = snippets
        self.count = 0

    # expressions ------------------------------------------------------------------------

    def _wrap(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if isinstance(node, (cst.StarredElement,)):
            return node
        choice = self.decide("expression")
        if choice is None:
            return node
        self.count += 1
        if choice.startswith("variable"):
            function = cst.parse_expression(self.variable)
            args = [cst.Arg(_call_argument(node))]
            if choice == "variable_volatile":
                args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("volatile")))
            elif choice == "variable_grad":
                args.append(cst.Arg(cst.Name("True"), keyword=cst.Name("requires_grad")))
            return cst.Call(function, args)
        data = cst.Attribute(_parenthesized(node), cst.Name("data"))
        if choice == "data":
            return data
        return cst.Subscript(data, [cst.SubscriptElement(cst.Index(cst.Integer("0")))])

    def leave_Arg(self, original, updated):
        return updated.with_changes(value=self._wrap(updated.value))

    def leave_Assign(self, original, updated):
        return updated.with_changes(value=self._wrap(updated.value))

    def leave_AugAssign(self, original, updated):
        return updated.with_changes(value=self._wrap(updated.value))

    def leave_AnnAssign(self, original, updated):
        if updated.value is None:
            return updated
        return updated.with_changes(value=self._wrap(updated.value))

    def leave_Return(self, original, updated):
        if updated.value is None:
            return updated
        return updated.with_changes(value=self._wrap(updated.value))

    def leave_BinaryOperation(self, original, updated):
        return updated.with_changes(left=self._wrap(updated.left), right=self._wrap(updated.right))

    def leave_Index(self, original, updated):
        return updated.with_changes(value=self._wrap(updated.value))

    def leave_Element(self, original, updated):
        if id(original) in self.stores:
            return updated
        return updated.with_changes(value=self._wrap(updated.value))

    # statements -------------------------------------------------------------------------

    def _insert(self, body, start: int):
        if not self.snippets:
            return body
        result = list(body[:start])
        for statement in list(body[start:]) + [None]:
            choice = self.decide("statement")
            if choice is not None:
                self.count += 1
                result.extend(cst.parse_module(SNIPPETS[choice]).body)
            if statement is not None:
                result.append(statement)
        return result

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._insert(updated.body, 0))

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._insert(updated.body, _preamble(updated)))


def _preamble(module: cst.Module) -> int:
    """Statements that must stay first: a docstring and `from __future__` imports."""
    index = 0
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            break
        small = statement.body[0]
        if isinstance(small, cst.ImportFrom) and isinstance(small.module, cst.Name) and small.module.value == "__future__":
            index += 1
        elif index == 0 and isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
            index += 1
        else:
            break
    return index


def _with_imports(module: cst.Module, lines: list[str]) -> cst.Module:
    index = _preamble(module)
    added = [cst.parse_statement(line + "\n") for line in lines]
    return module.with_changes(body=[*module.body[:index], *added, *module.body[index:]])


LAYOUTS = ("wrap_if", "wrap_match", "wrap_try", "wrap_with", "wrap_class", "wrap_def", "join", "suite")


def _scope_blockers(statement: cst.CSTNode) -> set[str]:
    """What keeps `statement` from moving into a new `def` or `class` body: `return`/`yield`/`await`
    of the enclosing function, `break`/`continue` of an enclosing loop, `nonlocal`, `import *`."""
    found: set[str] = set()
    pending = [(statement, False, False)]
    while pending:
        node, in_function, in_loop = pending.pop()
        if isinstance(node, cst.Nonlocal):
            found.add("nonlocal")
        elif isinstance(node, cst.ImportStar):
            found.add("star")
        elif isinstance(node, (cst.Return, cst.Yield)) and not in_function:
            found.add("return")
        elif isinstance(node, cst.Await) and not in_function:
            found.add("await")
        elif isinstance(node, (cst.Break, cst.Continue)) and not in_loop:
            found.add("loop")
        nested = node is not statement and isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
        for child in node.children:
            loop = (in_loop or isinstance(node, (cst.For, cst.While)) and child is node.body) and not nested
            pending.append((child, in_function or nested, loop))
    return found


def _block(statement: cst.BaseStatement) -> cst.IndentedBlock:
    return cst.IndentedBlock([statement.with_changes(leading_lines=())])


class Relayout(cst.CSTTransformer):
    """Moves statements around without changing what they say, as `decide("layout")` draws:
    one level deeper under `if True:` / `match` / `try` / `with`, joined with the previous line by
    `;`, or a one-statement block turned into a one-line body (`for p in ps: p.data.zero_()`)."""

    def __init__(self, decide: Callable[[str], Optional[str]]) -> None:
        super().__init__()
        self.decide = decide

    def _relayout(self, body, start: int):
        result = list(body[:start])
        for statement in body[start:]:
            choice = self.decide("layout")
            leading = statement.leading_lines
            if choice == "wrap_if":
                statement = cst.If(cst.Name("True"), _block(statement), leading_lines=leading)
            elif choice == "wrap_match":
                case = cst.MatchCase(cst.MatchAs(), _block(statement))
                statement = cst.Match(cst.Name("mode"), [case], leading_lines=leading)
            elif choice == "wrap_try":
                handler = cst.ExceptHandler(cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]), type=cst.Name("Exception"))
                statement = cst.Try(_block(statement), handlers=[handler], leading_lines=leading)
            elif choice == "wrap_class" and not _scope_blockers(statement):
                statement = cst.ClassDef(cst.Name("Wrapper"), _block(statement), leading_lines=leading)
            elif choice == "wrap_def" and not _scope_blockers(statement) - {"return"}:
                statement = cst.FunctionDef(cst.Name("wrapper"), cst.Parameters(), _block(statement), leading_lines=leading)
            elif choice == "wrap_with":
                item = cst.WithItem(cst.Call(cst.Attribute(cst.Name("torch"), cst.Name("enable_grad"))))
                statement = cst.With([item], _block(statement), leading_lines=leading)
            elif (
                choice == "join"
                and result
                and isinstance(statement, cst.SimpleStatementLine)
                and isinstance(result[-1], cst.SimpleStatementLine)
                and not statement.leading_lines
            ):
                previous = result.pop()
                first = [
                    *previous.body[:-1],
                    previous.body[-1].with_changes(semicolon=cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))),
                ]
                statement = previous.with_changes(body=[*first, *statement.body], trailing_whitespace=statement.trailing_whitespace)
            elif (
                choice == "suite"
                and isinstance(statement, (cst.For, cst.While, cst.If, cst.With))
                and isinstance(statement.body, cst.IndentedBlock)
                and len(statement.body.body) == 1
                and isinstance(statement.body.body[0], cst.SimpleStatementLine)
                and not statement.body.body[0].leading_lines
                and not statement.body.footer
                and (not isinstance(statement, cst.If) or statement.orelse is None)
            ):
                line = statement.body.body[0]
                statement = statement.with_changes(body=cst.SimpleStatementSuite(line.body, trailing_whitespace=line.trailing_whitespace))
            result.append(statement)
        return result

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._relayout(updated.body, 0))

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._relayout(updated.body, _preamble(updated)))


@st.composite
def relayout(draw, source: str) -> str:
    """`source` (valid Python) with statements moved into new blocks, joined, made one-line bodies,
    indented with tabs or two spaces, and with CRLF line endings, as hypothesis draws."""
    rate = draw(st.sampled_from((0, 3, 10, 30)), label="layout rate (%)")

    def decide(kind: str):
        return draw(st.sampled_from(LAYOUTS)) if rate and draw(st.integers(0, 99)) < rate else None

    module = cst.parse_module(source).visit(Relayout(decide))
    indent = draw(st.sampled_from((None, "\t", "  ")), label="indent unit")
    if indent is not None:
        module = module.with_changes(default_indent=indent).visit(_Reindent(indent))
    text = module.code
    if draw(st.booleans(), label="CRLF"):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text


class _Reindent(cst.CSTTransformer):
    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = unit

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(indent=self.unit)

    def leave_Match(self, original, updated):
        return updated.with_changes(indent=self.unit)


@st.composite
def mutated(draw, source: str, *, snippets: bool, rate_choices=(2, 5, 12)) -> str:
    """`source` with legacy patterns injected at random valid positions (and their imports)."""
    module = cst.parse_module(source)
    stores = _Stores()
    module.visit(stores)
    rate = draw(st.sampled_from(rate_choices), label="rate (%)")
    limit = draw(st.integers(1, 10), label="at most this many mutations")
    import_line, variable = draw(st.sampled_from(VARIABLE_IMPORTS), label="Variable spelling")

    def decide(kind: str):
        if mutator.count >= limit or draw(st.integers(0, 99)) >= rate:
            return None
        if kind == "expression":
            return draw(st.sampled_from(WRAPS))
        return draw(st.integers(0, len(SNIPPETS) - 1))

    mutator = Mutator(decide, variable, stores.ids, snippets)
    module = module.visit(mutator)
    imports = ["import torch", import_line] if mutator.count else []
    if snippets and imports and draw(st.booleans(), label="also a snippet-style `Variable` import"):
        imports.append("from torch.autograd import Variable")
    return _with_imports(module, imports).code


# --------------------------------------------------------------------------------------------
# hypothesmith programs with torch idioms spliced in


def _libcst_parses(source: str) -> bool:
    try:
        cst.parse_module(source)
    except Exception:
        return False
    return True


@budget(200)
@given(st.data(), GRAMMAR_PROGRAMS.filter(_libcst_parses))
def test_spliced_grammar_programs(data, source):
    spliced = data.draw(mutated(source, snippets=True, rate_choices=(10, 25, 50)))
    assume(compiles(spliced))  # e.g. `print(loss.data[0])` inserted after a `return` in a generator is fine, but not everything is
    check_and_fix(spliced)
    check_and_fix(spliced, MIGRATE, unsafe=False)


# --------------------------------------------------------------------------------------------
# A grammar of training-loop statements

NAMES = ("x", "y", "w", "b", "out", "loss", "model", "total", "losses", "p", "fake", "z", "hidden", "acc")
ATOMS = (
    "x",
    "y",
    "w",
    "loss",
    "out",
    "total",
    "0",
    "1.0",
    "lr",
    "model(x)",
    "criterion(out, y)",
    "(out - y).pow(2).mean()",
    "x.mm(w)",
    "w.grad",
    "p.grad.data",
    "torch.randn(3, 4)",
    "torch.zeros(3, requires_grad=True)",
    "torch.tensor([1.0], require_grad=True)",
    "loss.item()",
    "netD(fake)",
    "netG(z)",
    "netD(fake.detach())",
    "np.mean(losses)",
    "sum(losses)",
    "x.cpu().numpy()",
    "isinstance(x, Variable)",
    "w.requires_grad",
    "[q for q in model.parameters()]",
    "hidden[0]",
    "torch.autograd.Variable(x)",
    "F.mse_loss(out, y)",
    "model.parameters()",
    "loader",
    "'é😀'",
    "λ",
    "größe.data",
    "f'{x!r:>10}'",
    "b'\\x00'",
    "'''a\nb'''",
    "...",
    "x[1:2, ...]",
)
UNARY = (
    "Variable({})",
    "Variable({}, volatile=True)",
    "Variable({}, requires_grad=True)",
    "Variable({}, requires_grad=False)",
    "Variable({}, True)",
    "({}).data",
    "{}.data",
    "({}).data[0]",
    "{}.data[0]",
    "({}).numpy()",
    "{}.detach()",
    "({}).sum()",
    "torch.sum({})",
    "np.asarray({})",
    "-{}",
    "(\n{}\n)",
    "[{}]",
    "({},)",
    "float({})",
    "{}.cuda()",
    "(lambda: {})",
    "{}.detach().numpy()",
    "{}.to(device)",
    "{}.float()",
    "{}.item()",
    # layouts the fixes must keep intact: comments, continuation lines, odd spacing, nesting
    "Variable(\n    {},  # the input\n    volatile=True,\n)",
    "Variable( {} )",
    "Variable(({}))",
    "Variable(data={})",
    "Variable({}, requires_grad=flag)",
    "Variable({}, requires_grad=not frozen)",
    "Variable({}, 1)",
    "Variable(Variable({}))",
    "Variable({}).data[0]",
    "{}.data  [0]",
    "{}.data[\n0]",
    "{}. data",
    "({}  # note\n).data",
    "Variable({}) \\\n    .cuda()",
    "ag.Variable({})",
    "Variable(*{})",
    "Variable({}, **kw)",
    "torch.from_numpy({}).float()",
    "Variable(torch.from_numpy({}), requires_grad=True)",
    "Variable(torch.zeros({}), requires_grad=True)",
)
BINARY = ("{} + {}", "{} * {}", "({} - {})", "{} if {} else 0", "f({}, key={})", "{} == {}", "[{}, {}]")
SIMPLE = (
    "{n} = {e}",
    "{n} += {e}",
    "{n} -= {e}",
    "{n}.data = {e}",
    "{n}.data -= {e}",
    "{n}.data += {e}",
    "{n}.data.add_({e})",
    "{n}.data.copy_({e})",
    "{n}.data.mul_({e})",
    "{n}.grad.data.zero_()",
    "{n}.data.zero_()",
    "{n}.data[0] = {e}",
    "{n}.data.fill_(0)",
    "{n}.grad = None",
    "loss.backward()",
    "loss.backward(retain_graph=True)",
    "d_loss.backward()",
    "g_loss.backward()",
    "optimizer.zero_grad()",
    "optimizer.step()",
    "opt.zero_grad(set_to_none=True)",
    "model.zero_grad()",
    "optD.step()",
    "optG.step()",
    "optD.zero_grad()",
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
    "optimizer = optim.Adam([w, b])",
    "losses.append({e})",
    "print({e})",
    "total += loss",
    "total += loss.data[0]",
    "total_loss = total_loss + loss",
    "{n}.require_grad = True",
    "{n}.requires_grad = False",
    "{n}.requires_grad_(True)",
    "{n} = {n} - lr * {n}.grad",
    "{n} = Variable({e})",
    "{n} = Variable({e}, volatile=True)",
    "assert isinstance({n}, Variable)",
    "arr = {a}.numpy()",
    "fake = netG(z)",
    "d_loss = criterion(netD(fake), ones)",
    "g_loss = criterion(netD(fake), ones)",
    "hidden = repackage(hidden)",
    "del {n}",
    "pass",
    "{n}, {m} = {e}, {e}",
    "{n}: float = {e}",
    "x = y = {e}",
    "({n}) = {e}",
    "w.data.sub_(lr * w.grad.data)",
    "{n} = {e}  # noqa: GL101",
    "{n} = {e}  # noqa",
    "{n}.data.add_(-lr, {n}.grad.data)",
    "{n}.data = {n}.data - lr * {n}.grad.data",
    "{n}.data[{m} < 0] = 0",
    "{n}.data.mul_(0.99).add_({m}.data, alpha=0.01)",
    "{n} = \\\n    {e}",
    "{n}.data -= \\\n    lr * {n}.grad.data",
    "{n}.data.copy_(\n    {e}  # copied\n)",
    "nn.init.normal_({n}.weight.data, 0.0, 0.02)",
    "print('%.3f' % loss.data[0])",
    "{n} = {n}.data; {m} = {m}.data[0]",
    "{n}.weight.data = {m}.weight.data.clone()",
    "{n}.data.add_(1); {m}.data.add_(1)",
    "{n}.requires_grad=True",
    "{n}.volatile = True",
    "{n}.data",
    "total_loss += loss.data",
    "total_loss += loss.item()",
    "correct += (pred == y).sum().data[0]",
    "losses.append(loss.data.cpu().numpy())",
    "{n}.grad.data.clamp_(-1, 1)",
    "torch.save({n}.data, path)",
    "print('—😀—', {e})",
    "λ = {e}",
    "{n}.data.add_({e})\t# a tab before the comment",
    "print('{{}}'.format({e}))",
)
HEADERS = (
    "for {n} in range(3):",
    "for x, y in loader:",
    "for i, (x, y) in enumerate(loader):",
    "for p in model.parameters():",
    "while step < 10:",
    "if {e}:",
    "with torch.no_grad():",
    "with torch.enable_grad():",
    "with torch.set_grad_enabled(False):",
    "try:",
    "def train(model, loader, optimizer):",
    "def closure():",
    "class Trainer:",
    "@torch.no_grad()\ndef evaluate(model):",
    "for epoch in range(2):",
    "async def run():",
    "if {e}:  # a comment",
    "for p in \\\n        model.parameters():",
    "with torch.no_grad(), open(f) as h:",
    "while (\n    step < 10\n):",
    "match {n}:\ncase 0:",
    "with torch.autograd.set_detect_anomaly(True):",
)
# Whole idioms (statement order matters to GL2xx, GL401, GL402, GL406), written with 4-space indents.
CHUNKS = (
    "loss.backward()\noptimizer.zero_grad()\noptimizer.step()",
    "optimizer.zero_grad()\nloss = criterion(model(x), y)\noptimizer.step()\nloss.backward()",
    "with torch.no_grad():\n    loss = criterion(model(x), y)\nloss.backward()",
    "fake = G(z)\nd_loss = bce(D(real), ones) + bce(D(fake), zeros)\nd_loss.backward()\nopt_d.step()",
    "for x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    optimizer.step()",
    "total_loss = 0\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    loss.backward()\n    optimizer.step()\n"
    "    total_loss += loss",
    "for x, y in loader:\n    optimizer.zero_grad()\n    loss = criterion(model(Variable(x)), Variable(y))\n    loss.backward()\n"
    "    optimizer.step()\n    losses.append(loss.data[0])",
    "for x, y in loader:  # train\n    out = model(x); loss = F.nll_loss(out, y)\n    loss.backward(); optimizer.step()",
    "for x, y in loader:\n    loss = criterion(model(x), y)\n\n    # accumulate\n    loss.backward()\n    optimizer.step()\n"
    "    running += loss",
    "for epoch in range(2):\n    for x, y in loader:\n        loss = criterion(model(x), y); loss.backward()\n        optimizer.step()",
    "for i in range(10):\n    fake = netG(z)\n    d_loss = criterion(netD(fake), zeros)\n    d_loss.backward()\n    optD.step()\n"
    "    g_loss = criterion(netD(fake), ones)\n    g_loss.backward()\n    optG.step()",
    "hist = []\nfor x, y in loader:\n    loss = criterion(model(x), y)\n    optimizer.zero_grad()\n    loss.backward()\n"
    "    optimizer.step()\n    hist.append(loss)",
    "w = torch.randn(3, requires_grad=True)\nfor t in range(5):\n    loss = (w * x).sum()\n    loss.backward()\n"
    "    w = w - lr * w.grad\n    print(w.detach().numpy(), w.numpy())",
    "pred = model(x)\nnp.save(path, pred.numpy())\nplt.plot(loss.cpu().numpy())",
    "x = torch.zeros(3, require_grad=True)\nw.requieres_grad = True\ny = torch.ones(2, requires_gard=True)",
) + SNIPPETS
IMPORTS = (
    "import torch",
    "from torch.autograd import Variable",
    "import torch.nn as nn",
    "import torch.nn.functional as F",
    "import numpy as np",
    "from torch import optim",
    "import torch.autograd as ag",
    "from torch.autograd import *",
    "from torch import nn, optim",
)


_ATOM = re.compile(r"^[A-Za-z_][\w.]*(\(.*\)|\[.*\])?$", re.S)


@st.composite
def expressions(draw, depth: int = 0) -> str:
    kind = draw(st.integers(0, 5)) if depth < 3 else 0
    if kind <= 2:
        return draw(st.sampled_from(ATOMS))
    if kind <= 4:
        template, inner = draw(st.sampled_from(UNARY)), draw(expressions(depth + 1))
        if template.startswith("{}") and not _ATOM.match(inner):
            inner = f"({inner})"  # `0.data`, `-x.data` and `a if b else c.data` say something else
        return template.format(inner)
    operands = [draw(expressions(depth + 1)) for _ in range(2)]
    return draw(st.sampled_from(BINARY)).format(*(a if _ATOM.match(a) else f"({a})" for a in operands))


@st.composite
def simple_statements(draw, in_function: bool, in_loop: bool) -> str:
    template = draw(
        st.sampled_from(SIMPLE + (("return {e}", "return") if in_function else ()) + (("continue", "break") if in_loop else ()))
    )
    e = draw(expressions())
    return template.format(n=draw(st.sampled_from(NAMES)), m=draw(st.sampled_from(NAMES)), e=e, a=e if _ATOM.match(e) else f"({e})")


@st.composite
def blocks(draw, indent: str, unit: str, depth: int, in_function: bool, in_loop: bool, in_class: bool = False) -> list[str]:
    """Lines (without newlines) of a block of 1..5 statements at `indent`."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.integers(0, 9))
        if in_class:
            body = draw(blocks(indent + unit, unit, depth + 1, True, False))
            lines += [f"{indent}def step(self, x):", *body]
        elif kind == 9:
            chunk = draw(st.sampled_from(CHUNKS))
            for line in chunk.strip("\n").split("\n"):
                stripped = line.lstrip(" ")
                lines.append(indent + unit * ((len(line) - len(stripped)) // 4) + stripped if stripped else "")
        elif kind <= 5 or depth >= 3:
            statements = [draw(simple_statements(in_function, in_loop)) for _ in range(draw(st.integers(1, 3)) if kind == 0 else 1)]
            statements = [s for s in statements[:-1] if "#" not in s] + statements[-1:]  # a comment ends the line
            line = indent + "; ".join(statements)
            if draw(st.integers(0, 9)) == 0:
                line += "  # a comment"
            lines.append(line)
        else:
            header = draw(st.sampled_from(HEADERS)).format(n=draw(st.sampled_from(NAMES)), e=draw(expressions(2)))
            function = header.split("\n")[-1].lstrip().startswith(("def", "async def"))
            loop = not function and (in_loop or header.startswith(("for", "while")))
            inner = indent + unit
            if header.startswith("match"):  # `case` is indented under `match`, its body under `case`
                header = f"{indent}{header.replace(chr(10), chr(10) + inner)}"
                inner += unit
            else:
                header = "\n".join(indent + part for part in header.split("\n"))
            if draw(st.integers(0, 7)) == 0 and not header.lstrip().startswith(("try", "class", "@")) and "#" not in header:
                lines.append(f"{header} {draw(simple_statements(function or in_function, loop))}")  # one-line body
                continue
            body = draw(blocks(inner, unit, depth + 1, function or in_function, loop, header.lstrip().startswith("class")))
            lines += [header, *body]
            if header.lstrip().startswith("try"):
                lines += [f"{indent}except Exception:", *draw(blocks(indent + unit, unit, depth + 1, in_function, in_loop))]
            elif header.lstrip().startswith("if") and draw(st.booleans()):
                if draw(st.booleans()):
                    lines += [f"{indent}elif {draw(expressions(2))}:", *draw(blocks(inner, unit, depth + 1, in_function, in_loop))]
                lines += [f"{indent}else:", *draw(blocks(inner, unit, depth + 1, in_function, in_loop))]
            elif header.lstrip().startswith(("for", "while")) and draw(st.integers(0, 4)) == 0:
                lines += [f"{indent}else:", *draw(blocks(inner, unit, depth + 1, in_function, in_loop))]
        if draw(st.integers(0, 9)) == 0:
            lines.append("")
    return lines


@st.composite
def training_programs(draw) -> str:
    unit = draw(st.sampled_from(("    ", "  ", "\t")), label="indent")
    newline = draw(st.sampled_from(("\n", "\n", "\r\n")), label="newline")
    lines = []
    if draw(st.booleans()):
        lines.append('"""A training script."""')
    if draw(st.booleans()):
        lines.append("from __future__ import annotations")
    lines += draw(st.lists(st.sampled_from(IMPORTS), max_size=5, unique=True))
    lines += draw(blocks("", unit, 0, False, False))
    text = newline.join(lines)
    if draw(st.integers(0, 4)):
        text += newline
    return text


@budget(150)
@given(training_programs(), st.sets(st.sampled_from(sorted(ALL)), min_size=1), st.booleans())
def test_training_programs(source, codes, unsafe):
    """Every rule, the migration preset, and a random selection (fixes interact differently)."""
    assert compiles(source), source
    check_and_fix(source)
    check_and_fix(source, MIGRATE, unsafe=False)
    check_and_fix(source, frozenset(codes), unsafe=unsafe)


# --------------------------------------------------------------------------------------------
# Mutation fuzz over the fixtures and the legacy examples

# `async=True` is a SyntaxError since Python 3.7: that fixture is the file problem GL501 repairs.
UNPARSEABLE_BY_DESIGN = ROOT / "fixtures" / "GL501_async_keyword_argument" / "bad.py"
SOURCES = sorted(
    [
        path
        for folder in sorted((ROOT / "fixtures").glob("GL*"))
        if not folder.name.startswith(("GL001", "GL002"))
        for path in (folder / "bad.py", folder / "good.py")
        if path.exists() and path != UNPARSEABLE_BY_DESIGN
    ]
    + sorted((ROOT / "examples" / "legacy").glob("*.py"))
)


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_mutation_sources_exist():
    assert len(SOURCES) >= 30
    assert all(compiles(_source(path)) for path in SOURCES)


@budget(100)
@given(st.data(), st.sampled_from(SOURCES))
def test_mutated_sources_migrate(data, path):
    source = data.draw(mutated(_source(path), snippets=data.draw(st.booleans(), label="insert statements")))
    source = data.draw(relayout(source))
    note(f"from {path.relative_to(ROOT)}")
    assert compiles(source)
    unsafe = data.draw(st.booleans(), label="unsafe")
    fixed = check_and_fix(source, MIGRATE, unsafe=unsafe)
    left = lint_text(fixed, "fuzz.py", MIGRATE).findings
    assert not [f for f in left if f.has_safe_fix], [(f.code, f.location, f.message) for f in left if f.has_safe_fix]
