"""Shared facts behind the step-order rules: guards of training events, optimizer steps before a
loop, the optimizer a scheduler drives, loaders over a DistributedSampler, and mixed-precision
calls in the order an iteration runs them."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.analysis.training import Kind
from gradlint.context import FileContext
from gradlint.rules.gl604_amp_step_order.amp import AmpKind
from gradlint.rules.gl604_amp_step_order.rule import AmpStepOrder
from gradlint.rules.gl605_distributed_sampler_without_set_epoch.rule import DistributedSamplerWithoutSetEpoch


def context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("f.py", source, cst.parse_module(source))


def test_guard_of_is_the_innermost_if_holding_the_event():
    ctx = context(
        """
        for i, x in enumerate(data):
            loss.backward()
            with timer():
                if ready:
                    if (i + 1) % k == 0:
                        opt.step()
        """
    )
    training = ctx.training
    loop = training.loops[0]
    (backward,) = loop.of(Kind.BACKWARD)
    (step,) = loop.of(Kind.STEP)
    assert training.guard_of(backward) is None
    assert ctx.module.code_for_node(training.guard_of(step).test) == "(i + 1) % k == 0"


def test_steps_before_a_loop_and_the_scope_of_a_loop():
    ctx = context(
        """
        def warm_then_train(opt, data):
            f(data[0]).backward()
            opt.step()
            for x in data:
                f(x).backward()
                opt.step()
        for x in data:
            f(x).backward()
            opt.step()
        """
    )
    training = ctx.training
    inside, top = training.loops
    assert training.steps_before(inside) and not training.steps_before(top)
    assert training.scope_of(inside).name.value == "warm_then_train" and training.scope_of(top) is None


def test_stepped_optimizers_of_a_scheduler():
    ctx = context(
        """
        from torch.optim.lr_scheduler import StepLR
        a = StepLR(opt_a, 30)
        b = StepLR(optimizer=self.opt, step_size=30)
        c = StepLR(make_optimizer(), 30)
        """
    )
    name = lambda n: cst.Name(n)  # noqa: E731
    schedulers = ctx.schedulers
    assert schedulers.stepped_optimizers(name("a"), ctx.module) == frozenset({"opt_a"})
    assert schedulers.stepped_optimizers(name("b"), ctx.module) == frozenset({"self.opt"})
    assert schedulers.stepped_optimizers(name("c"), ctx.module) is None
    assert schedulers.stepped_optimizers(name("unknown"), ctx.module) is None


def test_loaders_over_a_shuffling_distributed_sampler():
    ctx = context(
        """
        from torch.utils.data import DataLoader, DistributedSampler
        sampler = DistributedSampler(ds)
        train = DataLoader(ds, sampler=sampler)
        inline = DataLoader(ds, sampler=DistributedSampler(ds))
        ordered = DataLoader(ds, sampler=DistributedSampler(ds, shuffle=False))
        plain = DataLoader(ds, shuffle=True)
        for x in enumerate(tqdm(train)):
            pass
        """
    )
    samplers = DistributedSamplerWithoutSetEpoch(ctx).samplers
    loop = ctx.module.body[-1]
    assert ctx.module.code_for_node(samplers.iterated_loader(loop.iter)) == "train"
    found = samplers.shuffling_distributed_loader(cst.Name("train"), ctx.module)
    assert (found.loader, found.sampler) == ("train", "sampler")
    assert samplers.shuffling_distributed_loader(cst.Name("inline"), ctx.module).sampler is None
    assert samplers.shuffling_distributed_loader(cst.Name("ordered"), ctx.module) is None
    assert samplers.shuffling_distributed_loader(cst.Name("plain"), ctx.module) is None


def test_amp_calls_in_iteration_order_through_helpers():
    ctx = context(
        """
        import torch
        scaler = torch.amp.GradScaler("cuda")
        def clip(model):
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for x in data:
            scaler.scale(loss).backward()
            clip(model)
            scaler.step(optimizer)
            scaler.update()
            external(scaler)
        for x in data:
            loss.backward()
        """
    )
    amp = AmpStepOrder(ctx).amp
    (iteration,) = amp.iterations  # the second loop scales nothing
    kinds = [call.kind for call in iteration.calls]
    assert kinds == [AmpKind.SCALED_BACKWARD, AmpKind.UNSCALE, AmpKind.CLIP, AmpKind.SCALER_STEP, AmpKind.UPDATE, AmpKind.OPAQUE]
    assert [call.via is not None for call in iteration.calls] == [False, True, True, False, False, False]
    assert amp.is_torch_scaler("scaler") and not amp.disabled_scalers


def test_amp_scalers_built_disabled_or_by_other_classes():
    ctx = context(
        """
        import torch
        off = torch.amp.GradScaler("cuda", enabled=False)
        custom = MyScaler()
        """
    )
    amp = AmpStepOrder(ctx).amp
    assert amp.disabled_scalers == frozenset({"off"})
    assert not amp.is_torch_scaler("custom") and amp.is_torch_scaler("grad_scaler")
