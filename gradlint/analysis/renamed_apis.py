"""What a renamed PyTorch API's new spelling needs to compute exactly the same (the renamed names
themselves are in `torch_api.renamed`).

Measured under torch 2.13 (the runtime fixtures of GL503 repeat each measurement).
"""

from __future__ import annotations

from typing import Optional


def range_end(start: int, end: int, step: int) -> Optional[int]:
    """The exclusive end that makes `arange(start, ., step)` list exactly the elements of the
    inclusive `range(start, end, step)`, for integers; None when `range` would raise.

    `range` has floor((end - start) / step) + 1 elements, `arange` ceil((stop - start) / step):
    `start + count * step` gives both the same count (measured bitwise under torch 2.13 for every
    start and end in [-12, 12] and steps 1, 2, 3, 5, -1, -2, -3; `end + step` differs whenever
    step does not divide end - start, and float bounds or steps differ in length and values).
    """
    if step == 0:
        return None
    count = (end - start) // step + 1
    return start + count * step if count > 0 else None
