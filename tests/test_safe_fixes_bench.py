"""bench/safe_fixes.py: every safe fix applied to a copy of a corpus, each changed module compiled and imported."""

from __future__ import annotations

import json
import sys

from support import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import safe_fixes  # noqa: E402


def _corpus(tmp_path):
    package = tmp_path / "corpus" / "owner+repo" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "legacy.py").write_text(
        "import torch\nfrom torch.autograd import Variable\n\nx = Variable(torch.zeros(2))\nVALUE = float(x.sum())\n", encoding="utf-8"
    )
    (package / "clean.py").write_text("import torch\n\nVALUE = torch.zeros(2)\n", encoding="utf-8")
    return tmp_path / "corpus"


def test_a_corpus_is_fixed_in_a_copy_and_each_changed_module_imports_as_before(tmp_path, capsys):
    corpus = _corpus(tmp_path)
    original = (corpus / "owner+repo" / "pkg" / "legacy.py").read_text(encoding="utf-8")
    page = tmp_path / "SAFE_FIXES.md"
    assert safe_fixes.main([str(corpus), "--work", str(tmp_path / "work"), "--save", str(page), "-j", "1"]) == 0
    assert (corpus / "owner+repo" / "pkg" / "legacy.py").read_text(encoding="utf-8") == original  # the corpus is untouched
    fixed = (tmp_path / "work" / "owner+repo" / "pkg" / "legacy.py").read_text(encoding="utf-8")
    assert "Variable(" not in fixed
    text = page.read_text(encoding="utf-8")
    assert "- files changed by safe fixes: 1 (in 1 repositories)" in text
    assert "- changed modules that imported before the fix: 1; still import after it: 1" in text
    assert "- files a safe fix broke: 0" in text


def test_a_module_that_imported_before_and_not_after_is_broken(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tree / "pkg" / "good.py").write_text("VALUE = 1\n", encoding="utf-8")
    (tree / "pkg" / "bad.py").write_text("VALUE = undefined_name\n", encoding="utf-8")
    (tree / "script.py").write_text("import sys\nsys.exit(3)\n", encoding="utf-8")
    outcomes = safe_fixes.import_outcomes(tree, ["pkg/good.py", "pkg/bad.py", "script.py", "notes.ipynb"])
    assert outcomes == {"pkg/good.py": "ok", "pkg/bad.py": "NameError", "script.py": "SystemExit", "notes.ipynb": ""}
    assert safe_fixes.Changed("r", "pkg/bad.py", True, True, "ok", "NameError").broken
    assert safe_fixes.Changed("r", "pkg/bad.py", False, True, "", "").broken  # compiled before, not after
    assert not safe_fixes.Changed("r", "pkg/bad.py", True, True, "ModuleNotFoundError", "ModuleNotFoundError").broken


def test_a_notebook_compiles_cell_by_cell_without_its_magics(tmp_path):
    notebook = tmp_path / "n.ipynb"
    cells = [{"cell_type": "code", "source": ["%matplotlib inline\n", "x = 1\n"]}, {"cell_type": "markdown", "source": "# not code ("}]
    document = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}
    notebook.write_text(json.dumps(document), encoding="utf-8")
    assert safe_fixes.compiles(notebook)
    cells.append({"cell_type": "code", "source": "def f(:\n"})
    notebook.write_text(json.dumps(document), encoding="utf-8")
    assert not safe_fixes.compiles(notebook)
