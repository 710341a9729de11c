"""What the speed-ups must never change: the text prefilter, the process pool and the result cache
give exactly the findings of a plain single-process run. (Speed itself is measured by bench/.)"""

from __future__ import annotations

import json
import shutil

import pytest

import gradlint
import gradlint.cache
from gradlint.config import LEGACY_STYLE_CODES
from gradlint.engine import lint_text
from gradlint.pool import MIN_FILES_PER_WORKER
from gradlint.rules import all_codes
from support import ROOT, write

CORPUS = sorted(
    [
        *ROOT.glob("fixtures/GL*/bad.py"),
        *ROOT.glob("fixtures/GL*/good.py"),
        *ROOT.glob("examples/legacy/*.py"),
        *ROOT.glob("tests/data/training_negatives/*.py"),
    ]
)
SINGLE_RULES = sorted(all_codes())


def findings(text, codes, prefilter, module=None):
    """(the parsed module, the findings) of one run."""
    outcome = lint_text(text, "f.py", frozenset(codes), prefilter=prefilter, module=module)
    return outcome.module, [(f.code, f.location, f.end_location, f.message, f.fix) for f in outcome.findings]


@pytest.mark.parametrize(
    "path", [p for p in CORPUS if p.parent.name != "GL002_undecodable_file"], ids=lambda p: f"{p.parent.name}/{p.name}"
)
def test_prefilter_never_hides_a_finding(path):
    text = path.read_text(encoding="utf-8")
    _, with_prefilter = findings(text, SINGLE_RULES, True)
    module, without = findings(text, SINGLE_RULES, False)
    assert with_prefilter == without
    # Each rule alone over that module: the prefilter chooses the rules before anything is parsed,
    # so sharing the parse (the cost of a one-rule run) leaves what is compared unchanged.
    for code in SINGLE_RULES:
        assert findings(text, [code], True, module)[1] == findings(text, [code], False, module)[1], code


# One mistake per rule (each fixture's bad.py, the undecodable one included): every rule's
# findings and fixes go through the cache, at a third of the corpus's cost.
RULE_MISTAKES = sorted(ROOT.glob("fixtures/GL*/bad.py"))


def copy_files(paths, folder):
    for index, path in enumerate(paths):
        shutil.copy(path, folder / f"m{index:03d}_{path.name}")
    return folder


@pytest.fixture
def project(tmp_path):
    """The whole corpus: many times more files than one worker takes (`MIN_FILES_PER_WORKER`),
    so the pool really runs."""
    assert len(CORPUS) >= 4 * MIN_FILES_PER_WORKER
    return copy_files(CORPUS, tmp_path)


@pytest.fixture
def cached_project(tmp_path):
    """Enough files for the pool to run, with a finding of every rule."""
    assert len(RULE_MISTAKES) >= 4 * MIN_FILES_PER_WORKER
    # The legacy-style rules the default selection leaves out are on too: every rule goes through the cache.
    (tmp_path / "pyproject.toml").write_text(f"[tool.gradlint]\nextend-select = {sorted(LEGACY_STYLE_CODES)}\n", encoding="utf-8")
    return copy_files(RULE_MISTAKES, tmp_path)


def check_json(run_cli, *args):
    result = run_cli("check", "--output-format", "json", *args, ".")
    return result.exit_code, json.loads(result.output)


def test_parallel_and_single_process_give_identical_json(run_cli, project):
    single = check_json(run_cli, "--no-cache", "-j", "1")
    parallel = check_json(run_cli, "--no-cache", "-j", "2")
    assert single[1] and single == parallel


def test_cache_returns_identical_findings(run_cli, cached_project):
    cold = check_json(run_cli, "--no-cache")
    first = check_json(run_cli)
    assert (cached_project / ".gradlint_cache" / ".gitignore").exists()
    warm = check_json(run_cli)
    assert cold == first == warm


def test_changed_file_is_rechecked(run_cli, cached_project):
    check_json(run_cli)
    write(cached_project / "new.py", "from torch.autograd import Variable\nx = Variable(t)\n")
    _, rows = check_json(run_cli)
    assert any(row["filename"].endswith("new.py") and row["code"] == "GL101" for row in rows)
    write(cached_project / "new.py", "x = t.detach()\n")
    _, rows = check_json(run_cli)
    assert not any(row["filename"].endswith("new.py") for row in rows)


def test_changed_setting_is_respected(run_cli, cached_project):
    _, everything = check_json(run_cli)
    _, only = check_json(run_cli, "--select", "GL103")
    assert {row["code"] for row in only} == {"GL103"}
    assert len(only) == len([row for row in everything if row["code"] == "GL103"])


def test_changed_version_invalidates(run_cli, cached_project, monkeypatch):
    check_json(run_cli)
    packs = sorted((cached_project / ".gradlint_cache").glob("results-*.json"))
    monkeypatch.setattr(gradlint, "__version__", "9.9.9")
    gradlint.cache.build_fingerprint.cache_clear()
    try:
        check_json(run_cli)
        assert sorted((cached_project / ".gradlint_cache").glob("results-*.json")) != packs
    finally:
        gradlint.cache.build_fingerprint.cache_clear()


def test_corrupt_cache_is_ignored_and_rewritten(run_cli, cached_project):
    expected = check_json(run_cli, "--no-cache")
    check_json(run_cli)
    [pack] = (cached_project / ".gradlint_cache").glob("results-*.json")
    pack.write_text('{"truncated": ', encoding="utf-8")
    assert check_json(run_cli) == expected
    json.loads(pack.read_text(encoding="utf-8"))  # valid again
    pack.write_text(json.dumps({str(cached_project / "m000_bad.py"): {"digest": "x", "result": 5}}), encoding="utf-8")
    assert check_json(run_cli) == expected


def test_the_pool_returns_results_in_the_order_of_the_work_whatever_order_it_ran_them_in():
    from gradlint.pool import MIN_FILES_PER_WORKER, map_in_pool

    work = [bytes(size) for size in range(4 * MIN_FILES_PER_WORKER)]
    assert map_in_pool(len, work, jobs=2, weight=len) == list(range(4 * MIN_FILES_PER_WORKER))


def test_a_rule_needing_two_strings_finds_one_of_them_through_another_file(run_cli, tmp_path):
    """GL203 runs only on files that spell both `step` and `backward`; here `backward` comes only
    through a local module's import (`bw`), which the prefilter must count with the file's own text."""
    write(tmp_path / "helpers.py", "from torch.autograd import backward as bw\n")
    write(
        tmp_path / "train.py",
        "import torch\nfrom helpers import bw\n\n\ndef train(model, data):\n"
        "    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    for x in data:\n        opt.zero_grad()\n        loss = model(x).sum()\n        opt.step()\n        bw(loss)\n",
    )
    result = run_cli("check", "--no-cache", "--select", "GL203", "--output-format", "concise", "-q", ".")
    assert [line.split(" ", 2)[:2] for line in result.output.splitlines()] == [["train.py:10:9:", "GL203"]]
