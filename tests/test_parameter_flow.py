"""The parameter-flow and checkpoint facts GL702, GL703 and GL711 are built on."""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.context import FileContext
from gradlint.rules.gl711_load_state_dict_result_ignored.rule import LoadStateDictResultIgnored


def _context(source: str) -> FileContext:
    text = textwrap.dedent(source)
    return FileContext("x.py", text, cst.parse_module(text))


def _function(context: FileContext) -> cst.FunctionDef:
    return next(s for s in context.module.body if isinstance(s, cst.FunctionDef))


def test_a_generator_read_by_two_consumers_on_one_path():
    context = _context(
        """
        import torch
        def build(model):
            params = model.parameters()
            optimizer = torch.optim.SGD(params, lr=0.1)
            total = sum(p.numel() for p in params)
        """
    )
    (reuse,) = context.parameter_flow.reused_generators(_function(context))
    assert context.code_for(reuse.value) == "model.parameters()"
    assert context.code_for(reuse.first.consumer).startswith("torch.optim.SGD")
    assert context.code_for(reuse.second.consumer).startswith("sum(")
    assert reuse.list_safe


def test_consumers_in_other_branches_or_after_a_rebinding_do_not_count():
    context = _context(
        """
        import torch
        def build(model, adam):
            params = model.parameters()
            if adam:
                optimizer = torch.optim.Adam(params)
            else:
                optimizer = torch.optim.SGD(params, lr=0.1)
            params = model.parameters()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
        """
    )
    assert context.parameter_flow.reused_generators(_function(context)) == []


def test_an_unknown_use_keeps_the_finding_but_not_the_list():
    context = _context(
        """
        import torch
        def build(model):
            params = model.parameters()
            keep(params)
            for p in params:
                p.requires_grad_(False)
            for p in params:
                print(p)
        """
    )
    (reuse,) = context.parameter_flow.reused_generators(_function(context))
    assert not reuse.list_safe


def test_an_optimizer_left_behind_by_a_new_head():
    context = _context(
        """
        import torch
        from torch import nn
        def finetune(model):
            params = model.parameters()
            opt = torch.optim.SGD(params, lr=0.1)
            model.head = nn.Linear(2, 2)
            opt.step()
        """
    )
    (stale,) = context.parameter_flow.stale_optimizers(_function(context))
    assert (stale.optimizer, stale.owner, stale.replaced) == ("opt", "model", "model.head")


def test_parameterless_layers_hold_no_new_parameters():
    context = _context(
        """
        import torch
        from torch import nn
        """
    )
    flow = context.parameter_flow
    build = lambda code: flow.builds_parameterised_module(cst.parse_expression(code))  # noqa: E731
    assert build("nn.Linear(2, 2)") and build("nn.Sequential(nn.ReLU(), nn.Linear(2, 2))")
    assert not build("nn.Identity()") and not build("nn.Sequential(nn.ReLU())") and not build("make_head()")


def test_checkpoints_read_from_a_file_and_edited_ones():
    context = _context(
        """
        import torch
        def load(model, path, given):
            ckpt = torch.load(path)
            sd = ckpt["model"]
            edited = torch.load(path)
            edited.pop("head.weight")
        """
    )
    scope = _function(context)
    evidence = LoadStateDictResultIgnored(context).checkpoints
    assert evidence.read_from_file(cst.Name("sd"), scope) is not None
    assert evidence.read_from_file(cst.Name("edited"), scope) is None
    assert evidence.read_from_file(cst.Name("given"), scope) is None
    assert not evidence.checks_load_result(scope)


def test_the_sources_of_an_optimizer_s_parameters_see_through_wrappers_and_comprehensions():
    from gradlint.analysis.parameter_flow import parameter_sources

    def sources(expression: str):
        return parameter_sources(cst.parse_expression(expression))

    assert sources("{n: p for n, p in m.named_parameters()}.values()") == {"m"}
    assert sources("list(m.parameters())") == {"m"}
    assert sources("[p for p in m.parameters() if p.requires_grad]") == {"m"}
    assert sources("dict(m.named_parameters()).values()") == {"m"}
    assert sources("filter(lambda p: p.requires_grad, m.parameters())") == {"m"}
    assert sources("itertools.chain(g.parameters(), self.d.parameters())") == {"g", "self.d"}
    assert sources('[{"params": m.parameters(), "lr": lr}, {"params": [x]}]') == {"m", "x"}
    assert sources("[x] + list(m.parameters())") == {"x", "m"}
    assert sources("[w for layer in layers for w in layer.weights]") == {"layers"}
    # Anything else is not understood: a call of the file's own, `map`, a keyword argument.
    assert sources("get_params(m)") is None
    assert sources("map(f, m.parameters())") is None
    assert sources("sorted(m.parameters(), key=f)") is None
