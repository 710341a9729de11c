"""Per-function summaries: what each function of a file does for the code that calls it."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.analysis.tree import descendants
from gradlint.context import FileContext
from support import lint


def context_of(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source))


def function(context: FileContext, name: str) -> cst.FunctionDef:
    (found,) = [f for f in context.function_table.all if f.name.value == name]
    return found


def summary(source: str, name: str):
    context = context_of(source)
    return context.functions.of(function(context, name))


def calls_named(node: cst.CSTNode, name: str) -> list[cst.Call]:
    return [
        n
        for n in descendants(node)
        if isinstance(n, cst.Call)
        and isinstance(n.func, (cst.Name, cst.Attribute))
        and (n.func.value if isinstance(n.func, cst.Name) else n.func.attr.value) == name
    ]


NO_GRAD_HELPER = """\
    import torch

    @torch.no_grad()
    def evaluate(model, x, y):
        loss = criterion(model(x), y)
        return loss

    def train(model, x, y):
        loss = evaluate(model, x, y)
        print(loss)
        loss.backward()
"""


def test_a_no_grad_helper_whose_loss_is_backpropagated_elsewhere_is_known_as_such():
    context = context_of(NO_GRAD_HELPER)
    evaluate = context.functions.of(function(context, "evaluate"))
    assert evaluate.runs_without_grad and evaluate.decorated_without_grad
    assert evaluate.returns_graphless
    (site,) = evaluate.backward_sites
    assert context.code_for(site.call) == "loss.backward()"
    assert site.call in calls_named(function(context, "train"), "backward")


def test_a_result_backpropagated_through_a_wrapper_or_a_scaler_reaches_its_backward_site():
    context = context_of(
        """\
        def compute(model, x):
            return model(x).sum()

        def penalty(model):
            return model.weight.norm()

        def fit(model, x, accelerator, scaler, solver):
            accelerator.backward(compute(model, x))
            scaler.scale(penalty(model)).backward()
            solver.backward()
        """
    )
    (wrapped,) = context.functions.of(function(context, "compute")).backward_sites
    (scaled,) = context.functions.of(function(context, "penalty")).backward_sites
    assert (context.code_for(wrapped.tensor), context.code_for(scaled.tensor)) == ("compute(model, x)", "penalty(model)")
    assert context.functions.backward_sites_by_callee.keys() == {"compute", "penalty"}


def test_the_helper_case_is_a_gl402_finding_at_the_backward_call():
    (finding,) = lint(textwrap.dedent(NO_GRAD_HELPER), "GL402")
    assert (finding.location.row, finding.location.column) == (11, 5)
    assert "`evaluate` computes it under no_grad" in finding.message


def test_a_helper_that_turns_grad_back_on_or_passes_a_parameter_through_is_not_graphless():
    enabled = """\
        import torch
        @torch.no_grad()
        def attack(model, x, y):
            with torch.enable_grad():
                loss = criterion(model(x), y)
            return loss
        loss = attack(model, x, y)
        loss.backward()
    """
    passed = """\
        import torch
        @torch.no_grad()
        def same(loss):
            return loss
        total = same(criterion(model(x), y))
        total.backward()
    """
    assert not summary(enabled, "attack").returns_graphless
    assert not summary(passed, "same").returns_graphless
    assert lint(textwrap.dedent(enabled), "GL402") == []
    assert lint(textwrap.dedent(passed), "GL402") == []


def test_runs_without_grad_when_every_call_is_in_a_no_grad_block():
    source = """\
        import torch
        def predict(model, x):
            return model(x)
        def score(model, x):
            return model(x)
        with torch.no_grad():
            predict(model, x)
            score(model, x)
        score(model, x)
        with torch.no_grad():
            with torch.enable_grad():
                unused = 0
    """
    assert summary(source, "predict").runs_without_grad
    assert summary(source, "predict").called_only_without_grad
    assert not summary(source, "score").runs_without_grad
    assert not summary(source, "predict").decorated_without_grad


def test_calls_inside_a_no_grad_method_run_without_grad():
    source = """\
        import torch
        class Trainer:
            @torch.inference_mode()
            def validate(self, x):
                return self.forward_pass(x)
            def forward_pass(self, x):
                return self.model(x)
    """
    assert summary(source, "forward_pass").runs_without_grad


def test_returns_grad_follows_local_helpers():
    source = """\
        def compute(model, x, y):
            out = model(x)
            return criterion(out, y)
        def wrapper(model, x, y):
            return compute(model, x, y)
        def size(x):
            return len(x)
    """
    assert summary(source, "compute").returns_grad
    assert summary(source, "wrapper").returns_grad
    assert not summary(source, "size").returns_grad


def test_parameters_flowing_to_the_result():
    source = """\
        def combine(a, b, scale, *rest, verbose=False):
            total = a + b
            if verbose:
                print(rest)
            scaled = total * scale
            return scaled
    """
    assert summary(source, "combine").parameters_to_return == {"a", "b", "scale"}


def test_training_events_of_a_function():
    source = """\
        def step(model, optimizer, loss):
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        def backward_only(loss):
            loss.backward()
        def outer(model, optimizer, loss):
            step(model, optimizer, loss)
    """
    step = summary(source, "step")
    assert step.resets_grad and step.calls_backward and step.steps_optimizer
    only = summary(source, "backward_only")
    assert only.calls_backward and not only.resets_grad and not only.steps_optimizer
    assert summary(source, "outer").steps_optimizer  # through the helper it calls


def test_enclosing_function_and_class_and_call_summaries_on_the_context():
    context = context_of("""\
        class Model:
            def loss(self, x):
                return criterion(self(x), x)
            def fit(self, x):
                def inner(v):
                    return v
                self.loss(x).backward()
                inner(x)
    """)
    fit = function(context, "fit")
    (loss_call,) = calls_named(fit, "loss")
    (inner_call,) = calls_named(fit, "inner")
    context.stack[:] = [context.module, context.module.body[0], fit, loss_call]
    assert context.enclosing_function() is fit
    assert context.enclosing_class() is context.module.body[0]
    assert context.summary_of_call(loss_call).function is function(context, "loss")
    assert context.summary_of_call(inner_call).function is function(context, "inner")
    assert context.summary_of_call(loss_call).result_reaches_backward
    assert context.function_table.class_of(function(context, "loss")) is context.module.body[0]


def test_argument_for_gives_the_value_a_call_passes_or_the_default():
    from gradlint.analysis.functions import argument_for

    context = context_of(
        """
        def get_batch(source, i, evaluation=False, *, cuda=True):
            pass

        get_batch(s, 0)
        get_batch(s, 0, True)
        get_batch(s, 0, evaluation=not train)
        get_batch(s, *rest)
        get_batch(s, 0, cuda=False)
        """
    )
    callee = function(context, "get_batch")
    code = lambda node: None if node is None else context.code_for(node)  # noqa: E731
    calls = sorted(calls_named(context.module, "get_batch"), key=lambda call: context.module.code.index(code(call)))
    assert [code(argument_for(call, callee, "evaluation")) for call in calls] == ["False", "True", "not train", None, "False"]
    assert [code(argument_for(call, callee, "cuda")) for call in calls] == ["True", "True", "True", None, "False"]
    assert code(argument_for(calls[0], callee, "i")) == "0"


def test_only_called_when_every_mention_of_the_name_is_a_call_of_it():
    from gradlint.analysis.functions import only_called

    def check(uses: str) -> bool:
        context = context_of("def get_batch(source, i):\n    return source[i]\n\n" + uses)
        callee = function(context, "get_batch")
        return only_called(context.module, callee, context.functions.of(callee).call_sites)

    assert check("x = get_batch(s, 0)\ny = loader.get_batch(0)\nz = f(get_batch=1)\n")
    assert not check("x = map(get_batch, s)\n")
    assert not check("fetch = get_batch\n")
    assert not check("get_batch = other\n")


def test_helpers_returning_numbers_or_numpy_values_return_no_tensor():
    source = """\
        import numpy as np
        import torch
        def weighted(model, x, y):
            loss = criterion(model(x), y)
            loss.backward()
            return loss.item() * x.size(0)
        def rebound(model, x, y):
            loss = criterion(model(x), y)
            loss.backward()
            loss = loss.item()
            return loss
        def averaged(model, batch):
            return np.mean([criterion(model(x), y).item() for x, y in batch])
        def graph(model, x, y):
            return criterion(model(x), y)
    """
    assert summary(source, "weighted").returns_number and summary(source, "weighted").returns_no_tensor
    assert summary(source, "rebound").returns_number
    assert summary(source, "averaged").returns_no_tensor and not summary(source, "averaged").returns_number
    assert not summary(source, "graph").returns_no_tensor


def test_a_caller_naming_the_result_like_a_backpropagated_local_does_not_make_it_reach_backward():
    source = """\
        def train(model, loader):
            running_loss = 0.0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                running_loss += loss
            return running_loss
        def build(model, x):
            return criterion(model(x), x)
        loss = train(model, loader)
        total = build(model, x)
        total.backward()
    """
    assert not summary(source, "train").result_reaches_backward
    assert summary(source, "build").result_reaches_backward
