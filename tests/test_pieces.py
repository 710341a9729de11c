"""A file over the size limit is analysed in pieces of whole top-level statements, each within the
limit, with the same findings as a whole-file analysis."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from gradlint import pieces
from gradlint.deepstack import run_deep
from gradlint.engine import lint_text
from gradlint.noqa import file_is_exempt, file_noqa_codes, without_suppressed
from gradlint.pieces import Piece, analyse_in_pieces, reduced_text, top_level_statements
from gradlint.pipeline import check_source, fix_source
from gradlint.rules import all_codes
from gradlint.source import decode_source, lines_with_ends
from support import ROOT

CODES = frozenset(all_codes())


def compiles(path: Path) -> bool:
    """Pieces start from a file CPython compiles (the others are GL001 or GL002, whole)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(decode_source(path.read_bytes())[0], path.name, "exec", dont_inherit=True)
    except Exception:  # SyntaxError, ValueError (null bytes), UndecodableSource
        return False
    return True


# The mistakes (the correct forms hold the same statements, with fewer findings to tell apart).
FIXTURES = [path for path in sorted((ROOT / "fixtures").glob("*/bad.py")) if compiles(path)]
# Larger real files: cut into pieces of a few statements each (one statement each would re-analyse
# their imports hundreds of times).
SCRIPTS = [
    path
    for path in sorted((ROOT / "tests" / "data" / "legacy_scripts").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))
    if compiles(path)
]


def comparable(findings) -> list[tuple]:
    return [(f.code, f.location, f.end_location, f.message, f.fix, f.noqa_row) for f in findings]


def whole_file(text: str, name: str) -> list[tuple]:
    outcome = run_deep(lambda: lint_text(text, name, CODES))
    assert outcome.error is None
    return comparable(outcome.findings)


def in_pieces(text: str, name: str, piece_bytes: int) -> list[tuple]:
    if file_is_exempt(text):
        return []
    codes = without_suppressed(CODES, file_noqa_codes(text))
    outcome = run_deep(lambda: analyse_in_pieces(text, name, codes, budget=10**9, piece_bytes=piece_bytes))
    assert outcome.error is None and outcome.warning is None
    return comparable(outcome.findings)


def source_of(path: Path) -> str:
    text, _ = decode_source(path.read_bytes())
    return text


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_one_statement_per_piece_finds_what_the_whole_file_does(path):
    text = source_of(path)
    assert in_pieces(text, path.name, piece_bytes=1) == whole_file(text, path.name)


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_small_pieces_of_real_scripts_find_what_the_whole_file_does(path):
    text = source_of(path)
    assert in_pieces(text, path.name, piece_bytes=2000) == whole_file(text, path.name)


def test_pieces_need_their_context(monkeypatch):
    """Without the statements a piece depends on, its findings differ: the equality above is not
    the equality of pieces that need nothing from each other."""
    monkeypatch.setattr(pieces, "_context", lambda statements, own, *rest: ([], False))
    differing = (path for path in FIXTURES if in_pieces(source_of(path), path.name, 1) != whole_file(source_of(path), path.name))
    assert len(list(itertools.islice(differing, 10))) == 10


# -- cutting into statements and emptying lines ------------------------------------------------


SOURCE = (
    "'''Docstring.'''\n"
    "import torch\r\n"
    "\n"
    "# the model\n"
    "@decorate\n"
    "@decorate(2)\n"
    "class Net:\n"
    "    x = 1\n"
    "\n"
    "    # trailing\n"
    "try:\n"
    "    import apex\n"
    "except ImportError:\n"
    "    apex = None\n"
    "else:\n"
    "    pass\n"
    "text = '''a\n"
    "b'''; y = (1,\n"
    "  2)\r"
    "if y:\n"
    "    z = 1\n"
    "elif text:\n"
    "    z = 2\n"
)


def test_statements_cover_every_row_with_their_comments_decorators_and_clauses():
    statements = top_level_statements(SOURCE)
    assert [(s.first_row, s.last_row) for s in statements] == [(1, 1), (2, 2), (3, 8), (9, 16), (17, 19), (20, 23)]
    docstring, imports, net, try_import, text, branch = statements
    assert docstring.everywhere and imports.everywhere and try_import.everywhere and not net.everywhere
    assert net.binds == {"Net"} and net.uses == {"decorate"}
    assert try_import.binds == {"apex"} and text.binds == {"text", "y"} and branch.binds == {"z"}


def test_reduced_text_keeps_every_row_and_the_columns_of_the_lines_kept():
    statements = top_level_statements(SOURCE)
    reduced = reduced_text(lines_with_ends(SOURCE), statements, Piece([2], [1]))
    original, kept = lines_with_ends(SOURCE), lines_with_ends(reduced)
    assert len(kept) == len(original)
    for row, (line, reduced_line) in enumerate(zip(original, kept), start=1):
        assert reduced_line == line if 2 <= row <= 8 else reduced_line.strip(" ") == line[len(line.rstrip("\r\n")) :]


# -- through the pipeline ----------------------------------------------------------------------


def renamed(module: str, suffix: str) -> str:
    """`module` with `suffix` added to the names it binds at the top level (not its imports), as
    in a file that concatenates generated modules."""
    names = re.findall(r"^(?:class |def )?([A-Za-z_]\w*)\b(?=[^\n]*[:=(])", module, re.MULTILINE)
    names = sorted(
        {
            name
            for name in names
            if name
            not in (
                "if",
                "for",
                "with",
                "try",
                "while",
                "print",
                "import",
                "from",
                "else",
                "elif",
                "except",
                "finally",
                "return",
                "async",
                "assert",
                "raise",
                "del",
            )
        }
    )
    return re.sub(rf"\b({'|'.join(names)})\b", lambda match: match.group(1) + suffix, module) if names else module


TEMPLATES = ["GL101_variable_call", "GL103_legacy_scalar_index", "GL201_missing_zero_grad"]


def generated(size: int) -> str:
    copies, total = [], 0
    while total < size:
        template = source_of(ROOT / "fixtures" / TEMPLATES[len(copies) % len(TEMPLATES)] / "bad.py")
        copies.append(renamed(template, f"_{len(copies)}"))
        total += len(copies[-1]) + 1
    return "\n".join(copies)


def test_a_file_over_the_limit_is_analysed_in_pieces_as_it_would_be_whole():
    text = generated(300_000)
    result = check_source(text, "generated.py", CODES, max_bytes=32 * 1024)
    assert result.error is None and result.warning is None
    assert len(result.findings) > 100
    assert comparable(result.findings) == whole_file(text, "generated.py")


def test_a_statement_over_the_limit_is_left_out_with_a_warning():
    table = "TABLE = [\n" + "    Variable(t),\n" * 200 + "]\n"
    text = "from torch.autograd import Variable\n\nx = Variable(t)\n\n" + table + "y = Variable(t)\n"
    result = check_source(text, "table.py", CODES, max_bytes=1024)
    assert [(f.code, f.location.row) for f in result.findings] == [("GL101", 3), ("GL101", 207)]
    assert (
        result.warning
        == "partly analysed: a statement of 3.3 KiB (lines 4-206) is over the 1.0 KiB size limit (raise it with --max-file-size)"
    )


def test_a_context_over_the_limit_is_cut_with_a_warning():
    helper = "def helper(t):\n" + "    t = t + 1\n" * 100 + "    return Variable(t)\n"
    text = "from torch.autograd import Variable\n\n" + helper + "\n" + "".join(f"x{i} = helper(Variable(t))\n" for i in range(100))
    result = check_source(text, "helper.py", CODES, max_bytes=2048)
    assert result.warning is not None and result.warning.startswith(
        "analysed in pieces: the context of a piece was cut to the 2.0 KiB size limit"
    )
    assert {f.code for f in result.findings} == {"GL101"}


@pytest.mark.slow
def test_peak_memory_of_a_multi_megabyte_file_is_that_of_a_piece(tmp_path):
    """A 3 MB generated file, over the default 2 MiB limit: analysed in pieces (no warning), with
    each copy's findings, well under the 2+ GB a whole-file parse would take."""
    template = source_of(ROOT / "fixtures" / "GL101_variable_call" / "bad.py")
    copies = []
    while sum(map(len, copies)) < 3_000_000:
        copies.append(renamed(template, f"_{len(copies)}") + "\n")
    path = tmp_path / "generated.py"
    path.write_text("".join(copies), encoding="utf-8")
    script = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'gradlint', 'check', '--no-cache', '-j', '1', '--output-format', 'concise',"
        " '--select', 'GL101', sys.argv[1]], capture_output=True, text=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.stdout.write(done.stdout + done.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, cwd=tmp_path, timeout=3600)
    peak_kb, *output = done.stdout.splitlines()
    assert not [line for line in output if line.startswith("gradlint:")]
    rows = [int(line.split(":")[1]) for line in output if ": GL101 " in line]
    one_copy = [finding.location.row for finding in lint_text(copies[0], "generated.py", frozenset({"GL101"})).findings]
    height = copies[0].count("\n")
    assert rows == [row + number * height for number in range(len(copies)) for row in one_copy]
    assert int(peak_kb) < 1.5 * 1024 * 1024, f"peak RSS {int(peak_kb) // 1024} MB"


@pytest.mark.parametrize(
    "text",
    [
        "from torch.autograd import Variable\nx = Variable(t)\ndef f(:\n    pass\n",
        "from torch.autograd import Variable\nx = Variable(t)\nif x:\n    pass\n  y = 1\n",
        "from torch.autograd import Variable\nx = Variable(t)\ny = (1,\n",
        # What only CPython's compiler refuses, LibCST parses; with findings it is GL001, as when whole.
        '"""Doc."""\nfrom __future__ import annotations\nfrom torch.autograd import Variable\nfrom __future__ import division\nx = Variable(t)\n',
        "from torch.autograd import Variable\nx = Variable(t)\nfor i in x:\n    pass\nbreak\n",
    ],
    ids=["syntax error", "bad dedent", "unclosed parenthesis", "late future import", "break outside a loop"],
)
def test_a_file_over_the_limit_is_refused_where_it_is_refused_whole(text):
    padded = text + "_ = 0\n" * 40  # over the limit, in small statements
    whole = check_source(padded, "a.py", CODES)
    pieced = check_source(padded, "a.py", CODES, max_bytes=300)
    assert pieced.warning is None
    assert [(f.code, f.message, f.location) for f in pieced.findings] == [(f.code, f.message, f.location) for f in whole.findings] != []


# Fixing a file over the limit: the same fixes as a whole-file fix, round after round, each round's
# text compiled statement by statement; only the import clean-up (it reads the whole tree) is left out.


def without_imports_of(text: str, names: tuple[str, ...]) -> list[str]:
    return [line for line in text.splitlines() if not (line.startswith(("import ", "from ")) and any(name in line for name in names))]


def test_a_file_over_the_limit_is_fixed_as_it_would_be_whole():
    text = generated(60_000)
    whole = fix_source(text, "generated.py", CODES, unsafe=True)
    pieced = fix_source(text, "generated.py", CODES, unsafe=True, max_bytes=8 * 1024)
    assert whole.error is None and pieced.error is None
    assert pieced.applied == whole.applied > 50
    removed = tuple(whole.removed_imports)
    assert without_imports_of(pieced.fixed, removed) == without_imports_of(whole.fixed, removed)
    compile(pieced.fixed, "generated.py", "exec")
    again = fix_source(pieced.fixed, "generated.py", CODES, unsafe=True, max_bytes=8 * 1024)
    assert again.fixed == pieced.fixed and again.applied == 0


def test_a_fix_that_breaks_a_file_over_the_limit_leaves_it_unchanged(monkeypatch):
    from gradlint.fix import apply

    text = generated(20_000)
    monkeypatch.setattr(apply, "apply_edits", lambda current, edits: current + "\ndef broken(:\n")
    result = fix_source(text, "generated.py", CODES, max_bytes=4 * 1024)
    assert result.fixed is None and "produced invalid code; file left unchanged" in result.error


def test_what_a_rule_asks_of_the_whole_file_is_asked_of_it_in_pieces_too():
    """GL510 does not report a whole-module save in a file that loads with `weights_only=False`
    somewhere, even in a statement no piece needs for its names."""
    text = (
        "import torch\n\n\n"
        "def save(model, path):\n    torch.save(model, path)\n\n\n"
        "def restore(path):\n    return torch.load(path, weights_only=False)\n"
    )
    assert whole_file(text, "train.py") == []
    assert in_pieces(text, "train.py", piece_bytes=1) == []
    saving = text.replace("def restore", "def unrelated").replace("weights_only=False", "map_location='cpu'")
    assert [finding[0] for finding in in_pieces(saving, "train.py", piece_bytes=1)] == ["GL510"]
