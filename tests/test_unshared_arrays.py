"""A NumPy array a method returns in a tuple and keeps no reference to
(`FunctionSummary.unshared_returned_value`), and GL507's fix of `torch.LongTensor(idx)` for it:
the legacy constructor shares an int64 array's memory where `torch.tensor` copies it, so the fix is
exact only when nothing else can see or write the array afterwards."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import numpy as np
import pytest
import torch

from gradlint.config import Settings
from gradlint.runner import check_paths
from support import write
from test_function_summaries import summary

TRAINER = """\
import numpy as np
import torch


class Trainer:
    def __init__(self, loader):
        self.loader = loader

    def _noise_sample(self, bs):
        idx = np.random.randint(10, size=bs)
        c = np.zeros((bs, 10))
        c[range(bs), idx] = 1.0
        z = torch.Tensor(c)
        return z, idx

    def train(self):
        idx = np.arange(10).repeat(10)
        one_hot = np.zeros((100, 10))
        one_hot[range(100), idx] = 1
        for x in self.loader:
            bs = x.size(0)
            z, idx = self._noise_sample(bs)
            class_ = torch.LongTensor(idx)
"""
MAIN = "from trainer import Trainer\nTrainer([]).train()\n"
LINE = 23  # `class_ = torch.LongTensor(idx)`
CONSTRUCTOR = "class_ = torch.LongTensor(idx)"


def fix_of(root: Path, trainer: str) -> str:
    """The applicability of GL507's fix of CONSTRUCTOR in a run of the whole project ("" without a fix)."""
    line = next(row for row, text in enumerate(trainer.splitlines(), 1) if CONSTRUCTOR in text)
    write(root / "trainer.py", trainer)
    write(root / "main.py", MAIN)
    summary = check_paths([root], Settings(root=root, select=("GL507",)), use_cache=False, jobs=1)
    assert summary.errors == []
    found = [f for f in summary.findings if Path(f.path).name == "trainer.py" and f.location.row == line]
    assert len(found) == 1
    return found[0].fix.applicability.value if found[0].fix is not None else ""


def test_the_legacy_constructor_shares_an_int64_array_and_torch_tensor_copies_it():
    shared_array, copied_array = np.random.randint(10, size=4), np.random.randint(10, size=4)
    shared = torch.LongTensor(shared_array)  # noqa: GL507 (the legacy form under test)
    copied = torch.tensor(copied_array, dtype=torch.int64)
    shared_array[0], copied_array[0] = 99, 99
    assert shared[0].item() == 99 and copied[0].item() != 99


def test_a_fresh_array_returned_in_a_tuple_and_read_once_is_fixed_safely(tmp_path):
    assert fix_of(tmp_path, TRAINER) == "safe"


def test_the_fix_is_the_tensor_of_the_array_with_the_type_s_dtype(tmp_path):
    write(tmp_path / "trainer.py", TRAINER)
    write(tmp_path / "main.py", MAIN)
    summary = check_paths([tmp_path], Settings(root=tmp_path, select=("GL507",)), use_cache=False, jobs=1)
    titles = {f.location.row: f.fix.message for f in summary.findings if f.fix is not None}
    assert titles[LINE] == "Replace with `torch.tensor(idx, dtype=torch.int64)`"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the method keeps the array: on self, or in a global
        ("        return z, idx\n", "        self.last = idx\n        return z, idx\n"),
        ("        return z, idx\n", "        global LAST\n        LAST = idx\n        return z, idx\n"),
        # different things on different paths
        ("        return z, idx\n", "        if bs > 5:\n            return z, c\n        return z, idx\n"),
        (
            "        idx = np.random.randint(10, size=bs)\n",
            "        idx = np.random.randint(10, size=bs)\n        if bs > 5:\n            idx = self.fixed\n",
        ),
        # another element of the tuple (an array also handed to `torch.Tensor`), or an array of another dtype
        ("        return z, idx\n", "        return idx, c\n"),
        ("np.random.randint(10, size=bs)", "np.random.randint(10, size=bs, dtype=np.int32)"),
        # the caller keeps another name for it, or reads it after the constructor shares it
        ("            class_ = torch.LongTensor(idx)\n", "            kept = idx\n            class_ = torch.LongTensor(idx)\n"),
        ("            class_ = torch.LongTensor(idx)\n", "            class_ = torch.LongTensor(idx)\n            idx[0] = 3\n"),
        # the name rebound between the unpacking and the read
        ("            class_ = torch.LongTensor(idx)\n", "            idx = self.codes\n            class_ = torch.LongTensor(idx)\n"),
        # a size not known to be an int: `size=()` gives a NumPy int, which the constructor reads as a size
        ("            bs = x.size(0)\n", "            bs = x.shape\n"),
    ],
)
def test_look_alikes_are_not_fixed_safely(tmp_path, old, new):
    assert old in TRAINER
    assert fix_of(tmp_path, TRAINER.replace(old, new)) == ""


def test_a_method_called_from_elsewhere_or_overridden_is_not_followed(tmp_path):
    subclassed = TRAINER + "\n\nclass Other(Trainer):\n    def _noise_sample(self, bs):\n        return None, self.codes\n"
    assert fix_of(tmp_path, subclassed) == ""
    write(tmp_path / "other.py", "from trainer import Trainer\nz, idx = Trainer([])._noise_sample(3)\n")
    assert fix_of(tmp_path, TRAINER) == ""


def test_a_run_of_the_file_alone_does_not_know_every_caller(tmp_path):
    write(tmp_path / "trainer.py", TRAINER)
    summary = check_paths([tmp_path / "trainer.py"], Settings(root=tmp_path, select=("GL507",)), use_cache=False, jobs=1)
    assert [f.fix for f in summary.findings if f.location.row == LINE] == [None]


def fresh(value) -> bool:
    """A stand-in for a rule's freshness test: a call of `np.*`."""
    return isinstance(value, cst.Call) and cst.Module([]).code_for_node(value.func).startswith("np.")


SAMPLE = """\
import numpy as np
def sample(n):
    idx = np.random.randint(10, size=n)
    c = np.zeros((n, 10))
    c[range(n), idx] = 1.0
    return c, idx
"""


def test_the_summary_names_the_value_of_an_unshared_local_returned_in_a_tuple():
    found = summary(SAMPLE, "sample").unshared_returned_value(1, fresh)
    assert isinstance(found, cst.Call) and found.func.attr.value == "randint"
    # `c` is subscripted, a use the summary does not judge (only reads as an index are allowed)
    assert summary(SAMPLE, "sample").unshared_returned_value(0, fresh) is None
    assert summary(SAMPLE, "sample").unshared_returned_value(2, fresh) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("    return c, idx\n", "    KEPT.append(idx)\n    return c, idx\n"),  # handed to a call
        ("    return c, idx\n", "    other = idx\n    return c, idx\n"),  # another name holds it
        ("    return c, idx\n", "    global idx\n    return c, idx\n"),
        ("    return c, idx\n", "    if n:\n        return c, c\n    return c, idx\n"),  # two returns
        ("    return c, idx\n", "    return c, idx\n    yield\n"),  # a generator
        ("    idx = np.random.randint(10, size=n)\n", "    idx = make(n)\n"),  # not fresh
        ("    idx = np.random.randint(10, size=n)\n", "    a = idx = np.random.randint(10, size=n)\n"),
        ("    c[range(n), idx] = 1.0\n", "    store[idx] = 1.0\n"),  # an index of something unknown
        ("    c[range(n), idx] = 1.0\n", "    idx = np.zeros(n)\n"),  # bound twice
    ],
)
def test_the_summary_refuses_a_local_something_else_may_hold(old, new):
    assert old in SAMPLE
    assert summary(SAMPLE.replace(old, new), "sample").unshared_returned_value(1, fresh) is None
