"""What the installed torch does with each catalogued deprecation: does the legacy call warn or
raise, does the replacement run clean, and do both compute the same.

    python bench/deprecations/probe.py                    # every record of both catalogs
    python bench/deprecations/probe.py --area core        # one catalog
    python bench/deprecations/probe.py --api torch.qr --api torch.lu   # some records
    python bench/deprecations/probe.py --generate-only    # only rewrite probe_all.py

Each record runs in a fresh interpreter (two at a time), once for its `call` and once for its
`replacement_call`, after the PRELUDE: the usual imports, `torch.manual_seed(0)`, and the example
values the code names (`x`, `A`, `model`, ...; see EXAMPLES). Warnings are recorded with
`torch.set_warn_always(True)` and `warnings.simplefilter("always")`. Results are compared by
fingerprint: a tensor by dtype, shape, `requires_grad` and its bytes; a tuple or list elementwise;
a module by type name and state-dict fingerprints; anything else by `repr` without addresses.

The verdicts go to tests/data/torch_deprecations.json (every record field, then `status` "warns",
"raises" or "silent", `category`, `message`, `replacement_status` "clean", "warns" or "raises",
`replacement_message`, `same_result`); with `--api` or `--area` only those entries are replaced.
tests/data/deprecations/probe_all.py is generated from all records: one function per record that
runs its `call` as a user writes it and returns `result`, and a main loop printing
`case_NNN: <result summary>`, `case_NNN: raises <Type>` and, for each warning, `case_NNN: warns
<Category>`. gradlint checks that script (which records a rule reports) and `fix --migrate` must
leave its output the same, minus the `warns` lines of the fixed cases.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from types import ModuleType
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.deprecations.records import Deprecation  # noqa: E402

VERDICTS = ROOT / "tests" / "data" / "torch_deprecations.json"
PROBE_ALL = ROOT / "tests" / "data" / "deprecations" / "probe_all.py"
CATALOGS = ("core", "libs")
PARALLEL = 2
TIMEOUT = 180  # seconds for one run (an import of torch included)

IMPORTS = """\
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
"""

# The example values a record's code may name, in definition order (later ones may use earlier
# ones). Each case defines the ones its code names, after `torch.manual_seed(0)`; all are
# deterministic, so a call and its replacement see the same values.
EXAMPLES: dict[str, str] = {
    "x": "x = torch.linspace(-1.5, 2.0, 12).reshape(3, 4)",
    "y": "y = torch.linspace(0.5, 3.0, 12).reshape(3, 4)",
    "v": "v = torch.tensor([1.0, -2.0, 3.0])",
    "w": "w = torch.tensor([0.5, 1.5, -1.0])",
    "A": "A = torch.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])",
    "B": "B = torch.tensor([[1.0, 2.0], [0.0, -1.0], [3.0, 1.0]])",
    "i": "i = torch.tensor([2, 0, 1])",
    "mask": "mask = torch.tensor([True, False, True])",
    "img": "img = torch.linspace(0.0, 1.0, 96).reshape(2, 3, 4, 4)",
    "seq": "seq = torch.linspace(-1.0, 1.0, 24).reshape(2, 3, 4)",
    "model": "model = nn.Linear(4, 2)",
    "opt": "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
}
DEPENDS = {"opt": ("model",)}

# The summary of a value, shared by the probe's child and probe_all.py: deterministic, no addresses.
SUMMARY = """\
def summary(value):
    import hashlib
    import re

    def digest(data):
        return hashlib.sha1(data).hexdigest()[:12]

    if isinstance(value, torch.Tensor):
        tensor = value.detach()
        if tensor.layout != torch.strided:
            tensor = tensor.to_dense()
        if tensor.is_quantized:
            tensor = tensor.dequantize()
        data = tensor.contiguous().cpu().reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
        grad = " grad" if value.requires_grad else ""
        return f"tensor {str(value.dtype)[6:]} {list(value.shape)}{grad} {digest(data)}"
    if isinstance(value, nn.Module):
        state = ",".join(f"{name}={summary(tensor)}" for name, tensor in value.state_dict().items())
        return f"module {type(value).__name__} {digest(state.encode())}"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(summary(item) for item in value)
        return f"{'list' if isinstance(value, list) else 'tuple'}[{inner}]"  # a named tuple as a tuple
    if isinstance(value, dict):
        inner = ", ".join(f"{key!r}: {summary(item)}" for key, item in value.items())
        return f"dict{{{inner}}}"
    text = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))
    text = re.sub(r"0x[0-9a-fA-F]{6,}", "0x", text)
    return text if len(text) <= 120 else f"{text[:100]}... {digest(text.encode())}"
"""

# Runs one piece of code after the prelude and prints one JSON line: the warnings seen, the
# exception raised (if any) and the summary of `result`.
_CHILD = r"""
import json, sys, warnings
code = sys.stdin.read()
seen = []
warnings.simplefilter("always")
def record(message, category, filename, lineno, file=None, line=None):
    seen.append({"category": category.__name__, "message": str(message).strip().splitlines()[0] if str(message).strip() else ""})
warnings.showwarning = record
outcome = {"warnings": seen, "error": None, "summary": None}
namespace = {"__name__": "__probe__"}
try:
    exec(compile(code, "<record>", "exec"), namespace)
except BaseException as error:
    outcome["error"] = {"type": type(error).__name__, "message": (str(error).strip().splitlines() or [""])[0][:300]}
else:
    try:
        outcome["summary"] = namespace["summary"](namespace.get("result"))
    except BaseException as error:
        outcome["summary"] = f"<summary failed: {type(error).__name__}>"
print("\n@@PROBE@@" + json.dumps(outcome))
"""

DEPRECATION_CATEGORIES = ("DeprecationWarning", "FutureWarning", "PendingDeprecationWarning")
DEPRECATION_TEXT = re.compile(r"deprecat|will be removed|no longer|renamed|is removed|in favou?r of|instead", re.IGNORECASE)


def load_catalogs(areas: tuple[str, ...] = CATALOGS) -> list[ModuleType]:
    """The catalog modules present (a catalog not written yet is skipped)."""
    modules = []
    for area in areas:
        try:
            modules.append(importlib.import_module(f"bench.deprecations.catalog_{area}"))
        except ModuleNotFoundError as error:
            if error.name != f"bench.deprecations.catalog_{area}":
                raise
    return modules


def all_records(areas: tuple[str, ...] = CATALOGS) -> list[Deprecation]:
    return [record for module in load_catalogs(areas) for record in module.RECORDS]


def record_key(record: Deprecation) -> str:
    return f"{record.api}:{record.keyword}" if record.keyword else record.api


def identity(entry: dict) -> tuple:
    """What tells two records apart in the verdicts file (an API can have a keyword and a default record)."""
    return (entry["api"], entry["kind"], entry.get("keyword"))


def names_in(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def example_lines(*codes: Optional[str]) -> list[str]:
    """The EXAMPLES lines (and what they depend on) that the codes name, in definition order."""
    used = set().union(*(names_in(code) for code in codes if code))
    for name in list(used):
        used.update(DEPENDS.get(name, ()))
    return [line for name, line in EXAMPLES.items() if name in used]


def program(code: str, examples: list[str]) -> str:
    """The code as the probe runs it: the prelude, the examples, then the record's statements."""
    return "\n".join([IMPORTS, SUMMARY, "torch.set_warn_always(True)", "torch.manual_seed(0)", *examples, code, ""])


def run(code: str) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD], input=code, capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT, check=False
        )
    except subprocess.TimeoutExpired:
        return {"warnings": [], "error": {"type": "ProbeTimeout", "message": f"no answer within {TIMEOUT} s"}, "summary": None}
    for line in reversed(done.stdout.splitlines()):
        if line.startswith("@@PROBE@@"):
            return json.loads(line[len("@@PROBE@@") :])
    tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"warnings": [], "error": {"type": "ProbeCrashed", "message": tail[:300]}, "summary": None}


def deprecation_warning(warnings_seen: list[dict]) -> Optional[dict]:
    """The warning that says the API is deprecated: by category first, then by its words."""
    for warning in warnings_seen:
        if warning["category"] in DEPRECATION_CATEGORIES:
            return warning
    return next((warning for warning in warnings_seen if DEPRECATION_TEXT.search(warning["message"])), None)


def verdict(record: Deprecation) -> dict:
    examples = example_lines(record.call, record.replacement_call)
    legacy = run(program(record.call, examples))
    entry = asdict(record)
    warning = deprecation_warning(legacy["warnings"]) or (legacy["warnings"][0] if legacy["warnings"] else None)
    entry["error"] = f"{legacy['error']['type']}: {legacy['error']['message']}" if legacy["error"] else ""
    # A removed API that still warns before raising (a legacy autograd Function) counts as raising.
    if legacy["error"] and (record.removed or not deprecation_warning(legacy["warnings"])):
        entry.update(status="raises", category=legacy["error"]["type"], message=legacy["error"]["message"])
    elif warning:
        entry.update(status="warns", category=warning["category"], message=warning["message"])
    else:
        entry.update(status="silent", category="", message="")
    entry.update(replacement_status=None, replacement_message="", same_result=None)
    if record.replacement_call:
        modern = run(program(record.replacement_call, examples))
        if modern["error"]:
            entry.update(replacement_status="raises", replacement_message=f"{modern['error']['type']}: {modern['error']['message']}")
        elif deprecation_warning(modern["warnings"]):
            entry.update(replacement_status="warns", replacement_message=deprecation_warning(modern["warnings"])["message"])
        else:
            entry.update(replacement_status="clean")
        if not legacy["error"] and not modern["error"]:
            entry["same_result"] = legacy["summary"] == modern["summary"]
        entry["result"] = legacy["summary"]
        entry["replacement_result"] = modern["summary"]
    else:
        entry["result"] = legacy["summary"]
    return entry


def probe(records: list[Deprecation]) -> list[dict]:
    def announced(record: Deprecation) -> dict:
        entry = verdict(record)
        print(f"{entry['status']:7} {record_key(record)}", file=sys.stderr, flush=True)
        return entry

    with ThreadPoolExecutor(PARALLEL) as pool:
        return list(pool.map(announced, records))


def write_verdicts(fresh: list[dict], everything: list[Deprecation]) -> None:
    """Replace the entries of the probed records, keep the others, in catalog order."""
    known = {}
    if VERDICTS.exists():
        known = {identity(entry): entry for entry in json.loads(VERDICTS.read_text(encoding="utf-8"))}
    known.update({identity(entry): entry for entry in fresh})
    ordered = [known[identity(asdict(record))] for record in everything if identity(asdict(record)) in known]
    VERDICTS.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")


def case_function(number: int, record: Deprecation) -> str:
    body = ["torch.manual_seed(0)", *example_lines(record.call), *record.call.strip().splitlines(), "return result"]
    lines = [f"# {record_key(record)}", f"def case_{number:03d}():", *(f"    {line}" if line.strip() else "" for line in body)]
    return "\n".join(lines)


MAIN = """\
CURRENT = ["setup"]


def report_warning(message, category, filename, lineno, file=None, line=None):
    print(f"{CURRENT[0]}: warns {category.__name__}")


def main():
    warnings.simplefilter("always")
    warnings.showwarning = report_warning
    torch.set_warn_always(True)
    for name, case in CASES:
        CURRENT[0] = name
        try:
            result = case()
        except Exception as error:
            print(f"{name}: raises {type(error).__name__}")
        else:
            print(f"{name}: {summary(result)}")


if __name__ == "__main__":
    main()
"""


def generate_probe_all(records: list[Deprecation]) -> str:
    header = '"""Every catalogued deprecated torch API called once, as a user writes it (generated by\nbench/deprecations/probe.py from bench/deprecations/catalog_*.py; do not edit)."""\n'
    cases = [case_function(number, record) for number, record in enumerate(records, start=1)]
    table = "CASES = [\n" + "".join(f'    ("case_{number:03d}", case_{number:03d}),\n' for number in range(1, len(records) + 1)) + "]\n"
    return "\n".join([header, IMPORTS, "", SUMMARY, "", "\n\n\n".join(cases), "", "", table, "", MAIN])


def refresh() -> int:
    """Copy each record's fields (exact, note, since, ...) into its verdict when its code is the
    one probed; list the records whose code changed, which need probing again."""
    entries = {identity(entry): entry for entry in json.loads(VERDICTS.read_text(encoding="utf-8"))}
    stale = []
    for record in all_records():
        fields = asdict(record)
        entry = entries.get(identity(fields))
        if entry is None or (entry["call"], entry["replacement_call"]) != (record.call, record.replacement_call):
            stale.append(record_key(record))
            continue
        entry.update(fields)
        if record.removed and entry.get("error") and entry["status"] == "warns":
            kind, _, message = entry["error"].partition(": ")
            entry.update(status="raises", category=kind, message=message)
    VERDICTS.write_text(json.dumps(list(entries.values()), indent=1) + "\n", encoding="utf-8")
    for key in stale:
        print(f"probe again: {key}")
    return 1 if stale else 0


def case_lines(source: str) -> dict[str, range]:
    """The lines of each `case_NNN` function of probe_all.py (its comment line included)."""
    tree = ast.parse(source)
    return {
        node.name: range(node.lineno - 1, (node.end_lineno or node.lineno) + 1)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("case_")
    }


def coverage(select: str) -> int:
    """Which records a rule reports on probe_all.py, and with a safe fix."""
    done = subprocess.run(
        ["gradlint", "check", "--select", select, "--no-cache", "--isolated", "--exit-zero", "--output-format", "json", str(PROBE_ALL)],
        capture_output=True,
        text=True,
        check=False,
    )
    findings = json.loads(done.stdout or "[]")
    lines = case_lines(PROBE_ALL.read_text(encoding="utf-8"))
    reported: dict[str, set[str]] = {}
    fixed: set[str] = set()
    for finding in findings:
        row = finding["location"]["row"]
        case = next((name for name, span in lines.items() if row in span), None)
        if case is None:
            continue
        reported.setdefault(case, set()).add(finding["code"])
        if finding.get("fix") and finding["fix"]["applicability"] == "safe":
            fixed.add(case)
    records = all_records()
    for number, record in enumerate(records, start=1):
        case = f"case_{number:03d}"
        codes = ",".join(sorted(reported.get(case, ()))) or "-"
        print(f"{case} {'fix ' if case in fixed else '    '}{codes:14} {record_key(record)} [{record.kind}]")
    print(f"{len(records)} records, {len(reported)} reported, {len(fixed)} with a safe fix", file=sys.stderr)
    return 0


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--area", choices=CATALOGS, action="append", help="probe this catalog only (repeatable)")
    parser.add_argument("--api", action="append", help="probe the records of this API only (repeatable)")
    parser.add_argument("--generate-only", action="store_true", help="only regenerate probe_all.py")
    parser.add_argument("--print", action="store_true", help="print the verdicts instead of writing the JSON")
    parser.add_argument("--refresh", action="store_true", help="rewrite the record fields of the verdicts whose code is unchanged")
    parser.add_argument("--coverage", metavar="SELECT", help="list which records gradlint reports on probe_all.py (rules: GL1,GL5)")
    options = parser.parse_args(argv)
    if options.coverage:
        return coverage(options.coverage)
    if options.refresh:
        return refresh()
    everything = all_records()
    PROBE_ALL.parent.mkdir(parents=True, exist_ok=True)
    PROBE_ALL.write_text(generate_probe_all(everything), encoding="utf-8")
    if options.generate_only:
        return 0
    chosen = all_records(tuple(options.area)) if options.area else everything
    if options.api:
        chosen = [record for record in chosen if record.api in options.api]
    fresh = probe(chosen)
    for entry in fresh:
        same = {None: "", True: " same", False: " DIFFERENT"}[entry["same_result"]]
        replacement = f" -> {entry['replacement_status']}{same}" if entry["replacement_status"] else ""
        print(
            f"{entry['status']:7} {record_key(Deprecation(**{k: entry[k] for k in ('api', 'kind', 'call', 'keyword')}))}: {entry['category']} {entry['message'][:90]}{replacement}"
        )
        if entry["replacement_status"] not in (None, "clean"):
            print(f"        replacement: {entry['replacement_message'][:150]}")
    if options.print:
        print(json.dumps(fresh, indent=1))
    else:
        write_verdicts(fresh, everything)
    return 0


if __name__ == "__main__":
    sys.exit(main())
