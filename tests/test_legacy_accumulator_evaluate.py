"""Does the safe migration of a 0.3 loss accumulator give the number 0.3 gave, to the last bit?

pytorch/examples' word_language_model `evaluate` sums `len(data) * criterion(...).data` into
`total_loss` (a one-element float32 tensor in 0.3) and returns `total_loss[0] / len(data_source)`.
Its functions are taken from the vendored script as they are, and as `fix --migrate` (safe fixes
only) leaves them, and run on the same small model and data: the original under the 0.3 meanings
of `legacy_shim`, the migration under torch 2.13 alone.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.autograd import Variable

from gradlint.fix.apply import fix_text
from gradlint.rules import presets
from legacy_shim import legacy_semantics

FOLDER = Path(__file__).parent / "data" / "legacy_scripts" / "pytorch__examples" / "word_language_model"
MAIN = FOLDER / "main.py"
FUNCTIONS = ("repackage_hidden", "get_batch", "evaluate")
NTOKENS, BPTT, EVAL_BATCH_SIZE = 50, 7, 10


def functions_of(source: str) -> dict:
    """`repackage_hidden`, `get_batch` and `evaluate` of `source`, compiled as code of main.py (so
    that the shim counts them as the project's own), sharing one namespace of the script's globals."""
    tree = ast.parse(source)
    kept = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in FUNCTIONS]
    assert [node.name for node in kept] == list(FUNCTIONS)
    namespace = {"torch": torch, "nn": nn, "Variable": Variable}
    exec(compile(ast.Module(body=kept, type_ignores=[]), str(MAIN), "exec"), namespace)
    return namespace


def script_globals(namespace: dict) -> dict:
    spec = importlib.util.spec_from_file_location("word_language_model_model", FOLDER / "model.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    namespace.update(
        model=module.RNNModel("LSTM", NTOKENS, 16, 16, 2, dropout=0.2),
        criterion=nn.CrossEntropyLoss(),
        corpus=SimpleNamespace(dictionary=[None] * NTOKENS),
        args=SimpleNamespace(bptt=BPTT),
        eval_batch_size=EVAL_BATCH_SIZE,
    )
    return namespace


def validation_data() -> torch.Tensor:
    generator = torch.Generator().manual_seed(1)
    return torch.randint(NTOKENS, (120, EVAL_BATCH_SIZE), generator=generator)


def safely_migrated() -> str:
    codes = frozenset(presets()["migrate"])
    return fix_text(MAIN.read_text(encoding="utf-8"), str(MAIN), codes, unsafe=False).text


def test_the_migrated_evaluate_keeps_the_sum_a_tensor_and_reads_it_once():
    text = safely_migrated()
    assert "        total_loss += len(data) * criterion(output_flat, targets)\n" in text  # no graph: no `.detach()`
    assert "    return total_loss.item() / len(data_source)\n" in text
    assert "        total_loss += loss.detach()\n" in text  # a training loss has history


def test_the_migrated_evaluate_gives_0_3s_number_bitwise():
    original = script_globals(functions_of(MAIN.read_text(encoding="utf-8")))
    migrated = script_globals(functions_of(safely_migrated()))
    with legacy_semantics(FOLDER):
        reference = original["evaluate"](validation_data())
    result = migrated["evaluate"](validation_data())
    assert type(reference) is float and type(result) is float
    assert result.hex() == reference.hex()
    # What summing `.item()`s (float64) would give instead: the last bits differ.
    model, criterion, data_source = migrated["model"], migrated["criterion"], validation_data()
    hidden, in_float64 = model.init_hidden(EVAL_BATCH_SIZE), 0.0
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, BPTT):
            data, targets = migrated["get_batch"](data_source, i, evaluation=True)
            output, hidden = model(data, hidden)
            in_float64 += len(data) * criterion(output.view(-1, NTOKENS), targets).item()
    assert in_float64 / len(data_source) != reference
