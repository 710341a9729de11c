"""Costs that grow with the findings grow linearly: thousands of findings on one line, or in one
long `and` chain, are checked in about the time of the code around them."""

from __future__ import annotations

import pytest

from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.noqa import NoqaLines
from gradlint.pipeline import check_source
from gradlint.rules import all_codes

CODES = frozenset(all_codes())


def reads_on_one_line(count: int, use: str = "w.data") -> bytes:
    uses = ", ".join([use] * count)
    return f"import torch\nfrom torch.autograd import Variable\nw = torch.zeros(3, requires_grad=True)\nlr = 0.1\ny = [{uses}]\n".encode()


def counted(monkeypatch, owner, name: str) -> list[int]:
    calls = [0]
    real = getattr(owner, name)

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_each_read_of_a_name_does_not_go_through_every_other_read(monkeypatch):
    """Finding the binding a read sees looked at every occurrence of the name, for each read."""
    calls = counted(monkeypatch, NodeIndex, "contains")
    sizes = (400, 800)
    counts = []
    for size in sizes:
        calls[0] = 0
        result = check_source(reads_on_one_line(size, "Variable(w)"), "train.py", CODES)
        assert len(result.findings) == size and result.error is None
        counts.append(calls[0])
    assert counts[1] < 2.5 * counts[0], counts


def test_the_noqa_of_a_line_is_read_once_for_all_its_findings(monkeypatch):
    """Each finding sliced its whole line out of the text: n findings on a line cost n times the line."""
    calls = counted(monkeypatch, NoqaLines, "line")
    result = check_source(reads_on_one_line(500), "train.py", CODES)
    assert len(result.findings) == 500
    assert calls[0] <= 4


@pytest.mark.parametrize("operator", ["and", "or"])
def test_a_finding_at_the_end_of_a_long_boolean_chain(operator):
    operands = f" {operator} ".join(f"a{index}" for index in range(3_000))
    source = f"import torch\nloss = torch.ones(1).sum()\nif {operands} {operator} loss.data[0]:\n    pass\n"
    result = check_source(source.encode(), "train.py", CODES)
    assert result.error is None
    assert [(f.code, f.location.row) for f in result.findings] == [("GL103", 3)]


def test_a_chain_deeper_than_the_recursion_limit_is_analysed_without_a_large_stack(monkeypatch):
    """Where no thread with a large stack can be made, the analysis runs under the caller's limit:
    LibCST rendered a chain of 2,000 `and`s one level per operand, and its position recorder failed
    with a KeyError (the tree dumped in the message) while the RecursionError unwound. Chains now
    render in a loop: the finding inside it is reported, or at worst the file is one line."""
    from gradlint import deepstack

    monkeypatch.setattr(deepstack._DEEP_THREAD, "_started", lambda: False)
    operands = " and ".join(f"a{index}" for index in range(2_000))
    source = f"import torch\nloss = torch.ones(1).sum()\nif {operands} and loss.data[0]:\n    pass\n"
    result = check_source(source.encode(), "train.py", CODES)
    assert result.error in (None, "internal error: nesting too deep to analyse")
    assert result.error is not None or any(finding.location.row == 3 for finding in result.findings)


def test_the_fix_summary_of_thousands_of_unfixable_findings_on_a_line_is_quick():
    """Each finding without a fix was compared with every other remaining finding (is a fix of
    another rule holding it up?): 20,000 on one line took about 20 s."""
    import time

    from gradlint.model import Finding, Location
    from gradlint.report.text import render_fix_summary

    findings = [Finding("GL302", "m", "a.py", Location(3, 10 * i + 1), Location(3, 10 * i + 5), None, 3) for i in range(20_000)]
    start = time.perf_counter()
    summary = render_fix_summary(0, findings, False)
    assert time.perf_counter() - start < 3
    assert "20000  GL302  data-assignment" in summary and "20000 need a person" in summary
