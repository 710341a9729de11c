from __future__ import annotations

from functools import cached_property
import libcst as cst

from gradlint.analysis.frameworks import imports_other_tensor_framework, imports_torch
from gradlint.analysis.syntax import dotted_name, is_bool_literal
from gradlint.analysis.training import load_site
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl711_load_state_dict_result_ignored.checkpoints import CheckpointEvidence
from gradlint.rules.gl711_load_state_dict_result_ignored.partial_loads import PartialLoads

_MESSAGE = (
    "`{call}` drops the missing and unexpected keys it returns: a checkpoint whose keys do not match loads nothing, "
    "silently; check or log the result"
)


class LoadStateDictResultIgnored(Rule):
    """
    ## What it does
    Flags `model.load_state_dict(state_dict, strict=False)` written as a statement of its own, so
    that the `_IncompatibleKeys(missing_keys, unexpected_keys)` it returns is thrown away, when the
    state dict is a checkpoint file's content as read (`torch.load(path)`, `ckpt["model"]` of
    one, `safetensors.torch.load_file`, `torch.hub.load_state_dict_from_url`) and nothing in the
    function adapts its keys or looks at the keys the load reports.

    ## Why is this bad?
    With `strict=False` a key that does not match is skipped without an error. Measured in torch
    2.13: loading the state dict of `nn.Sequential(nn.Linear(4, 2))` (keys `0.weight`, `0.bias`)
    into an `nn.Linear(4, 2)` with `strict=False` loads nothing; the weights stay bitwise as they
    were, nothing is printed, and the only trace is the return value
    `_IncompatibleKeys(missing_keys=['weight', 'bias'], unexpected_keys=['0.weight', '0.bias'])`.
    With the default `strict=True` the same call raises `RuntimeError: Error(s) in loading
    state_dict for Linear: Missing key(s) in state_dict: "weight", "bias". Unexpected key(s) ...`.
    A checkpoint saved from a `DataParallel` model (keys prefixed `module.`) or from a wrapped
    model is the usual case: training or evaluation then runs from random weights.

    ## Example
    ```python
    import torch

    model.load_state_dict(torch.load(path), strict=False)
    ```

    ## Use instead
    ```python
    import torch

    result = model.load_state_dict(torch.load(path), strict=False)
    if result.missing_keys or result.unexpected_keys:
        print(f"missing: {result.missing_keys}, unexpected: {result.unexpected_keys}")
    ```

    ## Fix safety
    No fix: what to do with keys that do not match (fail, log, or accept a known list) is the
    code's decision.

    ## Known limits
    Partial loading on purpose is common, so only the clearest case is reported: the literal
    `strict=False` in a call written as a statement of its own, given a checkpoint as read from a
    file. Not reported: a result that is assigned, returned, logged or asserted; a function that
    reads `missing_keys` / `unexpected_keys` anywhere; a state dict built to match the model
    (filtered by a comprehension, `intersect_dicts(...)`, keys renamed, popped or deleted in the
    function, another module's `state_dict()`, as when a ControlNet is initialised from a UNet);
    a state dict handed in by the caller (an EMA copy, a hook's argument); files that import
    another tensor framework. Nor the partial loads made on purpose: in a file that builds adapter,
    LoRA or PEFT layers (any identifier naming them: `lora_r`, `LoraConfig`, `get_peft_model`,
    `add_adapter`), whose base checkpoint lacks those weights; into a model whose layers the
    function replaced or deleted before the load (`model.fc = nn.Identity()`); and a load followed
    in the same function by an assertion about the model or a value taken from it
    (`assert torch.allclose(model(x), reference)`, `self.assertEqual(...)`).

    What is still reported is a checkpoint read from a file into a model the function did not
    change, with neither check nor log. On current code most of those restore a model from its own
    training run (a VQGAN, a StyleGAN generator, a language model for decoding), where
    `strict=False` hides nothing today but would hide a renamed key tomorrow; a partial load set up
    another way is reported too: a model built from a config the function edited (fewer layers),
    or a checkpoint holding only some layers by design (LPIPS's linear heads over a backbone loaded
    elsewhere). A submodule given its part of a checkpoint
    (`self.encoder.load_state_dict(ckpt["encoder"], strict=False)`) is reported like a whole model.
    A check made in another function or file (a test comparing outputs elsewhere) is not seen.

    So the rule is off by default: on 38 current repositories (bench/PRECISION.md) none of its
    findings hid a mismatch, and a maintainer would act on none. Turn it on
    (`--extend-select GL711`) where checkpoints come from elsewhere or keys get renamed.
    """

    code = "GL711"
    name = "load-state-dict-result-ignored"
    summary = "`load_state_dict(..., strict=False)` whose missing and unexpected keys are ignored"
    severity = Severity.ERROR
    opt_in = True
    triggers = ("load_state_dict",)  # `strict` may be passed by position

    VALID = (
        """
        import torch
        result = model.load_state_dict(torch.load(path), strict=False)
        print(result.missing_keys)
        """,
        """
        import torch
        model.load_state_dict(torch.load(path))
        model.load_state_dict(torch.load(path), strict=True)
        """,
        """
        import torch
        missing, unexpected = model.load_state_dict(sd, strict=False)
        assert not unexpected
        """,
        """
        import torch
        def load(model, sd):
            return model.load_state_dict(sd, strict=False)
        """,
        """
        import torch
        logger.info(model.load_state_dict(sd, strict=False))
        """,
        """
        import torch
        optimizer.load_state_dict(sd)
        """,
        """
        import torch
        def restore(model, path):
            ckpt = torch.load(path)
            ckpt = {k: v for k, v in ckpt.items() if k in model.state_dict()}
            model.load_state_dict(ckpt, strict=False)
        """,
        """
        import torch
        def restore(model, path):
            sd = torch.load(path)["model"]
            for key in list(sd):
                sd[key.replace("module.", "")] = sd.pop(key)
            model.load_state_dict(sd, strict=False)
        """,
        """
        import torch
        def restore(model, path):
            model.load_state_dict(torch.load(path), strict=False)
            result = other.load_state_dict(torch.load(path), strict=False)
            assert not result.missing_keys
        """,
        """
        import torch
        controlnet.conv_in.load_state_dict(unet.conv_in.state_dict(), strict=False)
        def copy_ema(self, state_dict):
            self.model.load_state_dict(state_dict, strict=False)
        """,
        """
        import paddle
        model.load_state_dict(sd, strict=False)
        """,
        # A base checkpoint loaded into a model with LoRA layers: their weights are missing on purpose.
        """
        import torch
        from peft import LoraConfig, get_peft_model
        def build(path):
            model = get_peft_model(Net(), LoraConfig(r=8))
            model.load_state_dict(torch.load(path), strict=False)
            return model
        """,
        # The head replaced before the load: the checkpoint's head is left out on purpose.
        """
        import torch
        def dino_resnet50(path):
            model = resnet50()
            model.fc = torch.nn.Identity()
            model.load_state_dict(torch.load(path), strict=False)
            return model
        """,
        # Checked right after: the outputs (or what the load left) are asserted.
        """
        import torch
        def test_partial_load(path, x, reference):
            model = Net()
            model.load_state_dict(torch.load(path), strict=False)
            assert torch.allclose(model(x), reference)
        """,
        """
        import torch
        def test_pruned_checkpoint(path):
            model.load_state_dict(torch.load(path), strict=False)
            pruned = hasattr(model.layer, "weight_orig")
            assert pruned
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            model.load_state_dict(torch.load(path), strict=False)
            """,
            line=2,
            column=1,
            message="`model.load_state_dict(torch.load(path), strict=False)` drops the missing and unexpected keys it returns",
        ),
        Invalid(
            """
            import torch
            def restore(self, path):
                checkpoint = torch.load(path, map_location="cpu")
                self.encoder.load_state_dict(checkpoint["encoder"], strict=False)
            """,
            line=4,
            column=5,
        ),
        Invalid(
            """
            import torch
            from safetensors.torch import load_file
            def build(path):
                model = Net()
                state = load_file(path)
                model.load_state_dict(state, strict=False)
                return model
            """,
            line=6,
            column=5,
        ),
        Invalid(  # an assertion about something else checks nothing the load did
            """
            import torch
            def restore(path, tokens, vocab):
                model = Net()
                model.load_state_dict(torch.load(path), strict=False)
                assert vocab.unk() not in tokens
                return model
            """,
            line=4,
            column=5,
        ),
        Invalid(  # a logging adapter is not a model's adapter layer
            """
            import logging
            import torch
            log = logging.LoggerAdapter(logging.getLogger(), {})
            def restore(path):
                model = Net()
                model.load_state_dict(torch.load(path), strict=False)
                return model
            """,
            line=6,
            column=5,
        ),
        Invalid(  # `strict` passed by position
            """
            import torch
            def build(path):
                model = Net()
                model.load_state_dict(torch.load(path), False)
                return model
            """,
            line=4,
            column=5,
        ),
    )

    @cached_property
    def checkpoints(self) -> CheckpointEvidence:
        """State dicts read from a checkpoint file, and functions that check what a load matched."""
        return CheckpointEvidence(self.context.imports, self.context.scopes)

    @cached_property
    def partial_loads(self) -> PartialLoads:
        """Loads that leave keys out on purpose: adapters, a replaced head, an assertion after."""
        return PartialLoads(self.context.module, self.context.nodes)

    def visit_Expr(self, node: cst.Expr) -> None:
        call = node.value
        load = load_site(call) if type(call) is cst.Call else None
        if load is None or load.strict is None or not is_bool_literal(load.strict, False) or dotted_name(load.receiver) is None:
            return
        if imports_other_tensor_framework(self.context.imports) or not imports_torch(self.context.imports):
            return
        scope = self.context.scope()
        checkpoints = self.checkpoints
        if load.state is None or checkpoints.read_from_file(load.state, scope) is None or checkpoints.checks_load_result(scope):
            return
        if self.partial_loads.intended(load, scope):
            return
        self.report(call, _MESSAGE.format(call=snippet(self.context.code_for(call), 70)))
