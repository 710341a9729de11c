"""Whether any safe fix breaks current code: every safe fix applied to a copy of each repository.

    python bench/safe_fixes.py CORPUS [CORPUS ...] --work DIR   # one folder per repository (OWNER+NAME)
    python bench/safe_fixes.py ... --save bench/SAFE_FIXES.md   # also write the summary page

Each repository is copied to DIR and fixed as a user would fix it, every rule selected and only
the safe fixes applied:

    gradlint fix --isolated --no-cache --exit-zero --select GL COPY

Then every file the fixes changed is checked against its original:
- it still compiles (a notebook: its code cells as gradlint reads them, IPython lines masked);
- it imports as well as it did: each changed module is imported, under its package name from
  the nearest folder without `__init__.py`, once from the original tree and once from the fixed
  one, in a fresh interpreter per tree (a module's own `if __name__ == "__main__":` block does
  not run). A module that imported before must import after; one that failed before must fail
  the same way (modules whose dependencies are not installed fail both times, and count as not
  importable).
The run fails (exit 1) when a changed file no longer compiles or imports worse than before.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from gradlint.notebook import NotebookError, read_notebook

MODULE_TIMEOUT = 30  # seconds to import one module (a script that trains at import time is stopped)

# Imports each module named on stdin (one "ROOT MODULE" per line) and prints one JSON verdict per line.
_IMPORTER = r"""
import importlib, json, signal, sys, warnings
warnings.simplefilter("ignore")
sys.argv = ["-"]
def too_long(signum, frame):
    raise TimeoutError
signal.signal(signal.SIGALRM, too_long)
for line in sys.stdin.read().splitlines():
    root, module = line.split(" ", 1)
    sys.path.insert(0, root)
    signal.alarm(MODULE_TIMEOUT)
    try:
        importlib.import_module(module)
        outcome = "ok"
    except BaseException as error:
        outcome = type(error).__name__
    finally:
        signal.alarm(0)
        if root in sys.path:
            sys.path.remove(root)
    print(json.dumps([module, outcome]), flush=True)
"""


@dataclass(frozen=True)
class Changed:
    repository: str
    path: str  # inside the repository
    compiles: bool
    compiled_before: bool
    import_before: str  # "ok", an exception's class name, or "" when not a module
    import_after: str

    @property
    def broken(self) -> bool:
        if self.compiled_before and not self.compiles:
            return True
        return self.import_before == "ok" and self.import_after != "ok"


def copy_corpus(corpora: list[Path], work: Path) -> list[Path]:
    """A fresh copy of every repository of the corpora, under `work`."""
    copies = []
    for corpus in corpora:
        for repository in sorted(path for path in corpus.iterdir() if path.is_dir()):
            target = work / repository.name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(repository, target, symlinks=True)
            copies.append(target)
    return copies


def fix(copies: list[Path], jobs: int) -> None:
    command = [sys.executable, "-m", "gradlint", "fix", "--isolated", "--no-cache", "--exit-zero", "--select", "GL"]
    subprocess.run([*command, "-j", str(jobs), "--output-format", "json", *map(str, copies)], capture_output=True, check=True)


def changed_files(original: Path, fixed: Path) -> list[str]:
    changed = []
    for path in sorted(fixed.rglob("*")):
        if path.suffix in (".py", ".pyi", ".ipynb") and path.is_file() and not path.is_symlink():
            relative = path.relative_to(fixed)
            if not filecmp.cmp(original / relative, path, shallow=False):
                changed.append(relative.as_posix())
    return changed


def compiles(path: Path) -> bool:
    """The file compiles; a notebook, as gradlint reads its code cells (IPython lines masked)."""
    try:
        if path.suffix != ".ipynb":
            source = path.read_bytes().decode("utf-8-sig")
        else:
            notebook = read_notebook(path.read_bytes())
            source = notebook.code if notebook is not None else ""
        compile(source, str(path), "exec", dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeDecodeError, NotebookError):
        return False
    return True


def module_name(tree: Path, relative: str) -> tuple[Path, str] | None:
    """The folder to put on sys.path and the dotted name that imports `relative` from it."""
    path = tree / relative
    if path.suffix != ".py":
        return None
    parts = [path.stem] if path.stem != "__init__" else []
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder != tree:
        parts.insert(0, folder.name)
        folder = folder.parent
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return folder, ".".join(parts)


def import_outcomes(tree: Path, relatives: list[str]) -> dict[str, str]:
    """Each changed module's import outcome in `tree`, all in one fresh interpreter."""
    names = {relative: module_name(tree, relative) for relative in relatives}
    lines = [f"{root} {module}" for root, module in filter(None, names.values())]
    outcomes: dict[str, str] = {}
    try:
        completed = subprocess.run(
            [sys.executable, "-c", _IMPORTER.replace("MODULE_TIMEOUT", str(MODULE_TIMEOUT))],
            input="\n".join(lines),
            capture_output=True,
            text=True,
            timeout=MODULE_TIMEOUT * (len(lines) + 2),
            cwd=tree,
        )
        stdout = completed.stdout
    except subprocess.TimeoutExpired as expired:
        stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else expired.stdout or ""
    for line in stdout.splitlines():
        try:
            module, outcome = json.loads(line)
        except ValueError:
            continue  # a module printed something of its own
        outcomes[module] = outcome
    # A module after which the interpreter died (exit, crash, timeout) reports no verdict.
    return {relative: outcomes.get(name[1], "no verdict") if name else "" for relative, name in names.items()}


def check_repository(original: Path, fixed: Path) -> list[Changed]:
    relatives = changed_files(original, fixed)
    before = import_outcomes(original, relatives)
    after = import_outcomes(fixed, relatives)
    return [
        Changed(original.name, relative, compiles(fixed / relative), compiles(original / relative), before[relative], after[relative])
        for relative in relatives
    ]


def measured_commit() -> str:
    """The commit of gradlint measured (the checkout this script belongs to)."""
    completed = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent)
    return completed.stdout.strip() or "unknown"


def summary(results: list[Changed], repositories: int, commit: str) -> str:
    imported = [result for result in results if result.import_before == "ok"]
    failed_before = Counter(result.import_before for result in results if result.import_before not in ("ok", ""))
    broken = [result for result in results if result.broken]
    lines = [
        "# Safe fixes on current code",
        "",
        "Generated by `python bench/safe_fixes.py CORPUS ... --save bench/SAFE_FIXES.md` (see its docstring):",
        "every safe fix of every rule applied to a copy of each repository, then each changed file compiled",
        f"and imported from the original and the fixed tree. Measured with gradlint at commit `{commit}`.",
        "",
        f"- repositories: {repositories}",
        f"- files changed by safe fixes: {len(results)} (in {len({result.repository for result in results})} repositories)",
        f"- changed files that compile after the fix: {sum(result.compiles for result in results)} of {len(results)}",
        f"- changed modules that imported before the fix: {len(imported)}; still import after it: "
        f"{sum(result.import_after == 'ok' for result in imported)}",
        f"- changed modules that did not import before (dependencies not installed here, side effects): "
        f"{sum(failed_before.values())} ({', '.join(f'{name} {count}' for name, count in failed_before.most_common())})",
        f"- files a safe fix broke: {len(broken)}",
    ]
    lines += [f"  - {result.repository} `{result.path}`: import {result.import_before} -> {result.import_after}" for result in broken]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", type=Path, nargs="+")
    parser.add_argument("--work", type=Path, required=True, help="where the copies are made (emptied first)")
    parser.add_argument("--save", type=Path, help="write the summary page here")
    parser.add_argument("-j", "--jobs", type=int, default=0)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    copies = copy_corpus(args.corpora, args.work)
    originals = {repository.name: repository for corpus in args.corpora for repository in corpus.iterdir() if repository.is_dir()}
    fix(copies, args.jobs)
    results = [result for copy in copies for result in check_repository(originals[copy.name], copy)]
    text = summary(results, len(copies), measured_commit())
    print(text)
    if args.save:
        args.save.write_text(text, encoding="utf-8")
    return int(any(result.broken for result in results))


if __name__ == "__main__":
    sys.exit(main())
