"""bench/run.py's sections on tiny inputs: each produces well-formed Markdown with its targets, and
the prefilter's share it reports is what the check really skips. (Timings are never asserted.)"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from gradlint import engine
from gradlint.config import Overrides, load_settings
from gradlint.runner import check_paths

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
bench_run = importlib.util.module_from_spec(spec)
sys.modules["bench_run"] = bench_run  # dataclasses look their module up while the class is built
spec.loader.exec_module(bench_run)

LEGACY = "import torch\nfrom torch.autograd import Variable\n\n\ndef step(x):\n    return Variable(x).data[0]\n"
PLAIN = "def add(a, b):\n    return a + b\n"


def assert_well_formed(markdown: str) -> None:
    """Every table has a header, a separator and rows of the header's width; headings are level 2."""
    blocks = [block.splitlines() for block in markdown.split("\n\n") if block.strip()]
    for lines in blocks:
        if lines[0].startswith("#"):
            assert lines[0].startswith("## ") and len(lines) == 1, lines
        elif lines[0].startswith("|"):
            width = lines[0].count("|")
            assert len(lines) >= 3 and set(lines[1]) <= set("|-:"), lines
            assert all(line.startswith("|") and line.endswith("|") and line.count("|") == width for line in lines), lines
    assert "nan" not in markdown


def well_formed_section(section) -> None:
    assert_well_formed(section.markdown())
    assert section.targets
    assert_well_formed(bench_run.targets_table([section]))


@pytest.fixture
def bench(tmp_path):
    workdir = tmp_path / "work"
    workdir.mkdir()
    return bench_run.Bench(workdir, repeat=1)


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "project"
    (folder / "pkg").mkdir(parents=True)
    (folder / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "pkg" / "layers.py").write_text("from torch.autograd import Variable\n", encoding="utf-8")
    (folder / "pkg" / "train.py").write_text("from pkg.layers import Variable\n\nx = Variable(1).data[0]\n", encoding="utf-8")
    (folder / "legacy.py").write_text(LEGACY, encoding="utf-8")
    (folder / "plain.py").write_text(PLAIN, encoding="utf-8")
    return folder


def test_prefilter_share_is_what_the_check_does_not_parse(bench, project, monkeypatch):
    parsed = []
    original = engine._parse
    monkeypatch.setattr(engine, "_parse", lambda text: parsed.append(text) or original(text))
    check_paths([project], load_settings(bench.config, Overrides()), jobs=1, use_cache=False)
    skipped, files = bench_run.prefilter_skipped(project, bench.config)
    assert files == 5
    assert 0 < skipped == files - len(parsed)


def fake_measure(commands):
    """Stands in for timing a process (the real runs cost seconds each): records the command."""

    def measure(command, env=None):
        commands.append(command)
        return 2.0, 1.5, 100.0, 0

    return measure


def test_corpus_section(bench, project, monkeypatch):
    commands = []
    monkeypatch.setattr(bench_run, "measure", fake_measure(commands))
    section = bench_run.corpus_section(bench, project, "a tiny project", [])
    well_formed_section(section)
    assert [command[2] == "libcst" or command[3:] for command in commands][1:] == [
        ["check", "--quiet", "--exit-zero", "--config", str(bench.config), "--no-cache", "-j", "1", str(project)],
        ["check", "--quiet", "--exit-zero", "--config", str(bench.config), "--no-cache", str(project)],
        ["check", "--quiet", "--exit-zero", "--config", str(bench.config), str(project)],
    ]
    assert "| (d) gradlint check, warm cache | 2.00 | 1.50 | 2 | 100 | 1.00 | 1.00 |  |" in section.body
    skipped = bench_run.share(*bench_run.prefilter_skipped(project, bench.config))
    assert f"skips entirely (no selected rule can match, never parsed): {skipped}." in section.body


def test_typical_section_times_real_processes(bench, tmp_path):
    (tmp_path / "repository").mkdir()
    (tmp_path / "repository" / "train.py").write_text(LEGACY, encoding="utf-8")
    section = bench_run.typical_section(bench, tmp_path / "repository")
    well_formed_section(section)
    assert "Files the per-rule prefilter skips entirely: 0 of 1 files (0%)." in section.body
    assert section.targets[0].met is not None


def test_project_section_rechecks_the_edited_module_and_its_importers(bench, project):
    section = bench_run.project_section(bench, project, "a tiny project")
    well_formed_section(section)
    assert "| edited module (a function appended) | `pkg/layers.py` |" in section.body
    assert "| files importing it, directly or through local modules | 1 |" in section.body
    assert "| re-checked files that neither are it nor import it | 0 |" in section.body
    assert all(target.met is not None for target in section.targets)


def test_big_file_section(bench, monkeypatch):
    commands = []
    monkeypatch.setattr(bench_run, "measure", fake_measure(commands))
    section = bench_run.big_file_section(bench, 0.005)
    well_formed_section(section)
    assert [target.name.endswith("peak RSS < 1.5 GB") for target in section.targets] == [False, True]
    assert commands[1][-3:-1] == ["-j", "1"] and "--max-file-size" not in commands[1]  # the default limit: in pieces


def test_big_file_is_valid_python_with_legacy_code():
    text = bench_run.big_file(0.05)
    compile(text, "generated.py", "exec")
    assert 0.05e6 <= len(text) < 0.07e6
    assert "Variable(" in text
    top_level = re.findall(r"^(?:class|def) (\w+)", text, re.MULTILINE)
    assert len(top_level) == len(set(top_level)), "each copy's names are its own"
    assert "def loader_0(" in text and "DataLoader(Data1_0()" in text


def test_scaling_section():
    section = bench_run.scaling_section(0.004, 1, ("findings", "imports"))
    well_formed_section(section)
    assert [target.name.split(":")[1].split()[0] for target in section.targets] == ["check", "fix", "rendering"]


def test_startup_section():
    section = bench_run.startup_section(1)
    well_formed_section(section)
    assert [target.name.split("`")[1] for target in section.targets] == ["--version", "rule GL101", "server initialize"]
    assert all(target.met is not None for target in section.targets), [target.status() for target in section.targets]


def test_sections_without_input_say_not_measured(bench, monkeypatch):
    monkeypatch.setitem(sys.modules, "lsp_latency", None)  # as if bench/lsp_latency.py were absent
    for section in (bench_run.typical_section(bench, None), bench_run.lsp_section()):
        well_formed_section(section)
        assert all(target.met is None and "not measured" in target.status() for target in section.targets)


def test_report_keeps_the_hand_written_part(tmp_path):
    output = tmp_path / "RESULTS.md"
    output.write_text("# Results\n\nBy hand.\n\n<!-- results -->\nold numbers\n", encoding="utf-8")
    section = bench_run.Section("Example", "| a | b |\n|---|---|\n| 1 | 2 |", [bench_run.Target("t", "1", False, "why")])
    text = bench_run.report([section], "python bench/run.py")
    assert_well_formed(text)
    bench_run.write_results(text, output)
    written = output.read_text(encoding="utf-8")
    assert written.startswith("# Results\n\nBy hand.\n\n<!-- results -->\n") and "old numbers" not in written
    assert "| t | 1 | **not met**: why |" in written


def test_latency_target_judges_the_slowest_answer():
    result = {"burst_ms_median": 40.0, "burst_ms_max": 130.0, "parse_ms": 90.0}
    target = bench_run.latency_target(result, "diagnostics", "burst_ms", 100.0)
    assert target.met is False and target.status() == "**not met**: the slowest took 130 ms; a bare LibCST parse of the file takes 90 ms"
    assert bench_run.latency_target(result, "code action", "code_action_ms", 20.0).met is None
