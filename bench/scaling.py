"""How gradlint's cost grows with the shape of one file.

For each axis a generator builds one file of size N, 2N and 4N along that axis only (findings,
functions, statements per function, nesting depth, line length, imports, classes, literal size).
Each file is parsed by bare LibCST, checked with every rule, fixed (unsafe fixes included) and, on
the findings axis where the output grows with N, rendered in every output format. The exponent is
the least-squares slope of log(time) over log(file size): 1.0 is linear in the input, 2.0
quadratic. (Against size, not N: a chain of N nested blocks is N^2 bytes of indentation.) The
last column is the exponent of check time over parse time: what gradlint adds to LibCST's own
growth, which is not linear either (the bare parse's exponent is in its own column). Times are the
CPU seconds of this one process, best of the repeats, so other load on the machine barely moves them.

    python bench/scaling.py [--scale K] [--axes findings,functions]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass
from functools import partial
from typing import Callable

import libcst as cst

from gradlint.engine import lint_bytes
from gradlint.fix.apply import fix_text
from gradlint.model import Finding
from gradlint.pool import tune_garbage_collector
from gradlint.report import FORMATS, RenderOptions
from gradlint.rules import all_codes

LEGACY_STEP = """def step{i}(model, optimizer, x{i}, y):
    x{i} = Variable(x{i})
    optimizer.zero_grad()
    loss = model(x{i}).sub(y).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.data[0]
"""

CLEAN_STEP = """def step{i}(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = model(x).sub(y).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()
"""

MODULE_CLASS = """class Block{i}(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, x):
        return torch.relu(self.linear(x)) + x
"""

HEADER = "import torch\nfrom torch import nn\nfrom torch.autograd import Variable\n\n\n"


def findings_file(n: int) -> str:
    return HEADER + "\n\n".join(LEGACY_STEP.format(i=i) for i in range(n))


def functions_file(n: int) -> str:
    return HEADER + "\n\n".join(CLEAN_STEP.format(i=i) for i in range(n))


def statements_file(n: int) -> str:
    body = "".join(f"    h{i} = torch.tanh(h{i - 1} @ w) if {i} % 3 else h{i - 1} * 0.5\n" for i in range(1, n))
    return HEADER + "def forward(x, w):\n    h0 = x\n" + body + f"    return h{n - 1}\n"


def nesting_file(n: int) -> str:
    """Forty functions, each a chain of `n` nested blocks (CPython allows 100 levels)."""
    depth = min(n, 95)

    def nest(i: int) -> str:
        lines = [f"def nested{i}(x, flags):"]
        for level in range(depth):
            lines.append("    " * (level + 1) + f"if flags[{level}]:")
            lines.append("    " * (level + 2) + f"x = x * {level + 2}")
        lines.append("    return x")
        return "\n".join(lines) + "\n"

    return HEADER + "\n\n".join(nest(i) for i in range(40))


def line_length_file(n: int) -> str:
    """Twenty statements, each one line holding a call with `n` arguments."""
    arguments = ", ".join(f"w{i}=x{i}" for i in range(n))
    return HEADER + "".join(f"y{j} = torch.stack(build({arguments}))\n" for j in range(20))


def imports_file(n: int) -> str:
    imports = "".join(f"from package.module{i} import name{i} as alias{i}\n" for i in range(n))
    uses = "".join(f"value{i} = alias{i}(torch.ones(2))\n" for i in range(n))
    return HEADER + imports + uses


def classes_file(n: int) -> str:
    return HEADER + "\n\n".join(MODULE_CLASS.format(i=i) for i in range(n))


def literal_file(n: int) -> str:
    entries = "".join(f'    "key{i}": [{i}, {i + 1}.5, "v{i}"],\n' for i in range(n))
    return HEADER + "TABLE = {\n" + entries + "}\nweights = torch.tensor([v[0] for v in TABLE.values()])\n"


@dataclass(frozen=True)
class Axis:
    name: str
    build: Callable[[int], str]
    base: int


AXES = (
    Axis("findings", findings_file, 500),
    Axis("functions", functions_file, 500),
    Axis("statements per function", statements_file, 1500),
    Axis("nesting depth", nesting_file, 20),
    Axis("line length", line_length_file, 400),
    Axis("imports", imports_file, 1000),
    Axis("classes", classes_file, 400),
    Axis("literal size", literal_file, 3000),
)


def timed(action: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, result = math.inf, None
    for _ in range(repeat):
        start = time.process_time()
        result = action()
        best = min(best, time.process_time() - start)
    return best, result


def exponent(sizes: list[int], times: list[float]) -> float:
    xs = [math.log(size) for size in sizes]
    ys = [math.log(max(t, 1e-9)) for t in times]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)


@dataclass
class AxisResult:
    axis: Axis
    sizes: list[int]
    kilobytes: list[float]
    parse: list[float]
    check: list[float]
    fix: list[float]
    findings: list[int]
    formats: dict[str, list[float]]


def measure_axis(axis: Axis, scale: float, repeat: int, codes: frozenset[str]) -> AxisResult:
    sizes = [max(1, int(axis.base * scale)) * factor for factor in (1, 2, 4)]
    result = AxisResult(axis, sizes, [], [], [], [], [], {})
    for size in sizes:
        measure_size(result, axis.build(size), repeat, codes)
    return result


def measure_size(result: AxisResult, text: str, repeat: int, codes: frozenset[str]) -> None:
    raw = text.encode()
    result.kilobytes.append(len(raw) / 1024)
    result.parse.append(timed(partial(cst.parse_module, text), repeat)[0])
    seconds, outcome = timed(partial(lint_bytes, raw, "scaling.py", codes), repeat)
    result.check.append(seconds)
    result.findings.append(len(outcome.findings))
    result.fix.append(timed(partial(fix_text, text, "scaling.py", codes, unsafe=True), repeat)[0])
    if result.axis.name == "findings":
        for name, seconds in render_times(outcome.findings, text, repeat).items():
            result.formats.setdefault(name, []).append(seconds)


def render_times(findings: list[Finding], text: str, repeat: int) -> dict[str, float]:
    options = RenderOptions(show_fixes=True, source_of=lambda path: text)
    # Rendering takes milliseconds: more repeats, or the exponents measure the clock's noise.
    repeats = max(repeat, 7)
    return {name: timed(partial(render, findings, options), repeats)[0] for name, render in sorted(FORMATS.items())}


def table(results: list[AxisResult]) -> str:
    lines = [
        "| axis | N | size KB (4N) | findings (4N) | parse s (4N) | check s (4N) | check / parse (4N) | check exponent | fix exponent | parse exponent | exponent of check / parse (0: grows as the parse does) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(
            f"| {r.axis.name} | {r.sizes[0]:,}, {r.sizes[1]:,}, {r.sizes[2]:,} | {r.kilobytes[-1]:,.0f} | {r.findings[-1]:,} "
            f"| {r.parse[-1]:.2f} | {r.check[-1]:.2f} | {r.check[-1] / r.parse[-1]:.2f} "
            f"| {exponent(r.kilobytes, r.check):.2f} | {exponent(r.kilobytes, r.fix):.2f} | {exponent(r.kilobytes, r.parse):.2f} "
            f"| {exponent(r.kilobytes, [c / p for c, p in zip(r.check, r.parse)]):.2f} |"
        )
    for r in results:
        if r.formats:
            lines += [
                "",
                f"Rendering the findings axis ({r.findings[0]:,} to {r.findings[-1]:,} findings), exponent per output format:",
                "",
            ]
            lines += ["| format | seconds (4N) | exponent |", "|---|---:|---:|"]
            lines += [f"| {name} | {times[-1]:.3f} | {exponent(r.findings, times):.2f} |" for name, times in r.formats.items()]
    return "\n".join(lines) + "\n"


def run(scale: float = 1.0, repeat: int = 2, names: tuple[str, ...] = ()) -> list[AxisResult]:
    tune_garbage_collector()  # as the command line does
    codes = frozenset(all_codes())
    return [measure_axis(axis, scale, repeat, codes) for axis in AXES if not names or axis.name in names]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every axis's base size")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--axes", default="", help="comma-separated axis names (default: all)")
    arguments = parser.parse_args()
    names = tuple(name.strip() for name in arguments.axes.split(",") if name.strip())
    print(table(run(arguments.scale, arguments.repeat, names)), end="")


if __name__ == "__main__":
    main()
