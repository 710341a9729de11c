"""Safe fixes are for torch code.

Every rule rewrites PyTorch calls, and most find what they rewrite by names and shapes of code
(`x.data`, `.T`, `q.add(2, r)`) that other libraries share: jinja2's template nodes, numpy and
sympy objects. In a file that never imports torch (neither directly nor through a local module of
its project) such a rewrite is a guess about another library's objects, so its fix is offered as
unsafe, with the reason in its title; the finding itself is reported as before.
"""

from __future__ import annotations

from gradlint.fix.kinds import unsafe_because
from gradlint.fix.plan import Applicability, FixPlan

OUTSIDE_TORCH = "the file does not import torch"


def outside_torch(plan: FixPlan) -> FixPlan:
    """`plan` as a file that never imports torch gets it: unsafe, and saying why if it was safe."""
    if plan.applicability is not Applicability.SAFE:
        return plan
    return unsafe_because(plan, OUTSIDE_TORCH)
