"""`gradlint server`: a Language Server on stdin/stdout that publishes findings and offers fixes.

Each open Python document is checked as `gradlint check` checks its file (the settings of the
nearest configuration, per-file-ignores, `# noqa`), but on the editor's unsaved text.
"""

from __future__ import annotations

import io
import tokenize
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace.position_codec import PositionCodec

from gradlint import RULE_DOCS_URL, __version__
from gradlint.config import ConfigError, Overrides, Settings, find_config, load_settings
from gradlint.discovery import SOURCE_SUFFIXES, is_excluded
from gradlint.model import SAFE, Finding, Location
from gradlint.rules import severity_of
from gradlint.runner import RunSummary, check_stdin, fix_stdin
from gradlint.source import LineIndex, UndecodableSource, decode_source

QUICK_FIX = types.CodeActionKind.QuickFix.value
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.gradlint"
SOURCE = "gradlint"
SEVERITIES = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning}


@dataclass(frozen=True)
class CheckedDocument:
    """An open document as last checked: its text and what was found in it."""

    uri: str
    text: str
    name: str  # the file system path, or the URI of an unsaved document
    settings: Settings
    findings: tuple[Finding, ...]
    diagnostics: tuple[types.Diagnostic, ...]  # one per finding, in the same order


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
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.checked: dict[str, CheckedDocument] = {}
        self.shut_down = False
        self._logged: set[str] = set()

    def log(self, message: str, kind: types.MessageType = types.MessageType.Warning) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=f"gradlint: {message}"))

    def log_once(self, message: str) -> None:
        """Log a problem that every keystroke would otherwise repeat (a broken configuration)."""
        if message not in self._logged:
            self._logged.add(message)
            self.log(message)

    def check_and_publish(self, uri: str) -> None:
        version = None
        try:
            document = self.workspace.get_text_document(uri)
            version = document.version
            checked = self.check(uri, document.source, document.language_id)
        except Exception as error:  # a bug in one document's analysis must not stop the server
            self.log(
                f"internal error while checking {uri}: {type(error).__name__}: {error}\n{traceback.format_exc()}", types.MessageType.Error
            )
            checked = None
        if checked is not None:
            self.checked[uri] = checked
        else:
            self.checked.pop(uri, None)
        diagnostics = list(checked.diagnostics) if checked is not None else []
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))

    def check(self, uri: str, text: str, language_id: Optional[str]) -> Optional[CheckedDocument]:
        """None for a document gradlint does not check (not Python, or excluded)."""
        fs_path = to_fs_path(uri)
        path = Path(fs_path) if fs_path else None
        if not _is_python(path, language_id):
            return None
        settings = self.settings_for(path)
        if path is not None and is_excluded(path, settings):
            return None
        name = str(path) if path is not None else uri
        summary = _lint(text, name, settings)
        for _, reason in summary.errors + summary.warnings:
            self.log_once(f"{name}: {reason}")
        positions = Positions(text, self.workspace.position_codec)
        findings = tuple(summary.findings)
        diagnostics = tuple(_diagnostic(finding, positions) for finding in findings)
        return CheckedDocument(uri, text, name, settings, findings, diagnostics)

    def settings_for(self, path: Optional[Path]) -> Settings:
        """The settings of the nearest configuration above `path`; the defaults (rooted at the
        workspace folder) when there is none or when it is broken."""
        default = Settings(root=self.default_root(path))
        if path is None:
            return default
        try:
            config = find_config(path.parent.resolve())
            return load_settings(config, Overrides()) if config is not None else default
        except (ConfigError, OSError) as error:
            self.log_once(f"{error}; using the default settings")
            return default

    def default_root(self, path: Optional[Path]) -> Path:
        """Without a configuration, excludes are relative to the workspace folder (as to the
        current directory for `gradlint check`)."""
        folders = [to_fs_path(folder.uri) for folder in self.workspace.folders.values()]
        roots = [Path(folder).resolve() for folder in [*folders, self.workspace.root_path] if folder]
        if path is not None:
            resolved = path.resolve()
            containing = [root for root in roots if resolved.is_relative_to(root)]
            if containing:
                return max(containing, key=lambda root: len(root.parts))
            return resolved.parent
        return roots[0] if roots else Path.cwd()

    def code_actions(self, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        checked = self.checked.get(params.text_document.uri)
        if checked is None:
            return None
        only = params.context.only
        actions = []
        if _wanted(QUICK_FIX, only):
            fixable = [
                (finding, diagnostic)
                for finding, diagnostic in zip(checked.findings, checked.diagnostics)
                if finding.fix is not None and _overlaps(diagnostic.range, params.range)
            ]
            fixable.sort(key=lambda pair: pair[0].fix.applicability != SAFE)  # safe fixes first, as listed otherwise
            actions.extend(self.quick_fix(checked, finding, diagnostic) for finding, diagnostic in fixable)
        if _wanted(FIX_ALL, only) and any(finding.has_safe_fix for finding in checked.findings):
            fix_all = self.fix_all(checked)
            if fix_all is not None:
                actions.append(fix_all)
        return actions

    def quick_fix(self, checked: CheckedDocument, finding: Finding, diagnostic: types.Diagnostic) -> types.CodeAction:
        """Exactly the edits of one finding's fix; an unsafe fix says so in its title."""
        fix = finding.fix
        safe = fix.applicability == SAFE
        positions = Positions(checked.text, self.workspace.position_codec)
        edits = [
            types.TextEdit(
                range=types.Range(start=positions.at_offset(edit.start), end=positions.at_offset(edit.end)), new_text=edit.content
            )
            for edit in fix.edits
        ]
        return types.CodeAction(
            title=fix.message if safe else f"{fix.message} (unsafe)",
            kind=QUICK_FIX,
            diagnostics=[diagnostic],
            is_preferred=safe,
            edit=types.WorkspaceEdit(changes={checked.uri: edits}),
        )

    def fix_all(self, checked: CheckedDocument) -> Optional[types.CodeAction]:
        """The safe fixes of the whole document, as `gradlint fix` applies them, as one edit."""
        try:
            fixed = _fixed(
                checked.text, checked.name, checked.settings, lambda note: self.log(f"{checked.name}: {note}", types.MessageType.Info)
            )
        except Exception as error:
            self.log(f"internal error while fixing {checked.uri}: {type(error).__name__}: {error}", types.MessageType.Error)
            return None
        if fixed is None or fixed == checked.text:
            return None
        whole = Positions(checked.text, self.workspace.position_codec).whole()
        return types.CodeAction(
            title="gradlint: apply all safe fixes",
            kind=FIX_ALL,
            edit=types.WorkspaceEdit(changes={checked.uri: [types.TextEdit(range=whole, new_text=fixed)]}),
        )


def create_server() -> GradlintServer:
    server = GradlintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: GradlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.check_and_publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: GradlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.check_and_publish(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: GradlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.check_and_publish(params.text_document.uri)  # the configuration may have changed

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: GradlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.checked.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[]))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[QUICK_FIX, FIX_ALL]),
    )
    def code_action(ls: GradlintServer, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        return ls.code_actions(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: GradlintServer, params: None) -> None:
        ls.shut_down = True

    return server


def serve() -> None:
    """Serve on stdin/stdout until `exit`; exit code 0 only after a `shutdown` request (LSP)."""
    server = create_server()
    server.start_io()
    raise SystemExit(0 if server.shut_down else 1)


def _is_python(path: Optional[Path], language_id: Optional[str]) -> bool:
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
    raw = _source_bytes(text)
    return check_stdin(raw if raw is not None else text, name, settings)


def _fixed(text: str, name: str, settings: Settings, note: Callable[[str], None] = lambda _: None) -> Optional[str]:
    """The text after `gradlint fix` (safe fixes only); None when it cannot be fixed. `note` hears
    why the fix kept something (an import other files of the project use)."""
    raw = _source_bytes(text)
    result = fix_stdin(raw if raw is not None else text, name, settings, unsafe=False)
    if result.fixed is None or result.error is not None:
        return None
    if result.warning is not None:
        note(result.warning)
    return result.fixed if isinstance(result.fixed, str) else decode_source(result.fixed)[0]
