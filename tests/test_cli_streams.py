"""What goes to stdout and what to stderr: structured output always parses, summaries and
remaining findings go to stderr, errors are not contradicted by "All checks passed!"."""

from __future__ import annotations

import json

from support import write

FIXABLE = "from torch.autograd import Variable\nx = Variable(t)\n"
UNFIXABLE = "import torch\nx = torch.ones(2)\nx.cuda()\n"


def test_fix_json_output_is_valid_json_when_everything_was_fixed(run_script, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    result = run_script("fix", "--output-format", "json", "a.py")
    assert json.loads(result.stdout) == []
    assert b"Fixed 1 error" in result.stderr


def test_fix_json_output_is_valid_json_when_quiet(run_script, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    assert json.loads(run_script("fix", "-q", "--output-format", "json", "a.py").stdout) == []


def test_fix_json_output_lists_what_remains(run_script, tmp_path):
    write(tmp_path / "a.py", FIXABLE + UNFIXABLE)
    result = run_script("fix", "--output-format", "json", "a.py")
    assert [finding["code"] for finding in json.loads(result.stdout)] == ["GL610"]
    assert result.returncode == 1


def test_fix_diff_of_stdin_prints_a_diff_and_exits_one(run_script):
    result = run_script("fix", "--diff", "-", input=b"import torch\ny = loss.data[0]\n")
    assert result.returncode == 1
    assert result.stdout.decode().splitlines() == [
        "--- a/-",
        "+++ b/-",
        "@@ -1,2 +1,2 @@",
        " import torch",
        "-y = loss.data[0]",
        "+y = loss.item()",
    ]


def test_fix_diff_of_clean_stdin_prints_nothing_and_exits_zero(run_script):
    result = run_script("fix", "--diff", "-", input=b"import torch\n")
    assert (result.returncode, result.stdout) == (0, b"")


def test_fix_stdin_reports_what_remains_on_stderr(run_script):
    result = run_script("fix", "-", input=UNFIXABLE.encode())
    assert result.stdout == UNFIXABLE.encode()
    assert result.returncode == 1
    assert b"-:3:1: GL610" in result.stderr


def test_statistics_in_json(run_script, tmp_path):
    write(tmp_path / "a.py", FIXABLE + UNFIXABLE)
    rows = json.loads(run_script("check", "--statistics", "--output-format", "json", "a.py").stdout)
    assert rows == [
        {"code": "GL101", "name": "variable-call", "severity": "warning", "count": 1, "fixable": True, "fixable_count": 1},
        {"code": "GL610", "name": "discarded-tensor-result", "severity": "error", "count": 1, "fixable": False, "fixable_count": 0},
    ]


def test_missing_path_prints_only_the_error(run_script):
    result = run_script("check", "nonexist.py")
    assert result.returncode == 2
    assert result.stdout == b""
    assert b"nonexist.py: no such file or directory" in result.stderr


def test_missing_path_beside_findings_still_reports_them(run_script, tmp_path):
    write(tmp_path / "a.py", FIXABLE)
    result = run_script("check", "a.py", "nonexist.py")
    assert result.returncode == 2
    assert b"GL101" in result.stdout and b"Found 1 error (severity: 1 warning)." in result.stdout
