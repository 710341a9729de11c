"""The torture suite's CI budget (the machinery and the properties: tests/torture_suite.py; the long run
for releases: `python bench/torture.py --minutes N --seed S`).

Mutations of real legacy training files (lines and tokens deleted, duplicated, swapped) go through
`check` and `fix` in process, through the command line, and through one long-lived language
server session that is also fed hypothesmith and training-grammar programs (tests/test_fuzz.py
runs those through `check` and `fix`). Every input that ever failed is kept in tests/data/torture/
and replayed here through the same properties. The budget is fixed and derandomized: the same
programs every run.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from test_fuzz import GRAMMAR_PROGRAMS, budget, training_programs
from test_server import LspSession

import torture_suite as torture

MUTANTS_IN_PROCESS = 120
MUTANTS_THROUGH_THE_CLI = 40
MUTANTS_THROUGH_THE_SERVER = 40
pytestmark = [
    pytest.mark.filterwarnings("ignore::SyntaxWarning"),
    pytest.mark.filterwarnings("ignore:invalid escape sequence:DeprecationWarning"),
]


def mutants(count: int, seed: int) -> list[tuple[str, str]]:
    """`count` (program, origin) pairs, the same for the same seed."""
    rng = random.Random(seed)
    sources = torture.legacy_sources()
    found = []
    for _ in range(count):
        path = rng.choice(sources)
        program, done = torture.mutate(torture.read_source(path), rng)
        found.append((program, f"{path.relative_to(torture.ROOT)}: {', '.join(done)}"))
    return found


def failures_of(programs: list[tuple[str, str]], check) -> list[tuple[str, list[str]]]:
    return [(origin, found) for program, origin in programs for found in [check(program)] if found]


# --------------------------------------------------------------------------------------------
# The mutations themselves


def test_the_sources_are_real_legacy_training_files():
    sources = torture.legacy_sources()
    assert len(sources) >= 100
    assert sum(1 for path in sources if "legacy_scripts" in path.parts) >= 50
    assert sum(1 for path in sources if "Variable" in torture.read_source(path)) >= 40


LINES = "a = 1\nb = 2\nc = 3\nd = 4\n"


@pytest.mark.parametrize(
    "kind, possible",
    [
        ("delete line", {"b = 2\nc = 3\nd = 4\n", "a = 1\nc = 3\nd = 4\n", "a = 1\nb = 2\nd = 4\n", "a = 1\nb = 2\nc = 3\n"}),
        (
            "duplicate line",
            {
                "a = 1\na = 1\nb = 2\nc = 3\nd = 4\n",
                "a = 1\nb = 2\nb = 2\nc = 3\nd = 4\n",
                "a = 1\nb = 2\nc = 3\nc = 3\nd = 4\n",
                "a = 1\nb = 2\nc = 3\nd = 4\nd = 4\n",
            },
        ),
    ],
)
def test_line_mutations(kind, possible):
    seen = {torture._mutate_lines(LINES, kind, random.Random(seed)) for seed in range(40)}
    assert seen == possible


def test_swapped_lines_are_the_same_lines_in_another_order():
    for seed in range(20):
        swapped = torture._mutate_lines(LINES, "swap lines", random.Random(seed))
        assert swapped != LINES and sorted(swapped.splitlines()) == sorted(LINES.splitlines())


def test_token_mutations_work_on_tokens():
    text = "x = Variable(t)\n"
    deleted = {torture._mutate_tokens(text, "delete token", random.Random(seed)) for seed in range(60)}
    assert "x = (t)\n" in deleted and "x = Variable(t\n" in deleted and "x  Variable(t)\n" in deleted
    duplicated = {torture._mutate_tokens(text, "duplicate token", random.Random(seed)) for seed in range(60)}
    assert "x = VariableVariable(t)\n" in duplicated and "x = Variable((t)\n" in duplicated
    swapped = {torture._mutate_tokens(text, "swap tokens", random.Random(seed)) for seed in range(60)}
    assert "x = (Variablet)\n" in swapped and "Variable = x(t)\n" in swapped


def test_token_mutations_work_on_text_the_tokenizer_refuses():
    text = "x = 'open\ny = Variable(t)\n"
    deleted = {torture._mutate_tokens(text, "delete token", random.Random(seed)) for seed in range(60)}
    assert "x = 'open\ny = (t)\n" in deleted


# --------------------------------------------------------------------------------------------
# The properties


def test_mutated_legacy_files_through_check_and_fix():
    assert failures_of(mutants(MUTANTS_IN_PROCESS, seed=1), torture.problems) == []


def test_mutated_legacy_files_through_the_command_line(run_cli, tmp_path):
    for index, (program, _) in enumerate(mutants(MUTANTS_THROUGH_THE_CLI, seed=2)):
        (tmp_path / f"p{index}.py").write_text(program, encoding="utf-8")
    checked = run_cli("check", "--no-cache", "--select", "ALL", "--output-format", "concise", ".")
    assert checked.exit_code == 1, checked.output  # findings, no file that could not be checked
    assert "Traceback" not in checked.output and "internal error" not in checked.output
    fixed = run_cli("fix", "--no-cache", "--select", "ALL", "--unsafe-fixes", ".")
    assert fixed.exit_code in (0, 1), fixed.output
    assert "Traceback" not in fixed.output and "internal error" not in fixed.output


def test_the_properties_catch_a_fix_that_breaks_the_file(monkeypatch):
    """The oracle itself: a fixer that breaks a compiling file is reported, and so is one that raises."""
    from gradlint.pipeline import SourceResult

    program = "import torch\nfrom torch.autograd import Variable\nx = Variable(t)\n"
    broken = lambda source, name, codes, **options: SourceResult(name, [], fixed=source + "def\n", applied=1)  # noqa: E731
    monkeypatch.setattr(torture, "fix_source", broken)
    assert "fix (safe): the fixed file does not compile" in torture.problems(program)

    def raising(*args, **options):
        raise KeyError("x")

    monkeypatch.setattr(torture, "check_source", raising)
    assert torture.problems(program) == ["check raised KeyError: 'x'"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("torture")
    session = LspSession(folder)
    session.initialize(folder)
    checker = torture.ServerTorture(session, folder)
    yield checker
    errors = session.errors()
    assert session.close() == 0
    assert checker.stderr_problems(errors) == []


def test_mutated_legacy_files_through_the_language_server(server):
    assert failures_of(mutants(MUTANTS_THROUGH_THE_SERVER, seed=3), server.problems) == []
    assert server.tried >= MUTANTS_THROUGH_THE_SERVER


@budget(25)
@given(GRAMMAR_PROGRAMS)
def test_hypothesmith_programs_through_the_language_server(server, source):
    assert server.problems(source) == []


@budget(25)
@given(training_programs())
def test_training_programs_through_the_language_server(server, source):
    assert server.problems(source) == []


# --------------------------------------------------------------------------------------------
# Every input that ever failed


@pytest.mark.parametrize("path", torture.regression_files(), ids=lambda path: path.name)
def test_kept_failures_pass(path, server):
    program = path.read_bytes().decode("utf-8", "surrogatepass")
    assert torture.problems(program) == []
    assert server.problems(program) == []


def test_kept_failures_say_where_they_came_from():
    kept = torture.regression_files()
    assert kept, "the regression directory holds the inputs that failed"
    for path in kept:
        note = path.with_suffix(".txt").read_text(encoding="utf-8")
        assert note.startswith("origin: ") and "\nfailed: " in note


def test_the_tally_tells_broken_files_from_crashes():
    tally = torture.Tally()
    tally.count([])
    tally.count(["fix (unsafe): the fixed file does not compile"])
    tally.count(["fix (safe): a second fix changed the text", "check: internal error: KeyError"])
    tally.count(["check: internal error: could not compile the pattern"])
    tally.count(["server: no answer from the server within 15.0s; stderr:"])
    assert (tally.tried, tally.broken, tally.crashes) == (5, 2, 2)
