"""`gradlint server`: real stdio LSP sessions with the server process, driven by a minimal client."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Optional

import pytest
from support import readme_block, write

from gradlint import RULE_DOCS_URL
from gradlint.fix.apply import fix_text
from gradlint.noqa import with_noqa_code
from gradlint.rules import all_codes

TIMEOUT = 15.0  # seconds for any one answer; a hung server fails the test instead of hanging it
LEGACY = "from torch.autograd import Variable\nx = Variable(t)\nprint(loss.data[0])\n"
FIXED = "x = t.detach()\nprint(loss.item())\n"
# GL201 (only an unsafe fix: insert `optimizer.zero_grad()`) and GL103 (a safe fix).
TRAINING = "for x in data:\n    loss = f(x)\n    loss.backward()\n    optimizer.step()\n    print(loss.data[0])\n"
# Safe torch rewrites are offered only in files that use torch.
TORCH_TRAINING = "import torch\n" + TRAINING
WARNING, ERROR = 2, 1  # DiagnosticSeverity


class LspSession:
    """An LSP client over the stdin/stdout of a server subprocess (Content-Length framing)."""

    def __init__(self, cwd: Path, command: Optional[list[str]] = None, env: Optional[dict] = None) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            command or [sys.executable, "-m", "gradlint", "server"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.incoming: queue.Queue = queue.Queue()
        self.backlog: list[dict] = []
        self.next_id = 0
        self.capabilities: dict = {}
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.incoming.put(None)  # end of output
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            self.incoming.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        self.send_body(json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8"))

    def send_body(self, body: bytes) -> None:
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send_raw(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self, matches: Callable[[dict], bool], timeout: float = TIMEOUT) -> dict:
        """The first message (earliest first, kept ones included) for which `matches` is true."""
        for index, message in enumerate(self.backlog):
            if matches(message):
                return self.backlog.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                message = self.incoming.get(timeout=max(remaining, 0.0))
            except queue.Empty:
                raise AssertionError(f"no answer from the server within {timeout}s; stderr:\n{self.errors()}") from None
            if message is None:
                raise AssertionError(f"the server closed its output; stderr:\n{self.errors()}")
            if "id" in message and "method" in message:  # a request from the server
                self.send({"id": message["id"], "result": None})
            if matches(message):
                return message
            self.backlog.append(message)

    def request(self, method: str, params: Optional[dict]) -> object:
        response = self.answer(method, params)
        assert "error" not in response, response
        return response["result"]

    def answer(self, method: str, params: object) -> dict:
        """The whole response (a result or an error) to a request."""
        self.next_id += 1
        request_id = self.next_id
        self.send({"id": request_id, "method": method, "params": params})
        return self.response(request_id)

    def response(self, request_id: object) -> dict:
        return self.receive(lambda m: m.get("id") == request_id and "method" not in m)

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def notification(self, method: str, matches: Callable[[dict], bool] = lambda params: True) -> dict:
        return self.receive(lambda m: m.get("method") == method and "id" not in m and matches(m["params"]))["params"]

    def log_messages(self) -> list[str]:
        return [m["params"]["message"] for m in self.backlog if m.get("method") == "window/logMessage"]

    def traces(self, part: str) -> list[str]:
        """The `$/logTrace` messages received so far that contain `part` (taken from the backlog)."""
        found = [m for m in self.backlog if m.get("method") == "$/logTrace" and part in m["params"]["message"]]
        self.backlog = [m for m in self.backlog if m not in found]
        return [m["params"]["message"] for m in found]

    def initialize(self, root: Path, capabilities: Optional[dict] = None, trace: str = "off") -> None:
        result = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": capabilities or {},
                "workspaceFolders": [{"uri": root.as_uri(), "name": "root"}],
                "trace": trace,
            },
        )
        self.notify("initialized", {})
        self.capabilities = result["capabilities"]

    def diagnostics(self, uri: str, version: Optional[int] = None) -> list[dict]:
        def matches(params: dict) -> bool:
            return params["uri"] == uri and (version is None or params.get("version") == version)

        return self.notification("textDocument/publishDiagnostics", matches)["diagnostics"]

    def open(self, path: Path | str, text: str, language: str = "python", version: int = 1) -> list[dict]:
        uri = path.as_uri() if isinstance(path, Path) else path
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}})
        return self.diagnostics(uri, version)

    def change(self, path: Path, text: str, version: int) -> list[dict]:
        uri = path.as_uri()
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
        return self.diagnostics(uri, version)

    def code_actions(
        self, path: Path, diagnostics: list[dict], only: Optional[list[str]] = None, range: Optional[dict] = None
    ) -> list[dict]:
        context: dict = {"diagnostics": diagnostics}
        if only is not None:
            context["only"] = only
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": 10_000, "character": 0}}
        params = {
            "textDocument": {"uri": path.as_uri()},
            "range": range or (diagnostics[0]["range"] if diagnostics else whole),
            "context": context,
        }
        return self.request("textDocument/codeAction", params) or []

    def close(self) -> int:
        """shutdown, exit: the process's exit code."""
        assert self.request("shutdown", None) is None
        self.notify("exit", {})
        try:
            return self.process.wait(timeout=TIMEOUT)
        finally:
            self.stop()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()
        self.stderr.close()

    def errors(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")


def apply_lsp_edits(text: str, edits: list[dict]) -> str:
    """Apply TextEdits as a client does: positions are 0-based lines and UTF-16 code units."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(position: dict) -> int:
        line_start = starts[min(position["line"], len(starts) - 1)]
        line_end = starts[position["line"] + 1] if position["line"] + 1 < len(starts) else len(text)
        units = text[line_start:line_end].encode("utf-16-le")[: 2 * position["character"]]
        return line_start + len(units.decode("utf-16-le"))

    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


def edits_of(action: dict, uri: str) -> list[dict]:
    changes = action["edit"]["changes"]
    assert list(changes) == [uri]
    return changes[uri]


def codes(diagnostics: list[dict]) -> list[str]:
    return [d["code"] for d in diagnostics]


def fixes(actions: list[dict]) -> list[dict]:
    """The actions that fix, without the `Disable GLxxx for this line` ones."""
    return [action for action in actions if not action["title"].startswith("Disable ")]


def gradlint_fix(run_cli, path: Path, text: str) -> str:
    write(path, text)
    result = run_cli("fix", "--no-cache", str(path))
    assert result.exit_code in (0, 1), result.output
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("workspace")


@pytest.fixture(scope="module")
def server(workspace):
    session = LspSession(workspace)
    session.initialize(workspace, trace="verbose")  # `$/logTrace` says what the server computed
    yield session
    session.stop()


def test_initialize_advertises_full_sync_and_both_code_action_kinds(server):
    capabilities = server.capabilities
    assert capabilities["textDocumentSync"]["change"] == 1  # Full
    assert capabilities["textDocumentSync"]["openClose"] is True
    assert set(capabilities["codeActionProvider"]["codeActionKinds"]) == {"quickfix", "source.fixAll.gradlint"}
    assert capabilities["codeActionProvider"]["resolveProvider"] is True
    assert capabilities["hoverProvider"] is True
    assert capabilities["positionEncoding"] == "utf-16"


def test_diagnostics_on_open_are_the_findings_of_gradlint_check(server, workspace, run_cli):
    path = write(workspace / "check" / "legacy.py", LEGACY)
    diagnostics = server.open(path, LEGACY)
    result = run_cli("check", "--no-cache", "--output-format", "json", str(path))
    expected = json.loads(result.output)
    assert [f["code"] for f in expected] == ["GL101", "GL103"]
    assert diagnostics == [
        {
            "range": {
                "start": {"line": f["location"]["row"] - 1, "character": f["location"]["column"] - 1},
                "end": {"line": f["end_location"]["row"] - 1, "character": f["end_location"]["column"] - 1},
            },
            "severity": ERROR if f["severity"] == "error" else WARNING,
            "code": f["code"],
            "codeDescription": {"href": f"{RULE_DOCS_URL}{f['code']}.md"},
            "source": "gradlint",
            "message": f["message"],
        }
        for f in expected
    ]
    assert diagnostics[0]["range"]["start"] == {"line": 1, "character": 4}  # `Variable(t)` on row 2


def test_change_and_save_republish_and_close_clears(server, workspace):
    path = workspace / "edited.py"
    uri = path.as_uri()
    assert codes(server.open(path, LEGACY)) == ["GL101", "GL103"]
    assert server.change(path, FIXED, 2) == []
    assert codes(server.change(path, "print(loss.data[0])\n", 3)) == ["GL103"]
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    assert codes(server.diagnostics(uri, 3)) == ["GL103"]
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    assert server.diagnostics(uri) == []
    assert server.code_actions(path, []) == []  # a closed document has no fixes


def test_quick_fix_gives_what_gradlint_fix_gives(server, workspace, run_cli):
    text = "import torch\nloss = torch.ones(())\nprint(loss.data[0])\n"
    path = workspace / "quick.py"
    diagnostics = server.open(path, text)
    assert codes(diagnostics) == ["GL103"]
    actions = server.code_actions(path, diagnostics, only=["quickfix"])
    assert [(a["title"], a["kind"], a.get("isPreferred")) for a in actions] == [
        ("Replace with `loss.item()`", "quickfix", True),
        ("Disable GL103 for this line", "quickfix", None),
    ]
    assert actions[0]["diagnostics"] == diagnostics
    fixed = apply_lsp_edits(text, edits_of(actions[0], path.as_uri()))
    assert fixed == gradlint_fix(run_cli, workspace / "cli" / "quick.py", text)
    assert fixed == fix_text(text, str(path), frozenset(all_codes())).text
    assert server.change(path, fixed, 2) == []


def test_each_quick_fix_applies_only_its_own_finding(server, workspace):
    path = workspace / "one_by_one.py"
    diagnostics = server.open(path, LEGACY)
    assert codes(diagnostics) == ["GL101", "GL103"]
    # The cursor on `Variable(t)`: only its fix, not the one on the next line.
    (action,) = fixes(server.code_actions(path, [diagnostics[0]], only=["quickfix"]))
    assert action["title"] == "Replace with `t.detach()`"
    text = apply_lsp_edits(LEGACY, edits_of(action, path.as_uri()))
    diagnostics = server.change(path, text, 2)
    assert codes(diagnostics) == ["GL103"]
    (action,) = fixes(server.code_actions(path, diagnostics, only=["quickfix"]))
    text = apply_lsp_edits(text, edits_of(action, path.as_uri()))
    assert server.change(path, text, 3) == []
    # A quick fix does not remove the import it left unused; fix-all does, as `gradlint fix` does.
    assert text == "from torch.autograd import Variable\nx = t.detach()\nprint(loss.item())\n"


def test_fix_all_gives_what_gradlint_fix_gives(server, workspace, run_cli):
    path = workspace / "fix_all.py"
    diagnostics = server.open(path, LEGACY)
    actions = server.code_actions(path, diagnostics, only=["source.fixAll"])
    assert [(a["title"], a["kind"]) for a in actions] == [("gradlint: apply all safe fixes", "source.fixAll.gradlint")]
    (edit,) = edits_of(actions[0], path.as_uri())
    assert edit["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}}
    fixed = apply_lsp_edits(LEGACY, [edit])
    assert fixed == FIXED == gradlint_fix(run_cli, workspace / "cli" / "fix_all.py", LEGACY)
    diagnostics = server.change(path, fixed, 2)
    assert not {"GL101", "GL103"} & set(codes(diagnostics))
    assert server.code_actions(path, diagnostics, only=["source.fixAll"]) == []  # nothing left to fix


def test_code_action_kinds_follow_only(server, workspace):
    path = workspace / "kinds.py"
    diagnostics = server.open(path, LEGACY)
    kinds = lambda only: sorted(a["kind"] for a in server.code_actions(path, diagnostics, only=only))  # noqa: E731
    everywhere = {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}}
    # Fix-all only when asked for by kind: this client cannot resolve an action's edit lazily.
    assert kinds(None) == ["quickfix", "quickfix"]
    assert kinds(["quickfix"]) == ["quickfix", "quickfix"]
    assert kinds(["source"]) == ["source.fixAll.gradlint"]
    assert kinds(["refactor"]) == []
    assert len(fixes(server.code_actions(path, diagnostics, only=["quickfix"], range=everywhere))) == 2


def test_unsafe_fix_is_titled_unsafe_and_never_in_fix_all(server, workspace, run_cli):
    path = workspace / "training.py"
    diagnostics = server.open(path, TORCH_TRAINING)
    assert codes(diagnostics) == ["GL201", "GL103"]
    cursor = {"start": diagnostics[0]["range"]["start"], "end": diagnostics[0]["range"]["start"]}
    (unsafe,) = fixes(server.code_actions(path, [diagnostics[0]], only=["quickfix"], range=cursor))
    assert unsafe["title"] == "Insert `optimizer.zero_grad()` before the backward call (unsafe)"
    assert not unsafe.get("isPreferred")
    assert "optimizer.zero_grad()" in apply_lsp_edits(TORCH_TRAINING, edits_of(unsafe, path.as_uri()))
    (fix_all,) = server.code_actions(path, diagnostics, only=["source.fixAll"])
    fixed = apply_lsp_edits(TORCH_TRAINING, edits_of(fix_all, path.as_uri()))
    assert "zero_grad" not in fixed and "loss.item()" in fixed
    assert fixed == gradlint_fix(run_cli, workspace / "cli" / "training.py", TORCH_TRAINING)
    assert codes(server.change(path, fixed, 2)) == ["GL201"]
    assert server.code_actions(path, [], only=["source.fixAll"]) == []  # only an unsafe fix is left


def test_a_loop_finding_covers_its_header_and_safe_fixes_come_first(server, workspace):
    path = workspace / "header.py"
    text = "import torch\nfor x in data:\n    print(loss.data[0]); loss = f(x); loss.backward(); optimizer.step()\n"
    diagnostics = server.open(path, text)
    assert codes(diagnostics) == ["GL201", "GL103"]
    assert diagnostics[0]["range"] == {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 14}}
    inside_the_body = {"start": {"line": 2, "character": 30}, "end": {"line": 2, "character": 30}}
    assert server.code_actions(path, diagnostics, only=["quickfix"], range=inside_the_body) == []
    both = {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 20}}
    titles = [action["title"] for action in server.code_actions(path, diagnostics, only=["quickfix"], range=both)]
    assert titles == [
        "Replace with `loss.item()`",
        "Insert `optimizer.zero_grad()` before the backward call (unsafe)",
        "Disable GL201 for this line",
        "Disable GL103 for this line",
    ]


def test_columns_are_utf16_code_units(server, workspace):
    # U+1F600 is one code point (gradlint column) but two UTF-16 code units (LSP character).
    text = 'import torch\nprint("\U0001f600", loss.data[0])\nx = "\U0001f600\U0001f600"; y = loss.data[0]\n'
    path = workspace / "emoji.py"
    diagnostics = server.open(path, text)
    assert codes(diagnostics) == ["GL103", "GL103"]
    assert [d["range"] for d in diagnostics] == [
        {"start": {"line": 1, "character": 12}, "end": {"line": 1, "character": 24}},
        {"start": {"line": 2, "character": 16}, "end": {"line": 2, "character": 28}},
    ]
    assert [a["title"] for a in fixes(server.code_actions(path, [diagnostics[1]], only=["quickfix"]))] == ["Replace with `loss.item()`"]
    edits = [edit for d in diagnostics for edit in edits_of(fixes(server.code_actions(path, [d], only=["quickfix"]))[0], path.as_uri())]
    assert apply_lsp_edits(text, edits) == 'import torch\nprint("\U0001f600", loss.item())\nx = "\U0001f600\U0001f600"; y = loss.item()\n'


def test_negotiated_utf32_columns_count_code_points(workspace):
    session = LspSession(workspace)
    try:
        session.initialize(workspace, {"general": {"positionEncodings": ["utf-32", "utf-16"]}})
        assert session.capabilities["positionEncoding"] == "utf-32"
        diagnostics = session.open(workspace / "emoji32.py", 'print("\U0001f600", loss.data[0])\n')
    finally:
        session.stop()
    assert diagnostics[0]["range"]["start"] == {"line": 0, "character": 11}


def test_bad_input_gives_gl001_and_the_server_stays_alive(server, workspace, run_cli):
    path = write(workspace / "broken.py", "def f(:\n    pass\n")
    diagnostics = server.open(path, path.read_text())
    expected = json.loads(run_cli("check", "--no-cache", "--output-format", "json", str(path)).output)
    assert codes(diagnostics) == ["GL001"] == [f["code"] for f in expected]
    assert diagnostics[0]["severity"] == ERROR
    assert diagnostics[0]["range"]["start"]["line"] == expected[0]["location"]["row"] - 1
    assert server.code_actions(path, diagnostics) == []
    # A lone surrogate (valid JSON, not encodable), a NUL byte, an empty document.
    for version, text in enumerate(['x = "\ud800"\n', "x = 1\x00\n", ""], start=2):
        assert codes(server.change(path, text, version)) in (["GL001"], [])
    assert codes(server.change(path, "print(loss.data[0])\n", 10)) == ["GL103"]


def test_settings_of_the_nearest_configuration_are_honoured(server, workspace, run_cli, monkeypatch):
    project = workspace / "project"
    write(
        project / "pyproject.toml",
        '[tool.gradlint]\nignore = ["GL103"]\nextend-exclude = ["generated/"]\n\n[tool.gradlint.per-file-ignores]\n"scripts/*" = ["GL1"]\n',
    )
    files = {
        "src/train.py": LEGACY,
        "scripts/run.py": LEGACY,
        "generated/legacy.py": LEGACY,
        "src/quiet.py": LEGACY.replace("Variable(t)", "Variable(t)  # noqa: GL101") + "y = Variable(t)\n",
        "src/exempt.py": "# gradlint: noqa\n" + LEGACY,
    }
    published = {}
    for name, text in files.items():
        path = write(project / name, text)
        published[name] = [(d["code"], d["range"]["start"]["line"] + 1) for d in server.open(path, text)]
    assert published == {
        "src/train.py": [("GL101", 2)],
        "scripts/run.py": [],
        "generated/legacy.py": [],
        "src/quiet.py": [("GL101", 4)],
        "src/exempt.py": [],
    }
    monkeypatch.chdir(project)  # where `gradlint check` finds the same configuration
    result = run_cli("check", "--no-cache", "--output-format", "json", ".")
    reported = {name: [] for name in files}
    for finding in json.loads(result.output):
        reported[Path(finding["filename"]).resolve().relative_to(project.resolve()).as_posix()].append(
            (finding["code"], finding["location"]["row"])
        )
    assert published == reported


def test_a_broken_configuration_falls_back_to_the_defaults_and_is_logged(server, workspace):
    project = workspace / "broken_config"
    write(project / "pyproject.toml", '[tool.gradlint]\nselect = ["GL999"]\n')
    path = write(project / "train.py", LEGACY)
    assert codes(server.open(path, LEGACY)) == ["GL101", "GL103"]
    assert codes(server.change(path, LEGACY, 2)) == ["GL101", "GL103"]
    logged = [message for message in server.log_messages() if "GL999" in message]
    assert len(logged) == 1, server.log_messages()  # once, not on every change
    assert "using the default settings" in logged[0]


def test_only_python_documents_are_checked(server, workspace):
    assert server.open(workspace / "notes.txt", LEGACY, language="plaintext") == []
    assert server.code_actions(workspace / "notes.txt", []) == []
    assert codes(server.open(workspace / "script", LEGACY, language="python")) == ["GL101", "GL103"]
    assert codes(server.open("untitled:Untitled-1", LEGACY, language="python")) == ["GL101", "GL103"]


def test_shutdown_and_exit_end_the_process_with_code_0(workspace):
    session = LspSession(workspace)
    session.initialize(workspace)
    assert codes(session.open(workspace / "last.py", LEGACY)) == ["GL101", "GL103"]
    assert session.close() == 0


def test_exit_without_shutdown_ends_the_process_with_code_1(workspace):
    session = LspSession(workspace)
    try:
        session.initialize(workspace)
        session.notify("exit", {})
        assert session.process.wait(timeout=TIMEOUT) == 1
    finally:
        session.stop()


def test_readme_editor_snippets_start_this_server(workspace):
    vscode = json.loads(readme_block("### Editors (language server)", "json"))
    command = [vscode["glspc.server.command"], *vscode["glspc.server.commandArguments"]]
    neovim = readme_block("### Editors (language server)", "lua")
    assert re.findall(r'"([^"]*)"', re.search(r"cmd = \{(.*?)\}", neovim).group(1)) == command == ["gradlint", "server"]
    assert vscode["glspc.server.languageId"] == ["python"] and 'filetypes = { "python" }' in neovim
    (on_save,) = vscode["editor.codeActionsOnSave"]
    assert f'only = {{ "{on_save}" }}' in neovim
    # The `gradlint` console script installed next to this Python.
    session = LspSession(workspace, [str(Path(sys.executable).parent / command[0]), *command[1:]])
    session.initialize(workspace)
    path = workspace / "snippet.py"
    assert codes(session.open(path, LEGACY)) == ["GL101", "GL103"]
    (fix_all,) = session.code_actions(path, [], only=[on_save])
    assert apply_lsp_edits(LEGACY, edits_of(fix_all, path.as_uri())) == FIXED
    assert session.close() == 0


def test_an_internal_error_is_logged_and_not_fatal(workspace, tmp_path):
    # The real server with its linting broken in every process it starts (the worker process
    # too): the failure is logged, and the session goes on.
    write(
        tmp_path / "sitecustomize.py",
        "import gradlint.runner\ndef boom(*args, **kwargs):\n    raise RuntimeError('boom')\ngradlint.runner.check_stdin = boom\n",
    )
    session = LspSession(workspace, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    session.initialize(workspace)
    assert session.open(workspace / "doomed.py", LEGACY) == []
    assert any("internal error" in m and "RuntimeError: boom" in m for m in session.log_messages()), session.log_messages()
    assert session.code_actions(workspace / "doomed.py", []) == []
    assert session.close() == 0


def test_a_burst_of_changes_is_checked_once_and_only_its_last_version_published(server, workspace):
    path = workspace / "burst.py"
    uri = path.as_uri()
    big = LEGACY * 100  # long enough to be still in its check when the changes come
    server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": big}})
    for version in range(2, 12):
        text = big + "print(loss.data[0])\n" * (version == 11)
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
    assert codes(server.diagnostics(uri, 11)).count("GL103") == 101
    published = [m for m in server.backlog if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]
    assert published == []  # neither the opened version nor any intermediate one
    assert server.traces(f"the check of {uri} version 1: the document has changed")  # stopped or dropped, not published
    checked = server.traces(f"checked {uri}")
    assert checked == [f"checked {uri} version 11"]


def wait_for_trace(session: LspSession, message: str) -> None:
    session.receive(lambda m: m.get("method") == "$/logTrace" and m["params"]["message"] == message)


def test_code_actions_use_the_last_check_and_fix_all_is_computed_once_per_version(server, workspace):
    path = workspace / "lazy.py"
    uri = path.as_uri()
    diagnostics = server.open(path, LEGACY)
    # Right after the check, before anything asks for it: the fix-all of the checked version.
    wait_for_trace(server, f"computed fix-all for {uri} version 1")
    assert server.traces(uri) == [f"checked {uri} version 1"]
    for only in (None, ["quickfix"]):
        actions = server.code_actions(path, diagnostics, only=only)
        assert "source.fixAll.gradlint" not in [a["kind"] for a in actions]
    assert server.traces(uri) == []  # no check and no fix-all behind a plain request
    for _ in range(2):
        (fix_all,) = server.code_actions(path, diagnostics, only=["source.fixAll"])
        assert apply_lsp_edits(LEGACY, edits_of(fix_all, uri)) == FIXED
    assert server.traces(uri) == [f"answered fix-all for {uri} version 1"] * 2  # from the one computed
    # Until the change is checked, the findings of the old text are not offered as edits.
    server.notify(
        "textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": 2}, "contentChanges": [{"text": "\n" + LEGACY}]}
    )
    assert server.code_actions(path, diagnostics, only=["quickfix"]) == []
    moved = server.diagnostics(path.as_uri(), 2)
    (action,) = fixes(server.code_actions(path, [moved[0]], only=["quickfix"]))
    assert apply_lsp_edits("\n" + LEGACY, edits_of(action, path.as_uri())) == "\n" + LEGACY.replace("Variable(t)", "t.detach()")


def test_a_client_that_resolves_gets_fix_all_unresolved_and_resolves_it(workspace):
    session = LspSession(workspace)
    try:
        session.initialize(workspace, {"textDocument": {"codeAction": {"resolveSupport": {"properties": ["edit"]}}}}, trace="verbose")
        path = workspace / "resolve.py"
        diagnostics = session.open(path, LEGACY)
        (fix_all,) = [a for a in session.code_actions(path, diagnostics) if a["kind"] == "source.fixAll.gradlint"]
        assert "edit" not in fix_all
        for _ in range(2):
            resolved = session.request("codeAction/resolve", fix_all)
            assert apply_lsp_edits(LEGACY, edits_of(resolved, path.as_uri())) == FIXED
        assert len(session.traces("computed fix-all")) == 1  # once for the version, not once per request
        assert len(session.traces("answered fix-all")) == 2
        assert session.close() == 0
    finally:
        session.stop()


def test_hover_on_a_finding_shows_its_rule_documentation(server, workspace, run_cli):
    path = workspace / "hover.py"
    diagnostics = server.open(path, TRAINING)
    assert codes(diagnostics) == ["GL201", "GL103"]
    position = {"line": 0, "character": 5}  # inside `for x in data:`
    hover = server.request("textDocument/hover", {"textDocument": {"uri": path.as_uri()}, "position": position})
    assert hover["contents"] == {"kind": "markdown", "value": run_cli("rule", "GL201").output}
    assert hover["range"] == diagnostics[0]["range"]
    outside = {"line": 1, "character": 2}  # the loop body is not GL201's range, and GL103 is on line 5
    assert server.request("textDocument/hover", {"textDocument": {"uri": path.as_uri()}, "position": outside}) is None


def test_disable_for_this_line_adds_or_merges_a_noqa_comment(server, workspace):
    path = workspace / "disable.py"
    text = (
        "from torch.autograd import Variable\nx = Variable(t); y = loss.data[0]  # noqa: GL101\nprint(loss.data[0])  # the loss\n"
        + TRAINING
    )
    diagnostics = server.open(path, text)
    assert codes(diagnostics) == ["GL103", "GL103", "GL201", "GL103"]

    def disable(diagnostic: dict) -> dict:
        actions = server.code_actions(path, [diagnostic], only=["quickfix"], range=diagnostic["range"])
        (action,) = [a for a in actions if a["title"] == f"Disable {diagnostic['code']} for this line"]
        assert action["kind"] == "quickfix" and action["diagnostics"] == [diagnostic]
        return action

    edits = [edit for diagnostic in diagnostics[:3] for edit in edits_of(disable(diagnostic), path.as_uri())]
    disabled = apply_lsp_edits(text, edits)
    assert disabled.splitlines()[1:4] == [
        "x = Variable(t); y = loss.data[0]  # noqa: GL101, GL103",
        "print(loss.data[0])  # the loss  # noqa: GL103",
        "for x in data:  # noqa: GL201",
    ]
    assert codes(server.change(path, disabled, 2)) == ["GL103"]  # the one left alone


@pytest.mark.parametrize(
    ("line", "disabled"),
    [
        ("x = loss.data[0]", "x = loss.data[0]  # noqa: GL103"),
        ("x = loss.data[0]   ", "x = loss.data[0]  # noqa: GL103"),
        ("x = loss.data[0]  # noqa:GL101 -- kept", "x = loss.data[0]  # noqa: GL101, GL103 -- kept"),
        ("x = loss.data[0]  # type: ignore", "x = loss.data[0]  # type: ignore  # noqa: GL103"),
        ("x = loss.data[0]  # noqa", None),  # already suppressed
        ("x = loss.data[0]  # noqa: GL1", None),
        ("x = (loss.data[0] + \\", None),  # a comment cannot follow a continuation
    ],
)
def test_with_noqa_code(line, disabled):
    edit = with_noqa_code(line, "GL103")
    if disabled is None:
        assert edit is None
    else:
        start, end, replacement = edit
        assert line[:start] + replacement + line[end:] == disabled


def test_each_file_of_a_monorepo_follows_its_nearest_configuration_as_the_cli_does(server, workspace, run_cli, monkeypatch):
    root = workspace / "monorepo"
    write(root / "pyproject.toml", '[tool.gradlint]\nignore = ["GL103"]\n')
    write(root / "ml" / "pyproject.toml", '[tool.gradlint]\n\n[tool.gradlint.per-file-ignores]\n"legacy/*" = ["GL101"]\n')
    files = {"train.py": LEGACY, "ml/train.py": LEGACY, "ml/legacy/old.py": LEGACY}
    published = {name: codes(server.open(write(root / name, text), text)) for name, text in files.items()}
    assert published == {"train.py": ["GL101"], "ml/train.py": ["GL101", "GL103"], "ml/legacy/old.py": ["GL103"]}
    for cwd in (root, root / "ml"):
        monkeypatch.chdir(cwd)
        reported = {name: [] for name in files}
        for finding in json.loads(run_cli("check", "--no-cache", "--output-format", "json", str(root)).output):
            reported[Path(finding["filename"]).resolve().relative_to(root.resolve()).as_posix()].append(finding["code"])
        assert reported == published, cwd


def test_malformed_input_gets_the_answers_the_specifications_require(workspace):
    session = LspSession(workspace)
    try:
        hover = {"textDocument": {"uri": (workspace / "x.py").as_uri()}, "position": {"line": 0, "character": 0}}
        assert session.answer("textDocument/hover", hover)["error"]["code"] == -32002  # before initialize
        session.send_body(b'{"jsonrpc": "2.0", "id": 99, "method": ')
        assert session.response(None)["error"]["code"] == -32700  # parse error, id null
        session.initialize(workspace)
        invalid = session.answer("textDocument/codeAction", {"textDocument": 5})
        assert invalid["error"]["code"] == -32602 and invalid["id"] == session.next_id
        assert session.answer("initialize", {"processId": None, "rootUri": None, "capabilities": {}})["error"]["code"] == -32600
        # A message without Content-Length: skipped (said on stderr), and the next one is answered.
        session.send_raw(b'Content-Type: application/json\r\n\r\n{"jsonrpc": "2.0", "id": 100, "method": "shutdown"}')
        assert session.request("shutdown", None) is None
        assert "Content-Length" in session.errors()
        assert session.answer("textDocument/hover", hover)["error"]["code"] == -32600  # after shutdown
        session.send_raw(b"Content-Length: 100\r\n\r\n{")  # the stream ends in the middle of a message
        session.process.stdin.close()
        assert session.process.wait(timeout=TIMEOUT) == 0
        (last,) = session.errors().splitlines()[-1:]
        assert last == "gradlint server: the input ended in the middle of a message"
        assert "Traceback" not in session.errors()
    finally:
        session.stop()


def test_deeply_nested_json_is_a_parse_error_and_the_server_stays_alive(workspace):
    session = LspSession(workspace)
    try:
        session.initialize(workspace)
        session.send_body(b"[" * 100_000 + b"]" * 100_000)
        assert session.response(None)["error"]["code"] == -32700
        nested = b'{"jsonrpc": "2.0", "id": 41, "method": "textDocument/hover", "params": %s}' % (b'{"a": ' * 5_000 + b"1" + b"}" * 5_000)
        session.send_body(nested)
        assert session.response(None)["error"]["code"] == -32700  # the id is inside what could not be read
        hover = {"textDocument": {"uri": (workspace / "x.py").as_uri()}, "position": {"line": 0, "character": 0}}
        assert session.request("textDocument/hover", hover) is None
        assert "Traceback" not in session.errors()
        assert session.close() == 0
    finally:
        session.stop()


def test_an_unknown_method_and_a_cancelled_request_get_their_errors(workspace):
    session = LspSession(workspace)
    try:
        session.initialize(workspace)
        assert session.answer("textDocument/completion", {"textDocument": {"uri": "file:///x.py"}})["error"]["code"] == -32601
        session.notify("$/unknownNotification", {})  # ignored, as every unknown notification
        path = workspace / "cancelled.py"
        big = LEGACY * 100  # its fix-all takes far longer than the cancellation takes to arrive
        assert codes(session.open(path, big)).count("GL101") == 100
        params = {
            "textDocument": {"uri": path.as_uri()},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
        }
        session.next_id += 1
        session.send(
            {
                "id": session.next_id,
                "method": "textDocument/codeAction",
                "params": {**params, "context": {"diagnostics": [], "only": ["source.fixAll"]}},
            }
        )
        session.notify("$/cancelRequest", {"id": session.next_id})
        assert session.response(session.next_id)["error"]["code"] == -32800
        # The computation goes on for the next request of the same version.
        (fix_all,) = session.code_actions(path, [], only=["source.fixAll"])
        assert "Variable" not in apply_lsp_edits(big, edits_of(fix_all, path.as_uri()))
        assert session.close() == 0
    finally:
        session.stop()


def test_incremental_changes_are_applied_in_lsp_coordinates(server, workspace):
    # The server asks for whole texts, but a change with a range is applied where it says: UTF-16
    # columns, and lines split at \n, \r\n and \r only (not at the form feed in the comment).
    path = workspace / "incremental.py"
    text = 'x = 1  # \x0c page\r\nprint("\U0001f600", loss.data[0])\n'
    assert codes(server.open(path, text)) == ["GL103"]
    change = {"range": {"start": {"line": 1, "character": 16}, "end": {"line": 1, "character": 24}}, "text": ".item()"}
    server.notify("textDocument/didChange", {"textDocument": {"uri": path.as_uri(), "version": 2}, "contentChanges": [change]})
    assert server.diagnostics(path.as_uri(), 2) == []
    assert server.code_actions(path, [], only=["source.fixAll"]) == []  # nothing left to fix in the edited text


def test_initialize_is_answered_while_the_workers_fork_server_is_still_starting(workspace, tmp_path):
    # A fork server that takes far longer to start than the answer may take: the answer does not wait for it.
    write(
        tmp_path / "sitecustomize.py",
        "import sys, time\nif any('multiprocessing.forkserver' in argument for argument in sys.orig_argv):\n    time.sleep(3 * 15)\n",
    )
    session = LspSession(workspace, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    try:
        started = time.monotonic()
        session.initialize(workspace)  # fails after TIMEOUT (15 s) if it waits for the fork server
        assert time.monotonic() - started < TIMEOUT
        assert "positionEncoding" in session.capabilities
    finally:
        session.stop()


def test_a_check_does_not_wait_for_a_fix_all(server, workspace):
    """Fix-all has a worker of its own: the check of another document is answered meanwhile."""
    small, big = workspace / "checked_small.py", workspace / "fixed_big.py"
    server.notify(
        "textDocument/didOpen", {"textDocument": {"uri": big.as_uri(), "languageId": "python", "version": 1, "text": LEGACY * 100}}
    )
    server.diagnostics(big.as_uri(), 1)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": small.as_uri(), "languageId": "python", "version": 1, "text": LEGACY}})
    assert codes(server.diagnostics(small.as_uri(), 1)) == ["GL101", "GL103"]
    assert server.traces(f"computed fix-all for {big.as_uri()}") == []


def test_a_fix_all_waiting_for_the_worker_is_dropped_when_its_text_changes(server, workspace):
    small, big = workspace / "queued_small.py", workspace / "queued_big.py"
    text = LEGACY * 100  # its fix-all keeps the fix-all worker busy while the small file's waits
    server.notify("textDocument/didOpen", {"textDocument": {"uri": big.as_uri(), "languageId": "python", "version": 1, "text": text}})
    server.diagnostics(big.as_uri(), 1)
    server.notify("textDocument/didOpen", {"textDocument": {"uri": small.as_uri(), "languageId": "python", "version": 1, "text": LEGACY}})
    assert codes(server.diagnostics(small.as_uri(), 1)) == ["GL101", "GL103"]
    assert codes(server.change(small, FIXED, 2)) == []
    wait_for_trace(server, f"cancelled the fix-all of {small.as_uri()} version 1: the document has changed")
    assert server.traces(f"fix-all for {small.as_uri()}") == []  # not computed for a text no longer there
