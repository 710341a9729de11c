"""The incremental analysis of an edited document finds, at every version, what a full check finds."""

from __future__ import annotations

import random
import warnings

import pytest

from gradlint import incremental
from gradlint.engine import analyse_text
from gradlint.incremental import IncrementalAnalysis
from gradlint.pieces import respanned, statement_rows
from gradlint.rules import all_codes
from gradlint.runner import check_stdin, fix_stdin
from gradlint.source import lines_with_ends

from edit_sequences import LEGACY, REAL_FILES, edits

CODES = frozenset(all_codes())
STEPS = 10


def findings_of(outcome) -> list[tuple]:
    return [(f.code, f.message, f.location, f.end_location, f.noqa_row, f.fix) for f in outcome.findings]


def test_the_real_files_are_at_least_twenty_training_scripts_and_modules():
    assert len(REAL_FILES) >= 20
    assert all(len(path.read_text(encoding="utf-8").splitlines()) >= 60 for path in REAL_FILES)


@pytest.mark.parametrize("path", REAL_FILES, ids=lambda path: str(path.relative_to(LEGACY)))
def test_random_edits_are_analysed_as_a_full_check_would(path, monkeypatch):
    # Every version after the first that parses is analysed in part, however much of it that is.
    monkeypatch.setattr(incremental, "WHOLE_SHARE", 2.0)
    rng = random.Random(str(path.relative_to(LEGACY)))
    text = path.read_text(encoding="utf-8")
    analysis = IncrementalAnalysis()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        for step, version in enumerate([text, *edits(text, rng, STEPS)]):
            outcome = analysis(version, str(path), CODES)
            full = analyse_text(version, str(path), CODES)
            assert (findings_of(outcome), outcome.error) == (findings_of(full), full.error), f"step {step}"


def long_module() -> str:
    """The real files one after another, their functions and classes renamed per file: a module
    of several thousand lines whose parts share module-level names (`model`, `args`...)."""
    parts = []
    for number, path in enumerate(REAL_FILES[:14]):
        text = path.read_text(encoding="utf-8")
        parts.append(text.replace("def ", f"def f{number}_").replace("class ", f"class C{number}"))
    return "\n".join(parts)


def test_edits_of_a_long_module_are_analysed_in_part_over_a_small_share_of_it():
    text = long_module()
    assert len(text.splitlines()) >= 2_000
    rng = random.Random(0)
    analysis = IncrementalAnalysis()
    shares = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        for step, version in enumerate([text, *edits(text, rng, 8)]):
            outcome = analysis(version, "long.py", CODES)
            full = analyse_text(version, "long.py", CODES)
            assert (findings_of(outcome), outcome.error) == (findings_of(full), full.error), f"step {step}"
            shares.append(analysis.analysed_share)
    in_part = [share for share in shares[1:] if share < 1]
    assert len(in_part) >= len(shares[1:]) / 2
    assert sorted(in_part)[len(in_part) // 2] < 0.25


@pytest.mark.parametrize("path", REAL_FILES[:12], ids=lambda path: path.name)
def test_the_changed_lines_alone_are_tokenized_again_to_the_same_statements(path):
    rng = random.Random(path.name)
    text = path.read_text(encoding="utf-8")
    last = (lines_with_ends(text), statement_rows(text, len(lines_with_ends(text))))
    found = 0
    for version in edits(text, rng, 40):
        lines = lines_with_ends(version)
        whole = statement_rows(version, len(lines))
        spans = respanned(*last, lines)
        if spans is not None:
            found += 1
            assert spans == whole
        if whole is not None:
            last = (lines, whole)
    assert found >= 20


def analysed_in_versions(*versions: str) -> list[tuple]:
    """Per version: its incremental outcome, its full check's, and what the incremental analysis
    did (the share it analysed again, how many statements kept their findings)."""
    analysis = IncrementalAnalysis()
    return [
        (analysis(text, "train.py", CODES), analyse_text(text, "train.py", CODES), (analysis.analysed_share, analysis.reused))
        for text in versions
    ]


TRAIN = """\
import torch
from torch.autograd import Variable

model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def evaluate(x):
    x = Variable(x, volatile=True)
    return model(x)


def train(x, y):
    optimizer.zero_grad()
    loss = ((model(Variable(x)) - y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.data[0]


def accuracy(output, target):
    correct = output.max(1)[1].eq(target).sum()
    return correct.data[0] / len(target)
"""


# An edit inside `accuracy`, which nothing else uses: a line more, and its findings move down.
TYPED = TRAIN.replace("    correct = ", "    total = len(target)\n    correct = ")


def test_an_edit_inside_a_function_is_analysed_in_part_and_the_rest_moved_with_its_rows(monkeypatch):
    monkeypatch.setattr(incremental, "WHOLE_SHARE", 2.0)
    # Then a line more in `evaluate`: `train` and `accuracy` keep their findings, a row lower.
    moved = TYPED.replace("    x = Variable(x, volatile=True)\n", "    x = x * 1\n    x = Variable(x, volatile=True)\n")
    versions = analysed_in_versions(TRAIN, TYPED, moved)
    for outcome, full, _ in versions:
        assert findings_of(outcome) == findings_of(full)
        assert outcome.findings
    (_, _, first), (_, _, typed), (_, _, after_move) = versions
    assert first == (1.0, 0)
    assert 0 < typed[0] < 0.5
    assert after_move[1] >= 2  # `train` and `accuracy`


def test_the_same_statement_twice_keeps_each_its_own_findings():
    """Two equal statements have the same text and context: which one a finding is on, and the
    lines its message names, stay theirs."""
    twice = TRAIN + "\n\nparams = model.parameters()\nfirst = torch.optim.SGD(params, lr=0.1)\nsecond = torch.optim.SGD(params, lr=0.1)\n"
    moved = twice.replace("import torch\n", "import torch\n\n\n", 1)
    for outcome, full, _ in analysed_in_versions(twice, moved, twice):
        assert findings_of(outcome) == findings_of(full)


@pytest.mark.parametrize(
    "change",
    [
        ("    return model(x)\n", "    return model(x\n"),  # an open bracket: tokenized whole
        ("def train(x, y):\n", "  def train(x, y):\n"),  # indented
        ("def train(x, y):\n", "@torch.no_grad()\ndef train(x, y):\n"),  # a decorator
        ("def evaluate(x):\n", '"""\ndef evaluate(x):\n'),  # an open string
        ("\n\ndef train", "\nelse:\n    pass\n\ndef train"),  # a clause without its statement
    ],
    ids=["bracket", "indented", "decorator", "string", "clause"],
)
def test_an_edit_that_changes_statement_bounds_or_breaks_the_file_is_found_as_a_full_check_would(change):
    old, new = change
    broken = TRAIN.replace(old, new, 1)
    for outcome, full, _ in analysed_in_versions(TRAIN, broken, TRAIN):
        assert (findings_of(outcome), outcome.error) == (findings_of(full), full.error)


def test_an_import_reaches_every_statement_so_the_file_is_analysed_whole():
    imported = TRAIN.replace("import torch\n", "import torch\nimport torch.nn as nn\n", 1)
    _, (outcome, full, (share, _)) = analysed_in_versions(TRAIN, imported)
    assert share == 1.0
    assert findings_of(outcome) == findings_of(full)


def test_what_a_rule_asks_of_the_whole_file_is_asked_again_when_another_statement_changes_it(monkeypatch):
    """`torch.save(model)` is reported unless the file loads with `weights_only=False` somewhere:
    writing that in another function takes the finding away, and taking it back brings it back."""
    monkeypatch.setattr(incremental, "WHOLE_SHARE", 2.0)
    saves = TRAIN + "\n\ndef save(path):\n    torch.save(model, path)\n\n\ndef load(path):\n    return path\n"
    loads = saves.replace("    return path\n", "    return torch.load(path, weights_only=False)\n")
    versions = analysed_in_versions(saves, loads, saves, loads)
    for outcome, full, _ in versions:
        assert findings_of(outcome) == findings_of(full)
    assert [sum(finding.code == "GL510" for finding in outcome.findings) for outcome, _, _ in versions] == [1, 0, 1, 0]


def test_an_edit_that_gives_a_rule_its_trigger_has_every_statement_analysed_for_it(monkeypatch):
    """The rules a file passes the prefilter for ran for every finding kept: one that a new line
    brings in (`.float()` here) may find something anywhere."""
    monkeypatch.setattr(incremental, "WHOLE_SHARE", 2.0)
    triggered = TYPED.replace("    x = Variable(x, volatile=True)\n", "    x = x.float()\n    x = Variable(x, volatile=True)\n")
    versions = analysed_in_versions(TRAIN, TYPED, triggered, TYPED)
    for outcome, full, _ in versions:
        assert findings_of(outcome) == findings_of(full)
    assert [reused for _, _, (_, reused) in versions][2:] == [0, 0]


def test_an_edit_of_the_module_docstring_or_a_new_module_level_name_is_analysed_in_part(monkeypatch):
    monkeypatch.setattr(incremental, "WHOLE_SHARE", 2.0)
    documented = f'"""Training.\n\nThe 0.3 way.\n"""\n{TRAIN}'
    edited = documented.replace("The 0.3 way.", "The 0.3 way, with `weights_only`.")
    named = edited.replace('"""\nimport', '"""\nSTEPS = 10\nimport', 1)
    versions = analysed_in_versions(documented, edited, named)
    for outcome, full, _ in versions:
        assert findings_of(outcome) == findings_of(full)
        assert outcome.findings
    (_, _, _), (_, _, (docstring_share, _)), (_, _, (name_share, _)) = versions
    assert 0 < docstring_share < 0.5 and 0 < name_share < 0.5


def test_a_document_checked_in_the_server_worker_twice_is_analysed_in_part_the_second_time(tmp_path):
    from gradlint import server

    document = tmp_path / "train.py"
    uri = document.as_uri()
    first, _ = server.analyse(uri, TRAIN, "python", (tmp_path,))
    second, _ = server.analyse(uri, TYPED, "python", (tmp_path,))
    assert 0 < server._analysis_of(str(document)).analysed_share < 0.5
    assert list(second.findings) == check_stdin(TYPED, str(document), second.settings).findings
    assert first.findings and second.findings


@pytest.mark.parametrize("path", REAL_FILES[:4], ids=lambda path: path.name)
def test_fix_all_in_the_server_fixes_each_version_as_gradlint_fix_does(path, tmp_path):
    """The fix-all worker's steps are incremental too: at every version, the text `gradlint fix`
    gives."""
    from gradlint import server

    document = tmp_path / path.name
    text = path.read_text(encoding="utf-8")
    analysis, _ = server.analyse(document.as_uri(), text, "python", (tmp_path,))
    rng = random.Random(path.name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        for version in [text, *edits(text, rng, 4)]:
            fixed, _ = server.fix_all(version, str(document), analysis.settings)
            expected = fix_stdin(version, str(document), analysis.settings, unsafe=False)
            assert fixed == (expected.fixed if expected.error is None else None)


def test_fix_all_after_an_edit_inside_a_function_analyses_that_part_of_each_step_again(tmp_path, monkeypatch):
    from gradlint import server

    monkeypatch.setattr(incremental, "WHOLE_SHARE", 2.0)
    document = tmp_path / "train.py"
    analysis, _ = server.analyse(document.as_uri(), TRAIN, "python", (tmp_path,))
    for version in (TRAIN, TYPED):
        fixed, _ = server.fix_all(version, str(document), analysis.settings)
        assert fixed == fix_stdin(version, str(document), analysis.settings, unsafe=False).fixed != version
    first_step = server._fix_memory_of(str(document)).analysis(0)
    assert 0 < first_step.analysed_share < 0.5
