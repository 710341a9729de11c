"""bench/recall.py on a few planted cases and a small legacy file: the report is well formed, a
found case counts as found, a finding off its marker counts as a false alarm, the independent scan
sorts `.data` uses as documented, and each command rewrites only its own section of the page."""

from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

from support import ROOT
from test_bench import assert_well_formed

spec = importlib.util.spec_from_file_location("bench_recall", ROOT / "bench" / "recall.py")
recall = importlib.util.module_from_spec(spec)
sys.modules["bench_recall"] = recall  # dataclasses look their module up while the class is built
spec.loader.exec_module(recall)

MARKER = "  # expect: GL401"


def planted_copy(tmp_path, *cases: str):
    """Copies of the named cases (`RULE/kind.py`) under tmp_path, laid out as bench/recall_cases."""
    for case in cases:
        target = tmp_path / case
        target.parent.mkdir(exist_ok=True)
        shutil.copy(recall.CASES / case, target)
    return tmp_path


def move_marker(path, to_line_containing: str) -> None:
    """Take the `# expect:` marker off its line and, if asked, put it on another."""
    lines = path.read_text().splitlines()
    lines = [line.replace(MARKER, "") for line in lines]
    if to_line_containing:
        index = next(i for i, line in enumerate(lines) if to_line_containing in line)
        lines[index] += MARKER
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    root = planted_copy(tmp_path_factory.mktemp("cases"), "GL401/base.py", "GL401/neg_item.py", "GL404/base.py")
    # A look-alike that is really the bug (its marker removed), and a bug whose marker sits on the wrong line.
    shutil.copy(root / "GL401" / "base.py", root / "GL401" / "neg_forced.py")
    move_marker(root / "GL401" / "neg_forced.py", "")
    shutil.copy(root / "GL401" / "base.py", root / "GL401" / "alias.py")
    move_marker(root / "GL401" / "alias.py", "optimizer.step()")
    return {o.case.path.relative_to(root).as_posix(): o for o in recall.check_planted(recall.load_cases(root))}


def test_a_reported_marker_counts_as_found(planted):
    assert planted["GL401/base.py"].found and planted["GL404/base.py"].found
    assert planted["GL401/base.py"].false_alarms == ()


def test_a_finding_on_a_look_alike_is_a_false_alarm(planted):
    assert planted["GL401/neg_item.py"].false_alarms == ()
    forced = planted["GL401/neg_forced.py"]
    assert not forced.found and len(forced.false_alarms) == 1 and forced.false_alarms[0][1] == "GL401"


def test_a_finding_off_its_marker_is_a_miss_and_a_false_alarm(planted):
    moved = planted["GL401/alias.py"]
    assert not moved.found and len(moved.missed) == 1 and len(moved.false_alarms) == 1


def test_the_planted_report_is_well_formed(planted):
    markdown = recall.planted_markdown(list(planted.values()))
    assert_well_formed(markdown)
    assert "| GL401 | 1/2 (50%) | 0/1 (0%) | 2 | 1 | 1 |" in markdown
    assert "| GL404 | 1/1 (100%) | - | 0 | 0 | 0 |" in markdown
    assert "`GL401/neg_forced.py`" in markdown


def test_every_planted_case_has_its_marker_and_every_kind_is_planted_for_every_rule():
    cases = recall.load_cases()
    assert all(case.expected for case in cases if not case.negative)
    assert all(not case.expected for case in cases if case.negative)
    assert {(case.rule, case.kind) for case in cases if not case.negative} == {
        (rule, kind) for rule in recall.FAMILIES for kind in recall.KINDS
    }


def test_running_a_case_shows_its_bug_and_a_look_alike_shows_none():
    cases = {f"{c.rule}/{c.kind}": c for c in recall.load_cases()}
    assert recall.observe(cases["GL404/helper"]).shows_bug
    assert recall.observe(cases["GL401/tuple"]).shows_bug
    assert not recall.observe(cases["GL401/neg_item"]).shows_bug


LEGACY = """\
import torch
import torch.utils.data
from torch.autograd import Variable


class Holder:
    def __init__(self, values):
        self.data = values


def train(model, loader, optimizer, args):
    for x in torch.utils.data.DataLoader(loader):
        out = model(Variable(x))
        loss = out.sum()
        print(loss.data[0], args.data)
        model.weight.data.clamp_(-1, 1)
        hidden = out.data
"""


def test_the_scan_sorts_data_uses_and_sets_evident_non_tensors_aside():
    uses = {(use.row, use.kind) for use in recall.scan(LEGACY, "train.py")}
    assert uses == {
        (8, "not a tensor: self.data"),
        (12, "not a tensor: module attribute"),
        (15, "scalar read"),
        (15, "not a tensor: args.data"),
        (16, "in-place"),
        (17, "read"),
    }


def test_a_use_is_reported_when_a_finding_overlaps_it():
    (read,) = [use for use in recall.scan(LEGACY, "train.py") if use.kind == "read"]

    def finding(start: int, end: int) -> dict:
        return {"location": {"row": 17, "column": start}, "end_location": {"row": 17, "column": end}}

    assert read.covered_by(finding(18, 26)) and read.covered_by(finding(9, 26))
    assert not read.covered_by(finding(9, 18)) and not read.covered_by(finding(26, 30))


def test_each_command_rewrites_only_its_own_section(tmp_path):
    page = tmp_path / "RECALL.md"
    page.write_text(f"# Recall\n\nWritten by hand.\n\n{recall.MARKER}\n")
    recall.write_section("legacy", "## Legacy corpus\n\nfirst\n", page)
    recall.write_section("planted", "## Planted bugs\n\nfirst\n", page)
    recall.write_section("legacy", "## Legacy corpus\n\nsecond\n", page)
    text = page.read_text()
    assert text.startswith("# Recall\n\nWritten by hand.\n\n")
    assert text.index("## Planted bugs") < text.index("## Legacy corpus")
    assert "second" in text and text.count("first") == 1
