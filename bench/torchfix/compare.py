"""gradlint against TorchFix's own fixtures: which of TorchFix's cases gradlint reports, and whose
rewrites keep what the code did, measured under the installed torch.

    python bench/torchfix/compare.py --torchfix DIR --save bench/TORCHFIX.md

DIR is a TorchFix source tree (its `tests/fixtures/` is read), or a git directory holding one, such
as the snapshot the `fetch` tool brings (`/work/.mirror/pytorch-labs+torchfix/repo`): its HEAD is
then extracted with `git archive` into a temporary folder. A plain clone works as well
(`git clone https://github.com/pytorch-labs/torchfix DIR`).

Cases in scope are TorchFix's deprecated/removed torch API checks and every rewrite its codemods
apply to torch code (`deprecated_symbols/`, and `misc/` for `use_reentrant` and `require_grad`);
the other fixture folders are listed with why they are out of scope (OUT_OF_SCOPE).

1. Checker cases (each expected line of a `checker/*.txt`) and codemod cases (each line a
   `codemod/*.in.py` and its `.out.py` differ on): gradlint `check --isolated --no-cache --select GL`
   (the CLI of this interpreter's environment) on the same file; a case is reported when a finding
   starts on its line (an import TorchFix flags counts as reported where gradlint reports the
   imported name's calls instead).
2. Each codemod file runs, statement by statement, in a fresh interpreter (harness/observe.py) in
   four versions: the original, TorchFix's expected output, `gradlint fix --migrate` and
   `gradlint fix --migrate --unsafe-fixes`; a case's statement is compared bitwise between them
   (dtype, shape, bytes, requires_grad; autocast's compute dtype inside enclosing regions;
   gradients through checkpoint). harness/inputs.py gives the snippets' free names values.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
GRADLINT = Path(sys.executable).with_name("gradlint")

IN_SCOPE = (
    "deprecated_symbols",
    "misc/checker/reentrant_checkpoint",
    "misc/codemod/reentrant_checkpoint",
    "misc/checker/require_grad",
    "misc/codemod/require_grad",
)
OUT_OF_SCOPE = {
    "vision": "torchvision APIs (`pretrained=` -> `weights=`, `ToTensor`, import style): not torch",
    "misc/checker/expm1": "an accuracy suggestion (`exp(x) - 1` -> `expm1`), not a deprecation; no rewrite",
    "misc/checker/log1p": "an accuracy suggestion (`log(1 + x)` -> `log1p`), not a deprecation; no rewrite",
    "misc/checker/logsumexp": "an accuracy suggestion (`log(sum(exp))` -> `logsumexp`), not a deprecation; no rewrite",
    "performance": "performance advice (`num_workers`, `zero_grad(set_to_none=)`), not a deprecation; no rewrite",
    "security": "a security rule: `torch.load` without `weights_only=` (torch 2.13 defaults to True and warns nothing)",
    "internal": "a rule for PyTorch's own test files (`torch.library._scoped_library`)",
    "nonpublic": "a private import path (`torch.utils.data._utils.collate`) that torch does not deprecate; "
    "the public name is the same function object",
}
# Rewrites whose point is to change behaviour: the original is a bug.
INTENDED = {"require_grad": "the original sets a plain attribute (a typo): changing requires_grad is the point"}
API_NAMES = ("checkpoint", "require_grad", "register_pytree_node", "custom_fwd", "custom_bwd")


@dataclass
class Case:
    file: str  # relative to tests/fixtures
    line: int
    api: str
    torchfix: str  # TorchFix's code and message, or its rewritten line
    gradlint_codes: list[str] = field(default_factory=list)
    where: str = ""  # how gradlint reports it when not on the line


@dataclass
class Rewrite:
    case: Case
    original: str
    torchfix_line: str
    torchfix_same: Optional[bool]
    torchfix_difference: str
    gradlint_kind: str  # "safe" / "unsafe" / "none"
    gradlint_line: str
    gradlint_same: Optional[bool]
    gradlint_difference: str


# ---- TorchFix's sources --------------------------------------------------------------------------


def fixtures_root(torchfix: Path, scratch: Path) -> Path:
    if (torchfix / "tests" / "fixtures").is_dir():
        return torchfix / "tests" / "fixtures"
    if (torchfix / "HEAD").is_file() and (torchfix / "objects").is_dir():
        archive = subprocess.run(["git", "--git-dir", str(torchfix), "archive", "HEAD"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive, check=True)
        return scratch / "tests" / "fixtures"
    raise SystemExit(f"{torchfix}: neither a TorchFix tree (tests/fixtures) nor a git directory holding one")


def scope_of(relative: str) -> Optional[str]:
    """None when in scope, else why not."""
    if relative.startswith(IN_SCOPE):
        return None
    for prefix, reason in OUT_OF_SCOPE.items():
        if relative.startswith(prefix):
            return reason
    return "not a deprecation check"


def api_of(text: str, known: list[str]) -> str:
    """The deprecated API a line or message names: written out in full, else by its last name
    (the longest dotted path of those ending in it that the line shares), else its module."""
    named = re.search(r"function (torch[\w.]*|functorch[\w.]*)", text)
    if named:
        return named.group(1)
    ending = [name for name in known if re.search(rf"\b{re.escape(name.rsplit('.', 1)[-1])}\b", text)]
    if ending:
        return max(ending, key=lambda name: sum(part in text for part in name.split(".")))
    modules = sorted({name.split(".")[0] for name in known if re.search(rf"\b{re.escape(name.split('.')[0])}\b", text)})
    return f"{modules[0]} (import)" if modules else "?"


def known_apis(torchfix: Path) -> list[str]:
    table = (torchfix.parent.parent / "torchfix" / "deprecated_symbols.yaml").read_text()
    return re.findall(r"^- name: (\S+)", table, flags=re.M) + list(API_NAMES)


# ---- gradlint ------------------------------------------------------------------------------------


def gradlint_findings(files: list[Path]) -> dict[str, dict[int, list[str]]]:
    """file -> line -> the codes of the findings that start there."""
    command = [str(GRADLINT), "check", "--isolated", "--no-cache", "--select", "GL", "--exit-zero", "--output-format", "json"]
    output = subprocess.run([*command, *map(str, files)], capture_output=True, text=True, check=True).stdout
    found: dict[str, dict[int, list[str]]] = {}
    for finding in json.loads(output):
        lines = found.setdefault(str(Path(finding["filename"]).resolve()), {})
        lines.setdefault(finding["location"]["row"], []).append(finding["code"])
    return found


def gradlint_fixed(source: Path, scratch: Path, unsafe: bool) -> str:
    folder = scratch / ("unsafe" if unsafe else "safe")
    folder.mkdir(parents=True, exist_ok=True)
    copy = folder / source.name.replace(".in.py", ".py")
    shutil.copyfile(source, copy)
    command = [str(GRADLINT), "fix", "--isolated", "--no-cache", "--migrate", "--exit-zero", str(copy)]
    if unsafe:
        command.insert(-1, "--unsafe-fixes")
    subprocess.run(command, capture_output=True, text=True, check=False)
    return copy.read_text()


def reported_at_use(source: str, line: int, found: dict[int, list[str]]) -> list[str]:
    """For `from X import name` flagged by TorchFix: the findings on the calls of the names it binds."""
    module = ast.parse(source)
    names = {
        alias.asname or alias.name
        for node in ast.walk(module)
        if isinstance(node, ast.ImportFrom) and node.lineno == line
        for alias in node.names
    }
    calls = {
        node.lineno for node in ast.walk(module) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names
    }
    return sorted({code for row in calls for code in found.get(row, [])})


# ---- running the snippets ------------------------------------------------------------------------


def observations(path: Path, harness: str) -> dict[int, Any]:
    done = subprocess.run([sys.executable, str(HERE / "harness" / "observe.py"), str(path), harness], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"observing {path} failed:\n{done.stderr}")
    return {int(line): value for line, value in json.loads(done.stdout.splitlines()[-1]).items()}


def statement_at(observed: dict[int, Any], line: int) -> Optional[Any]:
    starts = [start for start in observed if start <= line]
    return observed[max(starts)] if starts else None


def difference(before: Any, after: Any, path: str = "") -> str:
    """The first place two summaries differ, in words; '' when they are equal."""
    if before == after:
        return ""
    if isinstance(before, dict) and isinstance(after, dict):
        if "raises" in before or "raises" in after:
            return f"{path}{_outcome(before)} -> {_outcome(after)}".strip()
        for key in ("dtype", "shape", "requires_grad", "bytes", "strides"):
            if key in before and before.get(key) != after.get(key):
                if key == "bytes":
                    return f"{path}values differ"
                return f"{path}{key} {before.get(key)} -> {after.get(key)}"
        for key in before.keys() | after.keys():
            found = difference(before.get(key), after.get(key), f"{path}{key}: ")
            if found:
                return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (first, second) in enumerate(zip(before, after)):
            found = difference(first, second, f"{path}[{index}] ")
            if found:
                return found
    return f"{path}{_short(before)} -> {_short(after)}"


def _outcome(value: Any) -> str:
    return f"raises {value['raises']}" if isinstance(value, dict) and "raises" in value else "returns"


def _short(value: Any) -> str:
    if isinstance(value, dict) and "dtype" in value:
        return f"{value['dtype']} tensor"
    text = json.dumps(value)
    return text if len(text) < 40 else text[:37] + "..."


def compared(original: Optional[dict], other: Optional[dict]) -> tuple[Optional[bool], str]:
    if original is None or other is None:
        return None, "not run"
    found = difference(original["result"], other["result"]) or difference(original["printed"], other["printed"], "printed: ")
    return not found, found


def line_map(before: list[str], after: list[str]) -> dict[int, int]:
    """1-based line of `before` -> the line of `after` that became of it."""
    mapped = {}
    for _, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        for offset, i in enumerate(range(i1, i2)):
            mapped[i + 1] = (j1 + min(offset, max(j2 - j1 - 1, 0))) + 1
    return mapped


# ---- the comparison ------------------------------------------------------------------------------


def compare(root: Path, scratch: Path) -> tuple[list[Case], list[Rewrite], dict[str, str]]:
    known = known_apis(root)
    checker_files, codemod_files, excluded = [], [], {}
    for path in sorted(root.glob("**/*.py")):
        relative = path.relative_to(root).as_posix()
        reason = scope_of(relative)
        if reason is not None:
            excluded.setdefault(
                relative.split("/")[0]
                if relative.startswith(("vision", "performance", "security", "internal", "nonpublic"))
                else relative.rsplit(".", 1)[0],
                reason,
            )
        elif "/checker/" in relative:
            checker_files.append(path)
        elif relative.endswith(".in.py"):
            codemod_files.append(path)
    found = gradlint_findings(checker_files + codemod_files)
    checks = [case for path in checker_files for case in checker_cases(root, path, found, known)]
    rewrites = [rewrite for path in codemod_files for rewrite in codemod_cases(root, path, found, known, scratch)]
    return checks, rewrites, excluded


def checker_cases(root: Path, path: Path, found: dict, known: list[str]) -> list[Case]:
    expected = path.with_suffix(".txt").read_text().splitlines()
    source = path.read_text()
    at = found.get(str(path.resolve()), {})
    cases = []
    for text in expected:
        match = re.match(r"(\d+):(\d+) (TOR\d+) (.*)", text)
        if not match:
            continue
        line, code, message = int(match.group(1)), match.group(3), match.group(4)
        case = Case(
            path.relative_to(root).as_posix(), line, api_of(message, known), f"{code} {message.split(':')[0]}", list(at.get(line, []))
        )
        if not case.gradlint_codes and message.startswith("Import of"):
            case.gradlint_codes = reported_at_use(source, line, at)
            case.where = "at the imported name's calls" if case.gradlint_codes else ""
        cases.append(case)
    return cases


def codemod_cases(root: Path, path: Path, found: dict, known: list[str], scratch: Path) -> list[Rewrite]:
    harness = path.name[: -len(".in.py")]
    expected = path.with_name(harness + ".out.py")
    original, torchfix = path.read_text().splitlines(), expected.read_text().splitlines()
    safe_text, unsafe_text = gradlint_fixed(path, scratch, False), gradlint_fixed(path, scratch, True)
    safe, unsafe = safe_text.splitlines(), unsafe_text.splitlines()
    safe_map, unsafe_map, torchfix_map = line_map(original, safe), line_map(original, unsafe), line_map(original, torchfix)
    variants = {"original": path, "torchfix": expected}
    for name, text in (("safe", safe_text), ("unsafe", unsafe_text)):
        variants[name] = scratch / f"{harness}.{name}.py"
        variants[name].write_text(text)
    with ThreadPoolExecutor(2) as pool:
        runs = dict(zip(variants, pool.map(lambda variant: observations(variant, harness), variants.values())))
    at = found.get(str(path.resolve()), {})
    rewrites = []
    for line, (before, after) in enumerate(zip(original, torchfix), start=1):
        if before == after:
            continue
        case = Case(path.relative_to(root).as_posix(), line, api_of(before, known), after.strip(), list(at.get(line, [])))
        if not case.gradlint_codes and before.lstrip().startswith("from "):
            case.gradlint_codes = reported_at_use(path.read_text(), line, at)
            case.where = "at the imported name's calls" if case.gradlint_codes else ""
        base = statement_at(runs["original"], line)
        torchfix_same, torchfix_difference = compared(base, statement_at(runs["torchfix"], torchfix_map.get(line, line)))
        safe_line, unsafe_line = safe[safe_map[line] - 1], unsafe[unsafe_map[line] - 1]
        if _is_import(before) and not _is_import(safe_line):
            # The import goes with its last use: what changes is measured at the rewritten calls.
            rewrites.append(
                Rewrite(
                    case,
                    before.strip(),
                    after.strip(),
                    torchfix_same,
                    torchfix_difference,
                    "safe",
                    "(import removed, its calls rewritten)",
                    None,
                    "",
                )
            )
            continue
        if safe_line != before:
            kind, run, rewritten = "safe", "safe", safe_line
        elif unsafe_line != before:
            kind, run, rewritten = "unsafe", "unsafe", unsafe_line
        else:
            kind, run, rewritten = "none", "safe", before
        mapped = (safe_map if run == "safe" else unsafe_map)[line]
        gradlint_same, gradlint_difference = compared(base, statement_at(runs[run], mapped))
        rewrites.append(
            Rewrite(
                case,
                before.strip(),
                after.strip(),
                torchfix_same,
                torchfix_difference,
                kind,
                rewritten.strip(),
                gradlint_same,
                gradlint_difference,
            )
        )
    return rewrites


def _is_import(line: str) -> bool:
    return line.lstrip().startswith(("from ", "import "))


# ---- the page ------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`" if text else ""


def _verdict(same: Optional[bool], difference_text: str, api: str) -> str:
    if same is None:
        return "see its calls"
    if same:
        return "yes (bitwise)"
    intended = next((why for name, why in INTENDED.items() if name in api), None)
    return f"no: {difference_text}" + (f" ({intended})" if intended else "")


def page(checks: list[Case], rewrites: list[Rewrite], excluded: dict[str, str], torch_version: str, cuda: bool) -> str:
    lines = [
        "# gradlint and TorchFix's fixtures",
        "",
        f"Generated by `python bench/torchfix/compare.py --torchfix DIR --save bench/TORCHFIX.md` under torch {torch_version};",
        "see the script's docstring for how each column is measured. TorchFix's rewrites are its",
        "`codemod/*.out.py`; gradlint's are `fix --migrate` (safe) and `fix --migrate --unsafe-fixes`.",
        "",
    ]
    if not cuda:
        lines += ["No GPU here: a CUDA autocast region is compared by the dtype it would compute in (`fast_dtype`).", ""]
    changing = [r for r in rewrites if r.torchfix_same is False]
    kept = [r for r in changing if r.gradlint_same]
    kept_by_rewrite = [r for r in kept if r.gradlint_kind != "none"]
    gradlint_changes = [r for r in rewrites if r.gradlint_kind != "none" and r.gradlint_same is False]
    reported_checks = [c for c in checks if c.gradlint_codes]
    reported_rewrites = [r for r in rewrites if r.case.gradlint_codes]
    lines += [
        "## Counts",
        "",
        f"- Cases in scope: {len(checks)} checker diagnostics and {len(rewrites)} codemod rewrites.",
        f"- Reported by gradlint: {len(reported_checks)} of {len(checks)} checker diagnostics, {len(reported_rewrites)} of {len(rewrites)} rewritten lines.",
        f"- TorchFix's rewrites that change behaviour: {len(changing)} of {len(rewrites)}"
        f" ({sum(1 for r in changing if any(n in r.case.api for n in INTENDED))} of them on purpose: a typo fix).",
        f"- Of those, gradlint keeps the behaviour in {len(kept)}: {len(kept_by_rewrite)} with a rewrite of its own,"
        f" {len(kept) - len(kept_by_rewrite)} by reporting without a fix.",
        f"- gradlint's rewrites: {sum(r.gradlint_kind == 'safe' for r in rewrites)} safe, {sum(r.gradlint_kind == 'unsafe' for r in rewrites)} unsafe,"
        f" {sum(r.gradlint_kind == 'none' for r in rewrites)} none; those that change behaviour: {len(gradlint_changes)}"
        + (" (" + ", ".join(f"{r.case.file}:{r.case.line}" for r in gradlint_changes) + ")" if gradlint_changes else "")
        + ".",
        "",
        "## Codemod rewrites",
        "",
        "| Case | API | TorchFix's rewrite | keeps behaviour | gradlint | gradlint's rewrite | keeps behaviour |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rewrites:
        gradlint = ", ".join(sorted(set(r.case.gradlint_codes))) or "not reported"
        if r.case.where:
            gradlint += f" ({r.case.where})"
        ours = f"{r.gradlint_kind}: {_cell(r.gradlint_line)}" if r.gradlint_kind != "none" else "none"
        our_verdict = _verdict(r.gradlint_same, r.gradlint_difference, r.case.api) if r.gradlint_kind != "none" else "unchanged"
        lines.append(
            f"| {r.case.file.split('/')[-1]}:{r.case.line} | `{r.case.api}` | {_cell(r.torchfix_line)} | {_verdict(r.torchfix_same, r.torchfix_difference, r.case.api)}"
            f" | {gradlint} | {ours} | {our_verdict} |"
        )
    lines += ["", "## Checker diagnostics", "", "| Case | API | TorchFix | gradlint |", "|---|---|---|---|"]
    for c in checks:
        gradlint = ", ".join(sorted(set(c.gradlint_codes))) or "not reported"
        if c.where:
            gradlint += f" ({c.where})"
        lines.append(f"| {c.file.split('/')[-1]}:{c.line} | `{c.api}` | {c.torchfix} | {gradlint} |")
    missed = sorted({c.api for c in checks if not c.gradlint_codes} | {r.case.api for r in rewrites if not r.case.gradlint_codes})
    lines += ["", "Not reported by gradlint: " + (", ".join(f"`{api}`" for api in missed) or "none") + ".", ""]
    lines += ["## Out of scope", "", "| Fixtures | Why |", "|---|---|"]
    lines += [f"| {name} | {reason} |" for name, reason in sorted(excluded.items())]
    return "\n".join(lines) + "\n"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--torchfix", type=Path, required=True, help="a TorchFix tree, or a git directory holding one (the fetch snapshot)")
    parser.add_argument("--save", type=Path, help="write the page here (default: print it)")
    args = parser.parse_args(argv)
    import torch

    with tempfile.TemporaryDirectory() as scratch:
        scratch_path = Path(scratch)
        source = scratch_path / "torchfix"
        source.mkdir()
        root = fixtures_root(args.torchfix.resolve(), source)
        checks, rewrites, excluded = compare(root, scratch_path / "runs")
    text = page(checks, rewrites, excluded, torch.__version__, torch.cuda.is_available())
    if args.save:
        args.save.write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
