"""Rules skip work on files whose text cannot hold what they look for; a name a file gets
through another file of the run still counts as spelled there."""

from __future__ import annotations

from pathlib import Path

from gradlint.config import Settings
from gradlint.runner import check_paths
from support import write

HELPERS = "from torch import uint8 as U8\nfrom torch.autograd import backward as bw\n"
# Spells neither `uint8`, `byte` nor `backward`: both come from helpers.py.
TRAIN = """import torch
from helpers import U8, bw


def select(y):
    x = torch.zeros(3)
    mask = y.to(U8)
    return x[mask]


class Trainer:
    def train_once(self, x):
        loss = self.model(x).sum()
        bw(loss)
        self.losses.append(loss)
"""


def codes(root: Path) -> list[str]:
    summary = check_paths([root], Settings(root=root, select=("GL401", "GL502"), select_given=True), use_cache=False, jobs=1)
    assert summary.errors == []
    return sorted(f"{Path(f.path).name}:{f.code}:{f.location.row}" for f in summary.findings)


def test_a_uint8_mask_and_a_backward_imported_through_a_project_module_are_still_found(tmp_path):
    write(tmp_path / "helpers.py", HELPERS)
    write(tmp_path / "train.py", TRAIN)
    assert codes(tmp_path) == ["train.py:GL401:15", "train.py:GL502:8"]
