"""`gradlint server`: a Language Server on stdin/stdout that publishes findings and offers fixes.

Each open Python document is checked as `gradlint check` checks its file (the settings of the
nearest configuration, per-file-ignores, `# noqa`), but on the editor's unsaved text.

A check runs in a worker process once changes pause (a burst of keystrokes costs one analysis), and
only the newest version of a document is published; code actions and hovers are answered from the
last check, so they never wait for an analysis (see server_worker for why the worker is a process).
"""

from __future__ import annotations

import asyncio
import io
import logging
import sys
import threading
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Callable, Iterator, Optional
from urllib.parse import unquote

from lsprotocol import types
from pygls.io_ import StdinAsyncReader, StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec

from gradlint import RULE_DOCS_URL, __version__
from gradlint.config import Settings
from gradlint.docs import render_rule
from gradlint.fix.kinds import Applicability
from gradlint.noqa import with_noqa_code
from gradlint.rules import file_rule_codes, rule_info, severity_of
from gradlint.server_io import StrictProtocol, serve_stream
from gradlint.server_notebooks import NOTEBOOK_SYNC, NotebookAnalysis, analyse_notebook, notebook_json
from gradlint.server_settings import ClientSettings, client_settings, settings_for
from gradlint.server_worker import DIED, ERROR, KILLED, OK, Outcome, Worker
from gradlint.source import LineIndex, UndecodableSource, decode_source

# The analysis (LibCST, the rules, the runner) is imported where a check runs, in the worker
# process (whose fork server preloads it, see server_worker): the server answers `initialize`
# without it.
if TYPE_CHECKING:
    from gradlint.model import Finding, Location
    from gradlint.runner import RunSummary

SAFE = Applicability.SAFE

QUICK_FIX = types.CodeActionKind.QuickFix.value
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.gradlint"
SOURCE = "gradlint"
SEVERITIES = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}
# How long changes must pause before a check starts: typing is faster than an analysis.
DEBOUNCE_SECONDS = 0.05


@dataclass(frozen=True)
class CheckedDocument:
    """An open document as last checked: its text and what was found in it."""

    uri: str
    text: str
    name: str  # the file system path, or the URI of an unsaved document
    settings: Settings
    findings: tuple[Finding, ...]
    diagnostics: tuple[types.Diagnostic, ...]  # one per finding, in the same order
    positions: "Positions"

    def at(self, lsp_range: types.Range) -> Iterator[tuple[Finding, types.Diagnostic]]:
        """The findings whose diagnostic touches `lsp_range`."""
        return ((f, d) for f, d in zip(self.findings, self.diagnostics) if _overlaps(d.range, lsp_range))


class Positions:
    """gradlint offsets and locations (1-based rows and code-point columns) as LSP positions
    (0-based lines, columns in the code units of the negotiated encoding, UTF-16 by default)."""

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.text = text
        self.index = LineIndex.of(text)
        self.codec = codec

    def at_offset(self, offset: int) -> types.Position:
        offset = min(max(offset, 0), len(self.text))
        row, _ = self.index.position(offset)
        start = self.index.line_start(row)
        return types.Position(line=row - 1, character=self.codec.client_num_units(self.text[start:offset]))

    def at_location(self, location: Location) -> types.Position:
        row = min(max(location.row, 1), len(self.index.starts))
        start = self.index.line_start(row)
        line = self.text[start : self.index.line_end(row)].rstrip("\r\n")
        # GL001 and GL002 can point just past the end of a line: stay on it.
        return self.at_offset(start + min(max(location.column - 1, 0), len(line)))

    def span(self, start: Location, end: Location) -> types.Range:
        return types.Range(start=self.at_location(start), end=self.at_location(end))

    def whole(self) -> types.Range:
        return types.Range(start=types.Position(line=0, character=0), end=self.at_offset(len(self.text)))


class GradlintServer(LanguageServer):
    def __init__(self) -> None:
        # Full sync: pygls applies incremental changes with str.splitlines, whose line breaks
        # (form feed, U+2028, ...) are not the LSP's.
        super().__init__(
            SOURCE,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            notebook_document_sync=NOTEBOOK_SYNC,
            protocol_cls=StrictProtocol,
        )
        self.client = ClientSettings()  # the editor's settings, over the configuration files
        self.published_cells: dict[str, set[str]] = {}  # per notebook, the cells that have diagnostics
        self.checked: dict[str, CheckedDocument] = {}
        self.shut_down = False
        self.resolves_code_actions = False  # the client fetches an action's edit when it is chosen
        self._logged: set[str] = set()
        self.worker = Worker()
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: set[str] = set()
        self._superseded: set[str] = set()  # running checks of a text that has changed since

    def log(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=f"gradlint: {message}"))

    def log_once(self, message: str) -> None:
        """Log a problem that every keystroke would otherwise repeat (a broken configuration)."""
        if message not in self._logged:
            self._logged.add(message)
            self.log(message)

    def trace(self, message: str) -> None:
        """What the server does, for a client that asked for a trace (`$/setTrace`)."""
        if self.protocol.trace != types.TraceValue.Off:
            self.log_trace(types.LogTraceParams(message=message))

    def document(self, uri: str) -> Optional[TextDocument]:
        """The open document at `uri`; None once closed (pygls keys documents by unquoted URI)."""
        return self.workspace.text_documents.get(unquote(uri))

    def fresh(self, uri: str) -> Optional[CheckedDocument]:
        """The last check of `uri` if it is of the document's current text; None while a change is
        waiting for its check (its findings would point into a text that no longer exists)."""
        checked, document = self.checked.get(uri), self.document(uri)
        return checked if checked is not None and document is not None and checked.text == document.source else None

    def schedule(self, uri: str, delay: float = DEBOUNCE_SECONDS) -> None:
        """Check `uri` once no change has come for `delay` seconds."""
        self.unschedule(uri)
        self._timers[uri] = asyncio.get_running_loop().call_later(delay, self._start, uri)

    def unschedule(self, uri: str) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()

    def _start(self, uri: str) -> None:
        self._timers.pop(uri, None)
        if uri in self._running:  # the running check is of an older text: stop it, check the newest
            self._superseded.add(uri)
            if self.worker.running == ("check", uri):
                self.worker.kill()
            return
        notebook = self.notebook(uri)
        if notebook is not None:
            self._running.add(uri)
            asyncio.ensure_future(self._check_notebook(uri, self.cells(notebook), notebook.version))
            return
        document = self.document(uri)
        if document is None:
            return
        self._running.add(uri)
        asyncio.ensure_future(self._check(uri, document.source, document.version, document.language_id))

    async def _check(self, uri: str, text: str, version: Optional[int], language_id: Optional[str]) -> None:
        try:
            outcome = await self.worker.call(("check", uri), analyse, uri, text, language_id, self.roots(), self.client)
        finally:
            self._running.discard(uri)
        self._finish(uri, text, version, outcome)

    def notebook(self, uri: str) -> Optional[types.NotebookDocument]:
        return self.workspace.notebook_documents.get(unquote(uri))

    def cells(self, notebook: types.NotebookDocument) -> tuple[tuple[str, bool, str], ...]:
        """(URI, is Python code, text) of each cell of `notebook`, in order."""
        found = []
        for cell in notebook.cells:
            document = self.document(cell.document)
            code = cell.kind == types.NotebookCellKind.Code and (document is None or document.language_id in (None, "python"))
            found.append((cell.document, code, document.source if document is not None else ""))
        return tuple(found)

    async def _check_notebook(self, uri: str, cells: tuple[tuple[str, bool, str], ...], version: int) -> None:
        try:
            outcome = await self.worker.call(("check", uri), analyse_notebook, uri, notebook_json(cells), self.roots(), self.client)
        finally:
            self._running.discard(uri)
        analysis, problems = outcome.value if outcome.kind == OK else (None, [])
        if outcome.kind in (ERROR, DIED):
            self.log(f"internal error while checking {uri}: {_failure(outcome)}", types.MessageType.Error)
        for problem in problems:
            self.log_once(problem)
        notebook = self.notebook(uri)
        if outcome.kind == KILLED or notebook is None or self.cells(notebook) != cells:
            self.trace(f"discarded the check of {uri} version {version}: the notebook has changed")
        else:
            self.trace(f"checked {uri} version {version}")
            self.publish_cells(uri, cells, analysis)
        self._restart_if_superseded(uri)

    def publish_cells(self, uri: str, cells: tuple[tuple[str, bool, str], ...], analysis: Optional[NotebookAnalysis]) -> None:
        """Each cell's diagnostics, in its own coordinates; a cell that had some and has none now
        (or is gone) is cleared."""
        findings = analysis.by_cell(len(cells)) if analysis is not None else {}
        before = self.published_cells.get(uri, set())
        now = set()
        for number, (cell_uri, _, text) in enumerate(cells, start=1):
            positions = Positions(text, self.workspace.position_codec)
            diagnostics = [_diagnostic(finding, positions) for finding in findings.get(number, ())]
            if diagnostics or cell_uri in before:
                document = self.document(cell_uri)
                version = document.version if document is not None else None
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=diagnostics, version=version)
                )
            if diagnostics:
                now.add(cell_uri)
        for gone in before - {cell_uri for cell_uri, _, _ in cells}:
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=gone, diagnostics=[]))
        self.published_cells[uri] = now

    def close_notebook(self, uri: str, cell_uris: list[str]) -> None:
        self.unschedule(uri)
        for cell_uri in self.published_cells.pop(uri, set()) | set(cell_uris):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=cell_uri, diagnostics=[]))

    def configure(self, options: object) -> None:
        """New client settings (none: the same ones; a client that sends none may have changed a
        configuration file): check every open document and notebook again under them."""
        if options is not None:
            self.client, problems = client_settings(options)
            for problem in problems:
                self.log(problem)
        cells = {cell.document for notebook in self.workspace.notebook_documents.values() for cell in notebook.cells}
        for uri in [*self.workspace.notebook_documents, *(uri for uri in self.workspace.text_documents if uri not in cells)]:
            self.schedule(uri, delay=0)

    def _finish(self, uri: str, text: str, version: Optional[int], outcome: Outcome) -> None:
        analysis, problems = outcome.value if outcome.kind == OK else (None, [])
        if outcome.kind in (ERROR, DIED):  # a bug in one document's analysis must not stop the server
            self.log(f"internal error while checking {uri}: {_failure(outcome)}", types.MessageType.Error)
        for problem in problems:
            self.log_once(problem)
        document = self.document(uri)
        if outcome.kind == KILLED:
            self.trace(f"cancelled the check of {uri} version {version}: the document has changed")
        elif document is None or document.version != version or document.source != text:
            self.trace(f"discarded the check of {uri} version {version}: the document has changed")
        else:
            self.trace(f"checked {uri} version {version}")
            self.publish(uri, None if analysis is None else self.checked_document(uri, text, analysis), version)
        self._restart_if_superseded(uri)

    def _restart_if_superseded(self, uri: str) -> None:
        if uri in self._superseded:
            self._superseded.discard(uri)
            if uri not in self._timers:
                self._start(uri)

    def checked_document(self, uri: str, text: str, analysis: Analysis) -> CheckedDocument:
        positions = Positions(text, self.workspace.position_codec)
        diagnostics = tuple(_diagnostic(finding, positions) for finding in analysis.findings)
        return CheckedDocument(uri, text, analysis.name, analysis.settings, analysis.findings, diagnostics, positions)

    def publish(self, uri: str, checked: Optional[CheckedDocument], version: Optional[int]) -> None:
        if checked is not None:
            self.checked[uri] = checked
        else:
            self.checked.pop(uri, None)
        diagnostics = list(checked.diagnostics) if checked is not None else []
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def close(self, uri: str) -> None:
        self.unschedule(uri)
        self.checked.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def roots(self) -> tuple[Path, ...]:
        """The workspace folders (and root), where the defaults are rooted for files without a configuration."""
        folders = [to_fs_path(folder.uri) for folder in self.workspace.folders.values()]
        return tuple(Path(folder).resolve() for folder in [*folders, self.workspace.root_path] if folder)

    async def code_actions(self, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        """From the last check: no analysis runs here, and fix-all is computed only when asked for
        by kind (or, for a client that resolves actions, only when chosen)."""
        uri = params.text_document.uri
        if uri not in self.checked:
            return None
        checked, only = self.fresh(uri), params.context.only
        actions = []
        if checked is not None and _wanted(QUICK_FIX, only):
            here = list(checked.at(params.range))
            fixable = sorted((pair for pair in here if pair[0].fix is not None), key=lambda pair: pair[0].fix.applicability != SAFE)
            actions.extend(self.quick_fix(checked, finding, diagnostic) for finding, diagnostic in fixable)
            actions.extend(self.disable_for_line(checked, here))
        if self.offers_fix_all(checked, only):
            fix_all = types.CodeAction(title="gradlint: apply all safe fixes", kind=FIX_ALL, data={"uri": uri})
            if not self.resolves_code_actions:  # else only its `data`, for codeAction/resolve
                fix_all.edit = await self.fix_all_edit(uri)
            if fix_all.edit is not None or self.resolves_code_actions:
                actions.append(fix_all)
        return actions

    def offers_fix_all(self, checked: Optional[CheckedDocument], only: Optional[list[str]]) -> bool:
        if not self.client.fix_all:
            return False
        asked = only is not None and _wanted(FIX_ALL, only)
        if not (asked or (only is None and self.resolves_code_actions)):
            return False
        return checked is None or any(finding.has_safe_fix for finding in checked.findings)

    def quick_fix(self, checked: CheckedDocument, finding: Finding, diagnostic: types.Diagnostic) -> types.CodeAction:
        """Exactly the edits of one finding's fix; an unsafe fix says so in its title."""
        fix = finding.fix
        safe = fix.applicability == SAFE
        edits = [_text_edit(checked.positions, edit.start, edit.end, edit.content) for edit in fix.edits]
        return types.CodeAction(
            title=fix.message if safe else f"{fix.message} (unsafe)",
            kind=QUICK_FIX,
            diagnostics=[diagnostic],
            is_preferred=safe,
            edit=types.WorkspaceEdit(changes={checked.uri: edits}),
        )

    def disable_for_line(self, checked: CheckedDocument, here: list[tuple[Finding, types.Diagnostic]]) -> Iterator[types.CodeAction]:
        """`Disable GL201 for this line`: `# noqa: GL201` on the line where it suppresses the finding,
        merged into a `# noqa` already there, after any other comment (as ruff)."""
        offered = set()
        for finding, diagnostic in here:
            row = finding.noqa_row or finding.location.row
            if (finding.code, row) in offered or finding.code in file_rule_codes():
                continue
            offered.add((finding.code, row))
            index = checked.positions.index
            start = index.line_start(row)
            line = checked.text[start : index.line_end(row)].rstrip("\r\n")
            edit = with_noqa_code(line, finding.code)
            if edit is None:
                continue
            begin, end, replacement = edit
            yield types.CodeAction(
                title=f"Disable {finding.code} for this line",
                kind=QUICK_FIX,
                diagnostics=[diagnostic],
                edit=types.WorkspaceEdit(changes={checked.uri: [_text_edit(checked.positions, start + begin, start + end, replacement)]}),
            )

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        if action.kind == FIX_ALL and action.edit is None and isinstance(data.get("uri"), str):
            action.edit = await self.fix_all_edit(data["uri"]) or types.WorkspaceEdit(changes={data["uri"]: []})
        return action

    async def fix_all_edit(self, uri: str) -> Optional[types.WorkspaceEdit]:
        """The safe fixes of the document's current text, as `gradlint fix` applies them, as one
        edit; None when nothing changes or the text changed while they were computed."""
        checked, document = self.checked.get(uri), self.document(uri)
        if checked is None or document is None:
            return None
        text = document.source
        self.trace(f"computed fix-all for {uri} version {document.version}")
        outcome = await self.worker.call(("fix", uri), fix_all, text, checked.name, checked.settings)
        if outcome.kind != OK:
            self.log(f"internal error while fixing {uri}: {_failure(outcome)}", types.MessageType.Error)
            return None
        fixed, notes = outcome.value
        for note in notes:  # why the fix kept something (an import other files of the project use)
            self.log(f"{checked.name}: {note}", types.MessageType.Info)
        document = self.document(uri)
        if fixed is None or fixed == text or document is None or document.source != text:
            return None
        whole = Positions(text, self.workspace.position_codec).whole()
        return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=fixed)]})

    def hover(self, params: types.HoverParams) -> Optional[types.Hover]:
        """The documentation of the rules whose findings cover the position (`gradlint rule`)."""
        checked = self.fresh(params.text_document.uri)
        if checked is None:
            return None
        point = types.Range(start=params.position, end=params.position)
        here = list(checked.at(point))
        codes = list(dict.fromkeys(finding.code for finding, _ in here))
        if not codes:
            return None
        text = "\n---\n\n".join(render_rule(rule_info(code)) for code in codes)
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=here[0][1].range)

    def start_io(self, stdin: Optional[BinaryIO] = None, stdout: Optional[BinaryIO] = None) -> None:
        """pygls' stdio loop, with a reader that survives malformed framing (see server_io)."""
        self._stop_event = stop = threading.Event()
        reader = StdinAsyncReader(stdin or sys.stdin.buffer, self.thread_pool)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        self.worker.start()  # now, while this process has no other thread to fork
        try:
            asyncio.run(serve_stream(self.protocol, reader, stop))
        except BrokenPipeError:
            pass  # the client is gone
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.worker.stop()
            self.shutdown()


def create_server() -> GradlintServer:
    server = GradlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: GradlintServer, params: types.InitializeParams) -> None:
        if params.trace is not None:
            ls.protocol.trace = params.trace
        code_action = params.capabilities.text_document and params.capabilities.text_document.code_action
        resolvable = code_action and code_action.resolve_support and code_action.resolve_support.properties
        ls.resolves_code_actions = "edit" in (resolvable or [])
        ls.client, problems = client_settings(params.initialization_options)
        for problem in problems:
            ls.log(problem)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def did_change_configuration(ls: GradlintServer, params: types.DidChangeConfigurationParams) -> None:
        ls.configure(params.settings)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: GradlintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri, delay=0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: GradlintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_did_save(ls: GradlintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: GradlintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.close_notebook(params.notebook_document.uri, [cell.uri for cell in params.cell_text_documents])

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GradlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, delay=0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GradlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GradlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)  # the configuration may have changed

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GradlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICK_FIX, FIX_ALL], resolve_provider=True),
    )
    async def code_action(ls: GradlintServer, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        return await ls.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: GradlintServer, params: types.CodeAction) -> types.CodeAction:
        return await ls.resolve(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: GradlintServer, params: types.HoverParams) -> Optional[types.Hover]:
        return ls.hover(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: GradlintServer, params: None) -> None:
        ls.shut_down = True

    return server


def serve() -> None:
    """Serve on stdin/stdout until `exit`; exit code 0 only after a `shutdown` request (LSP)."""
    # pygls logs the messages it cannot read with their tracebacks; the client gets an answer instead.
    logging.getLogger("pygls").addHandler(logging.NullHandler())
    logging.getLogger("pygls").propagate = False
    server = create_server()
    server.start_io()
    raise SystemExit(0 if server.shut_down else 1)


def _failure(outcome: Outcome) -> str:
    return outcome.value if outcome.kind == ERROR else "the worker process ended unexpectedly"


@dataclass(frozen=True)
class Analysis:
    """What the worker process found in a document's text."""

    name: str  # the file system path, or the URI of an unsaved document
    settings: Settings
    findings: tuple[Finding, ...]


def analyse(
    uri: str, text: str, language_id: Optional[str], roots: tuple[Path, ...], client: ClientSettings = ClientSettings()
) -> tuple[Optional[Analysis], list[str]]:
    """In the worker process: the findings (None for a document gradlint does not check: not
    Python, or excluded) and the problems to log."""
    from gradlint.discovery import is_excluded

    problems: list[str] = []
    fs_path = to_fs_path(uri)
    path = Path(fs_path) if fs_path else None
    if not _is_python(path, language_id):
        return None, problems
    settings = settings_for(path, roots, problems, client)
    if path is not None and is_excluded(path, settings):
        return None, problems
    name = str(path) if path is not None else uri
    summary = _lint(text, name, settings)
    problems.extend(f"{name}: {reason}" for _, reason in summary.errors + summary.warnings)
    return Analysis(name, settings, tuple(summary.findings)), problems


def fix_all(text: str, name: str, settings: Settings) -> tuple[Optional[str], list[str]]:
    """In the worker process: the text after `gradlint fix`, and what to log about it."""
    notes: list[str] = []
    return _fixed(text, name, settings, notes.append), notes


def _text_edit(positions: "Positions", start: int, end: int, new_text: str) -> types.TextEdit:
    return types.TextEdit(range=types.Range(start=positions.at_offset(start), end=positions.at_offset(end)), new_text=new_text)


def _is_python(path: Optional[Path], language_id: Optional[str]) -> bool:
    from gradlint.discovery import SOURCE_SUFFIXES

    return language_id == "python" or (path is not None and path.suffix in SOURCE_SUFFIXES)


def _diagnostic(finding: Finding, positions: Positions) -> types.Diagnostic:
    return types.Diagnostic(
        range=positions.span(finding.location, finding.end_location),
        message=finding.message,
        severity=SEVERITIES[severity_of(finding.code)],
        code=finding.code,
        code_description=types.CodeDescription(href=f"{RULE_DOCS_URL}{finding.code}.md"),
        source=SOURCE,
    )


def _wanted(kind: str, only: Optional[list[str]]) -> bool:
    """`only` lists kinds or their prefixes (`source` asks for `source.fixAll.gradlint`)."""
    return only is None or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _source_bytes(text: str) -> Optional[bytes]:
    """The bytes a file holding `text` would have (in the encoding its coding comment declares),
    so that it is checked exactly as on disk; None if `text` cannot be written that way."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(text.encode("utf-8")).readline)
        raw = text.encode(encoding)
        return raw if decode_source(raw)[0] == text else None
    except (SyntaxError, LookupError, UnicodeError, UndecodableSource):
        return None


def _lint(text: str, name: str, settings: Settings) -> RunSummary:
    from gradlint.runner import check_stdin

    raw = _source_bytes(text)
    return check_stdin(raw if raw is not None else text, name, settings)


def _fixed(text: str, name: str, settings: Settings, note: Callable[[str], None] = lambda _: None) -> Optional[str]:
    """The text after `gradlint fix` (safe fixes only); None when it cannot be fixed. `note` hears
    why the fix kept something (an import other files of the project use)."""
    from gradlint.runner import fix_stdin

    raw = _source_bytes(text)
    result = fix_stdin(raw if raw is not None else text, name, settings, unsafe=False)
    if result.fixed is None or result.error is not None:
        return None
    if result.warning is not None:
        note(result.warning)
    return result.fixed if isinstance(result.fixed, str) else decode_source(result.fixed)[0]
