from __future__ import annotations

from gradlint.analysis.torch_api.deprecations import of_subsystems
from gradlint.fix.plan import Availability
from gradlint.rules.base import Invalid, Severity
from gradlint.rules.deprecation_rule import DeprecationTableRule, triggers_of

CALLABLES, KEYWORDS, METHODS, MEMBERS = of_subsystems(True)


class DeprecatedSubsystem(DeprecationTableRule):
    """
    ## What it does
    Flags the entry points of the torch subsystems that torch 2.13 deprecates as a whole for a
    successor that is no drop-in replacement: TorchScript (`torch.jit.script`, `torch.jit.trace`,
    `torch.jit.save` / `load`, `torch.jit.annotate`, ...; deprecated in 2.5 for `torch.compile`
    and `torch.export`) and eager / FX quantization (`torch.ao.quantization.prepare` / `convert`
    / `quantize_dynamic`, `prepare_fx`, ...; deprecated in 2.8 for the torchao package). The rule
    is opt-in (`--extend-select GL518`): a project that keeps TorchScript or eager quantization on
    purpose would otherwise see every use reported.

    ## Why is this bad?
    torch 2.13 emits a `DeprecationWarning` for each of them and plans their removal: code that
    exports models with TorchScript or quantizes with `torch.ao.quantization` needs a migration
    before that release, which takes planning because the successors trace Python differently
    (TorchScript) or live in another package (torchao).

    ## Example
    ```python
    import torch

    scripted = torch.jit.script(model)
    torch.jit.save(scripted, "model.pt")
    ```

    ## Use instead
    ```python
    import torch

    exported = torch.export.export(model, (example,))
    torch.export.save(exported, "model.pt2")
    ```

    ## Fix safety
    No fix: the successors are not equivalent (they accept other programs and produce other
    artifacts).

    ## Known limits
    As GL517: uses in the fallback of an older torch are not reported; a method is reported only on
    a value known to be a tensor.
    """

    code = "GL518"
    name = "deprecated-subsystem"
    summary = "TorchScript (`torch.jit.script`, ...) or eager quantization, which torch deprecates as a whole"
    severity = Severity.WARNING
    migration = None
    opt_in = True
    fix_availability = Availability.NONE
    fix_applicabilities = ()
    callables, keywords, methods, members = CALLABLES, KEYWORDS, METHODS, MEMBERS
    triggers = triggers_of(CALLABLES, KEYWORDS, METHODS, MEMBERS)
    cleanup_imports = ()

    VALID = (
        """
        import torch
        compiled = torch.compile(model)
        exported = torch.export.export(model, (x,))
        """,
        # not torch's
        """
        import jax
        f = jax.jit(g)
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            scripted = torch.jit.script(model)
            """,
            fixed=None,
            line=2,
            column=12,
            message="`torch.jit.script` is deprecated: use `torch.compile` or `torch.export` (deprecated in torch 2.5)",
        ),
        Invalid(
            """
            from torch.ao.quantization import quantize_dynamic
            small = quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
            """,
            fixed=None,
            line=2,
        ),
    )
