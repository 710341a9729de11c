"""`gradlint server`: a Language Server on stdin/stdout that publishes findings and offers fixes.

Each open Python document is checked as `gradlint check` checks its file (the settings of the
nearest configuration, per-file-ignores, `# noqa`), but on the editor's unsaved text.

A check runs in a worker process once changes pause (a burst of keystrokes costs one analysis), and
only the newest version of a document is published; code actions and hovers are answered from the
last check, so they never wait for an analysis (see server_worker for why the worker is a process).
A second worker computes the fix-all of a text beside its check (when the last check found safe
fixes) or right after it (when this one finds the first), so that the editor's request for it (on
save, typically) is answered from memory. Both analyse a new version only where it changed (see
incremental and statement_trees).

The protocol is spoken with plain dicts (server_io, server_text, server_documents): the server
answers `initialize` without importing an LSP library, LibCST or a rule.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
import tokenize
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator, Optional
from urllib.parse import unquote

from gradlint import RULE_DOCS_URL, __version__
from gradlint.config import Settings
from gradlint.docs import render_rule
from gradlint.fix.kinds import Applicability
from gradlint.noqa import with_noqa_code
from gradlint.rules import file_rule_codes, rule_info, severity_of
from gradlint.server_documents import CODE_CELL, Documents, Notebook
from gradlint.server_io import Endpoint, serve as serve_endpoint
from gradlint.server_notebooks import NOTEBOOK_SYNC, NotebookAnalysis, analyse_notebook, notebook_json
from gradlint.server_settings import ClientSettings, client_settings, settings_for
from gradlint.server_text import (
    UTF16,
    InvalidParams,
    TextPositions,
    choose_encoding,
    member,
    position_of,
    range_of,
    to_fs_path,
    uri_of,
)
from gradlint.server_worker import DIED, ERROR, KILLED, OK, Outcome, Worker
from gradlint.source import UndecodableSource, decode_source

# The analysis (LibCST, the rules, the runner) is imported where a check runs, in the worker
# process (whose fork server preloads it, see server_worker): the server answers `initialize`
# without it.
if TYPE_CHECKING:
    from gradlint.model import Finding, Location
    from gradlint.runner import RunSummary

SAFE = Applicability.SAFE

QUICK_FIX = "quickfix"
FIX_ALL = "source.fixAll.gradlint"
SOURCE = "gradlint"
SEVERITIES = {"error": 1, "warning": 2}  # DiagnosticSeverity
ERROR_MESSAGE, WARNING_MESSAGE, INFO_MESSAGE = 1, 2, 3  # MessageType
FULL_SYNC = 1  # TextDocumentSyncKind
TRACES = ("off", "messages", "verbose")
# How long changes must pause before a check starts: typing is faster than an analysis.
DEBOUNCE_SECONDS = 0.05


class Positions(TextPositions):
    """gradlint offsets and locations (1-based rows and code-point columns) as LSP positions
    (0-based lines, columns in the code units of the negotiated encoding, UTF-16 by default)."""

    def at_offset(self, offset: int) -> dict:
        return self.position(offset)

    def at_location(self, location: Location) -> dict:
        row = min(max(location.row, 1), len(self.index.starts))
        start = self.index.line_start(row)
        line = self.text[start : self.index.line_end(row)].rstrip("\r\n")
        # GL001 and GL002 can point just past the end of a line: stay on it.
        return self.position(start + min(max(location.column - 1, 0), len(line)))

    def span(self, start: Location, end: Location) -> dict:
        return {"start": self.at_location(start), "end": self.at_location(end)}

    def whole(self) -> dict:
        return self.range(0, len(self.text))


@dataclass(frozen=True)
class CheckedDocument:
    """An open document as last checked: its text and what was found in it."""

    uri: str
    text: str
    version: Optional[int]
    name: str  # the file system path, or the URI of an unsaved document
    settings: Settings
    findings: tuple[Finding, ...]
    diagnostics: tuple[dict, ...]  # one per finding, in the same order
    positions: Positions

    def at(self, lsp_range: dict) -> Iterator[tuple[Finding, dict]]:
        """The findings whose diagnostic touches `lsp_range`."""
        return ((f, d) for f, d in zip(self.findings, self.diagnostics) if _overlaps(d["range"], lsp_range))

    @property
    def has_safe_fix(self) -> bool:
        return any(finding.has_safe_fix for finding in self.findings)


@dataclass
class FixAll:
    """The fix-all of one checked text: computed once, in the worker, and answered from here."""

    text: str
    version: Optional[int]
    name: str
    settings: Settings
    result: "asyncio.Future[Optional[str]]"  # the fixed text; None when nothing changes or it failed


class GradlintServer:
    def __init__(self, output: BinaryIO) -> None:
        self.endpoint = Endpoint(output)
        self.documents = Documents()
        self.encoding = UTF16
        self.trace_value = "off"
        self.root_path: Optional[str] = None
        self.folders: dict[str, str] = {}  # workspace folder URIs, by their decoded form
        self.client = ClientSettings()  # the editor's settings, over the configuration files
        self.published_cells: dict[str, set[str]] = {}  # per notebook, the cells that have diagnostics
        self.checked: dict[str, CheckedDocument] = {}
        self.fixes: dict[str, FixAll] = {}  # per document, the fix-all of its last checked text
        self.resolves_code_actions = False  # the client fetches an action's edit when it is chosen
        self._logged: set[str] = set()
        self.worker = Worker()
        # Fix-all has its own process, at a lower priority, so that it never slows the check of the
        # next change. A change does not stop it: what a fix learns of the document (the first
        # one takes seconds on a large file) makes the fix of the next version quick.
        self.fixer = Worker(niceness=10)
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._running: set[str] = set()
        self._superseded: set[str] = set()  # running checks of a text that has changed since
        self._warm: dict[str, int] = {}  # the worker process (its generation) that last checked each document
        self._register()

    @property
    def shut_down(self) -> bool:
        return self.endpoint.shut_down

    # Messages to the client

    def log(self, message: str, kind: int = WARNING_MESSAGE) -> None:
        self.endpoint.notify("window/logMessage", {"type": kind, "message": f"gradlint: {message}"})

    def log_once(self, message: str) -> None:
        """Log a problem that every keystroke would otherwise repeat (a broken configuration)."""
        if message not in self._logged:
            self._logged.add(message)
            self.log(message)

    def trace(self, message: str) -> None:
        """What the server does, for a client that asked for a trace (`$/setTrace`)."""
        if self.trace_value != "off":
            self.endpoint.notify("$/logTrace", {"message": message})

    def publish_diagnostics(self, uri: str, diagnostics: list[dict], version: Optional[int] = None) -> None:
        params: dict[str, Any] = {"uri": uri, "diagnostics": diagnostics}
        if version is not None:
            params["version"] = version
        self.endpoint.notify("textDocument/publishDiagnostics", params)

    # Checks

    def fresh(self, uri: str) -> Optional[CheckedDocument]:
        """The last check of `uri` if it is of the document's current text; None while a change is
        waiting for its check (its findings would point into a text that no longer exists)."""
        checked, document = self.checked.get(uri), self.documents.text(uri)
        return checked if checked is not None and document is not None and checked.text == document.text else None

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
        if uri in self._running:  # the running check is of an older text: check the newest after it
            self._superseded.add(uri)
            # A check of a document the worker has analysed before is quick (it analyses what
            # changed) and leaves what it learns for the next one: it finishes. A first one is stopped.
            if self.worker.running == ("check", uri) and self._warm.get(uri) != self.worker.generation:
                self.worker.kill()
            return
        notebook = self.documents.notebook(uri)
        if notebook is not None:
            self._running.add(uri)
            asyncio.ensure_future(self._check_notebook(uri, self.cells(notebook), notebook.version))
            return
        document = self.documents.text(uri)
        if document is None:
            return
        self._running.add(uri)
        asyncio.ensure_future(self._check(uri, document.text, document.version, document.language_id))
        self.fix_ahead(uri)

    def fix_ahead(self, uri: str) -> None:
        """Start the fix-all of the text being checked, beside its check, when the last check found
        safe fixes: it is then ready about when the diagnostics are published (the editor asks for
        it on save). It is computed under the last check's settings; the check's own, if they
        differ, start it again."""
        current = self.unchecked(uri)
        if current is not None and self.checked[uri].has_safe_fix and self.client.fix_all:
            self.fix_all_of(current)

    def unchecked(self, uri: str) -> Optional[CheckedDocument]:
        """The document's current text, not yet checked, under its last check's name and settings
        (no findings); None for a document closed or never checked."""
        document, known = self.documents.text(uri), self.checked.get(uri)
        if document is None or known is None:
            return None
        return CheckedDocument(uri, document.text, document.version, known.name, known.settings, (), (), known.positions)

    async def _check(self, uri: str, text: str, version: Optional[int], language_id: Optional[str]) -> None:
        try:
            outcome = await self.worker.call(("check", uri), analyse, uri, text, language_id, self.roots(), self.client)
        finally:
            self._running.discard(uri)
        if outcome.kind == OK:
            self._warm[uri] = self.worker.generation
        self._finish(uri, text, version, outcome)

    def cells(self, notebook: Notebook) -> tuple[tuple[str, bool, str], ...]:
        """(URI, is Python code, text) of each cell of `notebook`, in order."""
        found = []
        for cell in notebook.cells:
            document = self.documents.text(cell.document)
            code = cell.kind == CODE_CELL and (document is None or document.language_id in (None, "python"))
            found.append((cell.document, code, document.text if document is not None else ""))
        return tuple(found)

    async def _check_notebook(self, uri: str, cells: tuple[tuple[str, bool, str], ...], version: int) -> None:
        try:
            outcome = await self.worker.call(("check", uri), analyse_notebook, uri, notebook_json(cells), self.roots(), self.client)
        finally:
            self._running.discard(uri)
        analysis, problems = outcome.value if outcome.kind == OK else (None, [])
        if outcome.kind in (ERROR, DIED):
            self.log(f"internal error while checking {uri}: {_failure(outcome)}", ERROR_MESSAGE)
        for problem in problems:
            self.log_once(problem)
        notebook = self.documents.notebook(uri)
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
            positions = Positions(text, self.encoding)
            diagnostics = [_diagnostic(finding, positions) for finding in findings.get(number, ())]
            if diagnostics or cell_uri in before:
                document = self.documents.text(cell_uri)
                self.publish_diagnostics(cell_uri, diagnostics, document.version if document is not None else None)
            if diagnostics:
                now.add(cell_uri)
        for gone in before - {cell_uri for cell_uri, _, _ in cells}:
            self.publish_diagnostics(gone, [])
        self.published_cells[uri] = now

    def close_notebook(self, uri: str, cell_uris: list[str]) -> None:
        self.unschedule(uri)
        for cell_uri in self.published_cells.pop(uri, set()) | set(cell_uris):
            self.publish_diagnostics(cell_uri, [])

    def configure(self, options: object) -> None:
        """New client settings (none: the same ones; a client that sends none may have changed a
        configuration file): check every open document and notebook again under them."""
        if options is not None:
            self.client, problems = client_settings(options)
            for problem in problems:
                self.log(problem)
        cells = self.documents.cell_uris()
        texts = [document.uri for document in self.documents.texts.values() if document.uri not in cells]
        for uri in [*(notebook.uri for notebook in self.documents.notebooks.values()), *texts]:
            self.schedule(uri, delay=0)

    def _finish(self, uri: str, text: str, version: Optional[int], outcome: Outcome) -> None:
        analysis, problems = outcome.value if outcome.kind == OK else (None, [])
        if outcome.kind in (ERROR, DIED):  # a bug in one document's analysis must not stop the server
            self.log(f"internal error while checking {uri}: {_failure(outcome)}", ERROR_MESSAGE)
        for problem in problems:
            self.log_once(problem)
        document = self.documents.text(uri)
        if outcome.kind == KILLED:
            self.trace(f"cancelled the check of {uri} version {version}: the document has changed")
        elif document is None or document.version != version or document.text != text:
            self.trace(f"discarded the check of {uri} version {version}: the document has changed")
        else:
            self.trace(f"checked {uri} version {version}")
            checked = None if analysis is None else self.checked_document(uri, text, version, analysis)
            self.publish(uri, checked, version)
            if checked is not None and checked.has_safe_fix and self.client.fix_all:
                self.fix_all_of(checked)  # now, while the editor has nothing to ask
        self._restart_if_superseded(uri)

    def _restart_if_superseded(self, uri: str) -> None:
        if uri in self._superseded:
            self._superseded.discard(uri)
            if uri not in self._timers:
                self._start(uri)

    def checked_document(self, uri: str, text: str, version: Optional[int], analysis: Analysis) -> CheckedDocument:
        positions = Positions(text, self.encoding)
        diagnostics = tuple(_diagnostic(finding, positions) for finding in analysis.findings)
        return CheckedDocument(uri, text, version, analysis.name, analysis.settings, analysis.findings, diagnostics, positions)

    def publish(self, uri: str, checked: Optional[CheckedDocument], version: Optional[int]) -> None:
        if checked is not None:
            self.checked[uri] = checked
        else:
            self.checked.pop(uri, None)
        self.publish_diagnostics(uri, list(checked.diagnostics) if checked is not None else [], version)

    def close(self, uri: str) -> None:
        self.unschedule(uri)
        self.checked.pop(uri, None)
        self.fixes.pop(uri, None)
        self._warm.pop(uri, None)
        self.publish_diagnostics(uri, [])

    def roots(self) -> tuple[Path, ...]:
        """The workspace folders (and root), where the defaults are rooted for files without a configuration."""
        folders = [to_fs_path(uri) for uri in self.folders.values()]
        return tuple(Path(folder).resolve() for folder in [*folders, self.root_path] if folder)

    # Code actions

    async def code_actions(self, uri: str, lsp_range: dict, only: Optional[list[str]]) -> Optional[list[dict]]:
        """From the last check: no analysis runs here, and fix-all is answered from the fix computed
        after that check (or, for a client that resolves actions, only when chosen)."""
        if uri not in self.checked:
            return None
        checked = self.fresh(uri)
        actions = []
        if checked is not None and _wanted(QUICK_FIX, only):
            here = list(checked.at(lsp_range))
            fixable = sorted((pair for pair in here if pair[0].fix is not None), key=lambda pair: pair[0].fix.applicability != SAFE)
            actions.extend(self.quick_fix(checked, finding, diagnostic) for finding, diagnostic in fixable)
            actions.extend(self.disable_for_line(checked, here))
        if self.offers_fix_all(checked, only):
            fix_all: dict[str, Any] = {"title": "gradlint: apply all safe fixes", "kind": FIX_ALL, "data": {"uri": uri}}
            if not self.resolves_code_actions:  # else only its `data`, for codeAction/resolve
                edit = await self.fix_all_edit(uri)
                if edit is not None:
                    fix_all["edit"] = edit
            if "edit" in fix_all or self.resolves_code_actions:
                actions.append(fix_all)
        return actions

    def offers_fix_all(self, checked: Optional[CheckedDocument], only: Optional[list[str]]) -> bool:
        if not self.client.fix_all:
            return False
        asked = only is not None and _wanted(FIX_ALL, only)
        if not (asked or (only is None and self.resolves_code_actions)):
            return False
        return checked is None or checked.has_safe_fix

    def quick_fix(self, checked: CheckedDocument, finding: Finding, diagnostic: dict) -> dict:
        """Exactly the edits of one finding's fix, from the last check; an unsafe fix says so in its title."""
        fix = finding.fix
        safe = fix.applicability == SAFE
        edits = [_text_edit(checked.positions, edit.start, edit.end, edit.content) for edit in fix.edits]
        return {
            "title": fix.message if safe else f"{fix.message} (unsafe)",
            "kind": QUICK_FIX,
            "diagnostics": [diagnostic],
            "isPreferred": safe,
            "edit": {"changes": {checked.uri: edits}},
        }

    def disable_for_line(self, checked: CheckedDocument, here: list[tuple[Finding, dict]]) -> Iterator[dict]:
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
            yield {
                "title": f"Disable {finding.code} for this line",
                "kind": QUICK_FIX,
                "diagnostics": [diagnostic],
                "edit": {"changes": {checked.uri: [_text_edit(checked.positions, start + begin, start + end, replacement)]}},
            }

    async def resolve(self, action: dict) -> dict:
        data = action.get("data")
        uri = data.get("uri") if isinstance(data, dict) else None
        if action.get("kind") == FIX_ALL and action.get("edit") is None and isinstance(uri, str):
            action = {**action, "edit": await self.fix_all_edit(uri) or {"changes": {uri: []}}}
        return action

    def fix_all_of(self, checked: CheckedDocument) -> FixAll:
        """The fix-all of the checked text: the one already computed or being computed for it, or
        one started now in the worker."""
        known = self.fixes.get(checked.uri)
        if known is not None and (known.text, known.name, known.settings) == (checked.text, checked.name, checked.settings):
            return known
        fix = FixAll(checked.text, checked.version, checked.name, checked.settings, asyncio.get_running_loop().create_future())
        self.fixes[checked.uri] = fix
        asyncio.ensure_future(self._compute_fix_all(checked, fix))
        return fix

    async def _compute_fix_all(self, checked: CheckedDocument, fix: FixAll) -> None:
        uri = checked.uri

        def wanted() -> bool:  # the text is still the editor's when the worker gets to it
            document = self.documents.text(uri)
            return document is not None and document.text == checked.text

        outcome = await self.fixer.call(("fix", uri), fix_all, checked.text, checked.name, checked.settings, wanted=wanted)
        fixed = None
        if outcome.kind == OK:
            fixed, notes = outcome.value
            self.trace(f"computed fix-all for {uri} version {checked.version}")
            for note in notes:  # why the fix kept something (an import other files of the project use)
                self.log(f"{checked.name}: {note}", INFO_MESSAGE)
        elif outcome.kind == KILLED:
            self.trace(f"cancelled the fix-all of {uri} version {checked.version}: the document has changed")
        else:
            self.log(f"internal error while fixing {uri}: {_failure(outcome)}", ERROR_MESSAGE)
        if self.fixes.get(uri) is fix and outcome.kind != OK:
            del self.fixes[uri]  # a later request computes it again
        fix.result.set_result(None if fixed == checked.text else fixed)

    async def fix_all_edit(self, uri: str) -> Optional[dict]:
        """The safe fixes of the document's current text, as `gradlint fix` applies them, as one
        edit; None when nothing changes or the text changed while they were computed."""
        checked = self.fresh(uri)
        if checked is None:  # a change not yet checked: its fix-all is computed for its text alone
            checked = self.unchecked(uri)
            if checked is None:
                return None
        fix = self.fix_all_of(checked)
        fixed = await asyncio.shield(fix.result)  # a cancelled request leaves the computation to the next one
        self.trace(f"answered fix-all for {uri} version {fix.version}")
        document = self.documents.text(uri)
        if fixed is None or document is None or document.text != fix.text:
            return None
        return {"changes": {uri: [{"range": Positions(fix.text, self.encoding).whole(), "newText": fixed}]}}

    def hover(self, uri: str, position: dict) -> Optional[dict]:
        """The documentation of the rules whose findings cover the position (`gradlint rule`)."""
        checked = self.fresh(uri)
        if checked is None:
            return None
        here = list(checked.at({"start": position, "end": position}))
        codes = list(dict.fromkeys(finding.code for finding, _ in here))
        if not codes:
            return None
        text = "\n---\n\n".join(render_rule(rule_info(code)) for code in codes)
        return {"contents": {"kind": "markdown", "value": text}, "range": here[0][1]["range"]}

    # The protocol's messages

    def initialize(self, params: Any) -> dict:
        capabilities = member(params, "capabilities", dict)
        trace = params.get("trace")
        if trace in TRACES:
            self.trace_value = trace
        resolvable = _dig(capabilities, "textDocument", "codeAction", "resolveSupport", "properties")
        self.resolves_code_actions = isinstance(resolvable, list) and "edit" in resolvable
        self.encoding = self.documents.encoding = choose_encoding(capabilities)
        root_uri, root_path = params.get("rootUri"), params.get("rootPath")
        self.root_path = to_fs_path(root_uri) if isinstance(root_uri, str) else root_path if isinstance(root_path, str) else None
        for folder in member(params, "workspaceFolders", list, optional=True) or []:
            self.add_folder(member(folder, "uri", str))
        self.client, problems = client_settings(params.get("initializationOptions"))
        for problem in problems:
            self.log(problem)
        server_capabilities: dict[str, Any] = {
            "positionEncoding": self.encoding,
            # Full sync: one text per change is cheap next to a check, and never out of step.
            "textDocumentSync": {"openClose": True, "change": FULL_SYNC, "save": True},
            "hoverProvider": True,
            "codeActionProvider": {"codeActionKinds": [QUICK_FIX, FIX_ALL], "resolveProvider": True},
            "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True}},
        }
        if capabilities.get("notebookDocument") is not None:  # a client that syncs notebooks
            server_capabilities["notebookDocumentSync"] = NOTEBOOK_SYNC
        # The worker starts once this answer is out, without holding it up (its fork server's
        # imports take seconds), so that the first check need not wait for it.
        asyncio.get_running_loop().call_soon(lambda: asyncio.ensure_future(self.worker.started()))
        return {"capabilities": server_capabilities, "serverInfo": {"name": SOURCE, "version": __version__}}

    def add_folder(self, uri: str) -> None:
        self.folders[unquote(uri)] = uri

    def change_folders(self, params: Any) -> None:
        event = member(params, "event", dict)
        for folder in member(event, "removed", list, optional=True) or []:
            self.folders.pop(unquote(member(folder, "uri", str)), None)
        for folder in member(event, "added", list, optional=True) or []:
            self.add_folder(member(folder, "uri", str))

    def set_trace(self, params: Any) -> None:
        value = member(params, "value", str)
        if value not in TRACES:
            raise InvalidParams(f"`value` must be one of {', '.join(TRACES)}")
        self.trace_value = value

    def did_open(self, params: Any) -> None:
        document = self.documents.open(member(params, "textDocument", dict))
        self.schedule(document.uri, delay=0)

    def did_change(self, params: Any) -> None:
        identifier = member(params, "textDocument", dict)
        self.documents.change(identifier, member(params, "contentChanges", list))
        self.schedule(identifier["uri"])

    def did_close(self, params: Any) -> None:
        uri = uri_of(params)
        self.documents.close(uri)
        self.close(uri)

    def notebook_did_open(self, params: Any) -> None:
        self.schedule(self.documents.open_notebook(params).uri, delay=0)

    def notebook_did_change(self, params: Any) -> None:
        self.documents.change_notebook(params)
        self.schedule(uri_of(params, "notebookDocument"))

    def notebook_did_close(self, params: Any) -> None:
        self.close_notebook(*self.documents.close_notebook(params))

    def code_action_request(self, params: Any) -> Any:
        context = member(params, "context", dict)
        only = member(context, "only", list, optional=True)
        if only is not None and not all(isinstance(kind, str) for kind in only):
            raise InvalidParams("`only` must list code action kinds")
        return self.code_actions(uri_of(params), range_of(params), only)

    def resolve_request(self, params: Any) -> Any:
        member(params, "title", str)
        return self.resolve(params)

    def hover_request(self, params: Any) -> Optional[dict]:
        return self.hover(uri_of(params), position_of(params, "position"))

    def _register(self) -> None:
        self.endpoint.requests.update(
            {
                "initialize": self.initialize,
                "shutdown": lambda params: None,
                "textDocument/codeAction": self.code_action_request,
                "codeAction/resolve": self.resolve_request,
                "textDocument/hover": self.hover_request,
            }
        )
        self.endpoint.notifications.update(
            {
                "$/setTrace": self.set_trace,
                "workspace/didChangeConfiguration": lambda params: self.configure(member(params, "settings", object, optional=True)),
                "workspace/didChangeWorkspaceFolders": self.change_folders,
                "textDocument/didOpen": self.did_open,
                "textDocument/didChange": self.did_change,
                "textDocument/didSave": lambda params: self.schedule(uri_of(params)),  # the configuration may have changed
                "textDocument/didClose": self.did_close,
                "notebookDocument/didOpen": self.notebook_did_open,
                "notebookDocument/didChange": self.notebook_did_change,
                "notebookDocument/didSave": lambda params: self.schedule(uri_of(params, "notebookDocument")),
                "notebookDocument/didClose": self.notebook_did_close,
            }
        )

    def serve(self, stdin: Optional[BinaryIO] = None) -> None:
        """Serve until `exit` or the end of the input."""
        # The reading thread may still wait in a read at exit: it gets a file object of its own,
        # as the interpreter's shutdown aborts on a `sys.stdin` whose lock a thread holds.
        stdin = stdin or os.fdopen(os.dup(sys.stdin.fileno()), "rb")
        try:
            serve_endpoint(self.endpoint, stdin)
        except BrokenPipeError:
            pass  # the client is gone
        except KeyboardInterrupt:
            pass
        finally:
            self.worker.stop()
            self.fixer.stop()


def create_server(output: Optional[BinaryIO] = None) -> GradlintServer:
    return GradlintServer(output or sys.stdout.buffer)


def serve() -> None:
    """Serve on stdin/stdout until `exit`; exit code 0 only after a `shutdown` request (LSP)."""
    server = create_server()
    server.serve()
    raise SystemExit(0 if server.shut_down else 1)


def _failure(outcome: Outcome) -> str:
    return outcome.value if outcome.kind == ERROR else "the worker process ended unexpectedly"


def _dig(value: Any, *names: str) -> Any:
    for name in names:
        value = value.get(name) if isinstance(value, dict) else None
    return value


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


def _text_edit(positions: Positions, start: int, end: int, new_text: str) -> dict:
    return {"range": positions.range(start, end), "newText": new_text}


def _is_python(path: Optional[Path], language_id: Optional[str]) -> bool:
    from gradlint.discovery import SOURCE_SUFFIXES

    return language_id == "python" or (path is not None and path.suffix in SOURCE_SUFFIXES)


def _diagnostic(finding: Finding, positions: Positions) -> dict:
    return {
        "range": positions.span(finding.location, finding.end_location),
        "severity": SEVERITIES[severity_of(finding.code)],
        "code": finding.code,
        "codeDescription": {"href": f"{RULE_DOCS_URL}{finding.code}.md"},
        "source": SOURCE,
        "message": finding.message,
    }


def _wanted(kind: str, only: Optional[list[str]]) -> bool:
    """`only` lists kinds or their prefixes (`source` asks for `source.fixAll.gradlint`)."""
    return only is None or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


def _overlaps(a: dict, b: dict) -> bool:
    def key(position: dict) -> tuple[int, int]:
        return position["line"], position["character"]

    return key(a["start"]) <= key(b["end"]) and key(b["start"]) <= key(a["end"])


def _source_bytes(text: str) -> Optional[bytes]:
    """The bytes a file holding `text` would have (in the encoding its coding comment declares),
    so that it is checked exactly as on disk; None if `text` cannot be written that way."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(text.encode("utf-8")).readline)
        raw = text.encode(encoding)
        return raw if decode_source(raw)[0] == text else None
    except (SyntaxError, LookupError, UnicodeError, UndecodableSource):
        return None


# In the worker process: each open document's analysis, which analyses a new version only where
# it changed (the documents checked last are kept).
_ANALYSES: OrderedDict = OrderedDict()
_ANALYSES_KEPT = 32


def _lint(text: str, name: str, settings: Settings) -> RunSummary:
    from gradlint.runner import check_stdin

    raw = _source_bytes(text)
    return check_stdin(raw if raw is not None else text, name, settings, analyse=_analysis_of(name))


def _analysis_of(name: str) -> Any:
    from gradlint.incremental import IncrementalAnalysis

    return _kept(_ANALYSES, name, IncrementalAnalysis, _ANALYSES_KEPT)


# In the fix-all worker: what the fix of each document's last version found (the trees of its
# statements take more room than findings: fewer documents are kept).
_FIX_MEMORIES: OrderedDict = OrderedDict()
_FIX_MEMORIES_KEPT = 8


def _fix_memory_of(name: str) -> Any:
    from gradlint.fix.memory import FixMemory

    return _kept(_FIX_MEMORIES, name, FixMemory, _FIX_MEMORIES_KEPT)


def _kept(kept: OrderedDict, name: str, new: Callable[[], Any], most: int) -> Any:
    """`kept[name]`, made with `new` when missing, as the last used; past `most`, the least
    recently used go."""
    value = kept.pop(name, None) or new()
    kept[name] = value
    while len(kept) > most:
        kept.popitem(last=False)
    return value


def _fixed(text: str, name: str, settings: Settings, note: Callable[[str], None] = lambda _: None) -> Optional[str]:
    """The text after `gradlint fix` (safe fixes only); None when it cannot be fixed. `note` hears
    why the fix kept something (an import other files of the project use)."""
    from gradlint.runner import fix_stdin

    raw = _source_bytes(text)
    result = fix_stdin(raw if raw is not None else text, name, settings, unsafe=False, memory=_fix_memory_of(name))
    if result.fixed is None or result.error is not None:
        return None
    if result.warning is not None:
        note(result.warning)
    return result.fixed if isinstance(result.fixed, str) else decode_source(result.fixed)[0]
