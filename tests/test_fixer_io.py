"""Rewriting files: encoding, BOM, line endings, mode, idempotence, atomic and guarded writes."""

from __future__ import annotations

import os
import stat

import pytest

from gradlint.files import ChangedOnDisk, write_atomic
from gradlint.fix.apply import fix_text
from support import write

LEGACY = "from torch.autograd import Variable\nx = Variable(t)\nloss_sum = loss.data[0]\n"
MIGRATED = "x = t.detach()\nloss_sum = loss.item()\n"


@pytest.mark.parametrize(
    "raw, expected",
    [
        (LEGACY.encode(), MIGRATED.encode()),
        (LEGACY.replace("\n", "\r\n").encode(), MIGRATED.replace("\n", "\r\n").encode()),
        (b"\xef\xbb\xbf" + LEGACY.encode(), b"\xef\xbb\xbf" + MIGRATED.encode()),
        (
            ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + LEGACY).encode("latin-1"),
            ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + MIGRATED).encode("latin-1"),
        ),
        (LEGACY.rstrip("\n").encode(), MIGRATED.rstrip("\n").encode()),
    ],
    ids=["lf", "crlf", "bom", "latin-1-cookie", "no-final-newline"],
)
def test_fix_keeps_encoding_bom_and_line_endings(run_cli, tmp_path, raw, expected):
    path = write(tmp_path / "a.py", raw)
    result = run_cli("fix", "a.py")
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == expected
    # A second run changes nothing.
    assert run_cli("fix", "a.py").output.startswith("Fixed 0 errors")
    assert path.read_bytes() == expected


def test_fix_keeps_file_mode(run_cli, tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    path.chmod(0o751)
    run_cli("fix", "a.py")
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert not [p for p in tmp_path.iterdir() if p.name != "a.py"], "temporary file left behind"


def test_fix_through_symlink_rewrites_the_target(run_cli, tmp_path):
    target = write(tmp_path / "real" / "a.py", LEGACY)
    os.symlink(target, tmp_path / "link.py")
    run_cli("fix", "link.py")
    assert (tmp_path / "link.py").is_symlink()
    assert target.read_text() == MIGRATED


def test_write_refuses_a_file_changed_since_it_was_read(tmp_path):
    path = write(tmp_path / "a.py", LEGACY)
    original = path.read_bytes()
    path.write_text("edited by someone else\n")
    with pytest.raises(ChangedOnDisk):
        write_atomic(path, b"new", original)
    assert path.read_text() == "edited by someone else\n"


def test_fix_that_would_not_parse_leaves_the_file_untouched(monkeypatch):
    from gradlint.fix import apply as fixer

    real_apply = fixer.apply_edits
    monkeypatch.setattr(fixer, "apply_edits", lambda text, edits: real_apply(text, edits) + "def (:\n")
    result = fix_text(LEGACY, "a.py", frozenset({"GL101"}))
    assert result.text == LEGACY
    assert "produced invalid code" in result.error and "GL101" in result.error


def test_fix_text_is_idempotent_and_counts(tmp_path):
    first = fix_text(LEGACY, "a.py", frozenset({"GL101", "GL103"}))
    assert (first.text, first.applied, first.remaining) == (MIGRATED, 2, [])
    second = fix_text(first.text, "a.py", frozenset({"GL101", "GL103"}))
    assert (second.text, second.applied) == (MIGRATED, 0)


def test_unused_import_is_kept_when_a_use_remains():
    source = "from torch.autograd import Variable\nx = Variable(t)\ny = Variable(t)  # noqa: GL101\n"
    result = fix_text(source, "a.py", frozenset({"GL101"}))
    assert result.text == "from torch.autograd import Variable\nx = t.detach()\ny = Variable(t)  # noqa: GL101\n"


def test_other_names_of_the_import_are_kept():
    source = "from torch.autograd import (\n    grad,\n    Variable,\n)\nx = Variable(t)\n"
    result = fix_text(source, "a.py", frozenset({"GL101"}))
    assert "grad" in result.text and "Variable" not in result.text
    compile(result.text, "a.py", "exec")


def test_overlapping_fixes_are_applied_in_rounds():
    source = "from torch.autograd import Variable\nx = Variable(Variable(Variable(t)))\n"
    result = fix_text(source, "a.py", frozenset({"GL101"}))
    assert result.text == "x = t.detach()\n"  # the outer wrappers hold a value without history
    assert result.applied == 3


def test_unsafe_fixes_need_opt_in():
    from gradlint.model import UNSAFE
    from gradlint.fix.apply import choose_fixes
    from gradlint.model import Edit, Finding, Fix, Location

    at = Location(1, 1)
    finding = Finding("GL101", "m", "a.py", at, at, Fix(UNSAFE, "m", (Edit(0, 1, "y", at, at),)), 1)
    assert choose_fixes([finding], unsafe=False) == []
    assert choose_fixes([finding], unsafe=True) == [finding]


def test_fixes_that_break_the_code_only_together_name_every_rule_of_the_round(monkeypatch):
    """Each fix parses alone; the combination does not: the error names both rules."""
    from gradlint.fix import apply as fixer

    real_apply = fixer.apply_edits

    def breaks_when_combined(text, edits):
        edits = set(edits)
        result = real_apply(text, edits)
        return result + "def (:\n" if len({edit.content for edit in edits}) > 1 else result

    monkeypatch.setattr(fixer, "apply_edits", breaks_when_combined)
    result = fix_text(LEGACY, "a.py", frozenset({"GL101", "GL103"}))
    assert result.text == LEGACY
    assert "a fix by GL101, GL103 produced invalid code" in result.error


def test_an_import_inside_a_function_left_unused_is_removed():
    source = (
        "import torch\n\n"
        "def handle(inputs):\n"
        "    import math\n"
        "    from torch.autograd import Variable\n"
        "    return [Variable(torch.from_numpy(v)) for v in inputs]\n"
    )
    result = fix_text(source, "a.py", frozenset({"GL101"}))
    assert result.text == ("import torch\n\ndef handle(inputs):\n    import math\n    return [torch.from_numpy(v) for v in inputs]\n")


@pytest.mark.parametrize(
    "source",
    [
        # another function still reads the name (a module-level one, or its own import)
        "import torch\ndef f(t):\n    from torch.autograd import Variable\n    return Variable(t.clone())\n"
        "def g(t):\n    return Variable(t)  # noqa: GL101\n",
        # the import is the function's only statement: removing it would empty the block
        "def f():\n    from torch.autograd import Variable\n",
        # a class body's import is an attribute too (`self.Variable`)
        "class A:\n    from torch.autograd import Variable\n    def f(self, t):\n        return self.Variable(t)\n",
        # under an `if`: not a line the clean-up takes out of a block
        "import torch\ndef f(t, legacy):\n    if legacy:\n        from torch.autograd import Variable\n    return t\n",
    ],
    ids=["read-elsewhere", "only-statement", "class-body", "under-if"],
)
def test_an_import_inside_a_block_is_kept_where_removing_it_is_not_clear(source):
    result = fix_text(source, "a.py", frozenset({"GL101"}))
    assert "from torch.autograd import Variable" in result.text
    compile(result.text, "a.py", "exec")
