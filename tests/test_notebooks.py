"""Jupyter notebooks: discovery, IPython masking, locations in every format, write-back, bad input."""

from __future__ import annotations

import ast
import json
import textwrap
import os
import re
from pathlib import Path

import jsonschema
import pytest

from gradlint.config import Settings
from gradlint.discovery import discover
from gradlint.model import Location
from gradlint.notebook import NotebookError, read_notebook, source_spans
from gradlint.pipeline import check_source, fix_source
from gradlint.rules import all_codes
from support import LEGACY_EVALUATE, ROOT, write

DATA = Path(__file__).parent / "data" / "notebooks"
CODES = frozenset(all_codes())


def code_cell(source, *, as_list=True, outputs=()):
    lines = re.findall(r"[^\n]*\n|[^\n]+$", source)
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": list(outputs), "source": lines if as_list else source}


def markdown_cell(source):
    return {"cell_type": "markdown", "metadata": {}, "source": source}


def notebook(*cells, indent=1, newline=True, language="python") -> str:
    """A notebook's JSON text as Jupyter writes it (`indent=1`, sorted keys, a final newline)."""
    data = {"cells": list(cells), "metadata": {"language_info": {"name": language}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(data, indent=indent, sort_keys=True, ensure_ascii=False) + ("\n" if newline else "")


def check(text: str, name: str = "train.ipynb"):
    result = check_source(text.encode("utf-8"), name, CODES)
    assert result.error is None, result.error
    return result.findings


def fix(text: str, *, unsafe: bool = False, name: str = "train.ipynb"):
    result = fix_source(text.encode("utf-8"), name, CODES, unsafe=unsafe)
    assert result.error is None, result.error
    return result.fixed.decode("utf-8"), result


def places(findings):
    return [(finding.code, finding.cell, finding.location.row, finding.location.column) for finding in findings]


IMPORTS = "import torch\nfrom torch.autograd import Variable\n"


# -- discovery ----------------------------------------------------------------------------------


def test_directories_yield_notebooks_next_to_python_files(tmp_path):
    for name in ("train.py", "explore.ipynb", "notes.txt", "sub/eval.ipynb", ".ipynb_checkpoints/explore-checkpoint.ipynb"):
        write(tmp_path / name, "")
    found = discover([tmp_path], Settings(root=tmp_path)).files
    assert sorted(path.relative_to(tmp_path).as_posix() for path in found) == ["explore.ipynb", "sub/eval.ipynb", "train.py"]


def test_a_notebook_in_a_directory_is_checked(run_cli, tmp_path):
    """Regression: a directory run skipped notebooks, and a notebook named alone was read as Python."""
    write(tmp_path / "notebooks" / "train.ipynb", notebook(code_cell(IMPORTS), code_cell("x = Variable(t)")))
    for argument in ("notebooks", "notebooks/train.ipynb"):
        result = run_cli("check", "--no-cache", "--output-format", "concise", argument)
        assert result.exit_code == 1, result.output
        assert result.output.startswith(os.path.join("notebooks", "train.ipynb:cell 2:1:5: GL101 [*]")), result.output


# -- masking ------------------------------------------------------------------------------------


MAGICS = code_cell(
    "%time x = Variable(t)\n"  # a line magic: masked, never reported
    "!pip install torch\n"
    "files = !ls -la\n"
    "names = %who_ls\n"
    "Variable?\n"
    "??torch.nn\n"
    "%timeit y = torch.randn(3) \\\n"
    "    .sum()\n"
    "for step in range(3):\n"
    "    !echo {step}\n"
    '    doc = """\n'
    "%s stays inside the string: not a magic\n"
    '"""\n'
    "    z = Variable(t)\n"  # reported: cell 2, row 14
    "    !echo {z}\n"
    "!echo done\n"  # not in the loop
)


def test_ipython_syntax_is_masked_and_never_reported():
    text = notebook(
        code_cell(IMPORTS),
        MAGICS,
        code_cell("%%bash\necho Variable(t) | tee log\n"),  # a shell cell: not Python at all
        code_cell("%%time\nw = Variable(t)"),  # a cell magic whose body is Python: the body is checked
        markdown_cell("Variable(t) in prose"),
    )
    assert places(check(text)) == [("GL101", 2, 14, 9), ("GL101", 4, 2, 5)]
    compile(read_notebook(text).code, "<cells>", "exec")  # every masked line parses


def test_a_masked_line_keeps_the_import_it_uses():
    """`%time y = Variable(x)` runs `Variable`: the migration must not drop its import."""
    fixed, _ = fix(notebook(code_cell(IMPORTS), code_cell("%time y = Variable(t)\nz = Variable(t)")))
    sources = ["".join(cell["source"]) for cell in json.loads(fixed)["cells"]]
    assert sources == [IMPORTS, "%time y = Variable(t)\nz = t.detach()"]


# -- locations in every format --------------------------------------------------------------------


LOCATED = notebook(
    markdown_cell("# Evaluation"),
    code_cell(IMPORTS),
    code_cell("def f(model, t):\n    loss = model(Variable(t))\n    return loss.data[0]\n"),
)


@pytest.fixture
def located(tmp_path):
    write(tmp_path / "eval.ipynb", LOCATED)
    return tmp_path / "eval.ipynb"


def test_text_names_the_cell_and_shows_its_line(run_cli, located):
    result = run_cli("check", "--no-cache", "eval.ipynb")
    assert "eval.ipynb:cell 3:2:18: GL101 [*]" in result.output
    assert "eval.ipynb:cell 3:3:12: GL103 [*]" in result.output
    assert "2 |     loss = model(Variable(t))\n  |                  ^^^^^^^^^^^ GL101" in result.output
    assert "3 |     return loss.data[0]" in result.output


def test_json_gives_the_cell_and_rows_within_it(run_cli, located):
    findings = json.loads(run_cli("check", "--no-cache", "--output-format", "json", "eval.ipynb").output)
    first = findings[0]
    assert (first["code"], first["cell"], first["location"], first["end_location"]) == (
        "GL101",
        3,
        {"row": 2, "column": 18},
        {"row": 2, "column": 29},
    )
    assert first["noqa_row"] == 2
    assert first["fix"]["edits"][0]["location"] == {"row": 2, "column": 18}


def test_sarif_and_github_point_into_the_notebook_file(run_cli, located):
    lines = LOCATED.splitlines()
    sarif = json.loads(run_cli("check", "--no-cache", "--output-format", "sarif", "eval.ipynb").output)
    schema = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft4Validator(schema).iter_errors(sarif)) == []
    result = sarif["runs"][0]["results"][0]
    region = result["locations"][0]["physicalLocation"]["region"]
    line = lines[region["startLine"] - 1]
    assert line[region["startColumn"] - 1 : region["endColumn"] - 1] == "Variable(t)"
    assert result["message"]["text"].startswith("cell 3, line 2: ")
    assert "fixes" not in result  # its edits are in the cell's coordinates, not the file's
    github = run_cli("check", "--no-cache", "--output-format", "github", "eval.ipynb").output.splitlines()[0]
    assert f"line={region['startLine']},col={region['startColumn']}" in github
    assert "::GL101 cell 3, line 2: " in github


@pytest.mark.parametrize("output_format", ["gitlab", "rdjson", "pylint", "junit", "json-lines", "azure"])
def test_every_other_format_places_notebook_findings(run_cli, located, output_format):
    output = run_cli("check", "--no-cache", "--output-format", output_format, "eval.ipynb").output
    row = next(number for number, line in enumerate(LOCATED.splitlines(), start=1) if "Variable(t)" in line)
    expected = {
        "gitlab": lambda: json.loads(output)[0]["location"]["positions"]["begin"] == {"line": row, "column": 23},
        "rdjson": lambda: json.loads(output)["diagnostics"][0]["location"]["range"]["start"] == {"line": row, "column": 23},
        "pylint": lambda: output.startswith(f"eval.ipynb:{row}: [GL101] cell 3, line 2: "),
        "azure": lambda: output.startswith(
            f"##vso[task.logissue type=warning;sourcepath=eval.ipynb;linenumber={row};columnnumber=23;code=GL101;]cell 3, line 2: "
        ),
        "junit": lambda: f'line="{row}" column="23"' in output and "cell 3, line 2: " in output,
        "json-lines": lambda: (
            (json.loads(output.splitlines()[0])["cell"], json.loads(output.splitlines()[0])["location"]) == (3, {"row": 2, "column": 18})
        ),
    }
    assert expected[output_format](), output


def test_grouped_and_full_name_the_cell_and_show_its_lines(run_cli, located):
    grouped = run_cli("check", "--no-cache", "--output-format", "grouped", "eval.ipynb").stdout.splitlines()
    assert grouped[0] == "eval.ipynb:"
    assert grouped[1].startswith("  cell 3:2:18 GL101 [*] ") and grouped[2].startswith("  cell 3:3:12 GL103 [*] ")
    full = run_cli("check", "--no-cache", "--output-format", "full", "eval.ipynb").stdout
    assert "eval.ipynb:cell 3:2:18: GL101 [*]" in full
    # The context is the cell's own lines, not the notebook's JSON.
    assert (
        "1 | def f(model, t):\n2 |     loss = model(Variable(t))\n  |                  ^^^^^^^^^^^ GL101\n3 |     return loss.data[0]\n"
        in full
    )


def test_string_sources_are_placed_in_the_file_too(run_cli, tmp_path):
    text = notebook(code_cell(IMPORTS, as_list=False), code_cell("y = 1\nx = Variable(t)\n", as_list=False))
    write(tmp_path / "eval.ipynb", text)
    sarif = json.loads(run_cli("check", "--no-cache", "--output-format", "sarif", "eval.ipynb").output)
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    line = text.splitlines()[region["startLine"] - 1]
    assert line[region["startColumn"] - 1 :].startswith("Variable(t)\\n")


def test_noqa_works_within_a_cell():
    text = notebook(code_cell(IMPORTS), code_cell("x = Variable(t)  # noqa: GL101\ny = Variable(t)"))
    assert places(check(text)) == [("GL101", 2, 2, 5)]


def test_the_value_a_cell_ends_with_is_shown_not_dropped():
    """IPython displays the last expression of a cell: a tensor method's result there is not
    thrown away, unless a `;` hides it or another statement follows."""
    text = notebook(
        code_cell("import torch\nx = torch.ones(2)\nx.abs()"),
        code_cell("x.softmax(0);"),
        code_cell("x.float()\ny = x + 1"),
        code_cell("x.sigmoid()"),
    )
    assert [place for place in places(check(text)) if place[0] == "GL610"] == [("GL610", 2, 1, 1), ("GL610", 3, 1, 1)]


def test_suppression_warnings_name_the_cell():
    result = check_source(notebook(code_cell(IMPORTS), code_cell("y = 1\nx = Variable(t)  # noqa: all")), "n.ipynb", CODES)
    assert result.warning.startswith("cell 2, line 2: `# noqa: all` names no valid code"), result.warning


def test_an_edit_to_the_end_of_a_cell_ends_within_it():
    """The code analysed ends each cell with a newline the cell does not have."""
    (finding,) = [
        f for f in check(notebook(code_cell(IMPORTS), code_cell("e = Variable(t, volatile=True)\nprint(model(e))"))) if f.code == "GL102"
    ]
    (edit,) = finding.fix.edits
    assert (edit.location, edit.end_location) == (Location(1, 1), Location(2, 16))


def test_the_cache_keeps_the_cell(run_cli, located):
    first = run_cli("check", "--output-format", "json", "eval.ipynb").output
    second = run_cli("check", "--output-format", "json", "eval.ipynb").output  # from the cache
    assert second == first and json.loads(second)[0]["cell"] == 3


def test_a_notebook_knows_what_it_imports_from_local_modules(run_cli, tmp_path):
    write(tmp_path / "model.py", "from torch.autograd import Variable\n")
    text = notebook(code_cell("from model import *"), code_cell("x = Variable(t)"))
    write(tmp_path / "explore.ipynb", text)
    for arguments, options in ((["."], {}), (["explore.ipynb"], {}), (["-", "--stdin-filename", "explore.ipynb"], {"input": text})):
        result = run_cli("check", "--no-cache", "--output-format", "concise", *arguments, **options)
        assert "explore.ipynb:cell 2:1:5: GL101" in result.output, arguments


def test_outputs_do_not_count_against_the_size_limit(run_cli, tmp_path):
    """A notebook's plots can weigh megabytes: its code is what is analysed, cached and indexed."""
    write(tmp_path / "model.py", "from torch.autograd import Variable\n")
    plot = {"data": {"image/png": "A" * 4096}, "metadata": {}, "output_type": "display_data"}
    write(tmp_path / "explore.ipynb", notebook(code_cell("from model import *"), code_cell("x = Variable(t)", outputs=[plot])))
    first = run_cli("check", "--max-file-size", "2K", "--output-format", "concise", ".")
    assert "explore.ipynb:cell 2:1:5: GL101" in first.output and first.stderr == ""
    (pack,) = (tmp_path / ".gradlint_cache").glob("results-*.json")
    assert any(path.endswith("explore.ipynb") for path in json.loads(pack.read_text(encoding="utf-8")))  # cached


# -- fixing -------------------------------------------------------------------------------------


def _outside_sources(text: str) -> str:
    spans = source_spans(text)
    kept, last = [], 0
    for start, end in spans:
        kept.append(text[last:start])
        last = end
    return "".join(kept) + text[last:]


@pytest.mark.parametrize("indent, as_list, newline", [(1, True, True), (2, False, False), (None, True, False)])
def test_fixes_are_written_into_their_cells_and_nothing_else_changes(indent, as_list, newline):
    outputs = [{"name": "stdout", "output_type": "stream", "text": ["0.25\n"]}]
    text = notebook(
        code_cell(IMPORTS, as_list=as_list),
        markdown_cell("Evaluate, ünïcode kept"),
        code_cell("x = Variable(t)\nprint(loss.data[0])", as_list=as_list, outputs=outputs),
        indent=indent,
        newline=newline,
    )
    fixed, result = fix(text)
    assert result.applied == 2
    assert _outside_sources(fixed) == _outside_sources(text)  # outputs, metadata, keys, layout: byte for byte
    cells = json.loads(fixed)["cells"]
    assert cells[2]["source"] == (["x = t.detach()\n", "print(loss.item())"] if as_list else "x = t.detach()\nprint(loss.item())")
    assert cells[0]["source"] == (["import torch\n"] if as_list else "import torch\n")
    if indent == 1:  # nbformat's own layout, reproduced for the lines it rewrote
        assert '   "source": [\n    "x = t.detach()\\n",\n    "print(loss.item())"\n   ]' in fixed
    again, second = fix(fixed)
    assert again == fixed and second.applied == 0  # a second fix changes nothing


def test_fixes_that_would_cross_a_cell_or_rewrite_a_magic_are_not_applied():
    evaluation = "e = Variable(t, volatile=True)\n%time s = model(e)\nprint(s)"
    across = (code_cell("e = Variable(t, volatile=True)"), code_cell("s = model(e)\nprint(s)"))
    for cells in ((code_cell(evaluation),), across):
        text = notebook(code_cell(IMPORTS), *cells)
        remaining = [finding for finding in check(text) if finding.code == "GL102"]
        assert remaining and remaining[0].fix is None
        fixed, result = fix(text, unsafe=True)
        assert [finding.code for finding in result.findings if finding.code == "GL102"] == ["GL102"]
        assert "volatile=True" in fixed and "no_grad" not in fixed


def test_fixes_apply_to_a_legacy_notebook_and_keep_the_magics():
    text = (DATA / "legacy_regression.ipynb").read_text(encoding="utf-8")
    fixed, result = fix(text, unsafe=True)
    cells = ["".join(cell["source"]) for cell in json.loads(fixed)["cells"]]
    assert cells[1] == "!echo preparing data"
    assert cells[5].startswith("%time test = Variable(torch.randn(8, 3), volatile=True)\n")
    assert "loss.item()" in cells[4] and "Variable" not in cells[3]
    assert result.findings == []


def test_diff_is_per_cell(run_cli, located):
    result = run_cli("fix", "--diff", "eval.ipynb")
    assert result.exit_code == 1
    assert "--- a/eval.ipynb:cell 3\n+++ b/eval.ipynb:cell 3\n" in result.output
    assert "-    return loss.data[0]\n+    loss = model(t.detach())\n+    return loss.item()\n" in result.output
    assert result.output.count("--- a/") == 2  # the import cell loses `Variable`; the markdown cell is not shown


def test_stdin_with_a_notebook_name(run_cli):
    result = run_cli("check", "-", "--stdin-filename", "eval.ipynb", "--output-format", "concise", input=LOCATED)
    assert "eval.ipynb:cell 3:3:12: GL103" in result.output
    result = run_cli("fix", "-", "--stdin-filename", "eval.ipynb", input=LOCATED)
    assert json.loads(result.stdout)["cells"][2]["source"][2] == "    return loss.item()\n"


def test_a_process_pool_gives_the_same_notebook_findings(run_cli, tmp_path):
    for index in range(16):
        write(tmp_path / f"n{index:02}.ipynb", LOCATED)
    one = run_cli("check", "--no-cache", "-j", "1", "--output-format", "json", ".").output
    two = run_cli("check", "--no-cache", "-j", "2", "--output-format", "json", ".").output
    assert one == two and len(json.loads(two)) == 32


def test_a_notebook_fixes_like_the_same_code_as_a_python_file():
    fixed, _ = fix(notebook(code_cell(LEGACY_EVALUATE)))
    python = fix_source(LEGACY_EVALUATE, "evaluate.py", CODES).fixed
    assert json.loads(fixed)["cells"][0]["source"] == re.findall(r"[^\n]*\n", python)


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, reason",
    [
        ('{"cells": [', "not a valid notebook: invalid JSON at line 1, column 12"),
        ("x = Variable(t)\n", "not a valid notebook: invalid JSON at line 1, column 1"),
        ('{"cells": [], "nbformat": 3}', "unsupported notebook format 3 (nbformat 4 expected"),
        ('{"cells": [{"cell_type": "code", "source": 3}], "nbformat": 4}', "the `source` of cell 1 is neither"),
        ('{"worksheets": []}', "no list of `cells`"),
    ],
)
def test_an_invalid_notebook_is_one_line_and_the_run_goes_on(run_cli, tmp_path, raw, reason):
    write(tmp_path / "bad.ipynb", raw)
    write(tmp_path / "train.py", LEGACY_EVALUATE)
    for command in ("check", "fix"):
        result = run_cli(command, "--no-cache", ".")
        assert result.exit_code == 2
        errors = [line for line in result.stderr.splitlines() if "bad.ipynb" in line]
        assert len(errors) == 1 and errors[0].startswith("gradlint: error: bad.ipynb: ") and reason in errors[0], result.stderr
        assert "Traceback" not in result.output
    assert (tmp_path / "bad.ipynb").read_text(encoding="utf-8") == raw
    assert "loss.item()" in (tmp_path / "train.py").read_text(encoding="utf-8")  # the rest was fixed


def test_a_notebook_in_another_language_is_skipped():
    assert check(notebook(code_cell("x <- Variable(t)"), language="R")) == []


def test_read_rejects_what_it_cannot_place():
    with pytest.raises(NotebookError):
        read_notebook(b"\xff\xfe")


def test_add_noqa_writes_into_the_cells_and_silences_the_notebook(run_cli, tmp_path):
    original = (DATA / "legacy_regression.ipynb").read_text(encoding="utf-8")
    (tmp_path / "legacy.ipynb").write_text(original, encoding="utf-8")
    assert run_cli("check", "legacy.ipynb").exit_code == 1
    added = run_cli("check", "--add-noqa", "legacy.ipynb")
    assert added.exit_code == 0 and "noqa directives" in added.stderr
    changed = json.loads((tmp_path / "legacy.ipynb").read_text(encoding="utf-8"))
    before = json.loads(original)
    assert [cell.get("outputs") for cell in changed["cells"]] == [cell.get("outputs") for cell in before["cells"]]
    assert any("# noqa: GL101" in line for cell in changed["cells"] for line in cell["source"])
    assert run_cli("check", "legacy.ipynb").exit_code == 0


# -- a cell indented as a whole -------------------------------------------------------------------

INDENTED = "    import torch\n    from torch.autograd import Variable\n    \n    x = Variable(t)\n    print(loss.data[0])"


def _as_ipython_runs(cell: str) -> str:
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(cell)


def _applied(text: str, edits) -> str:
    """A cell's text with edits in its own coordinates applied (as an editor applies them)."""
    lines = re.findall(r"[^\n]*\n|[^\n]+$", text) or [""]
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    for edit in sorted(edits, key=lambda edit: (edit.location.row, edit.location.column), reverse=True):
        start = offsets[edit.location.row - 1] + edit.location.column - 1
        end = offsets[edit.end_location.row - 1] + edit.end_location.column - 1
        text = text[:start] + edit.content + text[end:]
    return text


def test_a_cell_indented_as_a_whole_is_analysed_as_ipython_runs_it():
    """IPython dedents a cell whose lines all share the first line's indentation: Jupyter runs it,
    so it is no syntax error, and its findings sit at the cell's own columns."""
    decorated = '    @sb.utils.data_pipeline.takes("wrd")\n    def text_pipeline(wrd):\n        yield wrd\n'
    compile(_as_ipython_runs(decorated), "<cell>", "exec")  # the fact: IPython runs it
    assert [finding.code for finding in check(notebook(code_cell(decorated)))] == []
    findings = check(notebook(code_cell(INDENTED)))
    assert places(findings) == [("GL101", 1, 4, 9), ("GL103", 1, 5, 11)]
    analysed = read_notebook(notebook(code_cell(INDENTED))).code  # blank lines keep their spaces: nothing else differs
    assert ast.dump(ast.parse(analysed)) == ast.dump(ast.parse(_as_ipython_runs(INDENTED)))


def test_a_cell_indented_less_after_its_first_line_stays_a_syntax_error():
    """IPython 9 removes only the indentation every line shares: none here, and the cell raises."""
    cell = "    x = 1\ny = 2\n"
    with pytest.raises(IndentationError):
        compile(_as_ipython_runs(cell), "<cell>", "exec")
    assert [finding.code for finding in check(notebook(code_cell(cell)))] == ["GL001"]


def _dedented(cell: str) -> str:
    return "".join(line[4:] if line.strip() else line for line in re.findall(r"[^\n]*\n|[^\n]+$", cell))


def test_fixes_of_an_indented_cell_keep_its_indentation():
    """Written back with the indentation restored (blank lines byte for byte), and the fix each
    finding reports gives, applied to the cell as written, what fixing that rule alone writes."""
    volatile = "    e = Variable(t, volatile=True)\n    \n    print(model(e))"
    for cell in (INDENTED, volatile, "    %time y = Variable(t)\n    z = Variable(t)\n"):
        text = notebook(code_cell(IMPORTS), code_cell(cell))
        fixed, _ = fix(text, unsafe=True)
        written = "".join(json.loads(fixed)["cells"][1]["source"])
        plain, _ = fix(notebook(code_cell(IMPORTS), code_cell(_dedented(cell))), unsafe=True)
        assert written == textwrap.indent("".join(json.loads(plain)["cells"][1]["source"]), "    ", lambda line: line.strip() != "")
        assert written != cell and written.startswith("    ")
        reported = [finding for finding in check(text) if finding.fix is not None and finding.cell == 2]
        assert reported
        for finding in reported if "import" not in cell else ():  # the fix loop's import clean-up is no finding's edit
            alone = fix_source(text.encode("utf-8"), "train.ipynb", frozenset({finding.code}), unsafe=True).fixed.decode("utf-8")
            assert _applied(cell, finding.fix.edits) == "".join(json.loads(alone)["cells"][1]["source"]), finding


# -- messages -----------------------------------------------------------------------------------


def test_a_message_names_lines_within_the_notebooks_cells():
    """A line a message names is counted within its cell, and the cell is named when it is another."""
    setup = code_cell("import torch\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(2, 2))\n")
    build = code_cell("optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n")
    replace = code_cell("model.head = nn.Linear(2, 1)\n")
    loop = code_cell(
        "for epoch in range(10):\n    for x, y in loader:\n        loss = criterion(model(x), y)\n"
        "        loss.backward()\n        optimizer.step()\n"
    )
    findings = {f.code: f for f in check(notebook(setup, build, replace, loop))}
    assert (findings["GL201"].cell, findings["GL201"].location.row) == (4, 2)
    assert "`loss.backward()` (line 4)" in findings["GL201"].message
    assert (findings["GL702"].cell, findings["GL702"].location.row) == (3, 1)
    assert "built from its parameters (cell 2, line 1)" in findings["GL702"].message
