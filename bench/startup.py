"""Start-up cost of gradlint's commands: the CPU time of a fresh process, best of several runs.

    python bench/startup.py                      # this checkout
    python bench/startup.py --source DIR         # another checkout's `gradlint` package (before/after)

Measured: `gradlint --version`, `gradlint rule GL101`, `gradlint rules`, `gradlint check` of one
small file (no cache), and the language server from its start to its answer to `initialize`
(the server's own CPU, read from Linux's /proc when the answer arrives; its worker is a separate
process). Each command runs once first so that Python's bytecode cache is written, as it is for an
installed package (`PYTHONDONTWRITEBYTECODE` is dropped from the environment), then `--repeat`
times; the best run is reported, the least disturbed by other load. For scale, a bare
`python -c pass` and `python -c "import click"` are measured alike.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
SMALL_FILE = "import torch\n\nfor x, y in loader:\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n"
# The targets: CPU seconds of a fresh process.
TARGETS = {"--version": 0.1, "rule GL101": 0.3, "server initialize": 0.3}


def environment(source: Optional[Path]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    if source is not None:
        env["PYTHONPATH"] = str(source)
    return env


def command_cpu(arguments: list[str], env: dict[str, str], cwd: Path) -> float:
    """CPU seconds (user + system) of one run of `python ARGUMENTS`."""
    process = subprocess.Popen([sys.executable, *arguments], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime


def initialize_cpu(env: dict[str, str], cwd: Path) -> Optional[float]:
    """CPU seconds of `gradlint server` itself when its answer to `initialize` has arrived; None
    without /proc."""
    process = subprocess.Popen(
        [sys.executable, "-m", "gradlint", "server"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        _send(process, {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        while _receive(process).get("id") != 1:
            pass
        return _proc_cpu(process.pid)
    finally:
        _send(process, {"id": 2, "method": "shutdown", "params": None})
        _send(process, {"method": "exit"})
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _send(process: subprocess.Popen, message: dict) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
    try:
        process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        process.stdin.flush()
    except (BrokenPipeError, OSError):
        pass


def _receive(process: subprocess.Popen) -> dict:
    length = None
    while True:
        line = process.stdout.readline()
        if not line:
            raise EOFError("the server ended before answering")
        if not line.strip():
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(process.stdout.read(length))


def _proc_cpu(pid: int) -> Optional[float]:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(source: Optional[Path] = None, repeat: int = 5) -> dict[str, Optional[float]]:
    """Best CPU seconds of each command, by its name."""
    env = environment(source)
    with tempfile.TemporaryDirectory(prefix="gradlint-startup-") as folder:
        cwd = Path(folder)
        (cwd / "small.py").write_text(SMALL_FILE, encoding="utf-8")
        commands = {
            "python -c pass": ["-c", "pass"],
            "python -c 'import click'": ["-c", "import click"],
            "--version": ["-m", "gradlint", "--version"],
            "rule GL101": ["-m", "gradlint", "rule", "GL101"],
            "rules": ["-m", "gradlint", "rules"],
            "check small.py": ["-m", "gradlint", "check", "--no-cache", "small.py"],
        }
        results: dict[str, Optional[float]] = {}
        for name, arguments in commands.items():
            command_cpu(arguments, env, cwd)  # writes the bytecode cache
            results[name] = min(command_cpu(arguments, env, cwd) for _ in range(repeat))
        initialize_cpu(env, cwd)
        runs = [initialize_cpu(env, cwd) for _ in range(repeat)]
        results["server initialize"] = min(runs) if None not in runs else None
    return results


def markdown(results: dict[str, Optional[float]], label: str = "") -> str:
    lines = [
        f"Start-up CPU seconds{f' ({label})' if label else ''}, best run of a fresh process:",
        "",
        "| command | CPU s | target |",
        "|---|---|---|",
    ]
    for name, seconds in results.items():
        measured = "not measured" if seconds is None else f"{seconds:.3f}"
        target = f"≤ {TARGETS[name]}" if name in TARGETS else ""
        lines.append(f"| `{name}` | {measured} | {target} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, help="a checkout whose `gradlint` package is measured (default: the installed one)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d")
    label = f"{args.source or 'installed'}, {started}, {os.cpu_count()} cores"
    print(markdown(measure(args.source.resolve() if args.source else None, args.repeat), label))


if __name__ == "__main__":
    main()
