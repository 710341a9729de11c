"""`target-torch`: the oldest torch release a project must still run on. A fix whose replacement
needs a newer torch is offered as unsafe, its title saying why; the finding is reported as before.
The setting (configuration, `--config`, `--target-torch`, `--show-settings`), three replacements
that need a newer torch under `check`, `fix`, `--diff`, `--statistics` and the result cache, the
language server's code actions, and the default: the oldest release that has every replacement."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from gradlint.analysis.torch_api import newest_replacement, replacement_versions
from gradlint.config import DEFAULT_TARGET_TORCH
from gradlint.fix.plan import torch_release
from gradlint.fix.target import within_target
from gradlint.rules import all_rules
from support import lint, write


@dataclass(frozen=True)
class Replacement:
    """A legacy call whose safe fix writes an API that came with `needs` (`below` lacks it)."""

    source: str
    fixed: str
    code: str
    needs: str
    below: str
    options: tuple[str, ...] = ()


SCALER = Replacement(
    "import torch\nscaler = torch.cuda.amp.GradScaler()\n",
    'import torch\nscaler = torch.amp.GradScaler("cuda")\n',
    "GL509",
    needs="2.3",
    below="2.2",
)
LINALG = Replacement(
    "import torch\nX = torch.lu_solve(B, LU, pivots)\n",
    "import torch\nX = torch.linalg.lu_solve(LU, pivots, B)\n",
    "GL508",
    needs="1.13",
    below="1.12",
    options=("--extend-select", "GL508"),  # a legacy style rule: off by default
)
FUNCTORCH = Replacement(
    "import functorch\nimport torch\ny = functorch.vmap(f)(x)\n",
    "import functorch\nimport torch\ny = torch.func.vmap(f)(x)\n",
    "GL503",
    needs="2.0",
    below="1.13",
)
REPLACEMENTS = [pytest.param(case, id=case.code) for case in (SCALER, LINALG, FUNCTORCH)]


def reason(case: Replacement, target: str) -> str:
    return f"(needs torch {case.needs}; target-torch is {target})"


def only_finding(result) -> dict:
    (finding,) = json.loads(result.output)
    return finding


def check_json(run_cli, case: Replacement, *options: str) -> dict:
    return only_finding(run_cli("check", "--no-cache", "--output-format", "json", *case.options, *options, "a.py"))


# -- the setting ------------------------------------------------------------------------------


def test_the_default_is_shown_and_configured_values_replace_it(run_cli, tmp_path):
    write(tmp_path / "a.py", "")
    assert f'target-torch = "{DEFAULT_TARGET_TORCH}"' in run_cli("check", "--show-settings", "a.py").output.splitlines()
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\ntarget-torch = "1.13"\n')
    assert 'target-torch = "1.13"' in run_cli("check", "--show-settings", "a.py").output.splitlines()
    assert 'target-torch = "2.0.1"' in run_cli("check", "--show-settings", "--config", "target-torch = '2.0.1'", "a.py").output


def test_the_option_wins_over_config_overrides_over_the_file(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\ntarget-torch = "2.2"\n')
    write(tmp_path / "a.py", SCALER.source)
    assert check_json(run_cli, SCALER)["fix"]["applicability"] == "unsafe"  # the file's 2.2
    assert check_json(run_cli, SCALER, "--config", "target-torch = '2.3'")["fix"]["applicability"] == "safe"
    overridden = check_json(run_cli, SCALER, "--config", "target-torch = '2.3'", "--target-torch", "2.1")
    assert overridden["fix"]["message"].endswith(reason(SCALER, "2.1"))
    assert check_json(run_cli, SCALER, "--isolated")["fix"]["applicability"] == "safe"  # the default has every replacement


def test_each_file_follows_its_nearest_configuration(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\n")
    write(tmp_path / "old" / "pyproject.toml", '[tool.gradlint]\ntarget-torch = "2.1"\n')
    write(tmp_path / "old" / "a.py", SCALER.source)
    write(tmp_path / "new" / "a.py", SCALER.source)
    findings = json.loads(run_cli("check", "--no-cache", "--output-format", "json", ".").output)
    by_folder = {finding["filename"].split("/")[-2]: finding["fix"]["applicability"] for finding in findings}
    assert by_folder == {"old": "unsafe", "new": "safe"}


@pytest.mark.parametrize(
    ("value", "shown"),
    [("2", "'2'"), ("2.x", "'2.x'"), ("v2.1", "'v2.1'"), ("2.1.0.1", "'2.1.0.1'"), ("", "''")],
)
def test_a_value_that_is_not_a_release_is_a_one_line_error(run_cli, tmp_path, value, shown):
    write(tmp_path / "a.py", "")
    result = run_cli("check", "--target-torch", value, "a.py")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f'gradlint: error: --target-torch must be a torch release as a string, "X.Y" or "X.Y.Z" (e.g. "2.1"), not {shown}'
    ]


def test_a_number_in_the_configuration_is_refused(run_cli, tmp_path):
    # TOML reads 2.10 as the float 2.1: only a string says which release is meant.
    write(tmp_path / "pyproject.toml", "[tool.gradlint]\ntarget-torch = 2.10\n")
    write(tmp_path / "a.py", "")
    result = run_cli("check", "a.py")
    assert result.exit_code == 2
    assert "`target-torch` in " in result.output and "pyproject.toml must be a torch release as a string" in result.output
    assert "not 2.1" in result.output
    assert run_cli("check", "--config", "target-torch = 2", "a.py").exit_code == 2


# -- replacements that need a newer torch ---------------------------------------------------------


@pytest.mark.parametrize("case", REPLACEMENTS)
def test_below_the_release_the_fix_is_unsafe_and_says_why(run_cli, tmp_path, case):
    write(tmp_path / "a.py", case.source)
    finding = check_json(run_cli, case, "--target-torch", case.below)
    assert finding["code"] == case.code  # still reported
    assert finding["fix"]["applicability"] == "unsafe"
    assert finding["fix"]["message"].endswith(" " + reason(case, case.below))
    text = run_cli("check", "--no-cache", *case.options, "--target-torch", case.below, "a.py").output
    assert "unsafe fix (--unsafe-fixes): " in text and reason(case, case.below) in text


@pytest.mark.parametrize("case", REPLACEMENTS)
def test_below_the_release_fix_leaves_it_and_unsafe_fixes_apply_it(run_cli, tmp_path, case):
    path = write(tmp_path / "a.py", case.source)
    result = run_cli("fix", "--no-cache", *case.options, "--target-torch", case.below, "a.py")
    assert path.read_text() == case.source
    assert case.code in result.output and reason(case, case.below) in result.output  # what remains, and why
    diff = run_cli("fix", "--diff", "--no-cache", *case.options, "--target-torch", case.below, "a.py")
    assert diff.exit_code == 0 and diff.output == "Would fix 0 errors.\n"  # no diff
    run_cli("fix", "--no-cache", "--unsafe-fixes", *case.options, "--target-torch", case.below, "a.py")
    assert path.read_text() == case.fixed


@pytest.mark.parametrize("case", REPLACEMENTS)
def test_at_or_above_the_release_the_fix_is_safe_and_applied(run_cli, tmp_path, case):
    path = write(tmp_path / "a.py", case.source)
    for target in (case.needs, "2.13"):
        finding = check_json(run_cli, case, "--target-torch", target)
        assert finding["fix"]["applicability"] == "safe" and "needs torch" not in finding["fix"]["message"]
    diff = run_cli("fix", "--diff", "--no-cache", *case.options, "--target-torch", case.needs, "a.py")
    assert diff.exit_code == 1 and case.fixed.splitlines()[-1] in diff.output
    run_cli("fix", "--no-cache", *case.options, "--target-torch", case.needs, "a.py")
    assert path.read_text() == case.fixed


def test_stdin_follows_the_configuration_of_its_file_name(run_cli, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.gradlint]\ntarget-torch = "1.13"\n')
    fixed = run_cli("fix", "--stdin-filename", "a.py", "-", input=FUNCTORCH.source)
    assert fixed.output.startswith(FUNCTORCH.source)  # unchanged on stdout
    fixed = run_cli("fix", "--stdin-filename", "a.py", "--target-torch", "2.0", "-", input=FUNCTORCH.source)
    assert fixed.output.startswith(FUNCTORCH.fixed)
    checked = run_cli("check", "--output-format", "json", "--stdin-filename", "a.py", "-", input=FUNCTORCH.source)
    assert only_finding(checked)["fix"]["message"].endswith(reason(FUNCTORCH, "1.13"))


def test_an_unsafe_fix_keeps_its_applicability_and_gains_the_reason(run_cli, tmp_path):
    write(tmp_path / "a.py", 'import torch\nmodel = torch.load("model.pt")\nmodel.eval()\n')  # GL510: `weights_only=` came with 1.13
    for target, title in (("1.12", " (needs torch 1.13; target-torch is 1.12)"), ("1.13", "")):
        finding = only_finding(run_cli("check", "--no-cache", "--output-format", "json", "--target-torch", target, "a.py"))
        assert finding["fix"] == {
            **finding["fix"],
            "applicability": "unsafe",
            "message": f"Pass `weights_only=False` (for a file you trust){title}",
        }


def test_statistics_count_a_gated_fix_as_not_fixable(run_cli, tmp_path):
    write(tmp_path / "a.py", SCALER.source)

    def fixable(*options: str) -> bool:
        (row,) = json.loads(run_cli("check", "--no-cache", "--statistics", "--output-format", "json", *options, "a.py").output)
        return row["fixable"]

    assert fixable("--target-torch", "2.3") and not fixable("--target-torch", "2.2")


def test_sarif_sees_the_gated_fix(run_cli, tmp_path):
    write(tmp_path / "a.py", SCALER.source)

    def fix_of(target: str) -> tuple[str, str]:
        sarif = json.loads(run_cli("check", "--no-cache", "--output-format", "sarif", "--target-torch", target, "a.py").output)
        (result,) = sarif["runs"][0]["results"]
        (fix,) = result["fixes"]
        return result["properties"]["fixApplicability"], fix["description"]["text"]

    assert fix_of("2.3") == ("safe", 'Replace with `torch.amp.GradScaler("cuda")`')
    assert fix_of("2.2") == ("unsafe", f'Replace with `torch.amp.GradScaler("cuda")` {reason(SCALER, "2.2")}')


def test_a_cached_result_serves_every_target(run_cli, tmp_path):
    write(tmp_path / "a.py", SCALER.source)
    first = only_finding(run_cli("check", "--output-format", "json", "--target-torch", "2.3", "a.py"))
    again = run_cli("check", "--output-format", "json", "--verbose", "--target-torch", "2.1", "a.py")
    assert "a.py: checked (cached result)" in again.output
    second = json.loads(again.output[again.output.index("[") :])[0]
    assert (first["fix"]["applicability"], second["fix"]["applicability"]) == ("safe", "unsafe")
    assert second["fix"]["message"].endswith(reason(SCALER, "2.1"))
    third = only_finding(run_cli("check", "--output-format", "json", "--target-torch", "2.4", "a.py"))
    assert third == first  # and back: the cache keeps the fix as the rule made it


# -- the default -----------------------------------------------------------------------------------


def test_the_default_target_is_the_oldest_release_with_every_replacement():
    """Raise DEFAULT_TARGET_TORCH when a table gains a replacement that needs a newer torch: the
    default must offer every fix as its rule declares it."""
    assert DEFAULT_TARGET_TORCH == newest_replacement()
    assert {name: replacement_versions()[name] for name in ("torch.cuda.amp.GradScaler", "torch.lu_solve", "functorch.vmap")} == {
        "torch.cuda.amp.GradScaler": "2.3",
        "torch.lu_solve": "1.13",
        "functorch.vmap": "2.0",
    }


def test_every_release_a_table_names_is_a_release():
    assert all(torch_release(release) is not None for release in replacement_versions().values())


def test_no_example_fix_needs_more_than_the_default():
    """Rules keep some releases beside their fixes (GL511's keywords, GL502's `.bool()`): the
    default must cover those too, and the default changes no example's fix."""
    needs = {}
    for rule in all_rules():
        for example in rule.INVALID:
            for finding in lint(example.code, rule.code):
                if finding.fix is not None and finding.fix.needs_torch is not None:
                    needs[(rule.code, finding.fix.message)] = finding.fix.needs_torch
                    assert within_target([finding], DEFAULT_TARGET_TORCH) == [finding]
    assert needs and all(torch_release(release) <= torch_release(DEFAULT_TARGET_TORCH) for release in needs.values())
    assert {code for code, _ in needs} >= {"GL502", "GL503", "GL504", "GL508", "GL509", "GL511"}


# -- the language server ---------------------------------------------------------------------------


def test_the_language_server_offers_the_gated_fix_as_unsafe(tmp_path):
    from test_server import LspSession, apply_lsp_edits, codes, edits_of, fixes

    write(tmp_path / "old" / "pyproject.toml", '[tool.gradlint]\ntarget-torch = "2.2"\n')
    session = LspSession(tmp_path)
    try:
        session.initialize(tmp_path)
        old, new = tmp_path / "old" / "train.py", tmp_path / "new" / "train.py"
        diagnostics = session.open(old, SCALER.source)
        assert codes(diagnostics) == ["GL509"]
        (action,) = fixes(session.code_actions(old, diagnostics, only=["quickfix"]))
        assert action["title"] == f'Replace with `torch.amp.GradScaler("cuda")` {reason(SCALER, "2.2")} (unsafe)'
        assert not action.get("isPreferred")
        assert apply_lsp_edits(SCALER.source, edits_of(action, old.as_uri())) == SCALER.fixed
        assert session.code_actions(old, diagnostics, only=["source.fixAll"]) == []  # no safe fix to apply
        diagnostics = session.open(new, SCALER.source)  # no configuration: the default target
        (action,) = fixes(session.code_actions(new, diagnostics, only=["quickfix"]))
        assert action["title"] == 'Replace with `torch.amp.GradScaler("cuda")`' and action["isPreferred"]
        (fix_all,) = session.code_actions(new, diagnostics, only=["source.fixAll"])
        assert apply_lsp_edits(SCALER.source, edits_of(fix_all, new.as_uri())) == SCALER.fixed
    finally:
        session.stop()


def test_the_server_analysis_and_fix_all_follow_the_configuration(tmp_path):
    from gradlint.server import analyse, fix_all

    write(tmp_path / "pyproject.toml", '[tool.gradlint]\ntarget-torch = "2.2"\n')
    path = tmp_path / "train.py"
    analysis, problems = analyse(path.as_uri(), SCALER.source, "python", (tmp_path,))
    assert problems == [] and analysis.settings.target_torch == "2.2"
    (finding,) = analysis.findings
    assert (finding.fix.applicability, finding.fix.message) == (
        "unsafe",
        f'Replace with `torch.amp.GradScaler("cuda")` {reason(SCALER, "2.2")}',
    )
    assert fix_all(SCALER.source, analysis.name, analysis.settings)[0] == SCALER.source  # the safe fixes only: nothing
