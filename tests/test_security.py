"""gradlint never imports or executes the code it checks, and never touches the network.

A tree of hostile files (every one of them, if imported or executed, writes a marker file, runs a
shell command that writes another, and connects to a socket this test listens on) is checked and
fixed by the installed `gradlint` command, run as a user runs it, in a subprocess:

* the hostile files are top-level scripts, a `conftest.py`, a package `__init__.py` and
  `__main__.py`, a `setup.py`, and modules named like gradlint's own dependencies (`click.py`,
  `libcst.py`, `pathspec.py`, `torch.py`...) sitting in the working directory, where a careless
  `sys.path` would import them instead;
* there are enough of them for the process pool to start (the workers must be clean too);
* a `sitecustomize.py` on PYTHONPATH installs an audit hook (PEP 578) in gradlint's process, which
  the forked workers inherit. It records every socket operation other than local AF_UNIX pairs,
  every DNS lookup, HTTP/URL request, `os.system`, subprocess or `exec*`, and every compile or
  execution of code whose file lies in the checked tree. It also makes `socket.socket` raise.

Afterwards: no marker exists, the listening socket never saw a connection, the audit log holds
only the line saying the hook was installed, and `gradlint` still did its job (findings reported,
files fixed).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HOSTILE = """\
import os, socket
from pathlib import Path
from torch.autograd import Variable

Path({marker!r}).write_text("imported")
os.system("touch " + {shell_marker!r})
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1).close()
except OSError:
    pass


def train(model, optimizer, loader):
    total = 0
    for x, y in loader:
        out = model(Variable(x))
        loss = (out - Variable(y)).pow(2).mean()
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    return total
"""

# Names a checked tree could use to shadow what gradlint imports (and the interpreter's hooks).
SHADOWS = (
    "click",
    "libcst",
    "pathspec",
    "tomli",
    "tomllib",
    "torch",
    "numpy",
    "gradlint",
    "sitecustomize",
    "usercustomize",
    "encodings",
    "typing_extensions",
    "yaml",
)

GUARD = '''\
"""Installed through PYTHONPATH: records what the process (and its forked workers) must never do."""
import os
import socket
import sys

_LOG = os.environ["GRADLINT_AUDIT_LOG"]
_TREE = os.path.realpath(os.environ["GRADLINT_AUDIT_TREE"])
_busy = [False]


def _record(line):
    _busy[0] = True
    try:
        descriptor = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(descriptor, (line.replace("\\n", " ") + "\\n").encode("utf-8", "replace"))
        os.close(descriptor)
    finally:
        _busy[0] = False


def _in_tree(filename):
    if not isinstance(filename, (str, bytes)):
        return False
    filename = os.fsdecode(filename)
    if filename.startswith("<") and filename.endswith(">"):
        return False  # "<string>", "<unknown>", "<gradlint>": source held in memory, not a file
    return os.path.realpath(filename).startswith(_TREE)


def _hook(event, args):
    if _busy[0]:
        return
    if event == "socket.__new__":
        if len(args) > 1 and args[1] == socket.AF_UNIX:
            return  # local pipes between processes
        _record(f"{os.getpid()} {event} {args[1:]!r}")
    elif event.startswith(("socket.", "urllib.", "http.", "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.", "telnetlib.", "webbrowser.")):
        _record(f"{os.getpid()} {event} {args!r}")
    elif event in ("os.system", "subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.startfile", "pty.spawn", "ctypes.dlopen"):
        _record(f"{os.getpid()} {event} {args!r}")
    elif event == "compile" and len(args) > 1 and _in_tree(args[1]):
        _record(f"{os.getpid()} compile {args[1]!r}")
    elif event == "exec" and args and _in_tree(getattr(args[0], "co_filename", None)):
        _record(f"{os.getpid()} exec {args[0].co_filename!r}")
    elif event == "import" and len(args) > 1 and _in_tree(args[1]):
        _record(f"{os.getpid()} import {args[0]!r} from {args[1]!r}")
    elif event == "open" and args and _in_tree(args[0]) and str(args[0]).endswith((".pyc",)):
        _record(f"{os.getpid()} open {args[0]!r}")


class _NoNetwork(socket.socket):
    def __init__(self, family=-1, type=-1, proto=-1, fileno=None):
        if fileno is None and family not in (-1, socket.AF_UNIX):
            _record(f"{os.getpid()} refused socket.socket{(family, type, proto)!r}")
            raise OSError("network access is blocked in this test")
        super().__init__(family, type, proto, fileno)


socket.socket = _NoNetwork
sys.addaudithook(_hook)
_record("guard installed")
'''


def _gradlint_command() -> list[str]:
    """The console script a user runs (its sys.path starts at the venv's bin/, not the cwd)."""
    script = Path(sys.executable).with_name("gradlint")
    if script.exists():
        return [str(script)]
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", "gradlint"]  # -P: do not put the cwd on sys.path
    pytest.skip("no gradlint console script next to the interpreter")


@pytest.fixture
def listener():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    yield server
    server.close()


def _hostile_tree(root: Path, markers: Path, port: int) -> list[Path]:
    def hostile(path: Path, name: str) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HOSTILE.format(marker=str(markers / name), shell_marker=str(markers / f"{name}.shell"), port=port))
        return path

    files = [hostile(root / f"train_{index:02}.py", f"train_{index:02}") for index in range(20)]
    files.append(hostile(root / "conftest.py", "conftest"))
    files.append(hostile(root / "setup.py", "setup"))
    files.append(hostile(root / "pkg" / "__init__.py", "pkg_init"))
    files.append(hostile(root / "pkg" / "__main__.py", "pkg_main"))
    files.append(hostile(root / "pkg" / "tests" / "conftest.py", "pkg_conftest"))
    files += [hostile(root / f"{name}.py", f"shadow_{name}") for name in SHADOWS]
    (root / "pkg" / "cli.pyw").write_text(HOSTILE.format(marker=str(markers / "pyw"), shell_marker=str(markers / "pyw.shell"), port=port))
    return files


def _run(command: list[str], cwd: Path, env: dict, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, timeout=300)


def test_checking_and_fixing_hostile_code_executes_none_of_it_and_opens_no_connection(tmp_path, listener):
    tree, markers, guard = tmp_path / "project", tmp_path / "markers", tmp_path / "guard"
    markers.mkdir()
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "audit.log"
    port = listener.getsockname()[1]
    files = _hostile_tree(tree, markers, port)
    assert len(files) >= 16  # enough work for the process pool
    env = {
        **{key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "GRADLINT"))},
        "PYTHONPATH": str(guard),
        "GRADLINT_AUDIT_LOG": str(log),
        "GRADLINT_AUDIT_TREE": str(tree),
        "NO_COLOR": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        # Proxies that would be used if anything reached for the network.
        "http_proxy": f"http://127.0.0.1:{port}",
        "https_proxy": f"http://127.0.0.1:{port}",
    }
    gradlint = _gradlint_command()
    original = {path: path.read_bytes() for path in files}

    runs = [
        ["check", "--no-cache", "--jobs", "2", "."],
        ["check", "--jobs", "2", "--output-format", "json", "."],  # with the result cache
        ["check", "--jobs", "2", "."],  # from the result cache
        ["fix", "--diff", "--unsafe-fixes", "--jobs", "2", "."],
        ["fix", "--unsafe-fixes", "--jobs", "2", "."],
        ["fix", "--migrate", "--jobs", "1", "."],
    ]
    outputs = []
    for arguments in runs:
        result = _run(gradlint + arguments, tree, env)
        outputs.append(result)
        assert result.returncode in (0, 1), (arguments, result.stdout.decode(), result.stderr.decode())
    stdin_run = _run(gradlint + ["check", "-", "--stdin-filename", "conftest.py"], tree, env, stdin=HOSTILE.encode())
    assert stdin_run.returncode == 1, stdin_run.stderr.decode()
    stdin_fix = _run(gradlint + ["fix", "-", "--unsafe-fixes"], tree, env, stdin=original[files[0]])
    assert stdin_fix.returncode in (0, 1), stdin_fix.stderr.decode()

    # gradlint did its work: it found and fixed the legacy code...
    assert b"GL101" in outputs[0].stdout and b"GL103" in outputs[0].stdout
    assert b"+++ b/" in outputs[3].stdout
    assert all(path.read_bytes() != original[path] for path in files)
    assert b"loss.item()" in stdin_fix.stdout
    # ...and nothing of the checked code ran, in gradlint's process or its workers.
    assert sorted(path.name for path in markers.iterdir()) == []
    with pytest.raises(BlockingIOError):
        listener.accept()  # nobody connected to the port the hostile code dials
    lines = log.read_text().splitlines()
    assert lines and all(line == "guard installed" for line in lines), "\n".join(lines)
    assert len(lines) == len(runs) + 2  # the guard was active in every run
    assert not list(tree.rglob("__pycache__")) and not list(tree.rglob("*.pyc"))


def test_the_hostile_files_do_run_when_imported(tmp_path, listener):
    """The control experiment: the markers and the connection do happen when the code is executed."""
    markers = tmp_path / "markers"
    markers.mkdir()
    port = listener.getsockname()[1]
    script = tmp_path / "probe.py"
    script.write_text(
        HOSTILE.format(marker=str(markers / "probe"), shell_marker=str(markers / "probe.shell"), port=port).replace(
            "from torch.autograd import Variable", "Variable = None"
        )
    )
    subprocess.run([sys.executable, str(script)], check=True, timeout=60, capture_output=True)
    assert sorted(path.name for path in markers.iterdir()) == ["probe", "probe.shell"]
    listener.setblocking(True)
    listener.settimeout(5)
    connection, _ = listener.accept()
    connection.close()


def test_the_guard_refuses_and_records_a_connection(tmp_path, listener):
    """The guard itself works: a process that dials out under it is refused and logged."""
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(GUARD)
    log = tmp_path / "audit.log"
    env = {**os.environ, "PYTHONPATH": str(guard), "GRADLINT_AUDIT_LOG": str(log), "GRADLINT_AUDIT_TREE": str(tmp_path / "none")}
    code = textwrap.dedent(f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {listener.getsockname()[1]}), timeout=1)
        except OSError as error:
            print("refused:", error)
        import os
        os.system("true")
    """)
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert "refused" in result.stdout, result.stderr
    text = log.read_text()
    assert "guard installed" in text and "socket" in text and "os.system" in text
    with pytest.raises(BlockingIOError):
        listener.accept()
