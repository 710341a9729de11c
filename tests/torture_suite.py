"""The torture suite's machinery: mutations of real legacy training files, the properties every
program must keep through `check`, `fix` and the language server, and the regression directory.

Shared by tests/test_torture.py (a fixed, derandomized budget in CI) and bench/torture.py (the long
run for releases). Nothing here asserts: each property returns what it found wrong, so the long
run can count failures, keep them and go on.

Mutations (`mutate`): delete, duplicate or swap lines; delete, duplicate or swap tokens; one to
three of them per program. The sources are the legacy scripts in tests/data/legacy_scripts, the
legacy examples and every fixture's `bad.py`: real training code, so most mutants still hold the
idioms the rules look for, in broken or unusual surroundings.

Properties (`problems`): with every rule selected, `check` neither raises nor reports an internal
error; `fix` (safe, `--unsafe-fixes`, and the `--migrate-variable` preset) neither raises nor
reports an error, never turns a file CPython compiles into one it does not, and a second fix
changes nothing. Through the language server (`ServerTorture`): every request gets its answer,
none an error, the diagnostics of each version arrive, and the fix-all edit keeps a compiling file
compiling.
"""

from __future__ import annotations

import hashlib
import io
import random
import re
import tokenize
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from gradlint.pipeline import check_source, fix_source
from gradlint.rules import all_codes, presets

ROOT = Path(__file__).resolve().parent.parent
REGRESSIONS = ROOT / "tests" / "data" / "torture"
ALL = frozenset(all_codes())
FIX_MODES = {
    # name: (codes, unsafe)
    "safe": (ALL, False),
    "unsafe": (ALL, True),
    "migrate-variable": (frozenset(presets()["migrate-variable"]), False),
}
NAME = "torture.py"


def legacy_sources() -> list[Path]:
    """Real legacy training files: the scripts of old repositories, the examples, the fixtures' `bad.py`."""
    found = sorted((ROOT / "tests" / "data" / "legacy_scripts").rglob("*.py"))
    found += sorted((ROOT / "examples").rglob("*.py"))
    found += sorted((ROOT / "fixtures").glob("*/bad.py"))
    return found


def read_source(path: Path) -> str:
    """The text of a source file in its declared encoding (a few fixtures are not UTF-8)."""
    raw = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return raw.decode("latin-1")


def compiles(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning: invalid escapes, `is` with a literal...
        try:
            compile(text, NAME, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


# --------------------------------------------------------------------------------------------
# Mutations

LINE_MUTATIONS = ("delete line", "duplicate line", "swap lines")
TOKEN_MUTATIONS = ("delete token", "duplicate token", "swap tokens")
MUTATIONS = LINE_MUTATIONS + TOKEN_MUTATIONS
_ROUGH_TOKEN = re.compile(r"\w+|'[^'\n]*'|\"[^\"\n]*\"|[^\s\w]")


def token_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the tokens of `text` (CPython's tokenizer; a rough one where it fails)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.ENDMARKER, tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
                continue
            (start_row, start_column), (end_row, end_column) = token.start, token.end
            spans.append((starts[start_row - 1] + start_column, starts[end_row - 1] + end_column))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        spans = [match.span() for match in _ROUGH_TOKEN.finditer(text)]
    return spans


def _mutate_lines(text: str, kind: str, rng: random.Random) -> str:
    lines = text.splitlines(keepends=True)
    if len(lines) < 2:
        return text
    index = rng.randrange(len(lines))
    if kind == "delete line":
        del lines[index]
    elif kind == "duplicate line":
        lines.insert(index, lines[index] if lines[index].endswith(("\n", "\r")) else lines[index] + "\n")
    else:
        other = _partner(index, len(lines), rng)
        lines[index], lines[other] = lines[other], lines[index]
        if not lines[-1].endswith(("\n", "\r")) and any(not line.endswith(("\n", "\r")) for line in lines[:-1]):
            lines = [line if line.endswith(("\n", "\r")) else line + "\n" for line in lines]
    return "".join(lines)


def _mutate_tokens(text: str, kind: str, rng: random.Random) -> str:
    spans = token_spans(text)
    if len(spans) < 2:
        return text
    index = rng.randrange(len(spans))
    start, end = spans[index]
    if kind == "delete token":
        return text[:start] + text[end:]
    if kind == "duplicate token":
        return text[:end] + text[start:end] + text[end:]
    other_start, other_end = spans[_partner(index, len(spans), rng)]
    (a, b), (c, d) = sorted(((start, end), (other_start, other_end)))
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]


def _partner(index: int, count: int, rng: random.Random) -> int:
    """Another index: the neighbour half the time (the usual slip), anywhere otherwise."""
    if rng.random() < 0.5:
        return index + 1 if index + 1 < count else index - 1
    other = rng.randrange(count - 1)
    return other if other < index else other + 1


def mutate(text: str, rng: random.Random, count: Optional[int] = None) -> tuple[str, list[str]]:
    """`text` after `count` (default: one to three) random mutations, and their names."""
    done = []
    for _ in range(count if count is not None else rng.randint(1, 3)):
        kind = rng.choice(MUTATIONS)
        text = _mutate_lines(text, kind, rng) if kind in LINE_MUTATIONS else _mutate_tokens(text, kind, rng)
        done.append(kind)
    return text, done


# --------------------------------------------------------------------------------------------
# Properties through check and fix (in process, through the functions every front end calls)


def problems(source: str, modes: dict = FIX_MODES) -> list[str]:
    """What `check` and `fix` get wrong on `source` (empty when nothing)."""
    found = []
    try:
        checked = check_source(source, NAME, ALL)
    except Exception as error:  # noqa: BLE001 - the property is that nothing escapes
        return [f"check raised {type(error).__name__}: {error}"]
    if checked.error is not None:
        found.append(f"check: {checked.error}")
    was_valid = compiles(source)
    for mode, (codes, unsafe) in modes.items():
        found += [f"fix ({mode}): {problem}" for problem in _fix_problems(source, codes, unsafe, was_valid)]
    return found


def _fix_problems(source: str, codes: frozenset[str], unsafe: bool, was_valid: bool) -> list[str]:
    try:
        first = fix_source(source, NAME, codes, unsafe=unsafe)
    except Exception as error:  # noqa: BLE001
        return [f"raised {type(error).__name__}: {error}"]
    if first.error is not None:
        return [first.error]
    fixed = first.fixed if first.fixed is not None else source
    if was_valid and not compiles(fixed):
        return ["the fixed file does not compile"]
    if fixed == source:
        return []
    try:
        second = fix_source(fixed, NAME, codes, unsafe=unsafe)
    except Exception as error:  # noqa: BLE001
        return [f"second fix raised {type(error).__name__}: {error}"]
    if second.error is not None:
        return [f"second fix: {second.error}"]
    if second.fixed is not None and second.fixed != fixed:
        return ["a second fix changed the text"]
    return []


# --------------------------------------------------------------------------------------------
# Properties through the language server


@dataclass
class ServerTorture:
    """Feeds programs to one long-lived server session (an `LspSession` of tests/test_server.py):
    each program replaces the text of one of a few open documents; then fix-all is asked for."""

    session: object
    folder: Path
    documents: int = 3
    tried: int = 0

    def __post_init__(self) -> None:
        self.versions: dict[str, int] = {}

    def problems(self, source: str) -> list[str]:
        slot = self.tried % self.documents
        self.tried += 1
        uri = (self.folder / f"torture_{slot}.py").as_uri()
        try:
            return self._problems(uri, source)
        except AssertionError as error:  # the session's own: no answer in time, the server gone
            return [f"server: {str(error).splitlines()[0]}"]

    def _problems(self, uri: str, source: str) -> list[str]:
        session = self.session
        version = self.versions.get(uri, 0) + 1
        self.versions[uri] = version
        document = {"uri": uri, "version": version}
        if version == 1:
            session.notify("textDocument/didOpen", {"textDocument": {**document, "languageId": "python", "text": source}})
        else:
            session.notify("textDocument/didChange", {"textDocument": document, "contentChanges": [{"text": source}]})
        diagnostics = session.notification(
            "textDocument/publishDiagnostics", lambda params: params["uri"] == uri and params.get("version") == version
        )["diagnostics"]
        found = [
            f"server: a diagnostic from the server itself: {d['message']}"
            for d in diagnostics
            if not str(d.get("code", "")).startswith("GL")
        ]
        everywhere = {"start": {"line": 0, "character": 0}, "end": {"line": source.count("\n") + 1, "character": 0}}
        context = {"diagnostics": diagnostics, "only": ["source.fixAll"]}
        answer = session.answer("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": everywhere, "context": context})
        if "error" in answer:
            return found + [f"server: codeAction answered an error: {answer['error'].get('message')}"]
        for action in answer.get("result") or []:
            if "edit" not in action:
                resolved = session.answer("codeAction/resolve", action)
                if "error" in resolved:
                    return found + [f"server: codeAction/resolve answered an error: {resolved['error'].get('message')}"]
                action = resolved["result"]
            fixed = apply_edits(source, action["edit"]["changes"].get(uri, []))
            if compiles(source) and not compiles(fixed):
                found.append("server: the fix-all edit gives a file that does not compile")
        return found

    def stderr_problems(self, errors: str) -> list[str]:
        return ["server: a traceback on stderr"] if "Traceback" in errors else []


def apply_edits(text: str, edits: list[dict]) -> str:
    """TextEdits applied as a client does: 0-based lines, UTF-16 code units."""
    starts = [0] + [match.end() for match in re.finditer(r"\r\n|\r|\n", text)]

    def offset(position: dict) -> int:
        line_start = starts[min(position["line"], len(starts) - 1)]
        line_end = starts[position["line"] + 1] if position["line"] + 1 < len(starts) else len(text)
        units = text[line_start:line_end].encode("utf-16-le")[: 2 * position["character"]]
        return line_start + len(units.decode("utf-16-le"))

    spans = sorted(((offset(edit["range"]["start"]), offset(edit["range"]["end"]), edit["newText"]) for edit in edits), reverse=True)
    for start, end, new_text in spans:
        text = text[:start] + new_text + text[end:]
    return text


# --------------------------------------------------------------------------------------------
# The regression directory


def regression_files() -> list[Path]:
    return sorted(REGRESSIONS.glob("*.py")) if REGRESSIONS.is_dir() else []


def keep_failure(source: str, origin: str, found: list[str]) -> Path:
    """Write a failing input into the regression directory (named by its content: kept once),
    with what failed and where it came from in a `.txt` beside it."""
    REGRESSIONS.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    path = REGRESSIONS / f"{digest}.py"
    path.write_bytes(source.encode("utf-8", "surrogatepass"))
    path.with_suffix(".txt").write_text(f"origin: {origin}\n" + "".join(f"failed: {line}\n" for line in found), encoding="utf-8")
    return path


_BROKEN = ("does not compile", "a second fix changed the text")  # the endings of what breaks a file


@dataclass
class Tally:
    """The long run's figures, per source of programs."""

    tried: int = 0
    crashes: int = 0  # an exception, an internal error, a server error or silence
    broken: int = 0  # a fix that turned a compiling file into one that does not compile, or was not idempotent

    def count(self, found: list[str]) -> None:
        self.tried += 1
        if any(problem.endswith(_BROKEN) for problem in found):
            self.broken += 1
        elif found:
            self.crashes += 1
