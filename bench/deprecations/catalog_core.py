"""The deprecated and removed public APIs of torch's core (tensors, `torch.*`, `torch.nn`, autograd,
optim, testing, linalg/fft-era functions), each confirmed under torch 2.13 by probe.py."""

from __future__ import annotations

from bench.deprecations.records import Deprecation

RECORDS: list[Deprecation] = [
    Deprecation(
        api="torch.qr",
        kind="function",
        call="result = torch.qr(A)",
        since="1.9",
        replacement="torch.linalg.qr(A)",
        replacement_call="result = torch.linalg.qr(A)",
        replacement_since="1.8",
        exact=True,
        source="",
    ),
    Deprecation(api="torch.gesv", kind="function", call="result = torch.gesv(B, A)", removed="1.2", since="1.1"),
]

EXCLUDED: dict[str, str] = {}
