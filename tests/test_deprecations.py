"""The deprecation harvest against gradlint: every harvested deprecation is reported (95 % at least),
every exact replacement has a safe fix that the probe confirmed, `fix --migrate` of the script
calling them all keeps its output and silences the fixed ones, GL517's table holds no API another
GL5xx table holds, and rules/deprecations.md lists them as they are."""

from __future__ import annotations

import importlib.util
import os
import shutil
import textwrap
import subprocess
import sys
from pathlib import Path

import pytest

from gradlint.analysis.torch_api import amp, deprecations, legacy_linalg, legacy_losses, removed, renamed

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"deprecation_{name}", ROOT / "bench" / "deprecations" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


COVERAGE = _load("coverage")


@pytest.fixture(scope="module")
def covered():
    return COVERAGE.coverage()


# What no rule reports yet, by why (a ratchet: a new miss fails, a fixed one must leave the list).
# Uses the tables cannot tell from a value (a uint8 condition, argument order, masks,
# `low == high`, `dynamo=False`); and profiler-event members whose names other objects share
# (`cuda_time`, `metadata_json`).
KNOWN_UNREPORTED = frozenset(
    {
        "torch.where:uint8 condition",
        "torch.nn.functional.embedding_bag:argument order",
        "torch.nn.MultiheadAttention:mismatched masks",
        "torch.testing.make_tensor:low==high",
        *(f"torch.autograd.profiler_util.FunctionEvent.{name}" for name in ("cuda_time", "metadata_json")),
        "torch.onnx.export:dynamo",
    }
)


def test_the_harvest_is_reported_but_for_the_known_gaps(covered):
    counts = COVERAGE.summary(covered)
    assert counts["records"] >= 300
    missed = {COVERAGE.record_key(c.record) for c in covered if not c.codes}
    assert sorted(missed - KNOWN_UNREPORTED) == [], "newly unreported"
    assert sorted(KNOWN_UNREPORTED - missed) == [], "reported now: take them off KNOWN_UNREPORTED"
    assert counts["reported"] / counts["records"] >= 0.95


def test_every_exact_replacement_the_probe_confirmed_gets_a_safe_fix_but_for_the_known_gaps(covered):
    """An exact replacement that `probe.py` ran (same result, no warning) but gradlint does not fix
    is a miss: those not reported, and those the tables cannot rewrite."""
    confirmed = [
        c for c in covered if c.record.get("exact") and c.record.get("same_result") and c.record.get("replacement_status") == "clean"
    ]
    unfixed = {COVERAGE.record_key(c.record) for c in confirmed if c.fix != "safe"}
    cannot_rewrite = {
        # a direct call of the method on an instance would pass the class instead
        "torch.Tensor.__torch_function__",
    }
    assert sorted(unfixed - KNOWN_UNREPORTED - cannot_rewrite) == []
    assert len(confirmed) - len(unfixed) >= 135


def test_a_safe_fix_is_offered_only_for_an_exact_replacement(covered):
    inexact = [COVERAGE.record_key(c.record) for c in covered if c.fix == "safe" and c.record.get("exact") is False]
    assert inexact == []


def test_the_page_is_in_sync(covered):
    assert COVERAGE.PAGE.read_text(encoding="utf-8") == COVERAGE.page(covered), "run `python bench/deprecations/coverage.py`"


def test_each_gl517_row_is_a_harvested_record():
    harvested = {COVERAGE.record_key(record) for record in COVERAGE.records()}
    keyed = [
        *deprecations.CALLABLES.items(),
        *((f"{api}:{keyword}", entry) for (api, keyword), entry in deprecations.KEYWORDS.items()),
        *((f"torch.Tensor.{name}", entry) for name, entry in deprecations.METHODS.items()),
        *deprecations.MEMBERS.items(),
    ]
    rows = {entry.record or key for key, entry in keyed}
    assert sorted(rows - harvested) == []


def test_the_deprecation_table_repeats_no_older_table():
    older = {
        *renamed.RENAMED,
        *amp.LEGACY_AMP,
        amp.SDP_KERNEL,
        *removed.REMOVED_FUNCTIONS,
        *removed.REMOVED_FFT_FUNCTIONS,
        *removed.REMOVED_MODULES,
        *(f"torch.{name}" for name in legacy_linalg.LEGACY_LINALG),
        *(f"torch.nn.{name}" for name in legacy_losses.LOSS_MODULE_PARAMETERS),
        *(f"torch.nn.functional.{name}" for name in legacy_losses.LOSS_FUNCTION_PARAMETERS),
    }
    assert sorted(set(deprecations.CALLABLES) & older) == []


def test_a_fix_names_the_torch_that_has_its_replacement():
    rows = [
        *deprecations.CALLABLES.values(),
        *deprecations.KEYWORDS.values(),
        *deprecations.METHODS.values(),
        *deprecations.MEMBERS.values(),
    ]
    assert [row for row in rows if row.new is not None and row.needs_torch is None and row.new.startswith("torch.")] == []


def _run(script: Path) -> list[str]:
    env = {**os.environ, "PYTHONWARNINGS": "always"}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=script.parent, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


def _by_case(lines: list[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for line in lines:
        name, _, rest = line.partition(": ")
        grouped.setdefault(name, []).append(rest)
    return grouped


def test_migrating_the_probe_keeps_its_output_and_silences_what_it_fixes(tmp_path, covered):
    script = tmp_path / "probe_all.py"
    shutil.copyfile(COVERAGE.PROBE_ALL, script)
    before = _by_case(_run(script))
    fixed = subprocess.run(
        [sys.executable, "-m", "gradlint", "fix", "--migrate", "--no-cache", "--isolated", str(script)], capture_output=True, text=True
    )
    assert fixed.returncode in (0, 1), fixed.stderr
    after = _by_case(_run(script))
    changed, still_warns, still_raises = [], [], []
    for item in covered:
        name = item.case.name
        results = [line for line in before.get(name, []) if not line.startswith("warns ")]
        results_after = [line for line in after.get(name, []) if not line.startswith("warns ")]
        if item.record.get("status") != "raises" and results != results_after:
            changed.append((name, results, results_after))
        # A fixed case warns no more, but for a warning of the replacement's own that the legacy
        # call gave as well (`dcp.save` outside a process group): one warning fewer at least.
        warned = [line for line in before.get(name, []) if line.startswith("warns ")]
        warns = [line for line in after.get(name, []) if line.startswith("warns ")]
        if item.fix == "safe" and warns and not (len(warns) < len(warned) and set(warns) <= set(warned)):
            still_warns.append((name, COVERAGE.record_key(item.record), after[name]))
        if item.record.get("status") == "raises" and item.fix == "safe" and any(line.startswith("raises ") for line in results_after):
            still_raises.append((name, COVERAGE.record_key(item.record), results_after))
    assert changed == []
    assert still_warns == []
    assert still_raises == []


def _gl517(source: str):
    from gradlint.engine import lint_text

    return lint_text(textwrap.dedent(source), "example.py", frozenset({"GL517"})).findings


def test_a_member_is_renamed_safely_only_on_a_value_built_as_its_class():
    built = _gl517(
        """
        import torch
        sizes = torch.utils.data.ConcatDataset(parts).cummulative_sizes
        """
    )
    passed = _gl517(
        """
        import torch
        def sizes(dataset):
            return dataset.cummulative_sizes
        """
    )
    assert [finding.fix.applicability.value for finding in built] == ["safe"]
    assert [finding.fix.applicability.value for finding in passed] == ["unsafe"]


def test_tensor_members_are_reported_on_tensors_only():
    findings = _gl517(
        """
        import torch
        from PIL import Image
        x = torch.randn(4, 4)
        a = x.volatile
        b = x.resize(2, 8)
        c = x.scatter(0, torch.zeros(1, 4, dtype=torch.long), x, reduce="add")
        image = Image.fromarray(x.numpy())
        image = image.resize((2, 2))
        thumbnail = Image.open(path).resize((8, 8))
        d = x.scatter(0, torch.zeros(1, 4, dtype=torch.long), 2.0, reduce="add")
        """
    )
    assert [finding.location.row for finding in findings] == [5, 6, 7]


def test_a_call_through_an_alias_names_the_torch_api_it_stands_for():
    findings = _gl517(
        """
        import torch
        from torch.testing import assert_allclose as close
        def gather(out, x):
            gather_op = torch.distributed.all_gather_into_tensor
            gather_op(out, x)
        close(a, b)
        torch.testing.assert_allclose(a, b)
        """
    )
    messages = [finding.message.split(" is deprecated")[0] for finding in findings]
    assert messages == [
        "`torch.distributed.all_gather_into_tensor`",
        "`gather_op` (`torch.distributed.all_gather_into_tensor`)",
        "`close` (`torch.testing.assert_allclose`)",
        "`torch.testing.assert_allclose`",
    ]


def test_a_keyword_is_dropped_only_with_the_value_that_had_no_effect():
    quiet, printing = (
        _gl517(
            f"""
            import torch
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 2, verbose={value})
            """
        )
        for value in ("False", "True")
    )
    assert [finding.fix.applicability.value for finding in quiet] == ["safe"]
    assert [finding.fix for finding in printing] == [None]
