from __future__ import annotations

import libcst as cst

from gradlint.analysis import torch_api
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.rules.base import Invalid, Rule, Severity

_DEPRECATED = "(deprecated in torch 0.4)"
# Tensor and module methods whose `async=` torch 0.4 renamed `non_blocking=` (same meaning).
_TRANSFER_METHODS = torch_api.methods("non-blocking")


class AsyncKeywordArgument(Rule):
    """
    ## What it does
    Flags calls with an `async=` keyword argument: `x.cuda(async=True)`,
    `x.to(device, async=True)`, `x.type(torch.cuda.FloatTensor, async=True)`,
    `dst.copy_(src, async=True)`, or any other call.

    ## Why is this bad?
    Since Python 3.7 `async` is a reserved keyword, so the whole file is a `SyntaxError`: it cannot
    be imported, and not one line of it runs. torch 0.4 renamed the argument `non_blocking=` (same
    meaning: a copy from pinned memory may overlap with computation).

    gradlint finds these calls in the tokens before parsing, reports each one here instead of
    GL001 `invalid-syntax`, and analyses the rest of the file as if they were written
    `non_blocking=`. A file that still does not parse after that renaming is reported as GL001.

    ## Example
    ```python
    images = images.cuda(async=True)
    labels = labels.to(device, async=True)
    ```

    ## Use instead
    ```python
    images = images.cuda(non_blocking=True)
    labels = labels.to(device, non_blocking=True)
    ```

    ## Fix safety
    Safe for the transfer methods `.cuda()`, `.to()`, `.type()` and `.copy_()`: the original does
    not even compile, and `non_blocking=` is the exact modern spelling of the same argument.
    Unsafe for any other call, where `non_blocking=` is torch's name but maybe not the callee's
    (a library of your own may have renamed its `async` argument differently, e.g. `async_=`).
    `gradlint fix` writes the renamed keyword together with the other rules' fixes, which are
    computed on the renamed text and placed at the right columns of the text as written.

    ## Known limits
    Only `async=` keyword arguments of calls are renamed. Other uses of the name `async` (a
    parameter `def f(x, async=False)`, a variable, `self.async`) stay syntax errors and the file
    stays GL001. `**{"async": True}` parses, and raises `TypeError` at run time (not reported).
    Selecting GL001 without GL501 does not report the file: its only problem is GL501's.
    Under flake8 the file is flake8's own E999 (flake8 parses it before running any plugin).
    A fix of another rule that rewrites a whole call containing `async=` writes it `non_blocking=`,
    also when GL501 is not selected.
    """

    code = "GL501"
    name = "async-keyword-argument"
    summary = "`async=` keyword argument (a syntax error since Python 3.7) instead of `non_blocking=`"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    # The rule sees the repaired text, where each `async=` reads `non_blocking=`.
    triggers = ("non_blocking",)

    VALID = (
        "x = x.cuda(non_blocking=True)\n",
        "async def f(x):\n    async with lock:\n        return await x.to('cpu', non_blocking=True)\n",
        'options = {"async": True}\nlabel = "x.cuda(async=True)"  # y.cuda(async=True)\n',
    )
    INVALID = (
        Invalid(
            "import torch\nimages = images.cuda(async=True)\n",
            "import torch\nimages = images.cuda(non_blocking=True)\n",
            line=2,
            column=22,
            message="`async=` is a syntax error since Python 3.7 (deprecated in torch 0.4); use `non_blocking=`",
            fix_title="Rename to `non_blocking=`",
        ),
        Invalid(
            "x = x.to(device, async=True).type(torch.cuda.FloatTensor, async=True)\n",
            "x = x.to(device, non_blocking=True).type(torch.cuda.FloatTensor, non_blocking=True)\n",
        ),
        Invalid(
            "batch = scatter(inputs, devices, async=True)\n",
            "batch = scatter(inputs, devices, non_blocking=True)\n",
            line=1,
            column=34,
            message="rename it to the keyword `scatter` takes now",
        ),
    )

    def visit_Arg(self, node: cst.Arg) -> None:
        keyword = node.keyword
        if keyword is None or keyword.value != "non_blocking" or not self.context.repaired_async_keywords:
            return
        start = self.context.positions.lookup(keyword, self.context.top_statement()).start
        if (start.line, start.column) not in self.context.repaired_async_keywords:
            return
        call = self.context.parent()
        method = call.func.attr.value if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) else None
        message = f"`async=` is a syntax error since Python 3.7 {_DEPRECATED}; use `non_blocking=`"
        rename = Replace(keyword, cst.Name("non_blocking"))
        if method in _TRANSFER_METHODS:
            self.report(keyword, message, self.safe_fix("Rename to `non_blocking=`", rename))
            return
        callee = _callee_name(call) if isinstance(call, cst.Call) else None
        hint = f"; if `{callee}` is not torch's, rename it to the keyword `{callee}` takes now" if callee else ""
        self.report(keyword, message + hint, self.unsafe_fix("Rename to `non_blocking=`", rename))


def _callee_name(call: cst.Call) -> str:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return "the callee"
