"""`gradlint server`: the client's settings (`initializationOptions`, `workspace/didChangeConfiguration`,
named as ruff's server names them) over the configuration files, and the configuration files of a
monorepo whose sub-project extends the root's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import readme_block, write
from test_server import LEGACY, TORCH_TRAINING, LspSession, codes

from gradlint.server_settings import ClientSettings, client_settings

FIX_ALL = "source.fixAll.gradlint"


def session_with(root: Path, options: object = None) -> LspSession:
    session = LspSession(root)
    params = {
        "processId": None,
        "rootUri": root.as_uri(),
        "capabilities": {},
        "workspaceFolders": [{"uri": root.as_uri(), "name": "root"}],
    }
    if options is not None:
        params["initializationOptions"] = options
    session.capabilities = session.request("initialize", params)["capabilities"]
    session.notify("initialized", {})
    return session


@pytest.fixture
def start(tmp_path):
    sessions: list[LspSession] = []

    def started(options: object = None) -> LspSession:
        sessions.append(session_with(tmp_path, options))
        return sessions[-1]

    yield started
    for session in sessions:
        session.stop()


@pytest.mark.parametrize(
    "options, expected",
    [
        (None, ["GL101", "GL103"]),
        ({"settings": {"lint": {"select": ["GL103"]}}}, ["GL103"]),
        ({"settings": {"lint": {"ignore": ["GL103"]}}}, ["GL101"]),
        ({"settings": {"lint": {"select": ["GL101"], "extendSelect": ["GL103"]}}}, ["GL101", "GL103"]),
        ({"lint": {"select": ["GL1"], "ignore": ["GL101"]}}, ["GL103"]),  # the settings themselves
        ({"settings": {"configuration": {"lint": {"ignore": ["GL101"]}}}}, ["GL103"]),  # inline configuration
    ],
)
def test_initialization_options_select_and_ignore(start, tmp_path, options, expected):
    path = write(tmp_path / "train.py", LEGACY)
    assert codes(start(options).open(path, LEGACY)) == expected


def test_editor_settings_apply_over_the_configuration_file(start, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nselect = ["GL101"]\n\n[tool.gradlint.per-file-ignores]\n"scripts/*" = ["GL103"]\n')
    server = start({"settings": {"lint": {"select": ["GL1"]}}})
    assert codes(server.open(write(tmp_path / "train.py", LEGACY), LEGACY)) == ["GL101", "GL103"]  # the editor's select
    assert codes(server.open(write(tmp_path / "scripts" / "run.py", LEGACY), LEGACY)) == ["GL101"]  # the file's per-file-ignores


@pytest.mark.parametrize(
    "preference, expected",
    [
        ("editorFirst", {"train.py": ["GL103"], "scripts/run.py": ["GL103"]}),  # the editor's settings win
        ("filesystemFirst", {"train.py": ["GL101"], "scripts/run.py": []}),  # the file's win; the editor's fill in
        ("editorOnly", {"train.py": ["GL103"], "scripts/run.py": ["GL103"]}),  # the file is not read
    ],
)
def test_configuration_preference(start, tmp_path, preference, expected):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nselect = ["GL101"]\n')
    editor = {"lint": {"select": ["GL103"]}, "configuration": {"per-file-ignores": {"scripts/*": ["GL101"]}}}
    server = start({"settings": {**editor, "configurationPreference": preference}})
    assert {name: codes(server.open(write(tmp_path / name, LEGACY), LEGACY)) for name in expected} == expected


def test_configuration_names_a_file_for_every_document(start, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nignore = ["GL103"]\n')
    settings = write(tmp_path / "editor" / "gradlint.toml", 'ignore = ["GL101"]\n')
    server = start({"settings": {"configuration": str(settings)}})
    assert codes(server.open(write(tmp_path / "train.py", LEGACY), LEGACY)) == ["GL103"]


def test_a_relative_configuration_path_is_the_workspace_folders(start, tmp_path):
    write(tmp_path / "editor" / "gradlint.toml", 'ignore = ["GL101"]\n')
    server = start({"settings": {"configuration": "editor/gradlint.toml"}})
    assert codes(server.open(write(tmp_path / "src" / "train.py", LEGACY), LEGACY)) == ["GL103"]


def test_did_change_configuration_rechecks_open_documents(start, tmp_path):
    server = start()
    path = write(tmp_path / "train.py", LEGACY)
    uri = path.as_uri()
    assert codes(server.open(path, LEGACY)) == ["GL101", "GL103"]
    server.notify("workspace/didChangeConfiguration", {"settings": {"gradlint": {"lint": {"ignore": ["GL103"]}}}})
    assert codes(server.diagnostics(uri)) == ["GL101"]
    server.notify("workspace/didChangeConfiguration", {"settings": {"settings": {"lint": {"select": ["GL103"]}}}})
    assert codes(server.diagnostics(uri)) == ["GL103"]
    server.notify("workspace/didChangeConfiguration", {"settings": None})  # no settings: the same ones
    assert codes(server.diagnostics(uri)) == ["GL103"]
    server.notify("workspace/didChangeConfiguration", {"settings": {"settings": {}}})  # empty: back to the files alone
    assert codes(server.diagnostics(uri)) == ["GL101", "GL103"]


def test_invalid_client_settings_are_logged_and_ignored(start, tmp_path):
    server = start({"settings": {"lint": {"select": ["GL999"], "ignore": "GL101"}, "fixAll": "yes", "configurationPreference": "mine"}})
    assert codes(server.open(write(tmp_path / "train.py", LEGACY), LEGACY)) == ["GL101", "GL103"]
    logged = "\n".join(server.log_messages())
    for part in ("GL999", "`lint.ignore` must be a list", "`fixAll` must be true or false", "`configurationPreference` must be one of"):
        assert part in logged, logged


@pytest.mark.parametrize("fix_all", [True, False])
def test_fix_all_false_disables_the_fix_all_action(start, tmp_path, fix_all):
    server = start({"settings": {"fixAll": fix_all}})
    path = write(tmp_path / "train.py", TORCH_TRAINING)
    diagnostics = server.open(path, TORCH_TRAINING)
    kinds = [action["kind"] for action in server.code_actions(path, diagnostics, only=[FIX_ALL])]
    assert kinds == ([FIX_ALL] if fix_all else [])
    assert any(action["kind"] == "quickfix" for action in server.code_actions(path, diagnostics))  # quick fixes stay


MONOREPO = {
    "pyproject.toml": '[tool.gradlint]\nignore = ["GL103"]\nextend-exclude = ["ml/generated/"]\n',
    "ml/gradlint.toml": 'extend = "../pyproject.toml"\n\n[per-file-ignores]\n"legacy/*" = ["GL101"]\n',
}


def test_monorepo_document_in_a_sub_project_follows_its_extending_configuration(start, tmp_path, run_cli, monkeypatch):
    for name, text in MONOREPO.items():
        write(tmp_path / name, text)
    files = ("train.py", "ml/train.py", "ml/legacy/old.py", "ml/generated/model.py")
    server = start()
    published = {name: codes(server.open(write(tmp_path / name, LEGACY), LEGACY)) for name in files}
    assert published == {"train.py": ["GL101"], "ml/train.py": ["GL101"], "ml/legacy/old.py": [], "ml/generated/model.py": []}
    monkeypatch.chdir(tmp_path)
    reported = {name: [] for name in files}
    for finding in json.loads(run_cli("check", "--no-cache", "--output-format", "json", ".").output):
        reported[Path(finding["filename"]).resolve().relative_to(tmp_path.resolve()).as_posix()].append(finding["code"])
    assert reported == published


def test_readme_settings_example_is_read_whole():
    settings, problems = client_settings(json.loads(readme_block("#### Settings", "json")))
    assert problems == []
    assert settings == ClientSettings(
        select=("GL",), extend_select=("GL303",), ignore=("GL201",), configuration="~/gradlint.toml", preference="editorFirst"
    )
    assert settings.configuration_file() == Path.home() / "gradlint.toml"
