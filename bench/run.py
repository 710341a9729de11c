"""Benchmark gradlint against the LibCST parse-only floor (and optionally TorchFix and ruff).

    python bench/run.py                      # corpus: the installed torch package's sources
    python bench/run.py --synthetic 500      # corpus: 500 generated training-project files
    python bench/run.py --compare torchfix,ruff
    python bench/run.py --lsp                # and the language server's latencies (bench/lsp_latency.py)

Every row is the best of --repeat runs of a fresh process, timed with os.wait4 (wall, CPU of the
process and the workers it waited for, peak RSS of the largest of them), and shown as a ratio to
the parse-only baseline. The table goes to stdout and to bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
PARSE_ONLY = """
import sys, pathlib, libcst
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*.py")):
    try:
        libcst.parse_module(path.read_bytes())
    except Exception:
        pass
"""


@dataclass
class Row:
    name: str
    wall: float
    cpu: float
    rss_mb: float
    note: str = ""


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


def torch_corpus(target: Path) -> Path:
    spec = importlib.util.find_spec("torch")  # locates the package without importing it
    if spec is None or spec.origin is None:
        sys.exit("torch is not installed; use --corpus DIR or --synthetic N")
    source = Path(spec.origin).parent
    for path in source.rglob("*.py"):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
    return target


def copy_corpus(source: Path, target: Path) -> Path:
    for path in source.rglob("*.py"):
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)
    return target


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="a directory of Python files (default: torch's sources)")
    parser.add_argument("--synthetic", type=int, metavar="N", help="generate N training-project files instead")
    parser.add_argument("--compare", default="", help="comma-separated: torchfix, ruff (TorchFix is timed once: it is slow)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument("--lsp", action="store_true", help="also time a language-server session (bench/lsp_latency.py)")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="gradlint-bench-"))
    corpus = workdir / "corpus"
    corpus.mkdir()
    if args.synthetic:
        sys.path.insert(0, str(HERE))
        from synthetic import generate

        generate(corpus, args.synthetic)
        label = f"synthetic training project, {args.synthetic} files"
    elif args.corpus:
        copy_corpus(args.corpus, corpus)
        label = str(args.corpus)
    else:
        torch_corpus(corpus)
        label = "sources of the installed torch package"
    files = list(corpus.rglob("*.py"))
    size_mb = sum(p.stat().st_size for p in files) / 1e6
    print(f"corpus: {label}: {len(files)} files, {size_mb:.1f} MB; {os.cpu_count()} cores", flush=True)

    python = sys.executable
    gradlint = [python, "-m", "gradlint", "check", "--quiet", "--exit-zero"]
    cache_dir = workdir / "cache"
    config = workdir / "pyproject.toml"
    config.write_text(f'[tool.gradlint]\ncache-dir = "{cache_dir}"\n', encoding="utf-8")
    rows = [
        best_of("(a) LibCST parse only, 1 process", [python, "-c", PARSE_ONLY, str(corpus)], args.repeat),
        best_of(
            "(b) gradlint check --no-cache -j 1", [*gradlint, "--no-cache", "-j", "1", "--config", str(config), str(corpus)], args.repeat
        ),
        best_of("(c) gradlint check --no-cache (all cores)", [*gradlint, "--no-cache", "--config", str(config), str(corpus)], args.repeat),
    ]
    shutil.rmtree(cache_dir, ignore_errors=True)
    subprocess.run([*gradlint, "--config", str(config), str(corpus)], stdout=subprocess.DEVNULL)  # fill the cache
    rows.append(best_of("(d) gradlint check, warm cache", [*gradlint, "--config", str(config), str(corpus)], args.repeat))
    for tool in filter(None, args.compare.split(",")):
        if tool == "torchfix":
            executable = tool_venv("torchfix", "torchfix")
            rows.append(
                best_of("(e) TorchFix CLI", [str(executable), str(corpus)], 1, note="one run (slow)")
                if executable
                else Row("(e) TorchFix CLI", float("nan"), float("nan"), float("nan"), "could not be installed")
            )
        elif tool == "ruff":
            executable = tool_venv("ruff", "ruff")
            rows.append(
                best_of(
                    "(f) ruff check --no-cache",
                    [str(executable), "check", "--no-cache", "--isolated", "--exit-zero", str(corpus)],
                    args.repeat,
                )
                if executable
                else Row("(f) ruff", float("nan"), float("nan"), float("nan"), "could not be installed")
            )
    shutil.rmtree(workdir, ignore_errors=True)
    report(rows, label, len(files), size_mb, args.output)
    if args.lsp:
        sys.path.insert(0, str(HERE))
        import lsp_latency

        table = lsp_latency.markdown(lsp_latency.measure())
        print(table)
        with args.output.open("a", encoding="utf-8") as output:
            output.write(f"\n{table}\n")


def report(rows: list[Row], label: str, count: int, size_mb: float, output: Path) -> None:
    base = rows[0].wall
    lines = [
        f"Corpus: {label} ({count} files, {size_mb:.1f} MB). Machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}.",
        f"Best of the repeated runs; ratios are wall time over row (a). Generated by `python bench/run.py` on {time.strftime('%Y-%m-%d')}.",
        "",
        "| run | wall s | CPU s | files/s | peak RSS MB | wall / (a) | note |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        rate = count / row.wall if row.wall == row.wall and row.wall > 0 else float("nan")
        lines.append(
            f"| {row.name} | {row.wall:.2f} | {row.cpu:.2f} | {rate:.0f} | {row.rss_mb:.0f} | {row.wall / base:.2f} | {row.note} |"
        )
    table = "\n".join(lines)
    print(table)
    previous = output.read_text(encoding="utf-8") if output.exists() else ""
    heading = "<!-- results -->"
    intro = previous.split(heading)[0] if heading in previous else "# Benchmark results\n\n"
    output.write_text(f"{intro}{heading}\n{table}\n", encoding="utf-8")


if __name__ == "__main__":
    main()
