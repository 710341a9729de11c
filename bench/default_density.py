"""How many findings the default selection reports on current code, per 10,000 lines, by severity.

    python bench/default_density.py CORPUS                 # one folder per repository (OWNER+NAME)
    python bench/default_density.py CORPUS --save OUT.json # also keep the counts of each repository
    python bench/default_density.py --load OUT.json        # the tables again, from saved counts

Each repository is checked on its own, as a project runs gradlint in its CI, with no configuration
file (the repositories' own are not gradlint's):

    gradlint check --isolated --no-cache --exit-zero --statistics --output-format json \
        --extend-select GL301,GL302,GL303,GL507,GL508 REPO

that is, the default selection and the legacy-style rules it leaves out (`LEGACY_STYLE_CODES` in
gradlint/config.py), so that one run tells both what the defaults report and what those rules would
add: a rule's findings do not depend on which other rules are selected. The default figures count
the default rules' findings only. Lines are the physical lines of the files the run checks
(`--show-files`): every line of a `.py` or `.pyi` file, and the lines of a notebook's code cells.
README quotes the findings per 10,000 lines with the defaults, and those `--fail-on error` fails
on (the default rules of severity error).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gradlint.config import LEGACY_STYLE_CODES, Settings
from gradlint.notebook import NotebookError, is_notebook, read_notebook

PER_LINES = 10_000
DEFAULT_CODES = Settings(root=Path(".")).codes()


@dataclass
class Repository:
    name: str
    files: int
    lines: int
    counts: dict[str, int] = field(default_factory=dict)  # rule code -> findings
    severities: dict[str, str] = field(default_factory=dict)  # rule code -> "error" | "warning"

    def by_severity(self, severity: str, codes: frozenset[str] = DEFAULT_CODES) -> int:
        return sum(count for code, count in self.counts.items() if self.severities[code] == severity and code in codes)

    @property
    def findings(self) -> int:
        """The default rules' findings."""
        return sum(count for code, count in self.counts.items() if code in DEFAULT_CODES)


def _gradlint(*arguments: str, jobs: int) -> str:
    command = [sys.executable, "-m", "gradlint", "check", "--isolated", "--no-cache", "--exit-zero", "-j", str(jobs), *arguments]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def checked_lines(path: Path) -> int:
    """The lines gradlint analyses in one file: a notebook's code cells, every line of the rest."""
    raw = path.read_bytes()
    if is_notebook(path.name):
        try:
            notebook = read_notebook(raw)
        except NotebookError:  # reported as GL001: nothing in it is analysed
            return 0
        return sum(_line_count(cell.text) for cell in notebook.cells) if notebook is not None else 0
    return _line_count(raw.decode("utf-8", "replace"))


def _line_count(text: str) -> int:
    return len(text.splitlines())


def measure(folder: Path, jobs: int) -> Repository:
    files = [Path(line) for line in _gradlint("--show-files", str(folder), jobs=jobs).splitlines() if line]
    legacy_style = ",".join(sorted(LEGACY_STYLE_CODES))
    rows = json.loads(_gradlint("--statistics", "--output-format", "json", "--extend-select", legacy_style, str(folder), jobs=jobs))
    return Repository(
        name=folder.name,
        files=len(files),
        lines=sum(checked_lines(path) for path in files),
        counts={row["code"]: row["count"] for row in rows},
        severities={row["code"]: row["severity"] for row in rows},
    )


def density(findings: int, lines: int) -> float:
    return findings * PER_LINES / lines if lines else 0.0


def report(repositories: list[Repository]) -> str:
    lines = sum(repository.lines for repository in repositories)
    errors = sum(repository.by_severity("error") for repository in repositories)
    warnings = sum(repository.by_severity("warning") for repository in repositories)
    clean = sum(1 for repository in repositories if repository.by_severity("error") == 0)
    legacy_style = sum(repository.counts.get(code, 0) for repository in repositories for code in LEGACY_STYLE_CODES)
    # The repositories differ in size a hundredfold: the median says what a typical one sees.
    typical = statistics.median(density(repository.findings, repository.lines) for repository in repositories)
    typical_errors = statistics.median(density(repository.by_severity("error"), repository.lines) for repository in repositories)
    out = [
        f"{len(repositories)} repositories, {sum(r.files for r in repositories)} files, {lines} lines",
        f"defaults: {errors + warnings} findings ({errors} error, {warnings} warning), "
        f"{density(errors + warnings, lines):.2f} per {PER_LINES:,} lines",
        f"--fail-on error: {errors} findings, {density(errors, lines):.2f} per {PER_LINES:,} lines; "
        f"{clean} of {len(repositories)} repositories pass",
        f"median repository: {typical:.2f} findings, {typical_errors:.2f} errors per {PER_LINES:,} lines",
        f"the legacy-style rules left out of the defaults ({', '.join(sorted(LEGACY_STYLE_CODES))}) would add "
        f"{legacy_style} warnings, {density(legacy_style, lines):.2f} per {PER_LINES:,} lines",
        "",
        "| repository | lines | error | warning | per 10,000 lines | errors per 10,000 lines |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for repository in sorted(repositories, key=lambda r: r.name):
        error, warning = repository.by_severity("error"), repository.by_severity("warning")
        out.append(
            f"| {repository.name} | {repository.lines} | {error} | {warning} | "
            f"{density(error + warning, repository.lines):.1f} | {density(error, repository.lines):.1f} |"
        )
    totals: Counter[str] = Counter()
    severities: dict[str, str] = {}
    for repository in repositories:
        totals.update(repository.counts)
        severities.update(repository.severities)
    out += ["", "| rule | severity | findings | per 10,000 lines | default |", "|---|---|---:|---:|---|"]
    for code, count in sorted(totals.items(), key=lambda item: (-item[1], item[0])):
        default = "yes" if code in DEFAULT_CODES else "no"
        out.append(f"| {code} | {severities[code]} | {count} | {density(count, lines):.2f} | {default} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?")
    parser.add_argument("--save", type=Path, help="Write each repository's counts to this JSON file.")
    parser.add_argument("--load", type=Path, help="Read the counts of an earlier --save instead of checking.")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="Worker processes of each gradlint run.")
    args = parser.parse_args(argv)
    if args.load:
        repositories = [Repository(**row) for row in json.loads(args.load.read_text(encoding="utf-8"))]
    elif args.corpus:
        repositories = []
        for folder in sorted(path for path in args.corpus.iterdir() if path.is_dir()):
            repositories.append(measure(folder, args.jobs))
            print(f"{folder.name}: {repositories[-1].findings} findings in {repositories[-1].lines} lines", file=sys.stderr)
    else:
        parser.error("give a corpus, or --load")
    if args.save:
        args.save.write_text(json.dumps([asdict(repository) for repository in repositories], indent=1) + "\n", encoding="utf-8")
    print(report(repositories), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
