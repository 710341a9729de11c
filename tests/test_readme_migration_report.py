"""README's "Migration report" section: its example is what `fix --migrate --report` writes for
the files it shows, and its table of JSON fields is the structure the JSON report has, field by
field and type by type, over reports that hold every kind of entry."""

from __future__ import annotations

import json
import re

from support import ROOT
from test_migration_report import HELPERS, TRAIN, notebook

HEADING = "### Migration report"

# The README's words for a field's type, and the JSON values each admits.
TYPES = {
    "int": (int,),
    "bool": (bool,),
    "string": (str,),
    "string or null": (str, type(None)),
    "int or null": (int, type(None)),
    "object": (dict,),
    "object or null": (dict, type(None)),
    "list of strings": (list,),
    "list": (list,),
}


def section() -> str:
    """The section's text, up to the next heading outside a code block."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text[text.index(f"\n{HEADING}\n") + 1 :].splitlines(keepends=True)
    fence, kept = None, [lines[0]]
    for line in lines[1:]:
        opening = re.match(r"^(`{3,})", line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.rstrip() == fence:
            fence = None
        elif fence is None and re.match(r"^#{1,3} ", line):
            break
        kept.append(line)
    return "".join(kept)


def blocks(kind: str, text: str) -> list[str]:
    """The bodies of the code blocks of `text` whose info string is `kind` ("" for none)."""
    found: list[str] = []
    fence, info, body = None, "", []
    for line in text.splitlines(keepends=True):
        opening = re.match(r"^(`{3,})(.*)$", line.rstrip("\n"))
        if fence is None and opening:
            fence, info, body = opening.group(1), opening.group(2), []
        elif fence is not None and line.rstrip("\n") == fence:
            if info == kind:
                found.append("".join(body))
            fence = None
        elif fence is not None:
            body.append(line)
    return found


def documented_fields() -> dict[str, tuple[type, ...]]:
    rows = re.findall(r"^\| `([^`]+)` \| ([^|]+) \|", section(), flags=re.MULTILINE)
    return {field: TYPES[kind.strip()] for field, kind in rows}


def test_the_example_report_is_what_the_migration_writes(run_cli, tmp_path):
    text = section()
    train, evaluate = blocks("python", text)
    (tmp_path / "train.py").write_text(train, encoding="utf-8")
    (tmp_path / "evaluate.py").write_text(evaluate, encoding="utf-8")
    result = run_cli("fix", "--migrate", "--report", "migration.md", ".")
    assert result.exit_code == 1
    (shown_report,) = blocks("markdown", text)
    assert (tmp_path / "migration.md").read_text(encoding="utf-8") == shown_report
    last_line = [block for block in blocks("", text) if "migration report:" in block]
    assert last_line == [result.stdout.splitlines(keepends=True)[-1]]


def fields_of(value, path: str = "") -> list[tuple[str, object]]:
    """Every (field path, value) of a JSON document, lists' items as `name[].field`."""
    found = [(path, value)] if path else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += fields_of(item, f"{path}.{key}" if path else key)
    elif isinstance(value, list):
        for item in value:
            found += [(child, inner) for child, inner in fields_of(item, f"{path}[]") if child != f"{path}[]"]
    return found


def test_the_json_report_has_the_documented_structure(run_cli, tmp_path):
    (tmp_path / "train.py").write_text(TRAIN, encoding="utf-8")
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "evaluate.py").write_text('print "evaluating"\n', encoding="utf-8")
    (tmp_path / "legacy.py").write_text(
        "from torch.autograd import Variable\nimport torch\n\nx = Variable(torch.ones(2))\n", encoding="utf-8"
    )
    (tmp_path / "train.ipynb").write_text(
        notebook("import torch\n", "a = torch.Tensor(2, 3)\nb = a.type(torch.DoubleTensor)\n"), encoding="utf-8"
    )
    run_cli("fix", "--migrate", "--report", "migration.json", ".")
    document = json.loads((tmp_path / "migration.json").read_text(encoding="utf-8"))
    documented = documented_fields()
    seen = fields_of(document)
    undocumented = sorted({path for path, _ in seen} - set(documented))
    assert undocumented == []
    assert sorted(set(documented) - {path for path, _ in seen}) == []  # every documented field occurs in this report
    wrong = [
        (path, value)
        for path, value in seen
        if not isinstance(value, documented[path]) or isinstance(value, bool) != (bool in documented[path])
    ]
    assert wrong == []
    assert {document["schema"]} == {1}


def test_a_field_missing_from_the_table_is_found():
    assert fields_of({"a": [{"b": 1, "c": None}], "d": {"e": True}}) == [
        ("a", [{"b": 1, "c": None}]),
        ("a[].b", 1),
        ("a[].c", None),
        ("d", {"e": True}),
        ("d.e", True),
    ]
