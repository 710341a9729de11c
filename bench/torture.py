"""The torture suite's long run, for releases.

    python bench/torture.py --minutes 30 --seed 1

Draws programs from four sources in turn, in batches, until the time is up:

- **mutations**: the real legacy training files (tests/data/legacy_scripts, examples/, every
  fixture's `bad.py`) with one to three lines or tokens deleted, duplicated or swapped;
- **hypothesmith**: arbitrary valid Python from the grammar;
- **spliced**: hypothesmith programs with legacy torch idioms inserted (tests/test_fuzz.py);
- **training**: the training-statement grammar of tests/test_fuzz.py.

Each program goes through `check` and `fix` (safe, `--unsafe-fixes`, `--migrate-variable`) in
process, through one long-lived `gradlint server` session (open or change, then fix-all), and each
batch through the command line (`gradlint check` and `gradlint fix --unsafe-fixes` on a directory
of the batch's files). The properties are those of tests/torture_suite.py. Every failing program is
written to tests/data/torture/ (tests/test_torture.py replays them all). The figures (programs
tried, crashes, files broken, per source) are printed at the end; the exit code is 1 when anything
failed. The same seed draws the same programs.
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import torture_suite as torture  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402

BATCH = 25
SOURCES = ("mutations", "hypothesmith", "spliced", "training")


def hypothesis_batch(strategy, seed: int, count: int) -> list[str]:
    """`count` programs drawn from a hypothesis strategy, reproducibly from `seed`, without shrinking."""
    drawn: list[str] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def draw(source):
        drawn.append(source)

    draw()
    return drawn


class Programs:
    def __init__(self, seed: int) -> None:
        import test_fuzz  # hypothesmith's grammar is built on the first draw

        self.fuzz = test_fuzz
        self.seed = seed
        self.rng = random.Random(seed)
        self.legacy = [(path, torture.read_source(path)) for path in torture.legacy_sources()]

    def batch(self, source: str, number: int) -> list[tuple[str, str]]:
        """(program, origin) pairs."""
        if source == "mutations":
            found = []
            for _ in range(BATCH):
                path, text = self.rng.choice(self.legacy)
                mutated, done = torture.mutate(text, self.rng)
                found.append((mutated, f"{path.relative_to(ROOT)}: {', '.join(done)}"))
            return found
        fuzz = self.fuzz
        strategy = {
            "hypothesmith": fuzz.GRAMMAR_PROGRAMS,
            "spliced": fuzz.GRAMMAR_PROGRAMS.filter(fuzz._libcst_parses).flatmap(
                lambda text: fuzz.mutated(text, snippets=True, rate_choices=(10, 25, 50))
            ),
            "training": fuzz.training_programs(),
        }[source]
        seed = self.seed * 100_003 + number
        return [(program, f"{source}, seed {seed}") for program in hypothesis_batch(strategy, seed, BATCH)]


class Server:
    """One `gradlint server` session for the whole run; started again if it dies (counted)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.session = None
        self.checker = None
        self._start()

    def _start(self) -> None:
        from test_server import LspSession

        if self.session is not None:
            self.session.stop()
        self.session = LspSession(self.folder)
        self.session.initialize(self.folder)
        self.checker = torture.ServerTorture(self.session, self.folder)

    def problems(self, program: str) -> list[str]:
        found = self.checker.problems(program)
        if self.session.process.poll() is not None or any("no answer" in problem or "closed its output" in problem for problem in found):
            found.append("server: " + (self.session.errors().strip().splitlines() or ["(no output)"])[-1])
            self._start()
        return found

    def close(self) -> list[str]:
        errors = self.session.errors()
        code = self.session.close()
        found = self.checker.stderr_problems(errors)
        return found + ([f"server: exit code {code}"] if code != 0 else [])


def cli_problems(programs: list[str], folder: Path) -> dict[int, list[str]]:
    """`gradlint check` and `gradlint fix --unsafe-fixes` on a directory of the programs: what
    failed, by the index of the program it names (-1 when it names none)."""
    for old in folder.glob("*.py"):
        old.unlink()
    for index, program in enumerate(programs):
        (folder / f"p{index}.py").write_bytes(program.encode("utf-8", "surrogatepass"))
    found: dict[int, list[str]] = {}
    for command in (["check", "--select", "ALL", "--output-format", "concise"], ["fix", "--select", "ALL", "--unsafe-fixes"]):
        run = subprocess.run(
            [sys.executable, "-m", "gradlint", *command, "--no-cache", "."], cwd=folder, capture_output=True, text=True, errors="replace"
        )
        output = run.stdout + run.stderr
        if run.returncode in (0, 1) and "Traceback" not in output and "internal error" not in output:
            continue
        lines = [line for line in output.splitlines() if "internal error" in line or "Traceback" in line] or output.splitlines()[-1:]
        for line in lines:
            named = re.search(r"\bp(\d+)\.py\b", line)
            index = int(named.group(1)) if named else -1
            found.setdefault(index, []).append(f"cli {command[0]}: exit {run.returncode}: {line.strip()}")
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="how long to run (default 30)")
    parser.add_argument("--seed", type=int, default=1, help="the same seed draws the same programs")
    parser.add_argument("--no-server", action="store_true", help="leave the language server out")
    parser.add_argument("--no-cli", action="store_true", help="leave the command-line pass out")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # hypothesmith's programs compile with SyntaxWarnings
    started = time.monotonic()
    deadline = started + args.minutes * 60
    tallies = {source: torture.Tally() for source in SOURCES}
    failures = []
    programs = Programs(args.seed)
    interrupted = []  # Ctrl-C or SIGTERM: finish the program at hand, then report

    def interrupt(signum, frame) -> None:
        interrupted.append(signum)

    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    with tempfile.TemporaryDirectory(prefix="gradlint-torture-") as scratch:
        folder = Path(scratch)
        (folder / "cli").mkdir()
        server = None if args.no_server else Server(folder)
        number = 0
        while time.monotonic() < deadline and not interrupted:
            source = SOURCES[number % len(SOURCES)]
            batch = programs.batch(source, number)
            number += 1
            failed = set()
            for index, (program, origin) in enumerate(batch):
                if interrupted:
                    batch = batch[:index]
                    break
                found = torture.problems(program)
                if server is not None:
                    found += server.problems(program)
                if interrupted and found:
                    batch = batch[:index]  # the signal may have reached the server as well
                    break
                tallies[source].count(found)
                if found:
                    failed.add(index)
                    failures.append((torture.keep_failure(program, origin, found), found))
                    print(f"FAILED ({origin}): {found[0]}", flush=True)
            if not args.no_cli:
                for index, found in cli_problems([program for program, _ in batch], folder / "cli").items():
                    if index in failed:
                        continue  # the same failure, seen through the command line
                    tallies[source].crashes += 1
                    if index >= 0:
                        program, origin = batch[index]
                        failures.append((torture.keep_failure(program, origin, found), found))
                    print(f"FAILED (cli, {source} batch {number}): {found[0]}", flush=True)
            tried = sum(t.tried for t in tallies.values())
            print(f"{(time.monotonic() - started) / 60:5.1f} min: {tried} programs, {len(failures)} failed", flush=True)
        if server is not None and interrupted:
            server.session.stop()  # Ctrl-C reached the server too: its exit says nothing
        elif server is not None:
            found = server.close()
            if found:
                tallies["mutations"].crashes += 1
                print(f"FAILED (server at exit): {found}", flush=True)
    report(tallies, time.monotonic() - started, args.seed, failures)
    return 1 if any(t.crashes or t.broken for t in tallies.values()) else 0


def report(tallies: dict, seconds: float, seed: int, failures: list) -> None:
    print()
    print(f"Torture run of {datetime.date.today().isoformat()}: seed {seed}, {seconds / 60:.1f} min, {os.cpu_count()} cores")
    print(f"{'source':<14}{'programs':>10}{'crashes':>10}{'broken':>10}")
    for source, tally in tallies.items():
        print(f"{source:<14}{tally.tried:>10}{tally.crashes:>10}{tally.broken:>10}")
    total = torture.Tally(
        sum(t.tried for t in tallies.values()), sum(t.crashes for t in tallies.values()), sum(t.broken for t in tallies.values())
    )
    print(f"{'total':<14}{total.tried:>10}{total.crashes:>10}{total.broken:>10}")
    for path, found in failures:
        print(f"kept {path.relative_to(ROOT)}: {found[0]}")


if __name__ == "__main__":
    sys.exit(main())
