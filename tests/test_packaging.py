"""The distribution: a free name on the package index, the licence it announces, project URLs,
an sdist without an incomplete test tree, and README install lines that work today."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from gradlint import __version__

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_distribution_name_is_not_the_unrelated_gradlint_on_pypi():
    assert PROJECT["name"] == "torch-gradlint"
    assert PROJECT["scripts"] == {"gradlint": "gradlint.cli:main"}
    assert metadata.distribution("torch-gradlint").read_text("entry_points.txt").count("gradlint.flake8_plugin:GradlintPlugin") == 1


def test_the_announced_licence_is_shipped():
    assert PROJECT["license"] == "MIT"
    assert PROJECT["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")


def test_project_urls_point_at_the_repository():
    assert set(PROJECT["urls"]) >= {"Homepage", "Repository", "Issues"}
    assert all(url.startswith("https://github.com/gradlint/gradlint") for url in PROJECT["urls"].values())


def test_the_sdist_leaves_out_the_tests_rather_than_shipping_them_incomplete():
    pruned = set(re.findall(r"^prune (\S+)$", (ROOT / "MANIFEST.in").read_text(encoding="utf-8"), re.MULTILINE))
    assert {"tests", "fixtures", "examples", "bench"} <= pruned


def test_readme_install_lines_pin_the_release_of_this_version():
    """The snippets users copy name the tag of this version, and the changelog says what the
    version brings (a clone need not carry tags, so the changelog is what the test reads)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    refs = re.findall(r"gradlint/gradlint@([\w.-]+)", readme) + re.findall(r"^\s+rev: (\S+)", readme, re.MULTILINE)
    tag = f"v{__version__}"
    assert refs and set(refs) == {tag}
    assert "pip install gradlint" not in readme
    assert re.search(rf'pip install "torch-gradlint @ git\+https://github\.com/gradlint/gradlint@{re.escape(tag)}"', readme)
    assert f"## {__version__} (" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_release_tag_is_made_on_the_commit_that_set_the_version(tmp_path):
    """`.ci/tag-release` (run by the release workflow on main) tags v<version> where the version was
    set, with the changelog's section as its message, and leaves an existing tag alone."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-tags", str(ROOT), str(clone)], check=True)
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    script = ROOT / ".ci" / "tag-release"
    (clone / ".ci" / "tag-release").write_bytes(script.read_bytes())  # the script as it is now
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    first = subprocess.run(["bash", str(clone / ".ci" / "tag-release")], capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    tag = f"v{__version__}"
    tagged = subprocess.run([*git, "rev-list", "-n", "1", tag], capture_output=True, text=True, check=True).stdout.strip()
    setter = subprocess.run(
        [*git, "log", "-1", "--format=%H", f'-S__version__ = "{__version__}"', "--", "gradlint/__init__.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert tagged == setter
    message = subprocess.run([*git, "tag", "-l", "--format=%(contents)", tag], capture_output=True, text=True, check=True).stdout
    section = re.search(
        rf"^## {re.escape(__version__)} \(.*?\n(.*?)(?=^## |\Z)", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.S | re.M
    )
    assert section and section.group(1).strip().splitlines()[0] in message
    again = subprocess.run(["bash", str(clone / ".ci" / "tag-release")], capture_output=True, text=True, env=env)
    assert again.returncode == 0 and again.stdout.strip() == f"{tag} exists"


def test_no_dependency_is_an_lsp_library():
    """The language server speaks the protocol itself: neither the package nor an extra needs pygls."""
    requirements = [*PROJECT["dependencies"], *(line for extra in PROJECT["optional-dependencies"].values() for line in extra)]
    assert len(requirements) > 5
    assert [line for line in requirements if re.match(r"(pygls|lsprotocol|cattrs)\b", line)] == []
    assert PROJECT["optional-dependencies"]["lsp"] == []  # kept for the install lines that name it
