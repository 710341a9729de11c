"""What a command imports: the registry's catalog answers for the rules without importing them, so
`--version`, `rules`, `rule CODE` and the language server's `initialize` import no rule and no
LibCST, and a check imports the rules that get past their prefilter only. Each is checked in a fresh
process from its `sys.modules` (deterministic; the timings are in bench/startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint.config import Overrides, load_settings
from gradlint.docs import CATALOG_MODULE, catalog_source
from gradlint.pool import MIN_FILES_PER_WORKER, map_in_pool
from gradlint.rules import all_rules, describe, rule_infos

HEAVY = ("libcst", "gradlint.engine", "gradlint.runner", "gradlint.analysis.torch_api")
# Runs the command line as the console script does and prints, at exit, the modules imported.
CLI = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
from gradlint.cli import main
sys.argv = ["gradlint", *json.loads(sys.argv[1])]
main()
"""


def modules_after(tmp_path: Path, *arguments: str, stdin: bytes = b"") -> set[str]:
    completed = subprocess.run(
        [sys.executable, "-c", CLI, json.dumps(arguments)], cwd=tmp_path, input=stdin, capture_output=True, timeout=120
    )
    return set(json.loads(completed.stderr.decode("utf-8").splitlines()[-1]))


def rule_modules(modules: set[str]) -> set[str]:
    return {name for name in modules if name.startswith("gradlint.rules.gl")}


def heavy_modules(modules: set[str]) -> set[str]:
    return {name for name in modules if name.startswith(HEAVY)} | rule_modules(modules)


def test_the_catalog_module_is_generated_from_the_rule_classes():
    assert rule_infos() == tuple(describe(rule) for rule in all_rules())
    assert CATALOG_MODULE.read_text(encoding="utf-8") == catalog_source(), "run `python -m gradlint.docs rules` to regenerate it"


def test_an_edited_rule_makes_the_catalog_differ(monkeypatch):
    rule = all_rules()[0]
    monkeypatch.setattr(rule, "summary", rule.summary + " (edited)")
    assert describe(rule) != rule_infos()[0]
    assert "(edited)" in catalog_source()


@pytest.mark.parametrize("arguments", [("--version",), ("rule", "GL101"), ("rule", "missing-zero-grad"), ("rules",)])
def test_listing_commands_import_no_rule_and_no_libcst(tmp_path, arguments):
    modules = modules_after(tmp_path, *arguments)
    assert "gradlint.cli" in modules
    assert heavy_modules(modules) == set()


def test_a_check_imports_the_rules_past_their_prefilter_only(tmp_path):
    text = "import torch\n\nfor x, y in loader:\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n"
    (tmp_path / "small.py").write_text(text, encoding="utf-8")
    modules = modules_after(tmp_path, "check", "--isolated", "--no-cache", "small.py")
    selected = load_settings(None, Overrides(isolated=True), cwd=tmp_path).codes()
    expected = {info.module for info in rule_infos() if info.visits and info.code in selected and info.applies_to(text)}
    assert "gradlint.rules.gl201_missing_zero_grad" in expected  # the file has a finding, so the check did run
    assert {name for name in rule_modules(modules) if name in {info.module for info in rule_infos()}} == expected
    assert len(expected) < len(rule_infos()) / 2


def test_the_rule_module_cost_is_found_when_there():
    """The assertions above could fail: a check of any file imports LibCST and some rules."""
    assert heavy_modules({"libcst", "gradlint.rules.gl101_variable_call"}) == {"libcst", "gradlint.rules.gl101_variable_call"}


SERVER = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["gradlint", "server"]
from gradlint.cli import main
main()
"""


def _framed(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


# LSP libraries the server must not import: importing lsprotocol's types alone cost 0.35 CPU s.
LSP_LIBRARIES = ("pygls", "lsprotocol", "cattrs", "attrs", "attr")


def test_the_language_server_answers_initialize_without_rules_libcst_or_an_lsp_library(tmp_path):
    # Installed or not, an LSP library found on the path would break the server if it imported one.
    for name in LSP_LIBRARIES:
        (tmp_path / "path" / name).mkdir(parents=True)
        (tmp_path / "path" / name / "__init__.py").write_text(f"raise ImportError('the server imported {name}')\n", encoding="utf-8")
    session = b"".join(
        _framed(message)
        for message in (
            {"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}},
            {"id": 2, "method": "shutdown", "params": None},
            {"method": "exit"},
        )
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "path"), os.environ.get("PYTHONPATH", "")])}
    completed = subprocess.run([sys.executable, "-c", SERVER], cwd=tmp_path, input=session, capture_output=True, timeout=120, env=env)
    assert b'"capabilities"' in completed.stdout and completed.returncode == 0, completed.stderr.decode("utf-8", "replace")[-2000:]
    modules = set(json.loads(completed.stderr.decode("utf-8").splitlines()[-1]))
    assert "gradlint.server" in modules
    assert heavy_modules(modules) == set()
    assert {name for name in modules if name.split(".")[0] in LSP_LIBRARIES} == set()


def test_a_poisoned_lsp_library_would_be_noticed(tmp_path):
    """The assertion above could fail: a module that imports one of the poisoned packages does."""
    (tmp_path / "path" / "pygls").mkdir(parents=True)
    (tmp_path / "path" / "pygls" / "__init__.py").write_text("raise ImportError('the server imported pygls')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "path")}
    completed = subprocess.run([sys.executable, "-c", "import pygls"], capture_output=True, text=True, timeout=120, env=env)
    assert completed.returncode != 0 and "the server imported pygls" in completed.stderr


def test_a_pool_is_prepared_here_before_its_workers_start():
    prepared = []
    many, few = list(range(4 * MIN_FILES_PER_WORKER)), list(range(MIN_FILES_PER_WORKER))
    assert map_in_pool(abs, few, jobs=2, prepare=prepared.append) == few and prepared == []  # no pool: nothing to prepare
    assert map_in_pool(abs, many, jobs=2, prepare=prepared.append) == many and prepared == [many]


def test_the_selected_rules_are_loaded_for_the_workers_to_inherit(tmp_path):
    script = (
        "import json, sys\nfrom types import SimpleNamespace\nfrom gradlint.runner import load_rules\n"
        "load_rules([SimpleNamespace(codes=frozenset({'GL101'})), SimpleNamespace(codes=frozenset({'GL604'}))])\n"
        "print(json.dumps(sorted(name for name in sys.modules if name.startswith('gradlint.rules.gl'))))\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    loaded = set(json.loads(completed.stdout))
    assert {"gradlint.rules.gl101_variable_call", "gradlint.rules.gl604_amp_step_order.rule"} <= loaded, completed.stderr
    assert "gradlint.rules.gl201_missing_zero_grad" not in loaded
