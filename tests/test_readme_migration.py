"""README's migration example: the "after" block is exactly what the complete migration writes
from the "before" block, and nothing is left to report on it."""

from __future__ import annotations

import re

from support import ROOT

HEADING = "### Migrating PyTorch 0.3 code"


def python_blocks(heading: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index(f"\n{heading}\n") + len(heading) + 2 :]
    following = re.search(r"^#{1,3} ", section, flags=re.MULTILINE)
    section = section[: following.start()] if following else section
    return re.findall(r"^```python\n(.*?)^```$", section, flags=re.MULTILINE | re.DOTALL)


def test_the_after_block_is_what_the_migration_writes(run_cli, tmp_path):
    before, after = python_blocks(HEADING)[:2]
    script = tmp_path / "train.py"
    script.write_text(before, encoding="utf-8")
    legacy = run_cli("check", "--select", "GL", "train.py")
    assert legacy.exit_code == 1 and "GL101" in legacy.stdout
    migration = run_cli("fix", "--migrate", "--unsafe-fixes", "train.py")
    assert migration.exit_code == 0, migration.output
    assert script.read_text(encoding="utf-8") == after
    assert run_cli("check", "--select", "GL", "train.py").exit_code == 0


def test_the_summary_shown_is_what_the_safe_migration_prints(run_cli, tmp_path):
    before = python_blocks("## Fixing")[0]
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = re.search(r"^```\n(Fixed \d+ errors?, .*?)^```$", text, flags=re.MULTILINE | re.DOTALL).group(1)
    (tmp_path / "train.py").write_text(before, encoding="utf-8")
    migration = run_cli("fix", "--migrate", "train.py")
    assert migration.exit_code == 1
    printed = migration.stdout
    assert printed[printed.index("Fixed ") :] == shown
