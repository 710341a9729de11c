"""Latency of `gradlint server` in a real stdio session, as an editor drives it.

    python bench/lsp_latency.py

Opens a generated ~2,000-line legacy training script, then, in each of several rounds, sends a
burst of ten quick `didChange` edits and times the diagnostics of the last one (from the moment the
last change was sent); then ~20 code-action requests at cursor positions spread over the file, as
an editor sends one per cursor move. The server's CPU comes from /proc (Linux). For scale, the
bare `libcst.parse_module` of the same file is timed in this process.
"""

from __future__ import annotations

import json
import os
import queue
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
BURST = 10
BURST_INTERVAL = 0.02  # seconds between the changes of a burst: fast typing
TYPING_INTERVAL = 0.15  # steady typing: each pause outlasts the server's debounce
ROUNDS = 3
CODE_ACTIONS = 20
TIMEOUT = 120.0


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

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gradlint", "server"], cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.incoming: queue.Queue = queue.Queue()
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
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()
        return time.perf_counter()

    def wait_for(self, matches: Callable[[dict], bool]) -> tuple[float, dict, list[dict]]:
        """(arrival time, message) of the first message that matches, and the others before it."""
        skipped = []
        deadline = time.monotonic() + TIMEOUT
        while True:
            arrived, message = self.incoming.get(timeout=max(deadline - time.monotonic(), 0.0))
            if matches(message):
                return arrived, message, skipped
            skipped.append(message)

    def request(self, method: str, params: object) -> tuple[float, object]:
        """(round trip in seconds, result)."""
        self.next_id += 1
        request_id = self.next_id
        sent = self.send({"id": request_id, "method": method, "params": params})
        arrived, message, _ = self.wait_for(lambda m: m.get("id") == request_id and "method" not in m)
        return arrived - sent, message.get("result")

    def diagnostics(self, uri: str, version: int) -> tuple[float, list[dict], list[dict]]:
        """(arrival, diagnostics) of `version`, and the diagnostics published before it."""

        def matches(message: dict) -> bool:
            return message.get("method") == "textDocument/publishDiagnostics" and message["params"].get("version") == version

        arrived, message, skipped = self.wait_for(matches)
        earlier = [m["params"] for m in skipped if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]
        return arrived, message["params"]["diagnostics"], earlier

    def cpu_seconds(self) -> Optional[float]:
        """CPU seconds so far of the server and the processes under it (its worker), from Linux's
        /proc; None elsewhere. A worker killed meanwhile (a cancelled check) is no longer counted,
        so only rounds without cancellations (the fast bursts) are reported."""
        try:
            stats = {int(path.name): stat for path in Path("/proc").glob("[0-9]*") if (stat := _stat(int(path.name), missing_ok=True))}
        except OSError:
            return None
        family, grew = {self.process.pid}, True
        while grew:
            children = {pid for pid, stat in stats.items() if int(stat[1]) in family} - family
            family |= children
            grew = bool(children)
        return sum(int(stats[pid][11]) + int(stats[pid][12]) for pid in family if pid in stats) / os.sysconf("SC_CLK_TCK")

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


def measure() -> dict:
    """The latencies in milliseconds (medians and maxima), the server's CPU per burst, and how many
    diagnostics were published for versions that a later change had already replaced."""
    text = legacy_script()
    with tempfile.TemporaryDirectory(prefix="gradlint-lsp-") as workdir:
        root = Path(workdir)
        path = root / "train.py"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        session = Session(root)
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
            result.update(_bursts(session, uri, text, TYPING_INTERVAL, "typing"))
            result.update(_code_actions(session, uri, diagnostics, result["lines"]))
            result.update(_code_actions_during_a_check(session, uri, text))
            session.close()
        finally:
            if session.process.poll() is None:
                session.process.kill()
    result["parse_ms"] = _parse_seconds(text) * 1000
    return result


def _bursts(session: Session, uri: str, text: str, interval: float, name: str) -> dict:
    """Rounds of BURST changes `interval` seconds apart: when the last one's diagnostics come."""
    latencies, cpu, stale = [], [], 0
    version = 1_000_000 * (name == "typing")
    for _ in range(ROUNDS):
        before = session.cpu_seconds()
        for edit in range(BURST):
            version += 1
            edited = text.replace("\n", f"\nstep = {version}  # edit {edit}\n", 1)
            last = session.send(
                {
                    "method": "textDocument/didChange",
                    "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": edited}]},
                }
            )
            time.sleep(interval * (edit < BURST - 1))
        arrived, _, earlier = session.diagnostics(uri, version)
        latencies.append(arrived - last)
        stale += len(earlier)
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
    """Code actions while the server analyses a change on its worker thread (the cursor moves
    while the user types): they are answered without waiting for the analysis."""
    version = 1_000
    edited = text.replace("\n", "\nstep = 0  # moved\n", 1)
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
        ("file", f"{result['lines']:,} lines, {result['findings']} findings", ""),
        ("diagnostics after opening", f"{result['open_ms']:.0f} ms", ""),
        (
            f"diagnostics after the last of {BURST} changes {BURST_INTERVAL * 1000:.0f} ms apart (median / max of {ROUNDS})",
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
            "diagnostics published for replaced versions",
            str(result["burst_stale_publications"] + result["typing_stale_publications"]),
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
        ("bare `libcst.parse_module` of the file", f"{result['parse_ms']:.0f} ms", ""),
    ]
    lines = ["| language server | measured | target |", "|---|---:|---|"]
    lines += [f"| {name} | {value} | {target} |" for name, value, target in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(measure()))
