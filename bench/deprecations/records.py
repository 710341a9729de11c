"""One deprecated (or removed) public torch API as the harvest records it: how a user hits it, what
replaces it, and whether the replacement computes exactly the same. `probe.py` runs `call` and
`replacement_call` under the installed torch to confirm the warning and compare the results."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

KINDS = ("function", "class", "module", "method", "attribute", "keyword", "default", "import")


@dataclass(frozen=True)
class Deprecation:
    api: str  # the public dotted name a user writes: "torch.cuda.amp.GradScaler", "torch.Tensor.resize"
    kind: str  # one of KINDS; "keyword" = a deprecated argument, "default" = a default that changed or will
    call: str  # legacy use: statements run after the probe prelude; the value of `result` is compared
    since: Optional[str] = None  # torch release that deprecated it ("2.4"); None when unknown
    removed: Optional[str] = None  # torch release that removed it (then `call` raises under 2.13)
    keyword: Optional[str] = None  # the argument, for kind "keyword" / "default"
    replacement: Optional[str] = None  # what to write instead, as a person would read it
    replacement_call: Optional[str] = None  # the same use with the replacement; None when there is none
    replacement_since: Optional[str] = None  # oldest torch release that has the replacement
    exact: Optional[bool] = None  # the replacement computes the same for every input (why: `note`)
    note: str = ""
    source: str = ""  # where torch warns: "torch/cuda/amp/grad_scaler.py:31" (or the C++ message)
