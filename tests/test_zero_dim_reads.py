"""Number reads of 0-dim values: what the shared analyses prove, and when GL103's `.item()` is safe.

`x.sum(0)` of a 1-D tensor is 0-dim, a local function returning a list of such values makes
`f(...)[0]` 0-dim, and `x[0]` of a value 0-dim by construction raises for every value. A sampled
action read with `.data[0]` is a 0-dim tensor today; its `.item()` is safe only where the read
reaches nothing but `env.step` of an environment that rejects a tensor action.
"""

from __future__ import annotations

import textwrap

import libcst as cst

from gradlint.context import FileContext
from gradlint.engine import lint_text
from gradlint.fix.plan import Applicability
from gradlint.model.project import ProjectFacts

GL103 = frozenset({"GL103"})
# A whole run whose other files mention none of this file's functions.
ALONE = ProjectFacts(called_elsewhere=frozenset())


def findings(source: str, project=ALONE):
    return lint_text(textwrap.dedent(source), "example.py", GL103, project=project).findings


def applicabilities(source: str, project=ALONE) -> list[Applicability]:
    return [finding.fix.applicability for finding in findings(source, project)]


ACCURACY = """
import torch

def accuracy(output, target, topk=(1,)):
    _, pred = output.topk(max(topk), 1, True, True)
    correct = pred.t().eq(target.view(1, -1).expand_as(pred.t()))
    res = []
    for k in topk:
        correct_k = correct[:k].view(-1).float().sum({dim})
        res.append(correct_k.mul_(100.0 / target.size(0)))
    return res

prec1 = accuracy(output, target)[0]
top1.update(prec1[0], 4)
"""


def function_named(context: FileContext, name: str) -> cst.FunctionDef:
    return next(s for s in context.module.body if isinstance(s, cst.FunctionDef) and s.name.value == name)


def test_a_flat_sum_over_its_dim_is_0_dim_and_a_function_returns_a_list_of_them():
    source = textwrap.dedent(ACCURACY.format(dim="0"))
    context = FileContext("example.py", source, cst.parse_module(source))
    accuracy = function_named(context, "accuracy")
    (item,) = context.functions.of(accuracy).returned_list_items
    assert context.values.is_scalar(item, accuracy)
    assert context.values.shape(item.func.value, accuracy) == ()  # `correct[:k].view(-1).float().sum(0)`


def test_prec1_of_a_list_of_0_dim_sums_is_read_with_a_safe_item():
    (finding,) = findings(ACCURACY.format(dim="0"))
    assert "`prec1[0]` raises IndexError" in finding.message
    assert finding.fix.applicability is Applicability.SAFE


def test_a_sum_over_a_dim_of_a_2_d_tensor_keeps_a_dim_and_its_first_element_is_left():
    assert findings(ACCURACY.format(dim="0").replace(".view(-1)", ".view(2, -1)")) == []
    assert findings(ACCURACY.format(dim="0, keepdim=True")) == []


def test_look_alikes_of_a_0_dim_value_are_left():
    assert findings("sizes = [3, 4]\nn = sizes[0]\n") == []
    assert findings("import torch\nx = torch.rand(3, 4)\ncol = x.sum(0)\nfirst = col[0]\n") == []
    assert findings("import numpy as np\na = np.ones(3)\ntotal = a.sum(0)\nfirst = total[0]\n") == []
    # Named like a loss, made by something unknown: no evidence of its shape.
    assert findings("loss = compute(x)\nfirst = loss[0]\n") == []
    # A list with other elements besides 0-dim ones.
    mixed = """
    import torch
    def stats(x):
        res = [x]
        res.append(x.view(-1).sum(0))
        return res
    first = stats(v)[0][0]
    """
    assert findings(mixed) == []


def test_a_read_inside_a_try_is_fixed_unsafely():
    source = """
    import torch
    def total(x):
        return x.view(-1).sum(0)
    value = total(v)
    try:
        first = value[0]
    except IndexError:
        first = value
    """
    assert applicabilities(source) == [Applicability.UNSAFE]


SELECT_ACTION = """
import gym
import torch
from torch.distributions import Categorical

env = {make}

def select_action(probs):
    action = Categorical(probs).sample()
    return action.data[0]

def main(state):
    for t in range(10):
        action = select_action(state)
        state, reward, done, _ = env.step(action)
        {extra}
"""


def select_action(make: str = "gym.make('CartPole-v0')", extra: str = "") -> str:
    return SELECT_ACTION.format(make=make, extra=extra)


def test_an_action_reaching_only_a_tensor_rejecting_step_is_fixed_safely():
    for make in ("gym.make('CartPole-v0')", "gym.make('CartPole-v1')", 'gym.make("MountainCar-v0")'):
        assert applicabilities(select_action(make)) == [Applicability.SAFE], make
    gymnasium = select_action("gymnasium.make('CartPole-v1')").replace("import gym\n", "import gymnasium\n")
    assert applicabilities(gymnasium) == [Applicability.SAFE]
    direct = "import gym\nimport torch\nenv = gym.make('CartPole-v0')\naction = torch.multinomial(p, 1)\nenv.step(action.data[0])\n"
    assert applicabilities(direct) == [Applicability.SAFE]


def test_an_action_that_may_reach_anything_else_is_fixed_unsafely():
    unsafe = [Applicability.UNSAFE]
    assert applicabilities(select_action("gym.make('Acrobot-v1')")) == unsafe  # its step indexes a list with the action
    assert applicabilities(select_action("gym.make(args.env)")) == unsafe
    assert applicabilities(select_action("make_env()")) == unsafe
    assert applicabilities(select_action(extra="print(action)")) == unsafe
    assert applicabilities(select_action(extra="actions.append(select_action(state))")) == unsafe
    wrapped = select_action().replace("env = gym.make('CartPole-v0')", "env = gym.make('CartPole-v0')\nenv = Monitor(env)")
    assert applicabilities(wrapped) == unsafe
    # `env` a parameter of the caller: not the module's environment.
    shadowed = select_action().replace("def main(state):", "def main(state, env):")
    assert applicabilities(shadowed) == unsafe
    # Another file may call `select_action`, or the run is partial.
    assert applicabilities(select_action(), ProjectFacts(called_elsewhere=frozenset({"select_action"}))) == unsafe
    assert applicabilities(select_action(), None) == unsafe
    handed_over = select_action(extra="policy = select_action")
    assert applicabilities(handed_over) == unsafe


def test_a_2_d_read_of_an_action_is_left_to_its_own_rule():
    """`action.data[0, 0]` is not a `[0]` read; `reward = r - value.data[0, 0]` stays as it is."""
    source = "import gym\nimport torch\nenv = gym.make('CartPole-v0')\naction = torch.multinomial(p, 1)\nenv.step(action.data[0, 0])\n"
    assert findings(source) == []


def test_a_name_also_bound_to_a_tensor_with_dimensions_is_left():
    """The read may see the concatenation: its first element, not a 0-dim index."""
    source = """
    import torch
    def reduce(losses, mask, parallel):
        if parallel:
            loss = torch.cat([torch.sum(losses * mask).view(1), mask.sum().view(1)])
            loss = loss[0] / loss[1]
        else:
            loss = torch.sum(losses) / mask.sum()
        return loss
    """
    assert findings(source) == []


def test_the_summary_says_which_calls_a_function_result_is_handed_to():
    source = textwrap.dedent(select_action())
    context = FileContext("example.py", source, cst.parse_module(source), project=ALONE)
    summary = context.functions.of(function_named(context, "select_action"))
    (site,) = summary.result_arguments
    assert context.code_for(site.call) == "env.step(action)" and site.scope is function_named(context, "main")
    printed = textwrap.dedent(select_action(extra="print(action + 1)"))
    context = FileContext("example.py", printed, cst.parse_module(printed), project=ALONE)
    assert context.functions.of(function_named(context, "select_action")).result_arguments is None
