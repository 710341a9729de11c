"""Benchmark gradlint against the LibCST parse-only floor, section by section, into bench/RESULTS.md.

    python bench/run.py --typical DIR            # the full run (about 25 minutes on 2 idle cores)
    python bench/run.py --sections corpus,scaling --scale 0.1 --corpus DIR   # a quick look
    python bench/run.py --compare torchfix,ruff  # TorchFix and ruff on the corpus too

Sections (`--sections`, default all):
  corpus   the torch corpus (or --corpus DIR / --synthetic N): (a) bare LibCST parse, (b) check -j 1,
           (c) check on all cores, (d) warm cache; the share of files the per-rule prefilter skips
  typical  a typical ML repository (--typical DIR): parse against check -j 1, the prefilter's share
  project  the project index's share of a cold run's CPU, and what a warm run re-checks after an
           edit of the most imported module (on --typical DIR when given, else the corpus)
  bigfile  one generated file of --big-file-mb MB: whole parse against check in pieces, peak RSS
  scaling  bench/scaling.py: the cost exponent per axis, for check, fix and every output format
  lsp      bench/lsp_latency.py, when present: the language server's latencies
  startup  bench/startup.py: the CPU of `--version`, `rule GL101`, `rules`, a small check and the
           language server's `initialize`, each in a fresh process

Subprocess rows are the best of --repeat runs (default 1, to keep the full run near 25 minutes;
the scaling section repeats as often) of a fresh process, timed with os.wait4 (wall, CPU of the
process and the workers it waited for, peak RSS of the largest of them); the large file is run
once. In-process measurements use this process's CPU time. Each section's Markdown goes to
stdout and, below the `<!-- results -->` marker, to bench/RESULTS.md, after a table of every
target and whether it is met.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterator, Optional

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
SECTIONS = ("corpus", "typical", "project", "bigfile", "scaling", "lsp", "startup")
PARSE_ONLY = """
import sys, pathlib, libcst
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        libcst.parse_module(path.read_bytes())
    except Exception:
        pass
"""
TORCH = "sources of the installed torch package"
EDIT = "\n\ndef added_by_an_edit(x):\n    return x\n"  # the one-file change of the warm run


@dataclass
class Row:
    name: str
    wall: float
    cpu: float
    rss_mb: float
    note: str = ""


@dataclass
class Target:
    name: str
    measured: str
    met: Optional[bool]  # None: not measured
    reason: str = ""  # why not met (or not measured)

    def status(self) -> str:
        if self.met is None:
            return f"not measured: {self.reason}"
        return "**met**" if self.met else f"**not met**: {self.reason}"


@dataclass
class Section:
    title: str
    body: str
    targets: list[Target] = field(default_factory=list)

    def markdown(self) -> str:
        return f"## {self.title}\n\n{self.body.strip()}\n"


@dataclass
class Bench:
    """What every section needs: the interpreter, the configuration of the timed runs, a scratch folder."""

    workdir: Path
    repeat: int
    python: str = sys.executable

    @property
    def config(self) -> Path:
        config = self.workdir / "pyproject.toml"
        if not config.exists():
            config.write_text(f'[tool.gradlint]\ncache-dir = "{self.workdir / "cache"}"\n', encoding="utf-8")
        return config

    def gradlint(self, *options: str) -> list[str]:
        return [self.python, "-m", "gradlint", "check", "--quiet", "--exit-zero", "--config", str(self.config), *options]

    def parse_only(self, name: str, folder: Path) -> Row:
        return best_of(name, [self.python, "-c", PARSE_ONLY, str(folder)], self.repeat)


# -- timing a fresh process -------------------------------------------------------------------------


def measure(command: list[str], env: dict | None = None) -> tuple[float, float, float, int]:
    """(wall s, cpu s, peak RSS MB, exit status) of one run of `command`."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def best_of(name: str, command: list[str], repeat: int, before=None, note: str = "") -> Row:
    runs = []
    for _ in range(repeat):
        if before is not None:
            before()
        wall, cpu, rss, status = measure(command)
        if status not in (0, 1):
            return Row(name, float("nan"), float("nan"), float("nan"), f"exit status {status}")
        runs.append((wall, cpu, rss))
    wall, cpu, rss = min(runs)
    return Row(name, wall, cpu, max(r[2] for r in runs), note)


def rows_table(rows: list[Row], count: int) -> str:
    base = rows[0]
    lines = [
        "| run | wall s | CPU s | files/s | peak RSS MB | wall / (a) | CPU / (a) | note |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        rate = count / row.wall if row.wall == row.wall and row.wall > 0 else float("nan")
        lines.append(
            f"| {row.name} | {row.wall:.2f} | {row.cpu:.2f} | {rate:.0f} | {row.rss_mb:.0f} "
            f"| {row.wall / base.wall:.2f} | {row.cpu / base.cpu:.2f} | {row.note} |"
        )
    return "\n".join(lines)


# -- corpora ----------------------------------------------------------------------------------------


def torch_corpus(target: Path) -> Path:
    spec = importlib.util.find_spec("torch")  # locates the package without importing it
    if spec is None or spec.origin is None:
        sys.exit("torch is not installed; use --corpus DIR or --synthetic N")
    return copy_corpus(Path(spec.origin).parent, target)


def copy_corpus(source: Path, target: Path) -> Path:
    for path in source.rglob("*.py"):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
    return target


def python_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def describe(folder: Path) -> str:
    files = python_files(folder)
    return f"{len(files):,} files, {sum(p.stat().st_size for p in files) / 1e6:.1f} MB"


def tool_venv(name: str, requirement: str) -> Path | None:
    """A virtual environment of its own for a compared tool (TorchFix pins an older LibCST)."""
    venv = CACHE / f"{name}-venv"
    executable = venv / "bin" / name
    if not executable.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        installed = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", requirement])
        if installed.returncode != 0:
            return None
    return executable


def prefilter_skipped(folder: Path, config: Path) -> tuple[int, int]:
    """(files no selected rule's prefilter lets through, files): those the check never parses.
    Selection and project facts as `gradlint check --config config folder` has them."""
    from gradlint.config import Overrides, load_settings
    from gradlint.discovery import discover
    from gradlint.engine import past_prefilter, rules_for
    from gradlint.runner import RunProject, work_item
    from gradlint.source import UndecodableSource, decode_source

    settings = load_settings(config, Overrides())
    files = [path for path in discover([folder], settings).files if path.suffix == ".py"]
    sources = [(path, path.read_bytes()) for path in files]
    project = RunProject(sources, [""] * len(sources), [folder], settings)
    skipped = 0
    for path, raw in sources:
        try:
            text, _ = decode_source(raw)
        except UndecodableSource:
            continue
        rules = rules_for(work_item(path, raw, settings, 0).codes)
        skipped += not past_prefilter(rules, text, project.facts_for(path))
    return skipped, len(sources)


def share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} files ({part / max(whole, 1):.0%})"


# -- sections ---------------------------------------------------------------------------------------


def corpus_section(bench: Bench, corpus: Path, label: str, compare: list[str]) -> Section:
    """(a)-(d) on the corpus, the compared tools, the prefilter's share and the peak RSS."""
    count = len(python_files(corpus))
    check = bench.gradlint
    rows = [
        bench.parse_only("(a) LibCST parse only, 1 process", corpus),
        best_of("(b) gradlint check --no-cache -j 1", check("--no-cache", "-j", "1", str(corpus)), bench.repeat),
        best_of("(c) gradlint check --no-cache (all cores)", check("--no-cache", str(corpus)), bench.repeat),
    ]
    shutil.rmtree(bench.workdir / "cache", ignore_errors=True)
    subprocess.run(check(str(corpus)), stdout=subprocess.DEVNULL)  # fill the cache
    rows.append(best_of("(d) gradlint check, warm cache", check(str(corpus)), bench.repeat))
    rows += compared_rows(bench, corpus, compare)
    parse, single, pooled, warm = rows[:4]
    skipped, files = prefilter_skipped(corpus, bench.config)
    peak = max(single.rss_mb, pooled.rss_mb)
    body = "\n".join(
        [
            f"Corpus: {label} ({describe(corpus)}).",
            "",
            rows_table(rows, count),
            "",
            f"Files the per-rule prefilter skips entirely (no selected rule can match, never parsed): {share(skipped, files)}.",
            "",
            f"Peak RSS of the check on this corpus (max of (b), (c)): {peak:.0f} MB; the bare parse (a): {parse.rss_mb:.0f} MB.",
        ]
    )
    ratio = single.cpu / parse.cpu
    name = "torch corpus" if label == TORCH else "corpus"
    targets = [
        Target(
            f"{name}: (b) check -j 1 ≤ 1.2× (a) bare parse (CPU)",
            f"{ratio:.2f}×",
            ratio <= 1.2,
            f"the analysis after the parse costs {ratio - 1:.2f}× the parse (where it goes: the targets table above)",
        ),
        Target(
            "(c) all cores ≤ 0.6× (b) (wall)",
            f"{pooled.wall / single.wall:.2f}×",
            pooled.wall / single.wall <= 0.6,
            f"{pooled.wall:.1f} s on {os.cpu_count()} cores against {single.wall:.1f} s on one",
        ),
        Target(
            "(d) warm cache ≤ 0.05× (b) (wall)",
            f"{warm.wall / single.wall:.3f}×",
            warm.wall / single.wall <= 0.05,
            f"{warm.wall:.1f} s with every result cached",
        ),
        Target(
            f"{name}: peak RSS < 300 MB",
            f"{peak:.0f} MB",
            peak < 300,
            f"the bare LibCST parse alone peaks at {parse.rss_mb:.0f} MB (the tree of the largest file)"
            if parse.rss_mb >= 300
            else f"the check peaks {peak - parse.rss_mb:.0f} MB above the bare parse",
        ),
    ]
    return Section("Torch corpus" if label == TORCH else "Corpus", body, targets)


def compared_rows(bench: Bench, corpus: Path, tools: list[str]) -> list[Row]:
    rows = []
    for tool in tools:
        if tool == "torchfix":
            executable = tool_venv("torchfix", "torchfix")
            rows.append(
                best_of("(e) TorchFix CLI", [str(executable), str(corpus)], 1, note="one run (slow)")
                if executable
                else Row("(e) TorchFix CLI", float("nan"), float("nan"), float("nan"), "could not be installed")
            )
        elif tool == "ruff":
            executable = tool_venv("ruff", "ruff")
            command = [str(executable), "check", "--no-cache", "--isolated", "--exit-zero", str(corpus)]
            rows.append(
                best_of("(f) ruff check --no-cache", command, bench.repeat)
                if executable
                else Row("(f) ruff", float("nan"), float("nan"), float("nan"), "could not be installed")
            )
    return rows


def typical_section(bench: Bench, repository: Optional[Path]) -> Section:
    """A typical ML repository: bare parse against check -j 1, and the prefilter's share."""
    name = "typical ML repository: check -j 1 ≤ 1.0× bare parse (CPU)"
    if repository is None:
        return Section("Typical ML repository", "Not measured: no `--typical DIR` given.", [Target(name, "", None, "no --typical DIR")])
    folder = copy_corpus(repository, bench.workdir / "typical")
    rows = [
        bench.parse_only("(a) LibCST parse only, 1 process", folder),
        best_of("(b) gradlint check --no-cache -j 1", bench.gradlint("--no-cache", "-j", "1", str(folder)), bench.repeat),
    ]
    skipped, files = prefilter_skipped(folder, bench.config)
    ratio = rows[1].cpu / rows[0].cpu
    body = "\n".join(
        [
            f"Repository: {repository} ({describe(folder)}).",
            "",
            rows_table(rows, files),
            "",
            f"Files the per-rule prefilter skips entirely: {share(skipped, files)}.",
        ]
    )
    reason = (
        f"the analysis after the parse costs {ratio - 1:.2f}× the parse; the prefilter skips {skipped / max(files, 1):.0%} of the files"
    )
    return Section("Typical ML repository", body, [Target(name, f"{ratio:.2f}×", ratio <= 1.0, reason)])


@contextmanager
def cpu_spent_in(owner: type, methods: tuple[str, ...], spent: list[float]) -> Iterator[None]:
    """Add to `spent[0]` the CPU seconds spent in `owner`'s `methods` (outermost calls only)."""
    depth = [0]
    originals = {name: getattr(owner, name) for name in methods}

    def timed(original):
        def wrapper(*args, **kwargs):
            depth[0] += 1
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    spent[0] += time.process_time() - start

        return wrapper

    for name, original in originals.items():
        setattr(owner, name, timed(original))
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(owner, name, original)


@contextmanager
def checked_files(checked: list[str]) -> Iterator[None]:
    """Record the name of every file the run analyses (not answered from the cache)."""
    from gradlint import runner

    original = runner.check_source

    def recording(source, name, *args, **kwargs):
        checked.append(name)
        return original(source, name, *args, **kwargs)

    runner.check_source = recording
    try:
        yield
    finally:
        runner.check_source = original


def project_section(bench: Bench, folder: Path, label: str) -> Section:
    """The project index's share of a cold run, then a warm run after one module is edited."""
    from gradlint.analysis.project import ProjectIndex
    from gradlint.config import Overrides, load_settings
    from gradlint.pool import tune_garbage_collector
    from gradlint.runner import RunProject, check_paths

    tune_garbage_collector()  # as the command line does
    work = copy_corpus(folder, bench.workdir / "project")
    settings = load_settings(bench.config, Overrides())
    cache = bench.workdir / "project-cache"
    settings = replace(settings, cache_dir=str(cache))
    spent = [0.0]
    with cpu_spent_in(RunProject, ("__init__", "facts_for", "outside", "key_for", "unchanged"), spent):
        start = time.process_time()
        check_paths([work], settings, jobs=1)  # cold: the cache folder is new
        cold = time.process_time() - start
    files = python_files(work)
    index = ProjectIndex([(str(path), path.read_bytes()) for path in files], [str(work), str(settings.root)])
    dependents = {str(path): index.importers_of(str(path)) for path in files}
    edited = max(files, key=lambda path: (len(dependents[str(path)]), str(path)))
    with edited.open("a", encoding="utf-8") as handle:
        handle.write(EDIT)
    checked: list[str] = []
    with checked_files(checked):
        start = time.process_time()
        check_paths([work], settings, jobs=1)
        warm = time.process_time() - start
    allowed = {os.path.abspath(edited)} | set(dependents[str(edited)])
    outside = [name for name in checked if os.path.abspath(name) not in allowed]
    body = "\n".join(
        [
            f"On {label} ({describe(work)}), in this process, one worker, with the result cache.",
            "",
            "| measurement | value |",
            "|---|---:|",
            f"| cold run, CPU s | {cold:.2f} |",
            f"| of which the project index (building it, each file's facts, cache keys), CPU s | {spent[0]:.2f} |",
            f"| project index / cold run | {spent[0] / cold:.1%} |",
            f"| edited module (a function appended) | `{edited.relative_to(work)}` |",
            f"| files importing it, directly or through local modules | {len(dependents[str(edited)]):,} |",
            f"| files re-checked by the warm run | {len(checked):,} of {len(files):,} |",
            f"| re-checked files that neither are it nor import it | {len(outside):,} |",
            f"| warm run after the edit, CPU s | {warm:.2f} |",
        ]
    )
    targets = [
        Target(
            "project index ≤ 5 % of a cold run (CPU)",
            f"{spent[0] / cold:.1%}",
            spent[0] / cold <= 0.05,
            f"{spent[0]:.2f} CPU s of {cold:.2f}",
        ),
        Target(
            "warm run after one edit re-checks only that file and its dependents",
            f"{len(checked):,} re-checked, {len(dependents[str(edited)]) + 1:,} allowed",
            not outside,
            f"{len(outside):,} other files re-checked, e.g. `{outside[0] if outside else ''}`",
        ),
    ]
    return Section("Project index", body, targets)


def big_file(size_mb: float) -> str:
    """About `size_mb` MB of the synthetic project's modules one after another, each copy's
    top-level classes and functions renamed (a generated or vendored module, a fifth of it legacy
    training code with findings)."""
    sys.path.insert(0, str(HERE))
    from synthetic import generate

    with tempfile.TemporaryDirectory() as folder:
        generate(Path(folder), 50)
        templates = [path.read_text(encoding="utf-8") for path in sorted(Path(folder).rglob("*.py"))]
    parts, size, copy = [], 0, 0
    while size < size_mb * 1e6:
        parts.append(renamed(templates[copy % len(templates)], f"_{copy}"))
        size += len(parts[-1]) + 2
        copy += 1
    return "\n\n".join(parts)


def renamed(module: str, suffix: str) -> str:
    """`module` with `suffix` added to the names of its top-level classes and functions, everywhere."""
    names = re.findall(r"^(?:class|def) (\w+)", module, re.MULTILINE)
    if not names:
        return module
    return re.sub(rf"\b({'|'.join(names)})\b", lambda match: match.group(1) + suffix, module)


def big_file_section(bench: Bench, size_mb: float) -> Section:
    """One large generated file: bare parse against `check` at the default size limit (a file over
    it is analysed in pieces of whole top-level statements), CPU and peak RSS."""
    folder = bench.workdir / "big"
    folder.mkdir()
    path = folder / "generated.py"
    path.write_text(big_file(size_mb), encoding="utf-8")
    parse = bench.parse_only("(a) LibCST parse only, whole file", folder)
    check = best_of(
        "(b) gradlint check --no-cache -j 1 (in pieces over the 2 MB limit)",
        bench.gradlint("--no-cache", "-j", "1", str(path)),
        1,
    )
    ratio = check.cpu / parse.cpu
    mb = path.stat().st_size / 1e6
    body = f"One generated file of {mb:.1f} MB ({path.read_text(encoding='utf-8').count(chr(10)):,} lines), one run each.\n\n{rows_table([parse, check], 1)}"
    targets = [
        Target(
            f"{mb:.1f} MB file: check ≤ 1.5× bare parse (CPU)",
            f"{ratio:.2f}×",
            ratio <= 1.5,
            f"the analysis after the parse costs {ratio - 1:.2f}× the parse",
        ),
        Target(
            f"{mb:.1f} MB file: peak RSS < 1.5 GB",
            f"{check.rss_mb:,.0f} MB",
            check.rss_mb < 1536,
            f"the bare whole-file LibCST parse peaks at {parse.rss_mb:,.0f} MB; pieces keep the check within the size limit's budget",
        ),
    ]
    return Section("One large file", body, targets)


def scaling_section(scale: float, repeat: int = 2, axes: tuple[str, ...] = ()) -> Section:
    """bench/scaling.py's table (every axis, or `axes`), and the worst exponent of each kind."""
    sys.path.insert(0, str(HERE))
    from scaling import exponent, run, table

    results = run(scale, repeat, axes)
    parse = {r.axis.name: exponent(r.kilobytes, r.parse) for r in results}
    worst = {
        "check": max((exponent(r.kilobytes, r.check), r.axis.name) for r in results),
        "fix": max((exponent(r.kilobytes, r.fix), r.axis.name) for r in results),
    }
    formats = [(exponent(r.findings, times), name) for r in results for name, times in r.formats.items()]
    if formats:
        worst["rendering"] = max(formats)
    body = f"`bench/scaling.py` at scale {scale}, in this process (CPU s, best of {repeat}).\n\n{table(results)}"
    targets = [
        Target(
            f"scaling: {what} exponent ≤ 1.1 on every axis",
            f"{value:.2f} (worst: {where})",
            value <= 1.1,
            f"{where} grows as N^{value:.2f}"
            + (f"; the bare parse of the same files grows as N^{parse[where]:.2f}" if where in parse else ""),
        )
        for what, (value, where) in worst.items()
    ]
    return Section("Scaling", body, targets)


def lsp_section() -> Section:
    """bench/lsp_latency.py's session, when that module exists."""
    targets = (
        ("language server: diagnostics ≤ 100 ms after the last change", "burst_ms", 100.0),
        ("language server: code action ≤ 20 ms", "code_action_ms", 20.0),
        ("language server: fix-all ≤ 100 ms after the diagnostics are published", "fix_all_ms", 100.0),
    )
    try:
        sys.path.insert(0, str(HERE))
        import lsp_latency
    except ImportError:
        body = "Not measured: bench/lsp_latency.py is absent."
        return Section("Language server", body, [Target(name, "", None, "no bench/lsp_latency.py") for name, _, _ in targets])
    result = lsp_latency.measure()
    return Section("Language server", lsp_latency.markdown(result), [latency_target(result, *target) for target in targets])


def startup_section(repeat: int) -> Section:
    """bench/startup.py: each command's CPU in a fresh process, best of `repeat`."""
    sys.path.insert(0, str(HERE))
    import startup

    results = startup.measure(repeat=repeat)
    targets = []
    for name, limit in startup.TARGETS.items():
        seconds = results.get(name)
        if seconds is None:
            targets.append(Target(f"start-up: `{name}` ≤ {limit} CPU s", "", None, "no /proc to read the server's CPU from"))
            continue
        reason = f"{seconds:.3f} s; a bare `python -c pass` takes {results['python -c pass']:.3f} s"
        targets.append(Target(f"start-up: `{name}` ≤ {limit} CPU s", f"{seconds:.3f} s", seconds <= limit, reason))
    return Section("Start-up", startup.markdown(results), targets)


def latency_target(result: dict, name: str, key: str, limit_ms: float) -> Target:
    """Met when even the slowest answer of the session is within `limit_ms`."""
    median, slowest = result.get(f"{key}_median"), result.get(f"{key}_max")
    if median is None or slowest is None:
        return Target(name, "", None, f"bench/lsp_latency.py reports no {key}")
    reason = f"the slowest took {slowest:.0f} ms"
    if "parse_ms" in result:
        reason += f"; a bare LibCST parse of the file takes {result['parse_ms']:.0f} ms"
    return Target(name, f"{median:.1f} / {slowest:.1f} ms (median / max)", slowest <= limit_ms, reason)


# -- the report -------------------------------------------------------------------------------------


def targets_table(sections: list[Section]) -> str:
    lines = ["| target | measured | status |", "|---|---|---|"]
    lines += [f"| {t.name} | {t.measured} | {t.status()} |" for section in sections for t in section.targets]
    return "\n".join(lines)


def report(sections: list[Section], command: str) -> str:
    header = (
        f"Generated by `{command}` on {time.strftime('%Y-%m-%d')}: {os.cpu_count()} cores, "
        f"Python {sys.version.split()[0]}.\n\n## Every target in this run\n\n{targets_table(sections)}\n"
    )
    return "\n".join([header, *(section.markdown() for section in sections)])


def write_results(text: str, output: Path) -> None:
    """Replace what follows the `<!-- results -->` marker; the hand-written part above stays."""
    previous = output.read_text(encoding="utf-8") if output.exists() else ""
    heading = "<!-- results -->"
    intro = previous.split(heading)[0] if heading in previous else "# Benchmark results\n\n"
    output.write_text(f"{intro}{heading}\n{text}", encoding="utf-8")


def run_sections(args: argparse.Namespace, bench: Bench) -> list[Section]:
    wanted = [name.strip() for name in args.sections.split(",") if name.strip()]
    unknown = sorted(set(wanted) - set(SECTIONS))
    if unknown:
        sys.exit(f"unknown section(s): {', '.join(unknown)} (known: {', '.join(SECTIONS)})")
    sections = []
    corpus, label = None, ""
    if "corpus" in wanted or ("project" in wanted and args.typical is None):
        corpus, label = make_corpus(args, bench.workdir / "corpus")
    for name in wanted:
        if name == "bigfile" and args.big_file_mb <= 0:
            continue
        print(f"-- {name} ({time.strftime('%H:%M:%S')})", file=sys.stderr, flush=True)
        try:
            section = run_section(name, args, bench, corpus, label)
        except Exception as error:  # one failed section must not cost the others' numbers
            reason = f"failed: {type(error).__name__}: {error}"
            section = Section(name, reason, [Target(f"section {name}", "", None, reason)])
        print(section.markdown(), flush=True)
        sections.append(section)
    return sections


def run_section(name: str, args: argparse.Namespace, bench: Bench, corpus: Optional[Path], label: str) -> Section:
    if name == "corpus":
        return corpus_section(bench, corpus, label, [tool for tool in args.compare.split(",") if tool])
    if name == "typical":
        return typical_section(bench, args.typical)
    if name == "project":
        return project_section(bench, args.typical or corpus, f"`{args.typical}`" if args.typical else label)
    if name == "bigfile":
        return big_file_section(bench, args.big_file_mb)
    if name == "scaling":
        return scaling_section(args.scale, args.repeat)
    if name == "startup":
        return startup_section(max(args.repeat, 3))  # a start-up is short: one run is at the mercy of other load
    return lsp_section()


def make_corpus(args: argparse.Namespace, corpus: Path) -> tuple[Path, str]:
    corpus.mkdir()
    if args.synthetic:
        sys.path.insert(0, str(HERE))
        from synthetic import generate

        generate(corpus, args.synthetic)
        return corpus, f"synthetic training project, {args.synthetic} files"
    if args.corpus:
        return copy_corpus(args.corpus, corpus), str(args.corpus)
    return torch_corpus(corpus), TORCH


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, in order (default: {','.join(SECTIONS)})")
    parser.add_argument("--corpus", type=Path, help="a directory of Python files (default: torch's sources)")
    parser.add_argument("--synthetic", type=int, metavar="N", help="generate N training-project files instead")
    parser.add_argument("--typical", type=Path, metavar="DIR", help="a checkout of an ordinary PyTorch project")
    parser.add_argument("--big-file-mb", type=float, default=10, metavar="N", help="size of the large file (0: skip it)")
    parser.add_argument("--scale", type=float, default=1.0, help="bench/scaling.py's scale")
    parser.add_argument("--compare", default="", help="comma-separated: torchfix, ruff (TorchFix is timed once: it is slow)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores", file=sys.stderr)
    workdir = Path(tempfile.mkdtemp(prefix="gradlint-bench-"))
    try:
        sections = run_sections(args, Bench(workdir, args.repeat))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    command = "python bench/run.py " + " ".join(sys.argv[1:])
    text = report(sections, command.strip())
    write_results(text, args.output)
    print(targets_table(sections))


if __name__ == "__main__":
    main()
