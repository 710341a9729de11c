"""The command-line options shared with ruff: `check --fix`, output files, settings and file
listings, verbose reasons, configuration on the command line, colour, quietness, `rule` and
`clean`."""

from __future__ import annotations

import json

from support import write

FIXABLE = "from torch.autograd import Variable\nx = Variable(t)\n"


# -- .git/info/exclude and the global excludes file (bug 17) ----------------------------------------


def test_git_info_exclude_is_honoured(run_cli, tmp_path):
    write(tmp_path / ".git" / "info" / "exclude", "# local\nscratch/\n")
    write(tmp_path / "scratch" / "a.py", FIXABLE)
    write(tmp_path / "src" / "b.py", FIXABLE)
    findings = json.loads(run_cli("check", "--output-format", "json", "src", ".").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "src" / "b.py")]
    write(tmp_path / "src" / ".gitignore", "!*.py\n")  # a .gitignore below overrides it, as in git
    write(tmp_path / ".git" / "info" / "exclude", "*.py\n")
    assert len(json.loads(run_cli("check", "--output-format", "json", "src").output)) == 1


def test_info_exclude_of_a_worktree_is_the_main_repositorys(run_cli, tmp_path):
    write(tmp_path / "main" / ".git" / "info" / "exclude", "scratch.py\n")
    write(tmp_path / "main" / ".git" / "worktrees" / "wt" / "commondir", "../..\n")
    write(tmp_path / "wt" / ".git", f"gitdir: {tmp_path / 'main' / '.git' / 'worktrees' / 'wt'}\n")
    write(tmp_path / "wt" / "scratch.py", FIXABLE)
    write(tmp_path / "wt" / "train.py", FIXABLE)
    findings = json.loads(run_cli("check", "--output-format", "json", "wt").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "wt" / "train.py")]


def test_global_excludes_file_is_honoured(run_cli, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    write(home / ".gitconfig", '[user]\n\tname = x\n[core]\n\texcludesFile = "~/global-ignore"\n')
    write(home / "global-ignore", "*_scratch.py\n")
    write(tmp_path / "repo" / ".git" / "HEAD", "ref: refs/heads/main\n")
    write(tmp_path / "repo" / "a_scratch.py", FIXABLE)
    write(tmp_path / "repo" / "train.py", FIXABLE)
    findings = json.loads(run_cli("check", "--output-format", "json", "repo").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "repo" / "train.py")]
    (home / ".gitconfig").unlink()
    write(home / ".config" / "git" / "ignore", "train.py\n")  # git's default global excludes file
    findings = json.loads(run_cli("check", "--output-format", "json", "repo").output)
    assert [finding["filename"] for finding in findings] == [str(tmp_path / "repo" / "a_scratch.py")]
