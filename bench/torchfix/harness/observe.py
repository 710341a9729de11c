"""What one variant of a TorchFix fixture snippet does under the installed torch, statement by statement.

    python bench/torchfix/harness/observe.py SNIPPET.py HARNESS   # prints JSON: {line: observation}

Run in a fresh interpreter per variant (the original, TorchFix's output, gradlint's outputs), so the
random state and torch's warn-once flags start equal. The snippet's statements run one at a time in
one namespace, after the harness prelude that gives its free names concrete values
(`harness/inputs.py`); the statements of a function body are also run on their own (they are where
TorchFix's "non-runnable" cases are). An observation is the statement's result summarised bitwise:
a tensor's dtype, shape, strides (its layout: `.view()` works on some only), requires_grad and a
hash of its bytes; a tuple element by element; a
raised exception's type. Calls without arguments that the snippet makes only to show a rename are
probed with real arguments, and autocast and checkpoint get observers of their own (the dtype an
autocast region computes in, nested in another region; which tensors get gradients through a
checkpoint)."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import json
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Optional

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inputs import PRELUDES, PROBES, observers_for  # noqa: E402  (the sibling module, found through the path above)


def summary(value: Any) -> Any:
    """A JSON summary that is equal for two values exactly when they are bitwise the same."""
    if isinstance(value, torch.Tensor):
        data = value.detach().cpu().contiguous().reshape(-1)
        raw = data.view(torch.uint8) if data.numel() else data
        digest = hashlib.sha256(bytes(raw.numpy().tobytes()) if raw.numel() else b"").hexdigest()[:16]
        return {
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "strides": list(value.stride()),
            "requires_grad": value.requires_grad,
            "bytes": digest,
        }
    if isinstance(value, (tuple, list)):
        return [summary(item) for item in value]
    if isinstance(value, dict):
        return {str(key): summary(item) for key, item in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, torch.dtype):
        return str(value)
    return {"type": type(value).__name__}


def traced_statements(module: ast.Module) -> list[ast.stmt]:
    """The module's statements, and the simple statements of its function bodies after them."""
    statements = list(module.body)
    for node in module.body:
        if isinstance(node, ast.FunctionDef):
            statements.extend(stmt for stmt in node.body if isinstance(stmt, (ast.Expr, ast.Assign, ast.Return)))
    return statements


def observe(statement: ast.stmt, namespace: dict, observers: dict[str, Callable]) -> Any:
    if isinstance(statement, ast.Return):
        observer = observers.get("return")
        return summary(observer(statement.value, namespace)) if observer is not None and statement.value is not None else "ok"
    if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and "assign" in observers:
        return summary(observers["assign"](statement, namespace))
    if isinstance(statement, ast.Expr):
        probe = _probe(statement.value)
        if probe is not None:
            callee = eval(ast.unparse(statement.value.func), namespace)
            return {"probe": summary(probe(callee))}
        return summary(eval(compile(ast.Expression(statement.value), "<snippet>", "eval"), namespace))
    exec(compile(ast.Module([statement], type_ignores=[]), "<snippet>", "exec"), namespace)
    if isinstance(statement, ast.Assign):
        return [summary(_target_value(target, namespace)) for target in statement.targets]
    return "ok"


def _probe(node: ast.expr) -> Optional[Callable]:
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        return PROBES.get(name)
    return None


def _target_value(target: ast.expr, namespace: dict) -> Any:
    """A name's value; for `obj.attr = ...` the object (a tensor's requires_grad is part of it)."""
    if isinstance(target, ast.Name):
        return namespace[target.id]
    if isinstance(target, ast.Attribute):
        return _target_value(target.value, namespace)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [_target_value(element, namespace) for element in target.elts]
    return None


def run(path: Path, harness: str) -> dict[int, dict]:
    source = path.read_text()
    module = ast.parse(source)
    torch.manual_seed(0)
    torch.set_warn_always(True)
    namespace: dict = {"__name__": "snippet"}
    exec(PRELUDES.get(harness, "import torch\n"), namespace)
    observers = observers_for(harness)
    observed = {}
    for statement in traced_statements(module):
        printed = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(printed):
            warnings.simplefilter("always")
            try:
                result = observe(statement, namespace, observers)
            except Exception as error:  # the snippet's own failures are observations too
                result = {"raises": type(error).__name__}
        deprecations = sorted({w.category.__name__ for w in caught if "deprecat" in str(w.message).lower()})
        observed[statement.lineno] = {"result": result, "printed": printed.getvalue(), "deprecation_warnings": deprecations}
    return observed


if __name__ == "__main__":
    print(json.dumps(run(Path(sys.argv[1]), sys.argv[2])))
