"""`gradlint fix --report FILE`: the migration report, in Markdown and JSON, for a project with a
file migrated whole and one with legacy constructs left, a file that does not parse, a notebook,
stdin and `--diff`; and the fixer's record of where each change sits in the file as it was read."""

from __future__ import annotations

import json
import textwrap

from gradlint.fix.plan import Applicability
from gradlint.fix.record import ChangeLog
from gradlint.model import Edit, Finding, Fix, Location
from gradlint.model.migration import ChangedLines
from gradlint.rules import presets

TRAIN = """\
import torch
import torch.nn as nn

model = nn.Linear(3, 2)
nn.init.normal(model.weight)
criterion = nn.MSELoss(size_average=False)
a = torch.Tensor(2, 3)
b = a.type(torch.DoubleTensor)
e = torch.symeig(a)
"""

HELPERS = """\
import torch.nn as nn


def clip(model):
    nn.utils.clip_grad_norm(model.parameters(), 1.0)
"""

EXPECTED_MARKDOWN = """\
# Migration report

Safe fixes only. The files were rewritten.

**4 changes made, 2 legacy constructs left, 0 files not migrated.**

A change's line counts in the file as it was read; a construct left, in the migrated file.

## `helpers.py`: migrated

### Changes made (1)

- Line 5: GL503 `renamed-api`: Rename to `clip_grad_norm_`

  ```diff
  -    nn.utils.clip_grad_norm(model.parameters(), 1.0)
  +    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
  ```

## `train.py`: partly migrated

### Changes made (3)

- Line 5: GL503 `renamed-api`: Rename to `normal_`

  ```diff
  -nn.init.normal(model.weight)
  +nn.init.normal_(model.weight)
  ```

- Line 6: GL504 `legacy-loss-reduction`: Replace with `reduction="sum"`

  ```diff
  -criterion = nn.MSELoss(size_average=False)
  +criterion = nn.MSELoss(reduction="sum")
  ```

- Line 7: GL507 `legacy-tensor-constructor`: Replace with `torch.empty(2, 3)`

  ```diff
  -a = torch.Tensor(2, 3)
  +a = torch.empty(2, 3)
  ```

### Left to decide (2)

- Line 8, column 5: GL507 `legacy-tensor-constructor`: `a.type(torch.DoubleTensor)` converts to a legacy tensor type \
(deprecated in torch 0.4); use `a.to(torch.float64)`
  - To decide (unsafe-fix): An unsafe fix is available (Replace with `a.to(torch.float64)`): it may change behaviour. \
Review it, then apply it with `--unsafe-fixes`, or rewrite the code by hand.

- Line 9, column 5: GL508 `legacy-linalg`: `torch.symeig` was removed in favour of `torch.linalg`: \
`torch.linalg.eigh(A, UPLO="U")` / `eigvalsh` (symeig read the upper triangle; linalg reads the lower by default) \
(removed in torch 1.13)
  - To decide (by-hand): No automatic fix: rewrite it by hand (`gradlint rule GL508` explains how).
"""

SUMMARY_END = "2 legacy constructs left; migration report: migration.md\n"


def project(tmp_path, **files: str):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")


def test_the_markdown_report_lists_each_change_and_what_is_left(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN, "helpers.py": HELPERS})
    result = run_cli("fix", "--migrate-api", "--report", "migration.md", ".")
    assert result.exit_code == 1
    assert (tmp_path / "migration.md").read_text(encoding="utf-8") == EXPECTED_MARKDOWN
    assert result.stdout.endswith("    1  GL508  legacy-linalg                  1 needs a person (no automatic fix)\n" + SUMMARY_END)
    assert "nn.init.normal_(model.weight)" in (tmp_path / "train.py").read_text(encoding="utf-8")


def test_without_report_the_summary_is_unchanged(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN, "helpers.py": HELPERS})
    result = run_cli("fix", "--migrate-api", ".")
    assert result.stdout.endswith("    1  GL508  legacy-linalg                  1 needs a person (no automatic fix)\n")
    assert not list(tmp_path.glob("*.md"))


def test_the_json_report_has_the_same_rows(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN, "helpers.py": HELPERS})
    result = run_cli("fix", "--migrate-api", "--report", "migration.json", ".")
    assert result.exit_code == 1
    report = json.loads((tmp_path / "migration.json").read_text(encoding="utf-8"))
    assert report["schema"] == 1 and report["written"] is True and report["unsafe_fixes"] is False
    assert report["rules"] == sorted(presets()["migrate-api"])
    assert report["summary"] == {"changes": 4, "left": 2, "files": {"migrated": 1, "partly-migrated": 1, "not-migrated": 0}}
    helpers, train = report["files"]
    assert (helpers["path"], helpers["status"], train["path"], train["status"]) == ("helpers.py", "migrated", "train.py", "partly-migrated")
    rows = [(c["rule"], c["name"], c["line"], c["column"], c["fix"], c["applicability"], c["lines"]) for c in train["changes"]]
    assert rows == [
        (
            "GL503",
            "renamed-api",
            5,
            1,
            "Rename to `normal_`",
            "safe",
            [_lines(5, "nn.init.normal(model.weight)", "nn.init.normal_(model.weight)")],
        ),
        (
            "GL504",
            "legacy-loss-reduction",
            6,
            13,
            'Replace with `reduction="sum"`',
            "safe",
            [_lines(6, "criterion = nn.MSELoss(size_average=False)", 'criterion = nn.MSELoss(reduction="sum")')],
        ),
        (
            "GL507",
            "legacy-tensor-constructor",
            7,
            5,
            "Replace with `torch.empty(2, 3)`",
            "safe",
            [_lines(7, "a = torch.Tensor(2, 3)", "a = torch.empty(2, 3)")],
        ),
    ]
    assert train["changes"][1]["message"].startswith("`size_average=False` is a legacy loss flag")
    left = [
        (item["rule"], item["line"], item["column"], item["end_line"], item["end_column"], item["decision"], item["fix"])
        for item in train["left"]
    ]
    assert left == [
        ("GL507", 8, 5, 8, 31, "unsafe-fix", {"applicability": "unsafe", "message": "Replace with `a.to(torch.float64)`"}),
        ("GL508", 9, 5, 9, 20, "by-hand", None),
    ]
    assert train["not_migrated"] is None and train["other_findings"] == 0


def _lines(row: int, before: str, after: str) -> dict:
    return {"cell": None, "line": row, "before": before + "\n", "after": after + "\n"}


def test_output_format_json_chooses_json_whatever_the_name(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN})
    result = run_cli("fix", "--migrate-api", "--output-format", "json", "--report", "report.txt", ".")
    assert json.loads((tmp_path / "report.txt").read_text(encoding="utf-8"))["summary"]["left"] == 2
    assert [finding["code"] for finding in json.loads(result.stdout)] == ["GL507", "GL508"]  # stdout stays the findings alone


def test_a_file_that_does_not_parse_is_listed_as_not_migrated(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN, "evaluate.py": 'print "evaluating"\n'})
    without = run_cli("fix", "--migrate-api", "--diff", ".")
    result = run_cli("fix", "--migrate-api", "--report", "migration.json", ".")
    report = json.loads((tmp_path / "migration.json").read_text(encoding="utf-8"))
    evaluate = report["files"][0]
    assert evaluate == {
        "path": "evaluate.py",
        "status": "not-migrated",
        "not_migrated": {
            "reason": "GL001 could not parse: Missing parentheses in call to 'print'. Did you mean print(...)?",
            "advice": "Make the file parse under Python 3 (`python -m py_compile` shows where it fails), then run the migration again.",
        },
        "changes": [],
        "left": [],
        "other_findings": 0,
    }
    assert report["summary"]["files"]["not-migrated"] == 1
    # GL001 is not selected by --migrate-api: the terminal shows what it showed without --report
    assert "GL001" not in result.stdout and without.exit_code == 1 and result.exit_code == 1
    assert result.stdout.endswith("2 legacy constructs left, 1 file not migrated; migration report: migration.json\n")


def test_a_file_that_does_not_parse_is_listed_when_gl001_is_selected_too(run_cli, tmp_path):
    project(tmp_path, **{"evaluate.py": 'print "evaluating"\n'})
    (tmp_path / "broken.py").write_bytes(b"# -*- coding: ascii -*-\nx = '\xff'\n")
    result = run_cli("fix", "--select", "GL001,GL002,GL503", "--report", "migration.md", ".")
    text = (tmp_path / "migration.md").read_text(encoding="utf-8")
    assert "## `broken.py`: not migrated\n\nNot migrated: GL002 could not decode" in text
    assert "## `evaluate.py`: not migrated\n\nNot migrated: GL001 could not parse" in text
    assert "**0 changes made, 0 legacy constructs left, 2 files not migrated.**" in text
    assert "GL001" in result.stdout  # selected: reported on the terminal as before


def test_diff_reports_what_would_change_and_writes_nothing(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN, "helpers.py": HELPERS})
    result = run_cli("fix", "--migrate-api", "--diff", "--report", "preview.json", ".")
    assert result.exit_code == 1
    assert (tmp_path / "train.py").read_text(encoding="utf-8") == TRAIN
    preview = json.loads((tmp_path / "preview.json").read_text(encoding="utf-8"))
    assert preview["written"] is False
    assert result.stderr.endswith("Would fix 4 errors.\n2 legacy constructs left; migration report: preview.json\n")
    run_cli("fix", "--migrate-api", "--report", "done.json", ".")
    done = json.loads((tmp_path / "done.json").read_text(encoding="utf-8"))
    assert [file["changes"] for file in preview["files"]] == [file["changes"] for file in done["files"]]
    assert [file["left"] for file in preview["files"]] == [file["left"] for file in done["files"]]


def test_diff_report_says_nothing_was_written(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN})
    run_cli("fix", "--migrate-api", "--diff", "--report", "preview.md", ".")
    text = (tmp_path / "preview.md").read_text(encoding="utf-8")
    assert "Safe fixes only. Nothing was written (`--diff`): these are the changes the migration would make." in text


def test_stdin_is_reported_under_its_name(run_cli, tmp_path):
    result = run_cli("fix", "--migrate-api", "--stdin-filename", "train.py", "--report", "r.json", "-", input=TRAIN)
    assert "nn.init.normal_(model.weight)" in result.stdout
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    (train,) = report["files"]
    assert (train["path"], len(train["changes"]), [item["rule"] for item in train["left"]]) == ("train.py", 3, ["GL507", "GL508"])
    assert result.stderr.endswith("2 legacy constructs left; migration report: r.json\n")


def test_stdin_with_diff_reports_too(run_cli, tmp_path):
    result = run_cli("fix", "--migrate-api", "--diff", "--report", "r.md", "-", input=TRAIN)
    assert result.stdout.startswith("--- a/-\n")
    assert "## `-`: partly migrated" in (tmp_path / "r.md").read_text(encoding="utf-8")


def notebook(*cells: str) -> str:
    def cell(source: str) -> dict:
        return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": source.splitlines(keepends=True)}

    document = {
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Training"]}, *(cell(source) for source in cells)],
        "metadata": {
            "kernelspec": {"language": "python", "name": "python3", "display_name": "Python 3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1)


def test_a_notebook_is_reported_cell_by_cell(run_cli, tmp_path):
    cells = (
        "import torch\nimport torch.nn as nn\n",
        "model = nn.Linear(3, 2)\nnn.init.normal(model.weight)\na = torch.Tensor(2, 3)\nb = a.type(torch.DoubleTensor)",
    )
    project(tmp_path, **{"train.ipynb": notebook(*cells)})
    run_cli("fix", "--migrate-api", "--report", "r.json", ".")
    (train,) = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["files"]
    assert [(c["rule"], c["cell"], c["line"], c["lines"][0]["cell"], c["lines"][0]["line"]) for c in train["changes"]] == [
        ("GL503", 3, 2, 3, 2),
        ("GL507", 3, 3, 3, 3),
    ]
    assert [(item["rule"], item["cell"], item["line"], item["column"]) for item in train["left"]] == [("GL507", 3, 4, 5)]
    run_cli("fix", "--migrate-api", "--diff", "--report", "r.md", ".")
    assert "- Cell 3, line 4, column 5: GL507 `legacy-tensor-constructor`" in (tmp_path / "r.md").read_text(encoding="utf-8")


def test_an_import_the_fixes_left_unused_is_a_change(run_cli, tmp_path):
    legacy = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.ones(2))\n"
    project(tmp_path, **{"train.py": legacy})
    run_cli("fix", "--migrate-variable", "--report", "r.json", ".")
    (train,) = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["files"]
    removal = [change for change in train["changes"] if change["rule"] is None]
    assert [(c["name"], c["line"], c["lines"]) for c in removal] == [
        ("unused-import", 2, [{"cell": None, "line": 2, "before": "from torch.autograd import Variable\n", "after": ""}])
    ]
    assert train["status"] == "migrated"


def test_a_report_cannot_overwrite_a_checked_file(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN})
    result = run_cli("fix", "--migrate-api", "--report", "train.py", ".")
    assert result.exit_code == 2 and "a report cannot be written to a file gradlint checks" in result.stderr
    assert (tmp_path / "train.py").read_text(encoding="utf-8") == TRAIN


def test_a_report_inside_the_checked_tree_is_not_checked_and_is_replaced_whole(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN})
    run_cli("fix", "--migrate-api", "--report", "reports/migration.json", ".")
    first = json.loads((tmp_path / "reports" / "migration.json").read_text(encoding="utf-8"))
    run_cli("fix", "--migrate-api", "--report", "reports/migration.json", ".")
    second = json.loads((tmp_path / "reports" / "migration.json").read_text(encoding="utf-8"))
    assert (first["summary"]["changes"], second["summary"]["changes"], second["summary"]["left"]) == (3, 0, 2)
    assert [file["path"] for file in second["files"]] == ["train.py"]
    assert sorted(path.name for path in (tmp_path / "reports").iterdir()) == ["migration.json"]  # no temporary file left


def test_nothing_to_migrate_still_writes_a_report(run_cli, tmp_path):
    project(tmp_path, **{"clean.py": "import torch\n\nx = torch.ones(2)\n"})
    result = run_cli("fix", "--migrate", "--report", "r.md", ".")
    assert result.exit_code == 0
    assert (tmp_path / "r.md").read_text(encoding="utf-8").endswith("Nothing to migrate.\n")
    assert result.stdout == "Fixed 0 errors, 0 remaining.\n0 legacy constructs left; migration report: r.md\n"


# -- the fixer's record: positions carried back through earlier rounds -------------------------


def finding(code: str, row: int, column: int, *edits: Edit) -> Finding:
    fix = Fix(Applicability.SAFE, f"fix of {code}", edits)
    return Finding(code, f"finding of {code}", "f.py", Location(row, column), Location(row, column + 1), fix)


def edit(start: int, end: int, content: str) -> Edit:
    return Edit(start, end, content, Location(1, 1), Location(1, 1))


def test_a_later_round_is_placed_in_the_file_as_read():
    original = "a\nb\nc\n"
    log = ChangeLog("f.py", original)
    log.record_round(original, [finding("GL1", 1, 1, edit(0, 0, "import x\n"))])
    after_first = "import x\na\nb\nc\n"
    log.record_round(after_first, [finding("GL2", 4, 1, edit(13, 14, "C"))])
    first, second = log.changes
    assert (first.location, first.lines) == (Location(1, 1), (ChangedLines(1, "a\n", "import x\na\n"),))
    assert (second.location, second.lines) == (Location(3, 1), (ChangedLines(3, "c\n", "C\n"),))


def test_a_change_inside_text_an_earlier_fix_wrote_is_placed_where_that_fix_was():
    original = "x = f(a)\n"
    log = ChangeLog("f.py", original)
    log.record_round(original, [finding("GL1", 1, 5, edit(4, 8, "g(a, b)"))])
    log.record_round("x = g(a, b)\n", [finding("GL2", 1, 9, edit(8, 9, "c"))])
    assert log.changes[1].location == Location(1, 5)


def test_edits_on_distant_lines_are_separate_blocks():
    original = textwrap.dedent("""\
        import os
        one = 1
        two = 2
        three = 3
    """)
    log = ChangeLog("f.py", original)
    log.record_round(original, [finding("GL1", 4, 1, edit(0, 0, "import torch\n"), edit(26, 31, "THREE"))])
    assert log.changes[0].lines == (
        ChangedLines(1, "import os\n", "import torch\nimport os\n"),
        ChangedLines(4, "three = 3\n", "THREE = 3\n"),
    )


MODEL = """\
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        nn.init.normal(self.fc.weight)

    def forward(self, x):
        extra = nn.Linear(2, 2)
        return extra(self.fc(x))
"""


def test_plain_fix_reports_the_migration_and_counts_the_other_findings(run_cli, tmp_path):
    layer_only = "import torch.nn as nn\n\n\nclass Head(nn.Module):\n    def forward(self, x):\n        return nn.Linear(2, 2)(x)\n"
    project(tmp_path, **{"model.py": MODEL, "head.py": layer_only})
    result = run_cli("fix", "--report", "r.json", ".")
    assert "GL708" in result.stdout and result.stdout.endswith("0 legacy constructs left; migration report: r.json\n")
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    # head.py has nothing to migrate: its GL708 finding is no reason to list it
    assert [(f["path"], f["status"], [c["rule"] for c in f["changes"]], f["left"], f["other_findings"]) for f in report["files"]] == [
        ("model.py", "migrated", ["GL503"], [], 1)
    ]


def test_a_line_of_a_block_an_earlier_fix_reindented_is_placed_on_its_own_line():
    original = "def f(x):\n    a = g(x)\n    b = h(a)\n"
    log = ChangeLog("f.py", original)
    wrapped = "    with torch.no_grad():\n        a = g(x)\n        b = h(a)\n"
    log.record_round(original, [finding("GL1", 2, 5, edit(10, len(original), wrapped))])
    after_first = "def f(x):\n" + wrapped
    position = after_first.index("h(a)")
    log.record_round(after_first, [finding("GL2", 4, 13, edit(position, position + 4, "k(a)"))])
    first, second = log.changes
    assert first.location == Location(2, 5)
    assert (second.location, second.lines) == (Location(3, 1), (ChangedLines(3, "        b = h(a)\n", "        b = k(a)\n"),))


def test_unsafe_fixes_are_marked_in_the_report(run_cli, tmp_path):
    project(tmp_path, **{"train.py": TRAIN})
    run_cli("fix", "--migrate-api", "--unsafe-fixes", "--report", "r.md", ".")
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "Safe and unsafe fixes (`--unsafe-fixes`). The files were rewritten." in text
    assert "- Line 8: GL507 `legacy-tensor-constructor`: Replace with `a.to(torch.float64)` (unsafe fix)\n" in text
    assert "**4 changes made, 1 legacy construct left, 0 files not migrated.**" in text
