"""The language server's fix-all, computed after each check and answered from memory, is what
`gradlint fix` makes of the same text: over the bad.py of every rule's fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_server import LspSession, apply_lsp_edits, edits_of

from gradlint.config import Overrides, load_settings
from gradlint.fix.apply import fix_text
from gradlint.runner import stdin_codes, stdin_fixable, stdin_target_torch

ROOT = Path(__file__).resolve().parent.parent
BAD = sorted(ROOT.glob("fixtures/*/bad.py"))


def _text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:  # GL002's fixture: an editor cannot hold it as text
        return None


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    workspace = tmp_path_factory.mktemp("fix_all")
    session = LspSession(workspace)
    session.initialize(workspace)
    yield session, workspace
    session.stop()


def test_the_fixtures_are_there_and_many_have_safe_fixes():
    assert len(BAD) > 60
    texts = [text for text in map(_text, BAD) if text is not None]
    settings = load_settings(None, Overrides(isolated=True), cwd=ROOT)
    changed = sum(fix_text(text, "bad.py", settings.codes()).text != text for text in texts)
    assert changed > len(texts) / 3  # 32 of 68 when written


@pytest.mark.parametrize("bad", BAD, ids=[path.parent.name for path in BAD])
def test_fix_all_equals_fix_text(session, bad):
    session, workspace = session
    text = _text(bad)
    if text is None:
        assert bad.parent.name.startswith("GL002")
        return
    # An unsaved buffer at a path of its own: no configuration, no other file of a project.
    path = workspace / bad.parent.name / "bad.py"
    name = str(path)
    settings = load_settings(None, Overrides(isolated=True), cwd=workspace)
    expected = fix_text(
        text,
        name,
        stdin_codes(name, settings),
        target_torch=stdin_target_torch(name, settings),
        fixable=stdin_fixable(name, settings),
    ).text
    session.open(path, text)
    actions = session.code_actions(path, [], only=["source.fixAll"])
    assert bool(actions) == (expected != text)  # offered exactly when it changes something
    fixed = apply_lsp_edits(text, edits_of(actions[0], path.as_uri())) if actions else text
    assert fixed == expected
    session.notify("textDocument/didClose", {"textDocument": {"uri": path.as_uri()}})
    session.diagnostics(path.as_uri())
