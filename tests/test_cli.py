"""The command line, in-process (click runner) and as the installed console script."""

from __future__ import annotations

import json
import re
import os
import pytest

from support import write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\n"
CLEAN = "import torch\nx = torch.zeros(3)\n"


def test_clean_tree_exits_zero(run_cli, tmp_path):
    write(tmp_path / "ok.py", CLEAN)
    result = run_cli("check", ".")
    assert result.exit_code == 0
    assert "All checks passed!" in result.output


def test_findings_exit_one_with_text_output(run_cli, tmp_path):
    write(tmp_path / "src" / "train.py", LEGACY)
    result = run_cli("check")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(f"src{os.sep}train.py:2:5: GL101 [*] ")
    assert "Found 1 error (severity: 1 warning)." in lines
    assert "[*] 1 fixable with `gradlint fix`." in lines


def test_exit_zero_forces_success(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    assert run_cli("check", "--exit-zero", ".").exit_code == 0


def test_concise_and_quiet(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    concise = run_cli("check", "--output-format", "concise", "a.py")
    assert concise.stdout.splitlines()[1:] == ["Found 1 error (severity: 1 warning).", "[*] 1 fixable with `gradlint fix`."]
    assert concise.stdout.splitlines()[0].startswith("a.py:2:5: GL101 [*] ")
    assert run_cli("check", "-q", "--output-format", "concise", "a.py").stdout.splitlines() == concise.stdout.splitlines()[:1]
    quiet = run_cli("check", "-q", "a.py")
    assert "Found" not in quiet.output and "GL101" in quiet.output


def test_json_output_fields(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    result = run_cli("check", "--output-format", "json", "a.py")
    assert result.exit_code == 1
    (finding,) = json.loads(result.output)
    assert finding["code"] == "GL101"
    assert finding["filename"] == str(path.resolve())
    assert finding["location"] == {"row": 2, "column": 5}
    assert finding["end_location"] == {"row": 2, "column": 16}
    assert finding["noqa_row"] == 2
    assert finding["url"].endswith("rules/GL101.md")
    fix = finding["fix"]
    assert fix["applicability"] == "safe"
    assert fix["edits"] == [{"content": "t.detach()", "location": {"row": 2, "column": 5}, "end_location": {"row": 2, "column": 16}}]


def test_json_fix_is_null_without_fix(run_cli, tmp_path):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(t, volatile=True, requires_grad=True)\n")
    findings = json.loads(run_cli("check", "--output-format", "json", "a.py").output)
    assert {f["code"] for f in findings} == {"GL101", "GL102"}
    assert all(f["fix"] is None for f in findings)


def test_github_output(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    result = run_cli("check", "--output-format", "github", "a.py")
    assert result.output.startswith("::warning title=gradlint (GL101),file=a.py,line=2,col=5,endLine=2,endColumn=16::GL101 ")


def test_statistics(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY + "y = Variable(u)\n")
    result = run_cli("check", "--statistics", "a.py")
    assert result.output.splitlines() == [
        "    2\tGL101\twarning\t[*] variable-call",
        "Found 2 errors (severity: 2 warning).",
        "[*] 2 fixable with `gradlint fix`.",
    ]
    assert run_cli("check", "--statistics", "-q", "a.py").output.splitlines() == ["    2\tGL101\twarning\t[*] variable-call"]


@pytest.mark.parametrize(
    "options, expected",
    [
        ((), {"GL101", "GL102"}),
        (("--select", "GL102"), {"GL102"}),
        (("--select", "GL10", "--ignore", "GL101"), {"GL102"}),
        (("--ignore", "GL1", "--extend-select", "GL101"), {"GL101"}),
        (("--select", "GL101,GL102"), {"GL101", "GL102"}),
    ],
)
def test_selection_by_prefix(run_cli, tmp_path, options, expected):
    write(tmp_path / "a.py", "from torch.autograd import Variable\nx = Variable(t, volatile=True)\n")
    result = run_cli("check", "--output-format", "json", *options, "a.py")
    assert {f["code"] for f in json.loads(result.output)} == expected


def test_unknown_code_is_a_usage_error(run_cli, tmp_path):
    write(tmp_path / "a.py", CLEAN)
    result = run_cli("check", "--select", "GL999", "a.py")
    assert result.exit_code == 2
    assert "GL999" in result.output


def test_noqa_comments(run_cli, tmp_path):
    source = (
        "from torch.autograd import Variable\n"
        "a = Variable(t)  # noqa: GL101\n"
        "b = Variable(t)  # noqa\n"
        "c = Variable(t)  # noqa: GL103\n"
        "d = Variable(t, volatile=True)  # noqa: GL101, GL102\n"
    )
    write(tmp_path / "a.py", source)
    findings = json.loads(run_cli("check", "--output-format", "json", "a.py").output)
    assert [(f["code"], f["location"]["row"]) for f in findings] == [("GL101", 4)]


def test_file_level_noqa(run_cli, tmp_path):
    write(tmp_path / "a.py", "# gradlint: noqa\n" + LEGACY)
    assert run_cli("check", "a.py").exit_code == 0


def test_pyproject_config_and_per_file_ignores(run_cli, tmp_path):
    write(
        tmp_path / "pyproject.toml",
        '[tool.gradlint]\nignore = ["GL102"]\nextend-exclude = ["vendored/"]\n[tool.gradlint.per-file-ignores]\n"tests/*" = ["GL101"]\n',
    )
    legacy = "from torch.autograd import Variable\nx = Variable(t, volatile=True)\n"
    write(tmp_path / "src" / "a.py", legacy)
    write(tmp_path / "tests" / "test_a.py", legacy)
    write(tmp_path / "vendored" / "v.py", legacy)
    findings = json.loads(run_cli("check", "--output-format", "json").output)
    assert sorted((os.path.relpath(f["filename"], tmp_path), f["code"]) for f in findings) == [(os.path.join("src", "a.py"), "GL101")]
    # An excluded file named explicitly is still checked.
    assert run_cli("check", "vendored/v.py").exit_code == 1


def test_config_found_from_a_subdirectory(run_cli, tmp_path, monkeypatch):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nselect = ["GL102"]\n')
    write(tmp_path / "pkg" / "a.py", LEGACY)
    monkeypatch.chdir(tmp_path / "pkg")
    assert run_cli("check", "a.py").exit_code == 0


@pytest.mark.parametrize(
    "config, message",
    [
        ('[tool.gradlint]\nselct = ["GL1"]\n', "unknown key `selct`"),
        ('[tool.gradlint]\nselect = ["GL777"]\n', "unknown rule selector `GL777`"),
        ('[tool.gradlint]\nselect = "GL1" = 3\n', "invalid TOML"),
        ('[tool.gradlint]\nunsafe-fixes = "yes"\n', "must be true or false"),
        ('[tool.gradlint.per-file-ignores]\n"a.py" = ["XX1"]\n', "unknown rule selector `XX1`"),
        (b"[tool.gradlint]\nselect = ['GL\xff']\n", "not UTF-8 (byte 0xff at offset 29)"),
        ("tool = 5\n", "`tool` in"),
        ("[tool]\ngradlint = 5\n", "`tool.gradlint` in"),
        ("[tool]\ngradlint = ['GL1']\n", "`tool.gradlint` in"),
    ],
)
def test_config_errors_exit_two_and_name_the_problem(run_cli, tmp_path, config, message):
    write(tmp_path / "pyproject.toml", config)
    write(tmp_path / "a.py", CLEAN)
    for options in ([], ["--config", "pyproject.toml"]):
        result = run_cli("check", *options, "a.py")
        assert result.exit_code == 2
        (line,) = result.output.splitlines()
        assert line.startswith("gradlint: error: ") and message in line and "internal error" not in line


def test_explicit_config_file(run_cli, tmp_path):
    write(tmp_path / "cfg" / "pyproject.toml", '[tool.gradlint]\nignore = ["GL101"]\n')
    write(tmp_path / "a.py", LEGACY)
    assert run_cli("check", "--config", "cfg/pyproject.toml", "a.py").exit_code == 0


def test_stdin(run_cli):
    result = run_cli("check", "--output-format", "json", "--stdin-filename", "model/train.py", "-", input=LEGACY)
    (finding,) = json.loads(result.output)
    assert finding["filename"].endswith(os.path.join("model", "train.py"))
    assert result.exit_code == 1


def test_gitignore_and_default_excludes_are_honoured(run_cli, tmp_path):
    write(tmp_path / ".gitignore", "generated/\n*_pb2.py\n")
    write(tmp_path / "generated" / "g.py", LEGACY)
    write(tmp_path / "proto_pb2.py", LEGACY)
    write(tmp_path / ".venv" / "lib" / "x.py", LEGACY)
    write(tmp_path / "pkg" / ".gitignore", "local.py\n")
    write(tmp_path / "pkg" / "local.py", LEGACY)
    write(tmp_path / "pkg" / "kept.py", LEGACY)
    write(tmp_path / "stubs.pyi", LEGACY)
    findings = json.loads(run_cli("check", "--output-format", "json").output)
    assert sorted(os.path.relpath(f["filename"], tmp_path) for f in findings) == [os.path.join("pkg", "kept.py"), "stubs.pyi"]


def test_github_annotations_name_files_from_the_repository_root(run_cli, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "ml" / "src" / "train.py", LEGACY)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(tmp_path / "ml")
    from_git_root = run_cli("check", "--output-format", "github", "src").output
    assert "file=ml/src/train.py,line=2" in from_git_root
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "ml"))
    assert "file=src/train.py,line=2" in run_cli("check", "--output-format", "github", "src").output


def test_each_file_follows_its_nearest_configuration(run_cli, tmp_path):
    """A monorepo: `ml/pyproject.toml` holds per-file-ignores and its own select; the root has none."""
    write(tmp_path / "pyproject.toml", '[project]\nname = "mono"\n')
    write(
        tmp_path / "ml" / "pyproject.toml", '[tool.gradlint]\nignore = ["GL103"]\n[tool.gradlint.per-file-ignores]\n"tests/*" = ["GL101"]\n'
    )
    source = LEGACY + "y = loss.data[0]\n"
    for name in ("ml/tests/test_a.py", "ml/b.py", "app/c.py"):
        write(tmp_path / name, source)

    def found(*args):
        findings = json.loads(run_cli("check", "--output-format", "json", *args).output)
        return sorted((os.path.relpath(f["filename"], tmp_path).replace(os.sep, "/"), f["code"]) for f in findings)

    nested = [("app/c.py", "GL101"), ("app/c.py", "GL103"), ("ml/b.py", "GL101")]
    assert found() == nested
    assert found("ml/tests/test_a.py", "ml/b.py", "app/c.py") == nested
    assert found("--select", "GL103") == [("app/c.py", "GL103")]  # options apply on top of each configuration
    given = found("--config", "ml/pyproject.toml")  # one configuration for every file
    assert given == [("app/c.py", "GL101"), ("ml/b.py", "GL101")]


def test_a_sub_projects_excludes_hold_when_the_run_starts_above_it(run_cli, tmp_path):
    """ruff's rule: each path is judged by its own nearest configuration, whatever directory the run
    starts from, for a walk and for the files pre-commit names with `--force-exclude`."""
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["scratch/"]\n')
    write(tmp_path / "ml" / "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["generated/", "legacy_*.py"]\n')
    for name in ("ml/generated/model.py", "ml/legacy_net.py", "ml/train.py", "ml/scratch/t.py", "app/legacy_net.py", "scratch/t.py"):
        write(tmp_path / name, LEGACY)

    def checked(*args, cwd=tmp_path):
        os.chdir(cwd)
        findings = json.loads(run_cli("check", "--output-format", "json", *args).output)
        return sorted({os.path.relpath(os.path.join(cwd, f["filename"]), tmp_path).replace(os.sep, "/") for f in findings})

    expected = ["app/legacy_net.py", "ml/scratch/t.py", "ml/train.py"]  # `scratch/` is the root's pattern, not ml's
    assert checked() == expected
    assert checked(".", cwd=tmp_path / "ml") == ["ml/scratch/t.py", "ml/train.py"]
    named = ["ml/generated/model.py", "ml/legacy_net.py", "ml/train.py", "app/legacy_net.py", "scratch/t.py"]
    assert checked("--force-exclude", *named) == ["app/legacy_net.py", "ml/train.py"]


def test_a_directory_named_explicitly_is_checked_even_when_excluded_or_ignored(run_cli, tmp_path):
    write(tmp_path / ".gitignore", "generated/\n*_pb2.py\n")
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["vendored/"]\n')
    for folder in ("build", "generated", "vendored"):
        write(tmp_path / folder / "train.py", LEGACY)
    write(tmp_path / "generated" / "proto_pb2.py", LEGACY)  # still ignored below the named directory
    write(tmp_path / "build" / ".venv" / "x.py", LEGACY)  # still excluded below the named directory

    def checked(*args):
        findings = json.loads(run_cli("check", "--output-format", "json", *args).stdout)
        return sorted(os.path.relpath(f["filename"], tmp_path) for f in findings)

    assert checked() == []
    for folder in ("build", "generated", "vendored"):
        assert checked(f"{folder}/") == [os.path.join(folder, "train.py")]
        assert checked("--force-exclude", folder) == []


def test_syntax_error_python2_and_undecodable_files_are_findings(run_cli, tmp_path):
    write(tmp_path / "broken.py", "from torch.autograd import Variable\ndef f(:\n    pass\n")
    write(tmp_path / "py2.py", 'import torch\nprint "loss", loss.data[0]\n')
    write(tmp_path / "latin.py", "# caf\xe9\nfrom torch.autograd import Variable\n".encode("latin-1"))
    write(tmp_path / "empty.py", "")
    write(tmp_path / "good.py", LEGACY)
    result = run_cli("check", "--output-format", "json", ".")
    findings = {(os.path.basename(f["filename"]), f["code"]) for f in json.loads(result.output)}
    assert findings == {("broken.py", "GL001"), ("py2.py", "GL001"), ("latin.py", "GL002"), ("good.py", "GL101")}
    assert result.exit_code == 1
    text = run_cli("check", "py2.py").output
    assert "py2.py:2:1: GL001 could not parse: Missing parentheses in call to 'print'" in text


def test_missing_path_exits_two_but_other_files_are_checked(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    result = run_cli("check", "--output-format", "concise", "nope.py", "a.py")
    assert result.exit_code == 2
    assert "nope.py: no such file or directory" in result.output
    assert "GL101" in result.output


def test_fix_writes_and_reports(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY + "y = Variable(u, volatile=True, requires_grad=True)\n")
    result = run_cli("fix", "a.py")
    assert path.read_text() == "from torch.autograd import Variable\nx = t.detach()\ny = Variable(u, volatile=True, requires_grad=True)\n"
    assert "Fixed 1 error, 2 remaining:" in result.output
    assert result.exit_code == 1


def test_fix_summary_says_what_each_remaining_rule_needs(run_cli, tmp_path):
    write(tmp_path / "a.py", LEGACY + "y = Variable(u, volatile=True, requires_grad=True)\n")
    write(tmp_path / "b.py", "import torch\nloss = torch.ones(())\nprint(loss.data[0])\n")
    result = run_cli("fix", "--select", "GL102,GL103", "--output-format", "json", ".")
    assert json.loads(result.stdout)  # the summary stays off a machine-read stream
    rows = [line.split() for line in result.stderr.splitlines()[1:]]
    assert result.stderr.splitlines()[0] == "Fixed 1 error, 1 remaining:"
    assert rows == [["1", "GL102", "volatile-flag", "1", "needs", "a", "person", "(no", "automatic", "fix)"]]


def test_fix_summary_points_to_unsafe_fixes(run_cli, tmp_path):
    write(tmp_path / "a.py", "import torch\nfor x in xs:\n    loss = model(x)\n    loss.backward()\n    opt.step()\n")
    result = run_cli("fix", "a.py")
    assert "Fixed 0 errors, 1 remaining:" in result.output
    assert "GL201  missing-zero-grad" in result.output
    assert "1 fixable with `--unsafe-fixes` (review them)" in result.output


def test_fix_diff_writes_nothing(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    result = run_cli("fix", "--diff", "a.py")
    assert result.exit_code == 1
    assert "+x = t.detach()" in result.output and "-from torch.autograd import Variable" in result.output
    assert path.read_text() == LEGACY
    clean = write(tmp_path / "b.py", CLEAN)
    assert run_cli("fix", "--diff", str(clean)).exit_code == 0


def test_fix_migrate_variable_selects_only_migration_rules(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY + "total += loss.data[0]\n")
    result = run_cli("fix", "--migrate-variable", "a.py")
    assert path.read_text() == "x = t.detach()\ntotal += loss.item()\n"
    assert "Fixed 2 errors, 0 remaining." in result.output
    assert result.exit_code == 0


DATA_LEGACY = "import torch\nw = torch.zeros(3, requires_grad=True)\nw.data.mul_(2)\ny = w.data\n"


def test_fix_migrate_data_selects_only_data_rules(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY + DATA_LEGACY)
    result = run_cli("fix", "--migrate-data", "a.py")
    text = path.read_text()
    assert "Variable(t)" in text, "GL101 is not part of --migrate-data"
    assert "with torch.no_grad():\n    w.mul_(2)\n" in text and "y = w.detach()\n" in text
    assert result.exit_code == 0 and "0 remaining" in result.output


RENAMED_LEGACY = "import torch\nfrom torch.nn import init\ninit.xavier_uniform(w)\n"


def test_fix_migrate_api_renames_apis_and_leaves_other_migrations(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY + RENAMED_LEGACY)
    result = run_cli("fix", "--migrate-api", "a.py")
    text = path.read_text()
    assert "Variable(t)" in text, "GL101 is not part of --migrate-api"
    assert "init.xavier_uniform_(w)\n" in text
    assert result.exit_code == 0, result.output


def test_fix_migrate_selects_every_migration_rule(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY + DATA_LEGACY)
    result = run_cli("fix", "--migrate", "a.py")
    text = path.read_text()
    assert "Variable" not in text and ".data" not in text
    assert result.exit_code == 0, result.output


def test_fix_stdin_prints_fixed_source(run_cli):
    result = run_cli("fix", "-", input=LEGACY)
    assert result.output == "x = t.detach()\n"


def test_rules_listing(run_cli):
    text = run_cli("rules").output
    assert "GL101  variable-call" in text
    lines = text.splitlines()
    assert len({line.index(" fix: ") for line in lines}) == 1  # the columns line up, however long a name
    assert len({re.search(r" fix: \S+(?: \S+)*  +(\S)", line).start(1) for line in lines}) == 1
    rows = json.loads(run_cli("rules", "--output-format", "json").output)
    assert {
        "code": "GL103",
        "name": "legacy-scalar-index",
        "severity": "error",
        "summary": rows[[r["code"] for r in rows].index("GL103")]["summary"],
        "fix": "safe or unsafe",
    } in rows


def test_console_script_end_to_end(run_script, tmp_path):
    write(tmp_path / "a.py", LEGACY)
    result = run_script("check", "--output-format", "json", ".")
    assert result.returncode == 1
    assert json.loads(result.stdout)[0]["code"] == "GL101"
    assert run_script("check", "--select", "GL999").returncode == 2
    fixed = run_script("fix", ".")
    assert fixed.returncode == 0, fixed.stderr
    assert (tmp_path / "a.py").read_text() == "x = t.detach()\n"
    assert run_script("check", ".").returncode == 0


def test_console_script_reads_stdin(run_script):
    result = run_script("check", "-", "--output-format", "concise", input=LEGACY.encode())
    assert result.returncode == 1
    assert result.stdout.decode().startswith("-:2:5: GL101")


def test_unreadable_paths_are_reported_and_run_goes_on(run_script, tmp_path, monkeypatch):
    (tmp_path / "dir.py").mkdir()
    os.mkfifo(tmp_path / "pipe.py")
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    write(tmp_path / "a.py", LEGACY)
    result = run_script("check", "--output-format", "concise", "dir.py/", "pipe.py", "dangling.py", "a.py")
    assert result.returncode == 2
    stderr = result.stderr.decode()
    assert "pipe.py: not a regular file" in stderr
    assert "dangling.py: broken symbolic link" in stderr
    assert "Traceback" not in stderr
    assert b"a.py:2:5: GL101" in result.stdout


def test_permission_denied_is_one_line(run_cli, tmp_path, monkeypatch):
    import builtins

    write(tmp_path / "secret.py", LEGACY)
    write(tmp_path / "a.py", LEGACY)
    real_open = builtins.open

    def guarded_open(file, *args, **kwargs):
        if str(file).endswith("secret.py"):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    result = run_cli("check", "--output-format", "concise", "secret.py", "a.py")
    assert result.exit_code == 2
    assert "secret.py: permission denied" in result.output
    assert "a.py:2:5: GL101" in result.output


def test_force_exclude_applies_exclude_to_named_files(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["generated/", "old_*.py"]\n')
    excluded = [write(tmp_path / "generated" / "a.py", LEGACY), write(tmp_path / "old_b.py", LEGACY)]
    kept = write(tmp_path / "src" / "c.py", LEGACY)
    named = [str(path.relative_to(tmp_path)) for path in [*excluded, kept]]
    plain = run_cli("check", "--output-format", "concise", *named).output
    assert all(name in plain for name in named)  # named explicitly: checked by default
    forced = run_cli("check", "--output-format", "concise", "-q", "--force-exclude", *named)
    assert forced.exit_code == 1
    assert [line.split(":")[0] for line in forced.output.splitlines()] == [named[2]]
    fixed = run_cli("fix", "--force-exclude", *named)
    assert fixed.exit_code == 0
    assert [path.read_text() for path in excluded] == [LEGACY, LEGACY] and kept.read_text() != LEGACY
    stdin = run_cli("check", "--force-exclude", "-", "--stdin-filename", named[0], input=LEGACY)
    assert stdin.exit_code == 0 and "GL101" not in stdin.output
    stdin_fix = run_cli("fix", "--force-exclude", "-", "--stdin-filename", named[0], input=LEGACY)
    assert stdin_fix.output == LEGACY


def test_force_exclude_from_the_configuration(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\nextend-exclude = ["generated/"]\nforce-exclude = true\n')
    write(tmp_path / "generated" / "a.py", LEGACY)
    assert run_cli("check", "generated/a.py").exit_code == 0
    assert run_cli("check", "--no-force-exclude", "generated/a.py").exit_code == 1


def test_per_file_ignores_apply_to_the_stdin_filename(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint.per-file-ignores]\n"legacy/*" = ["GL101"]\n')
    checked = run_cli("check", "-", "--stdin-filename", "legacy/a.py", input=LEGACY)
    assert checked.exit_code == 0
    assert run_cli("fix", "-", "--stdin-filename", "legacy/a.py", input=LEGACY).output == LEGACY
    assert run_cli("fix", "-", "--stdin-filename", "src/a.py", input=LEGACY).output == "x = t.detach()\n"


def test_fix_summary_names_the_fix_a_finding_waits_for(run_cli, tmp_path):
    write(
        tmp_path / "a.py",
        "from torch.autograd import Variable\n\n\ndef evaluate(model, x):\n    return model(Variable(x, volatile=True))\n",
    )
    result = run_cli("fix", "--select", "GL101,GL102", "a.py")
    assert "GL101  variable-call                  1 fixable once GL102's finding is fixed" in result.output
    assert "GL102  volatile-flag                  1 fixable with `--unsafe-fixes` (review them)" in result.output
