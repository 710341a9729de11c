"""The typed sites of the training analysis: which loss each backward spelling backpropagates and
through what, which optimizer a step steps, what a reset clears, what a state-dict load loads into
what, and what runs before or after an event in one iteration."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.training import BackwardSite, Kind, ResetForm, StepSite, Wrapper, load_site, load_statement
from gradlint.analysis.tree import descendants
from gradlint.context import FileContext

_EMPTY = cst.Module(body=[])


def context(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("f.py", source, cst.parse_module(source))


def code(node) -> str | None:
    return None if node is None else _EMPTY.code_for_node(node)


def only_site(source: str) -> BackwardSite:
    """The site of the one backward call of `source`."""
    ctx = context(source)
    sites = list(ctx.training.backward_sites_in(ctx.module))
    assert len(sites) == 1, sites
    return sites[0]


def loop_region(source: str):
    """The first loop of `source` and its events."""
    return context(source).training.loops[0]


@pytest.mark.parametrize(
    ("statement", "wrapper", "loss"),
    [
        ("loss.backward()", Wrapper.NONE, "loss"),
        ("torch.autograd.backward(loss)", Wrapper.NONE, "loss"),
        ("scaler.scale(loss).backward()", Wrapper.SCALER, "loss"),
        ("self.scaler.scale(loss).backward()", Wrapper.SCALER, "loss"),
        ("accelerator.backward(loss)", Wrapper.ACCELERATOR, "loss"),
        ("self.accelerator.backward(loss)", Wrapper.ACCELERATOR, "loss"),
        ("trainer.accelerator.backward(loss)", Wrapper.ACCELERATOR, "loss"),
        ("fabric.backward(loss)", Wrapper.FABRIC, "loss"),
        ("self.fabric.backward(loss)", Wrapper.FABRIC, "loss"),
        ("model_engine.backward(loss)", Wrapper.OTHER, "loss"),
        ("self.manual_backward(loss)", Wrapper.OTHER, "loss"),
        ("outputs.loss.backward()", Wrapper.NONE, "outputs.loss"),
    ],
)
def test_each_wrapper_spelling_gives_its_loss_and_wrapper(statement, wrapper, loss):
    site = only_site(f"import torch\nloss = criterion(model(x), y)\n{statement}\n")
    assert site.wrapper is wrapper
    assert code(site.tensor) == loss and code(site.loss) == loss
    assert not site.scaled or wrapper is Wrapper.SCALER


def test_a_backward_imported_from_torch_autograd_is_the_functional_form():
    site = only_site("from torch.autograd import backward\nbackward(loss, retain_graph=True)\n")
    assert site.wrapper is Wrapper.NONE and not site.tensor_method
    assert code(site.tensor) == "loss" and site.retains_graph is True


def test_calls_that_run_no_backward_have_no_site():
    ctx = context("opt.step()\nmodel.zero_grad()\nbackward(loss)\nscaler.scale(loss)\nnet.backward_hook(x)\n")
    assert list(ctx.training.backward_sites_in(ctx.module)) == []


def test_a_wrapper_given_no_loss_has_no_tensor():
    assert only_site("accelerator.backward(**kwargs)\n").tensor is None
    assert only_site("scaler.scale(a, b).backward()\n").tensor is None


def test_the_site_of_a_call_is_computed_once():
    ctx = context("loss.backward()\n")
    call = ctx.module.body[0].body[0].value
    assert ctx.training.backward_site(call) is ctx.training.backward_site(call)


@pytest.mark.parametrize(
    ("statement", "loss", "factor", "scaler"),
    [
        ("loss.backward()", "loss", None, None),
        ("(loss / k).backward()", "loss", "k", None),
        ("(loss / args.accumulation_steps).backward()", "loss", "args.accumulation_steps", None),
        ("(loss * weight).backward()", "loss", "weight", None),
        ("(0.5 * loss).backward()", "loss", "0.5", None),
        ("scaler.scale(loss).backward()", "loss", None, "scaler"),
        ("scaler.scale(loss / k).backward()", "loss", "k", "scaler"),
        ("accelerator.backward(loss / k)", "loss", "k", None),
        ("(loss + reg).backward()", "(loss + reg)", None, None),
    ],
)
def test_scaled_and_unscaled_losses(statement, loss, factor, scaler):
    site = only_site(statement + "\n")
    assert code(site.loss) == loss
    assert code(site.factor) == factor
    assert code(site.scaler) == scaler
    assert site.scaled is (factor is not None or scaler is not None)


def test_the_tensor_keeps_the_scaling_as_written():
    site = only_site("(loss / k).backward()\n")
    assert code(site.tensor) == "(loss / k)" and code(site.loss) == "loss"


@pytest.mark.parametrize(
    ("statement", "retains"),
    [
        ("loss.backward()", False),
        ("loss.backward(retain_graph=True)", True),
        ("loss.backward(retain_graph=False)", False),
        ("loss.backward(None, True)", True),
        ("loss.backward(retain_graph=keep)", None),
        ("scaler.scale(loss).backward(retain_graph=True)", True),
        ("torch.autograd.backward(loss, None, True)", True),
        ("torch.autograd.backward(loss, retain_graph=True)", True),
        ("accelerator.backward(loss, retain_graph=True)", True),
        ("accelerator.backward(loss)", False),
    ],
)
def test_retain_graph(statement, retains):
    assert only_site(f"import torch\n{statement}\n").retains_graph is retains


def test_a_gradient_is_told_apart_from_the_loss():
    site = only_site("y.backward(torch.ones_like(y))\n")
    assert code(site.tensor) == "y" and code(site.gradient) == "torch.ones_like(y)"
    assert only_site("loss.backward(retain_graph=True)\n").gradient is None


def test_backward_events_carry_their_site_and_tell_tensors_from_other_objects():
    region = loop_region(
        """
        for x, y in loader:
            loss = criterion(model(x), y)
            accelerator.backward(loss)
            solver.backward()
        """
    )
    (backward,) = region.of(Kind.BACKWARD)
    (other,) = region.of(Kind.OTHER_BACKWARD)
    assert backward.site.wrapper is Wrapper.ACCELERATOR and code(backward.site.loss) == "loss"
    assert isinstance(other.site, BackwardSite) and code(other.site.tensor) == "solver"


def test_step_sites_name_the_optimizer_and_the_scaler():
    region = loop_region(
        """
        import torch
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.cuda.amp.GradScaler()
        for x in loader:
            scaler.scale(model(x).sum()).backward()
            scaler.step(optimizer)
            optimizer.step(closure)
            scheduler.step()
        """
    )
    through_scaler, with_closure = region.of(Kind.STEP)
    assert isinstance(through_scaler.site, StepSite)
    assert code(through_scaler.site.optimizer) == "optimizer" and code(through_scaler.site.scaler) == "scaler"
    assert code(with_closure.site.optimizer) == "optimizer" and with_closure.site.scaler is None
    assert code(with_closure.site.closure) == "closure"
    (other,) = region.of(Kind.OTHER_STEP)
    assert code(other.site.optimizer) == "scheduler"


def test_a_step_given_a_loss_is_a_wrappers_own_training_step_not_torchs():
    """torch's `Optimizer.step` takes only a closure: `opt.step(actor_loss)` is a framework's
    wrapper that backpropagates the loss itself (tianshou); a lambda or a function of the file
    passed to `step` is a closure."""
    region = loop_region(
        """
        import torch
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        def closure():
            return model(x).sum()
        for x in loader:
            actor_loss = model(x).sum()
            policy_optim.step(actor_loss)
            optimizer.step(torch.ones(3).sum())
            optimizer.step(closure)
            optimizer.step(lambda: model(x).sum())
            optimizer.step(closure=closure)
        """
    )
    assert [code(event.node) for event in region.of(Kind.LOSS_STEP)] == [
        "policy_optim.step(actor_loss)",
        "optimizer.step(torch.ones(3).sum())",
    ]
    assert [code(event.site.closure) for event in region.of(Kind.STEP)] == ["closure", "lambda: model(x).sum()", "closure"]
    assert all(event.calls_step for event in region.of(Kind.LOSS_STEP))
    wrapped = context("for x in loader:\n    policy_optim.step(model(x).sum())\n").training
    assert wrapped.optimises(wrapped.loops[0].owner)  # each iteration trains, through the wrapper


@pytest.mark.parametrize(
    ("body", "noise"),
    [
        ("inp = torch.rand(20, 10, device=d)\n    output = model(inp)\n    output.sum().backward()", True),
        ("loss = model(torch.randn(10, 5), True).mean()\n    loss.backward()", True),
        ("output = model(x)\n    output.sum().backward()", False),  # x read from outside the iteration: data
        ("output = model(torch.randn(3), y)\n    output.sum().backward()", False),
        ("loss = criterion(model(torch.randn(3)), torch.randn(3))\n    loss.backward()", False),  # a loss with a target
        ("z = torch.randn(3)\n    g_loss = -D(G(z)).mean()\n    g_loss.backward()", False),  # a generator through a discriminator
        ("z = torch.zeros(3)\n    model(z).sum().backward()", False),  # no draw: the same input every time
        ("output = model(torch.randn(3))\n    output.sum(0).backward()", False),  # not a whole reduction
        ("if i:\n        inp = torch.rand(3)\n    model(inp).sum().backward()", False),
        ("helper(model)", False),  # the backward runs in a helper of the file
    ],
)
def test_a_loop_trains_on_noise_when_each_backward_reduces_a_forward_of_random_draws(body, noise):
    ctx = context(
        "import torch\n"
        "model = torch.nn.Linear(3, 1)\n"
        "def helper(model):\n    model(torch.rand(3)).sum().backward()\n"
        f"for i in range(10):\n    {body}\n    optimizer.step()\n"
    )
    loop = ctx.training.loops[0]
    assert loop.of(Kind.BACKWARD)  # a backward of a tensor, in the loop or through the helper
    assert ctx.training.trains_on_noise(loop) is noise


def test_reset_sites_say_how_and_what_they_clear():
    region = loop_region(
        """
        for x in loader:
            optimizer.zero_grad()
            zero_grad(model)
            for p in model.parameters():
                p.grad = None
                p.grad.zero_()
        """
    )
    forms = [(event.site.form, code(event.site.target)) for event in region.of(Kind.RESET)]
    assert forms == [
        (ResetForm.METHOD, "optimizer"),
        (ResetForm.FUNCTION, "model"),
        (ResetForm.ASSIGNED, "p.grad"),
        (ResetForm.IN_PLACE, "p.grad"),
    ]


STEP_LOOP = """
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    log(loss)
"""


def test_before_and_after_within_one_iteration():
    region = loop_region(STEP_LOOP)
    (reset,) = region.of(Kind.RESET)
    (backward,) = region.of(Kind.BACKWARD)
    (step,) = region.of(Kind.STEP)
    assert region.before(backward, Kind.RESET) == [reset]
    assert region.after(backward, Kind.STEP) == [step]
    assert region.before(backward, Kind.STEP) == []
    assert region.after(step, Kind.BACKWARD, Kind.RESET) == []
    assert region.before(step, Kind.BACKWARD, Kind.RESET) == [reset, backward]
    assert [event.kind for event in region.before(backward)] == [Kind.RESET, Kind.ASSIGN]


def test_before_and_after_in_the_other_order():
    region = loop_region(
        """
        for x, y in loader:
            loss = criterion(model(x), y)
            optimizer.step()
            loss.backward()
            optimizer.zero_grad()
        """
    )
    (step,) = region.of(Kind.STEP)
    (backward,) = region.of(Kind.BACKWARD)
    assert region.after(step, Kind.BACKWARD) == [backward]
    assert region.before(step, Kind.BACKWARD) == []
    assert [event.kind for event in region.after(backward)] == [Kind.RESET]


HELPER = """
def train_step(model, x, y):
    loss = criterion(model(x), y) / accumulation
    scaler.scale(loss).backward()

for x, y in loader:
    train_step(model, x, y)
    optimizer.step()
"""


def test_a_backward_inside_a_same_file_helper_called_from_the_loop():
    region = loop_region(HELPER)
    (backward,) = region.of(Kind.BACKWARD)
    (step,) = region.of(Kind.STEP)
    assert code(backward.node) == "train_step(model, x, y)" and backward.via is backward.node
    site = backward.site
    assert code(site.call) == "scaler.scale(loss).backward()"
    assert site.wrapper is Wrapper.SCALER and code(site.loss) == "loss"
    assert region.after(backward, Kind.STEP) == [step] and region.before(step, Kind.BACKWARD) == [backward]


def test_the_helper_site_is_the_same_object_in_the_helper_and_at_its_call():
    training = context(HELPER).training
    (in_helper,) = training.functions[0].of(Kind.BACKWARD)
    (at_call,) = training.loops[0].of(Kind.BACKWARD)
    assert at_call.site is in_helper.site and in_helper.via is None


def test_the_loop_that_runs_a_site_itself():
    source = """
    import torch
    for epoch in range(epochs):
        for x, y in loader:
            loss = criterion(model(x), y)
            if use_amp:
                scaler.scale(loss).backward()
        torch.autograd.backward(total)
    loss.backward()
    """
    training = context(source).training
    outer, inner = training.loops
    (in_inner,) = inner.of(Kind.BACKWARD)
    in_outer = next(event for event in outer.of(Kind.BACKWARD) if event.direct)
    assert training.loop_of(in_inner.site) is inner.owner and in_inner.conditional
    assert code(training.guard_of(in_inner).test) == "use_amp"
    assert training.loop_of(in_outer.site) is outer.owner and not in_outer.conditional
    (at_module,) = [site for site in training.backward_sites_in(training.module) if code(site.call) == "loss.backward()"]
    assert training.loop_of(at_module) is None


# -- state-dict loads -----------------------------------------------------------------------------


def _calls(source: str) -> list[cst.Call]:
    module = cst.parse_module(textwrap.dedent(source))
    return [node for node in descendants(module) if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)]


@pytest.mark.parametrize(
    "source, receiver, state, strict",
    [
        ("model.load_state_dict(torch.load(path))", "model", "torch.load(path)", None),
        ("self.net.load_state_dict(state_dict=ckpt['net'], strict=False)", "self.net", "ckpt['net']", "False"),
        ("model.load_state_dict(sd, False, True)", "model", "sd", "False"),  # state_dict, strict, assign
        ("model.load_state_dict(**kwargs)", "model", None, None),
    ],
)
def test_a_load_site_names_what_is_loaded_into_what(source, receiver, state, strict):
    call = _calls(source)[0]
    site = load_site(call)
    assert site.call is call
    assert (code(site.receiver), code(site.state), code(site.strict)) == (receiver, state, strict)


def test_only_load_state_dict_is_a_load_site():
    assert [load_site(call) for call in _calls("torch.load(path)\nmodel.state_dict()\nmodel.load(path)")] == [None, None, None]


@pytest.mark.parametrize(
    "line, loads",
    [
        ("model.load_state_dict(sd)", True),
        ("model.load_state_dict(sd); model.eval()", False),  # not alone on its line
        ("result = model.load_state_dict(sd)", False),
        ("print(model.load_state_dict(sd))", False),
    ],
)
def test_a_load_statement_is_a_load_alone_on_its_line(line, loads):
    (statement,) = cst.parse_module(line + "\n").body
    site = load_statement(statement)
    assert (site is not None) is loads
    if loads:
        assert code(site.receiver) == "model"
