"""Latency of `gradlint server` in a real stdio session, as an editor drives it.

    python bench/lsp_latency.py

Starts the server and times its answer to `initialize` (wall time from the start of the process,
and the server's CPU then, best of several fresh processes). Opens a generated ~2,000-line legacy
training script, then, in each of several rounds, sends a burst of ten quick `didChange` edits
inside one function and times the diagnostics of the last one (from the moment the last change
was sent), then the same with a line inserted at the top of the file, after its docstring (a new
module-level name; every line below moves); then ~20 code-action requests at cursor positions
spread over the file, as an editor sends one per cursor move; then fix-all (`source.fixAll.gradlint`, what an editor asks for on save) requested the moment
a change's diagnostics arrive, and again a second later. The server's CPU comes from /proc
(Linux). For scale, the bare `libcst.parse_module` of the same file is timed in this process, and
`ruff server` (when ruff is installed) is driven by the same client: its `initialize` and its
diagnostics after the same bursts.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
LINES = 2_000
SMALL_LINES = 150  # a file of a usual size, for fix-all
BURST = 10
BURST_INTERVAL = 0.02  # seconds between the changes of a burst: fast typing
TYPING_INTERVAL = 0.15  # steady typing: each pause outlasts the server's debounce
ROUNDS = 3
CODE_ACTIONS = 20
TIMEOUT = 120.0
STALE_AFTER = 0.01  # seconds: a change still on its way cannot stop a publication
STARTS = 5  # fresh processes for `initialize`
GRADLINT = [sys.executable, "-m", "gradlint", "server"]
FIX_ALL = "source.fixAll.gradlint"


def legacy_script(lines: int = LINES) -> str:
    """The legacy examples one after another (their functions and classes renamed per copy) until
    the text has `lines` lines."""
    sources = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "examples" / "legacy").glob("*.py"))]
    parts, count, copy = [], 0, 0
    while count < lines:
        text = sources[copy % len(sources)].replace("def ", f"def v{copy}_").replace("class ", f"class V{copy}")
        parts.append(text)
        count += text.count("\n")
        copy += 1
    return "\n".join(parts)


class Session:
    """A client on the stdio of a `gradlint server` process, stamping each message on arrival."""

    def __init__(self, cwd: Path, command: Optional[list[str]] = None) -> None:
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            command or GRADLINT, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.incoming: queue.Queue = queue.Queue()
        self.held: list[tuple[float, dict]] = []  # read, not yet waited for
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if not line.strip():
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.incoming.put((time.perf_counter(), json.loads(stream.read(length))))

    def send(self, message: dict) -> float:
        """The time the message was sent: before it is written, as an answer can arrive before the write returns."""
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        sent = time.perf_counter()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return sent

    def wait_for(self, matches: Callable[[dict], bool], keep: bool = False) -> tuple[float, dict, list[tuple[float, dict]]]:
        """(arrival time, message) of the first message that matches, and the others before it
        (with their arrival times); with `keep`, those others stay for the next wait (diagnostics
        published while a request was answered)."""
        skipped = []
        deadline = time.monotonic() + TIMEOUT
        while True:
            if self.held:
                arrived, message = self.held.pop(0)
            else:
                arrived, message = self.incoming.get(timeout=max(deadline - time.monotonic(), 0.0))
            if matches(message):
                if keep:
                    self.held[:0] = skipped
                return arrived, message, skipped
            skipped.append((arrived, message))

    def request(self, method: str, params: object) -> tuple[float, object]:
        """(round trip in seconds, result)."""
        self.next_id += 1
        request_id = self.next_id
        sent = self.send({"id": request_id, "method": method, "params": params})
        arrived, message, _ = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, keep=True)
        return arrived - sent, message.get("result")

    def diagnostics(self, uri: str, version: int) -> tuple[float, list[dict], list[tuple[float, dict]]]:
        """(arrival, diagnostics) of `version`, and the publications before it (arrival, params)."""

        def matches(message: dict) -> bool:
            return message.get("method") == "textDocument/publishDiagnostics" and message["params"].get("version") == version

        arrived, message, skipped = self.wait_for(matches)
        earlier = [
            (at, m["params"]) for at, m in skipped if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        ]
        return arrived, message["params"]["diagnostics"], earlier

    def cpu_seconds(self) -> Optional[float]:
        """CPU seconds so far of the server and the processes under it (its worker's fork server
        and workers), from Linux's /proc; None elsewhere. A worker killed meanwhile (a cancelled
        check or fix-all) counts in its parent's children's time once the parent has reaped it."""
        try:
            stats = {int(path.name): stat for path in Path("/proc").glob("[0-9]*") if (stat := _stat(int(path.name), missing_ok=True))}
        except OSError:
            return None
        family, grew = {self.process.pid}, True
        while grew:
            children = {pid for pid, stat in stats.items() if int(stat[1]) in family} - family
            family |= children
            grew = bool(children)
        # utime, stime, and cutime, cstime: the children this process has reaped
        return sum(sum(int(field) for field in stats[pid][11:15]) for pid in family if pid in stats) / os.sysconf("SC_CLK_TCK")

    def own_cpu_seconds(self) -> Optional[float]:
        """CPU seconds so far of the server process alone (not its worker); None without /proc."""
        try:
            stat = _stat(self.process.pid)
        except OSError:
            return None
        return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self.request("shutdown", None)
        self.send({"method": "exit"})
        self.process.wait(timeout=TIMEOUT)


def _stat(pid: int, missing_ok: bool = False) -> Optional[list[str]]:
    """The fields of /proc/PID/stat after the command name (state, ppid, ...)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        if missing_ok:
            return None
        raise


def measure_initialize(command: list[str], starts: int = STARTS) -> dict:
    """Wall milliseconds from the start of a fresh process to its answer to `initialize`, and its
    own CPU milliseconds then: the best of `starts` processes (after one that warms the caches)."""
    walls, cpus = [], []
    with tempfile.TemporaryDirectory(prefix="gradlint-lsp-init-") as workdir:
        root = Path(workdir)
        for start in range(starts + 1):
            session = Session(root, command)
            try:
                session.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
                answered = time.perf_counter()
                cpu = session.own_cpu_seconds()
                session.send({"method": "initialized", "params": {}})
                session.close()
            finally:
                if session.process.poll() is None:
                    session.process.kill()
            if start:
                walls.append(answered - session.started)
                if cpu is not None:
                    cpus.append(cpu)
    return {"initialize_wall_ms": min(walls) * 1000, "initialize_cpu_ms": min(cpus) * 1000 if cpus else float("nan")}


def measure() -> dict:
    """The latencies in milliseconds (medians and maxima), the server's CPU per burst, and how many
    diagnostics were published for versions that a later change had already replaced."""
    result = measure_initialize(GRADLINT)
    result.update(_measure_session(GRADLINT, with_code_actions=True))
    result["parse_ms"] = _parse_seconds(legacy_script()) * 1000
    ruff = shutil.which("ruff", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if ruff is not None:
        command = [ruff, "server"]
        result.update({f"ruff_{name}": value for name, value in measure_initialize(command).items()})
        result.update({f"ruff_{name}": value for name, value in _measure_session(command, with_code_actions=False).items()})
    return result


def _measure_session(command: list[str], with_code_actions: bool) -> dict:
    text = legacy_script()
    with tempfile.TemporaryDirectory(prefix="gradlint-lsp-") as workdir:
        root = Path(workdir)
        path = root / "train.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        session = Session(root, command)
        try:
            session.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
            session.send({"method": "initialized", "params": {}})
            opened = session.send(
                {
                    "method": "textDocument/didOpen",
                    "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}},
                }
            )
            arrived, diagnostics, _ = session.diagnostics(uri, 1)
            result = {"lines": text.count("\n") + 1, "findings": len(diagnostics), "open_ms": (arrived - opened) * 1000}
            result.update(_bursts(session, uri, text, BURST_INTERVAL, "burst"))
            if with_code_actions:
                result.update(_bursts(session, uri, text, TYPING_INTERVAL, "typing"))
                result.update(_bursts(session, uri, text, BURST_INTERVAL, "top", at_the_top))
                result.update(_code_actions(session, uri, diagnostics, result["lines"]))
                result.update(_code_actions_during_a_check(session, uri, text))
                result.update(_fix_all(session, uri, text))
                result.update(_small_fix_all(session, root))
            session.close()
        finally:
            if session.process.poll() is None:
                session.process.kill()
    return result


def _small_fix_all(session: Session, root: Path) -> dict:
    """Fix-all on a file of a usual size, opened next to the large one."""
    text = legacy_script(SMALL_LINES)
    path = root / "small.py"
    path.write_text(text, encoding="utf-8")
    session.send(
        {
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": path.as_uri(), "languageId": "python", "version": 1, "text": text}},
        }
    )
    session.diagnostics(path.as_uri(), 1)
    result = _fix_all(session, path.as_uri(), text, "small_fix_all")
    result["small_lines"] = text.count("\n") + 1
    return result


def _fix_all(session: Session, uri: str, text: str, name: str = "fix_all") -> dict:
    """Fix-all requested the moment a change's diagnostics arrive, and again a second later (an
    editor asks for it on save): round trips, and whether its edit came with the answer."""
    at_once, later, answered = [], [], 0
    version = 2_000_000
    for round_ in range(ROUNDS):
        version += 1
        edited = in_a_function(text, f"step = {round_}  # before saving")
        session.send(
            {
                "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]},
            }
        )
        session.diagnostics(uri, version)
        for times in (at_once, later):
            params = {
                "textDocument": {"uri": uri},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "context": {"diagnostics": [], "only": [FIX_ALL]},
            }
            elapsed, actions = session.request("textDocument/codeAction", params)
            times.append(elapsed)
            answered += any("edit" in action for action in actions or [])
            time.sleep(1.0 * (times is at_once))
    return {
        f"{name}_ms_median": statistics.median(at_once) * 1000,
        f"{name}_ms_max": max(at_once) * 1000,
        f"{name}_later_ms_median": statistics.median(later) * 1000,
        f"{name}_later_ms_max": max(later) * 1000,
        f"{name}_with_edit": answered,
    }


def in_a_function(text: str, statement: str) -> str:
    """`text` with `statement` first in the body of the first function after the middle of the file:
    a change inside one function."""
    lines = text.splitlines(keepends=True)
    for row in range(len(lines) // 2, len(lines) - 1):
        if lines[row].startswith("def ") and lines[row].rstrip().endswith(":"):
            body = lines[row + 1]
            indent = body[: len(body) - len(body.lstrip())]
            return "".join([*lines[: row + 1], f"{indent}{statement}\n", *lines[row + 1 :]])
    raise ValueError("no function after the middle of the file")


def at_the_top(text: str, statement: str) -> str:
    """`text` with `statement` as its first statement after the module docstring: a new
    module-level name, and every line below it moves."""
    end = text.index("\n", text.index('"""', 3) + 3) + 1
    return f"{text[:end]}{statement}\n{text[end:]}"


def _bursts(session: Session, uri: str, text: str, interval: float, name: str, where: Callable[[str, str], str] = in_a_function) -> dict:
    """Rounds of BURST changes `interval` seconds apart (`where` each makes its change):
    when the last one's diagnostics come."""
    latencies, cpu, stale = [], [], 0
    version = 1_000_000 * (name == "typing") + 3_000_000 * (name == "top")
    for _ in range(ROUNDS):
        before = session.cpu_seconds()
        sent = {}
        for edit in range(BURST):
            version += 1
            edited = where(text, f"step = {version}  # edit {edit}")
            last = session.send(
                {
                    "method": "textDocument/didChange",
                    "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]},
                }
            )
            sent[version] = last
            time.sleep(interval * (edit < BURST - 1))
        arrived, _, earlier = session.diagnostics(uri, version)
        latencies.append(arrived - last)
        # Stale: published for a version the client had replaced before it arrived (past the few
        # milliseconds a change takes to reach the server).
        stale += sum(1 for at, params in earlier if params.get("version") + 1 in sent and at > sent[params["version"] + 1] + STALE_AFTER)
        after = session.cpu_seconds()
        if before is not None and after is not None:
            cpu.append(after - before)
        time.sleep(0.5)  # let the session settle between rounds
    return {
        f"{name}_ms_median": statistics.median(latencies) * 1000,
        f"{name}_ms_max": max(latencies) * 1000,
        f"{name}_cpu_ms": statistics.median(cpu) * 1000 if cpu else float("nan"),
        f"{name}_stale_publications": stale,
    }


def _code_actions(session: Session, uri: str, diagnostics: list[dict], lines: int) -> dict:
    """Code actions at cursors spread over the file, half of them on a finding."""
    cursors = [diagnostics[i * len(diagnostics) // CODE_ACTIONS]["range"]["start"] for i in range(CODE_ACTIONS // 2)]
    cursors += [{"line": i * lines // (CODE_ACTIONS // 2), "character": 0} for i in range(CODE_ACTIONS - len(cursors))]
    times, offered = [], 0
    for cursor in cursors:
        params = {"textDocument": {"uri": uri}, "range": {"start": cursor, "end": cursor}, "context": {"diagnostics": []}}
        elapsed, actions = session.request("textDocument/codeAction", params)
        times.append(elapsed)
        offered += len(actions or [])
    return {
        "code_action_ms_median": statistics.median(times) * 1000,
        "code_action_ms_max": max(times) * 1000,
        "code_actions_offered": offered,
    }


def _code_actions_during_a_check(session: Session, uri: str, text: str) -> dict:
    """Code actions while the server analyses a change on its worker (the cursor moves while the
    user types): they are answered without waiting for the analysis. The change adds an import,
    which every statement's findings may depend on: the file is analysed whole, for seconds."""
    version = 1_000
    edited = at_the_top(text, "import os  # moved")
    session.send(
        {
            "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]},
        }
    )
    time.sleep(0.2)  # past the debounce: the check is running
    times = []
    for line in range(0, CODE_ACTIONS * 10, 10):
        cursor = {"line": line, "character": 0}
        params = {"textDocument": {"uri": uri}, "range": {"start": cursor, "end": cursor}, "context": {"diagnostics": []}}
        times.append(session.request("textDocument/codeAction", params)[0])
        time.sleep(BURST_INTERVAL)
    session.diagnostics(uri, version)
    return {"busy_code_action_ms_median": statistics.median(times) * 1000, "busy_code_action_ms_max": max(times) * 1000}


def _parse_seconds(text: str) -> float:
    import libcst

    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        libcst.parse_module(text)
        best = min(best, time.perf_counter() - start)
    return best


def markdown(result: dict) -> str:
    rows = [
        (
            f"`initialize` answered, from the start of the process (best of {STARTS})",
            f"{result['initialize_wall_ms']:.0f} ms wall, {result['initialize_cpu_ms']:.0f} ms CPU",
            "≤ 300 ms CPU",
        ),
        ("file", f"{result['lines']:,} lines, {result['findings']} findings", ""),
        ("diagnostics after opening", f"{result['open_ms']:.0f} ms", ""),
        (
            f"diagnostics after the last of {BURST} changes {BURST_INTERVAL * 1000:.0f} ms apart inside one function (median / max of {ROUNDS})",
            f"{result['burst_ms_median']:.0f} / {result['burst_ms_max']:.0f} ms",
            "≤ 100 ms",
        ),
        ("server CPU per burst, worker included (median)", f"{result['burst_cpu_ms']:.0f} ms", ""),
        (
            f"diagnostics after the last of {BURST} changes {TYPING_INTERVAL * 1000:.0f} ms apart (median / max of {ROUNDS})",
            f"{result['typing_ms_median']:.0f} / {result['typing_ms_max']:.0f} ms",
            "",
        ),
        (
            f"the same, each change a line inserted at the top of the file (median / max of {ROUNDS})",
            f"{result['top_ms_median']:.0f} / {result['top_ms_max']:.0f} ms",
            "",
        ),
        (
            "diagnostics arriving after their version was replaced",
            str(result["burst_stale_publications"] + result["typing_stale_publications"] + result["top_stale_publications"]),
            "0",
        ),
        (
            f"code action (median / max of {CODE_ACTIONS})",
            f"{result['code_action_ms_median']:.1f} / {result['code_action_ms_max']:.1f} ms",
            "≤ 20 ms",
        ),
        (
            f"code action while a check runs (median / max of {CODE_ACTIONS})",
            f"{result['busy_code_action_ms_median']:.1f} / {result['busy_code_action_ms_max']:.1f} ms",
            "≤ 20 ms",
        ),
        (
            f"fix-all asked for the moment a change's diagnostics arrive (median / max of {ROUNDS})",
            f"{result['fix_all_ms_median']:.0f} / {result['fix_all_ms_max']:.0f} ms",
            "≤ 100 ms",
        ),
        (
            f"fix-all asked for again a second later (median / max of {ROUNDS})",
            f"{result['fix_all_later_ms_median']:.1f} / {result['fix_all_later_ms_max']:.1f} ms",
            "≤ 100 ms",
        ),
        (
            f"the same on a {result['small_lines']}-line file: at once / a second later (medians)",
            f"{result['small_fix_all_ms_median']:.0f} / {result['small_fix_all_later_ms_median']:.1f} ms",
            "≤ 100 ms",
        ),
        ("bare `libcst.parse_module` of the file", f"{result['parse_ms']:.0f} ms", ""),
    ]
    if "ruff_initialize_wall_ms" in result:
        rows += [
            (
                "for reference, `ruff server`: `initialize` answered",
                f"{result['ruff_initialize_wall_ms']:.0f} ms wall, {result['ruff_initialize_cpu_ms']:.0f} ms CPU",
                "",
            ),
            (
                f"for reference, `ruff server`: diagnostics after the same bursts (median / max of {ROUNDS})",
                f"{result['ruff_burst_ms_median']:.0f} / {result['ruff_burst_ms_max']:.0f} ms",
                "",
            ),
        ]
    lines = ["| language server | measured | target |", "|---|---:|---|"]
    lines += [f"| {name} | {value} | {target} |" for name, value, target in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(measure()))
