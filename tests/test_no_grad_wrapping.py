"""Putting code under `torch.no_grad()` (GL102's fix): the re-indented text keeps comments, blank
lines, nested blocks, multi-line strings, tabs and CRLF; it reparses and a second fix changes
nothing. And the region chosen: only where no value the rest of the program relies on changes."""

from __future__ import annotations

import pytest

from gradlint.model.project import ProjectFacts
from gradlint.engine import lint_text
from gradlint.fix.apply import fix_text
from gradlint.fix.plan import Applicability
from gradlint.rules import presets
from support import lint

GL102 = frozenset({"GL102"})


def fixed(source: str) -> str:
    result = fix_text(source, "example.py", GL102, unsafe=True)
    assert result.error is None, result.error
    compile(result.text, "example.py", "exec")
    assert fix_text(result.text, "example.py", GL102, unsafe=True).text == result.text
    return result.text


def reason(source: str) -> str:
    """Why GL102 left its finding without a fix."""
    (finding,) = lint(source, "GL102")
    assert finding.fix is None
    return finding.message.split("(not automatic: ", 1)[1].rstrip(")")


def test_a_loop_moves_under_no_grad_with_its_comments_blank_lines_and_strings():
    source = '''\
import torch
from torch.autograd import Variable


def run(model, loader, optimizer):
    for x in loader:
        model(Variable(x)).sum().backward()
        optimizer.step()
    # score the model
    for x in loader:  # scoring
        x = Variable(x, volatile=True)

        out = model(x)
        if out is not None:
            print(
                out.data,
                """a string
that spans lines""",
            )
            # inside the if
        # end of the loop
    # after the loop
    return None
'''
    assert (
        fixed(source)
        == '''\
import torch
from torch.autograd import Variable


def run(model, loader, optimizer):
    for x in loader:
        model(Variable(x)).sum().backward()
        optimizer.step()
    # score the model
    with torch.no_grad():
        for x in loader:  # scoring
            x = Variable(x)

            out = model(x)
            if out is not None:
                print(
                    out.data,
                    """a string
that spans lines""",
                )
                # inside the if
            # end of the loop
    # after the loop
    return None
'''
    )


def test_tabs_and_the_file_alias_of_torch():
    source = "import torch as th\nfrom torch.autograd import Variable\n\nif ready:\n\tfor x in loader:\n\t\ty = model(Variable(x, volatile=True))\n\t\tprint(y.data)\n"
    assert fixed(source) == (
        "import torch as th\nfrom torch.autograd import Variable\n\nif ready:\n"
        "\twith th.no_grad():\n\t\tfor x in loader:\n\t\t\ty = model(Variable(x))\n\t\t\tprint(y.data)\n"
    )


def test_crlf_and_a_missing_torch_import():
    source = "from torch.autograd import Variable\r\n\r\ndef evaluate(model, batch):\r\n    # score\r\n    return model(Variable(batch, volatile=True))\r\n"
    assert fixed(source) == (
        "import torch\r\nfrom torch.autograd import Variable\r\n\r\n"
        "@torch.no_grad()\r\ndef evaluate(model, batch):\r\n    # score\r\n    return model(Variable(batch))\r\n"
    )


def test_the_decorator_goes_right_above_the_def_and_keeps_multi_line_calls():
    source = """\
import torch
from torch.autograd import Variable


class Trainer:
    @staticmethod
    def validate(model, loader):
        for x in loader:
            v = Variable(
                x,  # the input
                volatile=True,
            )
            print(model(v).data)
"""
    assert (
        fixed(source)
        == """\
import torch
from torch.autograd import Variable


class Trainer:
    @staticmethod
    @torch.no_grad()
    def validate(model, loader):
        for x in loader:
            v = Variable(
                x,  # the input
            )
            print(model(v).data)
"""
    )


def test_indentation_mixing_tabs_and_spaces_is_not_rewritten():
    source = "import torch\nfrom torch.autograd import Variable\nif ready:\n\tfor x in loader:\n\t        y = model(Variable(x, volatile=True))\n"
    assert reason(source) == "the code cannot be re-indented safely"
    assert fixed(source) == source


def test_two_flags_in_one_loop_are_one_rewrite():
    source = """\
import torch
from torch.autograd import Variable


def main(model, loader):
    for x, y in loader:
        x, y = Variable(x, volatile=True), Variable(y, volatile=True)
        print(model(x).data, y.data)
"""
    findings = lint(source, "GL102")
    assert len(findings) == 2 and findings[0].fix.edits == findings[1].fix.edits
    assert "with torch.no_grad():\n        for x, y in loader:\n            x, y = Variable(x), Variable(y)\n" in fixed(source)


@pytest.mark.parametrize(
    "body, expected",
    [
        # A graph-free result read after the loop is fine; one that may hold a graph is not.
        ("    total = 0\n    for b in loader:\n        total += model(Variable(b, volatile=True)).data.sum()\n    print(total)\n", None),
        (
            "    for b in loader:\n        out = model(Variable(b, volatile=True))\n    out.sum().backward()\n",
            "`out` is used after it and may hold a graph",
        ),
        # Read after the loop by code that trains nothing: the loop and that code are wrapped together.
        ("    for b in loader:\n        out = model(Variable(b, volatile=True))\n    print(out)\n", None),
        # Bound again before it is read: the wrapped value is not the one read.
        ("    for b in loader:\n        out = model(Variable(b, volatile=True))\n    out = model(other)\n    out.sum().backward()\n", None),
        # Read by the next iteration of an enclosing loop (which trains, so it cannot be wrapped instead).
        (
            "    out = None\n    for epoch in range(2):\n        keep(out)\n        for b in loader:\n            out = model(Variable(b, volatile=True))\n        opt.step()\n",
            "`out` is used after it and may hold a graph",
        ),
        (
            "    for b in loader:\n        self.last = model(Variable(b, volatile=True))\n",
            "it stores a value that may hold a graph in `self.last`",
        ),
        ("    for b in loader:\n        keep.append(model(Variable(b, volatile=True)).max(1)[1])\n", None),
        (
            "    for b in loader:\n        out = model(Variable(b, volatile=True))\n        yield out\n",
            "it yields, and no_grad would stay on in the caller",
        ),
        ("    for b in loader:\n        x = Variable(b, volatile=True)\n        x.requires_grad_()\n", "it sets `requires_grad`"),
        (
            "    for b in loader:\n        x = Variable(b, volatile=True)\n        g = torch.autograd.grad(model(x).sum(), model.weight)\n",
            "it computes gradients",
        ),
        (
            "    for b in loader:\n        x = Variable(b, volatile=True)\n        with torch.enable_grad():\n            model(x)\n",
            "it turns grad on",
        ),
        ("    for b in loader:\n        x = Variable(b, volatile=True)\n        model(x).sum().backward()\n", "it calls `.backward()`"),
        # The loop steps an optimizer, but not with the value: each use is wrapped on its own.
        (
            "    for b in loader:\n        loss = model(Variable(b, volatile=True)).sum()\n        opt.step()\n        print(loss.data)\n",
            None,
        ),
        (
            "    for b in loader:\n        loss = model(Variable(b, volatile=True)).sum()\n        opt.step(loss)\n",
            "it steps an optimizer",
        ),
    ],
)
def test_which_loops_may_run_under_no_grad(body, expected):
    source = "import torch\nfrom torch.autograd import Variable\n\n\ndef run(self, model, loader, other, keep, step, opt):\n" + body
    if expected is None:
        assert "with torch.no_grad():\n    " in fixed(source)
    else:
        assert reason(source) == expected


def test_returned_values_from_the_volatile_one_are_fine_unless_the_file_backpropagates_through_them():
    evaluate = "import torch\nfrom torch.autograd import Variable\n\n\ndef predict(model, batch):\n    return model(Variable(batch, volatile=True))\n"
    assert "@torch.no_grad()\ndef predict" in fixed(evaluate)
    trained = (
        evaluate
        + "\n\ndef train(model, batch, target):\n    out = predict(model, batch)\n    loss = (out - target).pow(2).mean()\n    loss.backward()\n"
    )
    assert reason(trained) == "a caller backpropagates through what it returns"
    # Returning a value unrelated to the volatile one rules the decorator out: only its uses are wrapped.
    unrelated = "import torch\nfrom torch.autograd import Variable\n\n\ndef predict(model, batch, w):\n    x = Variable(batch, volatile=True)\n    print(model(x).data)\n    return w * 2\n"
    assert fixed(unrelated).endswith(
        "    with torch.no_grad():\n        x = Variable(batch)\n        print(model(x).data)\n    return w * 2\n"
    )


def test_script_code_keeps_blank_lines_empty_and_joins_a_dangling_argument():
    source = (
        "import torch\nfrom torch.autograd import Variable\n\n"
        "x = Variable(torch.rand(1, 4),\n             volatile=True)\n\n"
        "out = model(x)\nprint(out.data)\n"
    )
    assert fixed(source) == (
        "import torch\nfrom torch.autograd import Variable\n\n"
        "with torch.no_grad():\n    x = Variable(torch.rand(1, 4))\n\n    out = model(x)\n    print(out.data)\n"
    )


TRAINING_LOOP = """\
import torch
from torch.autograd import Variable

test_x = Variable(load(), volatile=True).float() / 255.0
for epoch in range(2):
    for step, (x, y) in enumerate(loader):
        output = model(x)
        loss = loss_func(output, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            test_output = model(test_x)
            pred_y = test_output.max(1)[1]
            print(loss.item(), pred_y)
            if verbose:
                print(test_output)
"""


def test_uses_inside_a_training_loop_are_wrapped_one_by_one():
    assert fixed(TRAINING_LOOP + "scores = model(test_x[:10])\nprint(scores)\n") == (
        TRAINING_LOOP.replace(", volatile=True", "").split("            test_output")[0] + "            with torch.no_grad():\n"
        "                test_output = model(test_x)\n"
        "                pred_y = test_output.max(1)[1]\n"
        "                print(loss.item(), pred_y)\n"
        "                if verbose:\n"
        "                    print(test_output)\n"
        "with torch.no_grad():\n    scores = model(test_x[:10])\n    print(scores)\n"
    )


def test_a_binding_that_computes_is_a_run_of_its_own():
    source = TRAINING_LOOP.replace("Variable(load(), volatile=True).float() / 255.0", "model(Variable(load(), volatile=True))")
    assert "\nwith torch.no_grad():\n    test_x = model(Variable(load()))\nfor epoch" in fixed(source)


def test_an_elif_is_wrapped_whole():
    source = TRAINING_LOOP.replace(
        "        if step % 50 == 0:\n", "        if step == 0:\n            pass\n        elif step % 50 == 0:\n"
    )
    assert "        with torch.no_grad():\n            if step == 0:\n                pass\n            elif step % 50 == 0:\n" in fixed(
        source
    )


@pytest.mark.parametrize(
    "changes, expected",
    [
        # The statement that trains reads the value: it cannot be separated from training.
        ((("loss = loss_func(output, y)", "loss = loss_func(output, y) + test_x.sum()"),), "it calls `.backward()`"),
        # A value that does not come from the volatile one is read by training after the run.
        (
            (
                ("print(loss.item(), pred_y)", "print(loss.item(), pred_y)\n            scale = model.weight * 2"),
                ("loss = loss_func(output, y)", "loss = loss_func(output, y) * scale.sum()"),
            ),
            "`scale` is used after it and may hold a graph",
        ),
        # A value computed from the volatile one is stored into an object from outside the run.
        ((("print(test_output)", "history.append(test_output)"),), "it stores a value that may hold a graph in `history`"),
        # A function defined there reads it: when it runs is not known.
        ((("            if verbose:\n", "            report = lambda: test_output\n            if verbose:\n"),), "it calls `.backward()`"),
    ],
)
def test_uses_inside_a_training_loop_stay_reported_where_a_run_would_change_training(changes, expected):
    source = TRAINING_LOOP
    for change in changes:
        source = source.replace(*change)
    assert reason(source) == expected


def test_a_run_does_not_reach_into_a_with_block():
    source = TRAINING_LOOP.replace("        if step % 50 == 0:\n", "        with torch.enable_grad():\n")
    assert reason(source) == "it calls `.backward()`"


def test_comprehension_variables_are_not_reads_of_the_names_outside():
    source = "import torch\nfrom torch.autograd import Variable\n\n" + (
        "test_x = Variable(data, volatile=True)\n"
        "for net, opt in zip(nets, opts):\n    loss = net(x).sum()\n    loss.backward()\n    opt.step()\n"
        "for net in nets:\n    print(net(test_x).data)\n"
        "[net.eval() for net in nets]\n"
    )
    assert "with torch.no_grad():\n    for net in nets:\n        print(net(test_x).data)\n" in fixed(source)


def test_a_flag_parameter_names_the_calls_that_decide():
    source = (
        "import torch\nfrom torch.autograd import Variable\n\n\ndef to_var(x, volatile=False):\n    return Variable(x, volatile=volatile)\n"
    )
    (finding,) = lint(source, "GL102")
    assert finding.fix is None
    assert "`volatile` is a parameter of `to_var`: drop `volatile=` here" in finding.message


def test_no_grad_fixes_come_first_so_other_fixes_see_the_values_computed_without_grad(tmp_path):
    """Values computed under the `torch.no_grad()` a GL102 fix adds carry no history, so the
    `.data` read in the same function needs no `.detach()` once that fix has been applied."""
    source = (
        "import torch\n"
        "from torch.autograd import Variable\n\n\n"
        "def evaluate(model, loader):\n"
        "    correct = 0\n"
        "    for data, target in loader:\n"
        "        output = model(Variable(data, volatile=True))\n"
        "        correct += output.data.max(1)[1].eq(target).sum().item()\n"
        "    return correct\n"
    )
    fixed = fix_text(source, "evaluate.py", frozenset(presets()["migrate"]), unsafe=True)
    assert fixed.remaining == []
    assert "@torch.no_grad()\ndef evaluate" in fixed.text
    assert "correct += output.max(1)[1].eq(target).sum().item()\n" in fixed.text
    assert "Variable" not in fixed.text and "detach" not in fixed.text


# -- a flag that is a parameter of its function: the calls that pass a true one ------------------

HELPER = """\
import torch
from torch.autograd import Variable


def get_batch(source, i, evaluation=False):
    data = Variable(source[i], volatile=evaluation)
    return data
"""


def test_a_flag_parameter_moves_to_the_calls_that_pass_true_each_by_the_policy_of_its_place():
    source = (
        HELPER
        + """

def evaluate(model, source):
    total = 0
    for i in range(len(source)):
        total += model(get_batch(source, i, True)).data.sum()
        total += model(get_batch(source, i, evaluation=True)).data.sum()
    return total


for i in range(len(train)):
    model(get_batch(train, i)).sum().backward()
    optimizer.step()
scores = model(get_batch(test, 0, evaluation=True))
print(scores.data)
"""
    )
    assert fixed(source) == (
        HELPER.replace(", volatile=evaluation", "")
        + """

@torch.no_grad()
def evaluate(model, source):
    total = 0
    for i in range(len(source)):
        total += model(get_batch(source, i, True)).data.sum()
        total += model(get_batch(source, i, evaluation=True)).data.sum()
    return total


for i in range(len(train)):
    model(get_batch(train, i)).sum().backward()
    optimizer.step()
with torch.no_grad():
    scores = model(get_batch(test, 0, evaluation=True))
    print(scores.data)
"""
    )


def test_a_flag_parameter_no_call_passes_true_is_removed_safely():
    source = HELPER + "\n\nout = model(get_batch(train, 0))\nout2 = model(get_batch(train, 1, evaluation=False))\n"
    (finding,) = lint(source, "GL102")
    assert finding.fix.applicability.value == "safe"
    assert fix_text(source, "example.py", GL102).text == source.replace(", volatile=evaluation", "")


@pytest.mark.parametrize(
    "calls, why",
    [
        ("out = model(get_batch(test, 0, evaluation=not training))", "a call of `get_batch` does not pass a literal `evaluation`"),
        ("out = model(get_batch(test, 0, *flags))", "a call of `get_batch` does not pass a literal `evaluation`"),
        ("batches = map(get_batch, sources)", "`get_batch` is used other than by calling it"),
        ("out = model(get_batch(test, 0, True))\nfetch = get_batch", "`get_batch` is used other than by calling it"),
        ("", "`get_batch` is not called in this file"),
        (
            "out = model(get_batch(test, 0, True))\nout.sum().backward()",
            "for the call of `get_batch` at module level, it calls `.backward()`",
        ),
    ],
)
def test_a_flag_parameter_is_left_to_a_person_unless_every_call_is_known_and_can_run_without_grad(calls, why):
    assert reason(HELPER + "\n\n" + calls + "\n") == why


def test_a_flag_parameter_of_a_method_is_left_to_a_person():
    source = """\
from torch.autograd import Variable


class Data(object):
    def get_batch(self, i, evaluation=False):
        return Variable(self.source[i], volatile=evaluation)

    def evaluate(self, model):
        return model(self.get_batch(0, evaluation=True))
"""
    assert reason(source) == "`get_batch` is not a function of the module, so its calls are not all known"


def test_a_flag_parameter_of_a_function_another_file_imports_is_left_to_a_person():
    source = HELPER + "\n\nout = model(get_batch(test, 0, evaluation=True))\n"
    assert fixed(source) != source  # on its own, the file's calls are all there is
    for project in (ProjectFacts(reimported=frozenset({"get_batch"})), ProjectFacts(called_elsewhere=frozenset({"get_batch"}))):
        (finding,) = lint_text(source, "example.py", GL102, project=project).findings
        assert finding.fix is None
        assert finding.message.endswith("(not automatic: another file uses `get_batch`)")
    # A run that includes every file which may import this one, and none mentions `get_batch`.
    (finding,) = lint_text(source, "example.py", GL102, project=ProjectFacts(called_elsewhere=frozenset())).findings
    assert finding.fix is not None


@pytest.mark.parametrize(
    "state, fixable",
    [
        ("model.init_hidden()", True),
        ("model.init_hidden(batch_size)", True),
        ("model.encode(prompt)", False),
        ("model.init_hidden(h)", False),
    ],
)
def test_only_a_fresh_recurrent_state_may_be_stored_on_an_outside_object(state, fixable):
    source = f"""\
import torch
from torch.autograd import Variable

batch_size = 4


def evaluate(model, loader, h):
    for x, y in loader:
        model.hidden = {state}
        print(model(Variable(x, volatile=True)).data)
"""
    decorated = source.replace("def evaluate", "@torch.no_grad()\ndef evaluate").replace(", volatile=True", "")
    if fixable:
        assert fixed(source) == decorated
    else:  # only the statement after the store
        assert fixed(source) == source.replace(
            "        print(model(Variable(x, volatile=True)).data)",
            "        with torch.no_grad():\n            print(model(Variable(x)).data)",
        )


def test_a_list_that_also_receives_values_that_may_have_history_still_blocks():
    source = """\
import torch
from torch.autograd import Variable


def main(model, optimizer, loader, weights):
    for x, y in loader:
        model(Variable(x)).sum().backward()
        optimizer.step()
    pred = []
    for x, y in loader:
        out = model(Variable(x, volatile=True))
        pred += list(out.max(1)[0])  # the values, with their graph
        pred += list(weights)
    return pred
"""
    assert reason(source).startswith("`pred` is used after it")


def test_region_facts_containers_paths_containment_and_overlap():
    import libcst as cst

    from gradlint.analysis.regions import contains, holds_only, overlap, path_to

    free = lambda node: isinstance(node, cst.Name) and node.value.startswith("free")  # noqa: E731
    value = lambda text: cst.parse_expression(text)  # noqa: E731
    assert holds_only(value("list(free_labels)"), free) and holds_only(value("[free_a, (free_b,)]"), free)
    assert holds_only(value("tuple(sorted(free_x))"), free)
    assert not holds_only(value("list(out)"), free) and not holds_only(value("[free_a, out]"), free)
    assert not holds_only(value("list(*free_x)"), free) and not holds_only(value("free_a"), free)

    module = cst.parse_module("for x in y:\n    a = f(x)\n    b = g(a)\nc = 1\n")
    loop, last = module.body
    (call,) = [node for node in path_to(module, loop.body.body[1]) if isinstance(node, cst.SimpleStatementLine)]
    path = path_to(module, call.body[0].value)
    assert path[0] is module and path[1] is loop and path[-1] is call.body[0].value
    assert path_to(module, cst.Name("x")) is None
    assert contains([loop], loop.body.body[:1]) and not contains(loop.body.body[:1], [loop])
    assert overlap([[loop], loop.body.body[1:]]) and not overlap([[loop], [last]])


def fix_of(source: str):
    (finding,) = lint(source, "GL102")
    return finding.fix


def test_a_statement_that_builds_no_graph_is_never_wrapped_on_its_own():
    """`if gpu: img = Variable(img, volatile=True).cuda()` computes nothing autograd records: the
    flag is dropped there and the code after the `if` that uses the value is wrapped."""
    source = """\
import torch
from torch.autograd import Variable


def report(model, loader, gpu, log, optimizer):
    for img, label in loader:
        if gpu:
            img = Variable(img, volatile=True).cuda()
        else:
            img = Variable(img, volatile=True)
        out = model(img)
        log((out.max(1)[1] == label).sum().item())
        optimizer.step()
"""
    text = fixed(source)
    assert "with torch.no_grad():\n                img" not in text
    assert "        if gpu:\n            img = Variable(img).cuda()\n        else:\n            img = Variable(img)\n" in text
    assert "        with torch.no_grad():\n            out = model(img)\n            log((out.max(1)[1] == label).sum().item())\n" in text


def test_a_value_stored_on_self_is_followed_into_the_methods_that_use_it():
    source = """\
import torch
from torch.autograd import Variable


class GAN(object):
    def __init__(self, G, gpu):
        self.G = G
        if gpu:
            self.sample_z_ = Variable(torch.rand(64, 62).cuda(), volatile=True)
        else:
            self.sample_z_ = Variable(torch.rand(64, 62), volatile=True)

    def sample(self, save, fix=True):
        if fix:
            samples = self.G(self.sample_z_)
        else:
            samples = self.G(torch.rand(64, 62))
        save(samples.data.numpy())
"""
    text = fixed(source)
    assert "self.sample_z_ = Variable(torch.rand(64, 62).cuda())\n" in text and "volatile" not in text
    assert "    @torch.no_grad()\n    def sample(self, save, fix=True):\n" in text  # named like a sampling function
    assert "with torch.no_grad():" not in text


@pytest.mark.parametrize(
    "use, reason",
    [
        ("    def tune(self):\n        self.G(self.z).sum().backward()\n", "for its use in `tune`, it calls `.backward()`"),
        (
            "    def forward(self, x):\n        return self.G(self.z) + x\n",
            "for its use in `forward`, it is inside `forward`, the model's forward pass",
        ),
        ("", "nothing in its class reads `self.z`"),
    ],
)
def test_a_value_stored_on_self_is_left_with_why_when_a_use_cannot_run_without_grad(use, reason):
    source = "import torch\nfrom torch.autograd import Variable\n\n\nclass GAN(object):\n"
    source += "    def __init__(self, G):\n        self.G = G\n        self.z = Variable(torch.rand(4, 2), volatile=True)\n\n" + use
    if "forward" in use:
        assert reason.split(", ", 1)[1] in _reason_text(source)
    else:
        assert _reason_text(source) == reason


def _reason_text(source: str) -> str:
    (finding,) = lint(source, "GL102")
    assert finding.fix is None
    return finding.message.split("(not automatic: ", 1)[1].rstrip(")")


@pytest.mark.parametrize(
    "body, safe",
    [
        # Nothing leaves it but numbers: safe.
        ("    out = model(Variable(x, volatile=True))\n    log(out.max(1)[1].sum().item())\n", True),
        # The text of a tensor names its grad_fn: printing it is not the same under no_grad.
        ("    out = model(Variable(x, volatile=True))\n    print(out)\n", False),
        ('    out = model(Variable(x, volatile=True))\n    log("%s" % out)\n', False),
        ('    out = model(Variable(x, volatile=True))\n    log("%.3f" % out.sum().item())\n', True),
        # Asking for the grad state, or handing a value with a graph to code not seen.
        ("    out = model(Variable(x, volatile=True))\n    log(out.requires_grad)\n", False),
        ("    out = model(Variable(x, volatile=True))\n    log(out)\n", False),
        # A parameter changed in place: allowed only without grad.
        ("    out = model(Variable(x, volatile=True))\n    model.weight.add_(out.sum().item())\n", False),
        # `+=` on a leaf that requires grad raises with grad on, and changes it without grad.
        ("    out = model(Variable(x, volatile=True))\n    model.weight += 0.1\n    log(out.max(1)[1])\n", False),
        (
            "    out = model(Variable(x, volatile=True))\n    for p in model.parameters():\n        p -= 0.1\n    log(out.max(1)[1])\n",
            False,
        ),
        ("    out = model(Variable(x, volatile=True))\n    w = model.weight\n    w += 0.1\n    log(out.max(1)[1])\n", False),
        # On what the code computes it is the same with and without grad.
        ("    out = model(Variable(x, volatile=True))\n    total = out.sum() * 2\n    total /= 10\n    log(total.item())\n", True),
    ],
)
def test_the_fix_is_safe_only_where_no_value_the_program_reads_changes(body, safe):
    source = "import torch\nfrom torch.autograd import Variable\n\n\ndef evaluate(model, x, log):\n" + body
    fix = fix_of(source)
    assert fix is not None and (fix.applicability.value == "safe") is safe


def test_a_flag_chosen_at_run_time_runs_the_code_under_set_grad_enabled():
    method = """\
import torch
from torch.autograd import Variable


class Scorer(object):
    def score(self, model, batch):
        out = model(Variable(batch, volatile=self.test))
        return out.max(1)[1]
"""
    assert fix_of(method).applicability.value == "unsafe"  # a caller's no_grad would be undone for a false flag
    assert "        with torch.set_grad_enabled(not self.test):\n            out = model(Variable(batch))\n" in fixed(method)
    script = "import torch\nfrom torch.autograd import Variable\n\nx = Variable(t, volatile=not train)\ny = model(x).max(1)[1]\n"
    assert fix_of(script).applicability.value == "safe"
    assert "with torch.set_grad_enabled(train):\n    x = Variable(t)\n    y = model(x).max(1)[1]\n" in fixed(script)
    already = "import torch\nfrom torch.autograd import Variable\n\nwith torch.no_grad():\n    y = model(Variable(t, volatile=flag))\n"
    assert fix_of(already).applicability.value == "safe" and "Variable(t))" in fixed(already)
    rebinds = (
        "import torch\nfrom torch.autograd import Variable\n\nflag = True\nx = Variable(t, volatile=flag)\nflag = False\ny = model(x)\n"
    )
    assert _reason_text(rebinds).startswith("`flag` is bound more than once")


_SCORED = "import functools\nimport torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\nfrom metrics import score\n\n\n"
_EVALUATE = "\n\ndef evaluate(model, x, y, optimizer, scaler):\n    out = model(Variable(x, volatile=True))\n"
_LOSS = "    return loss_function(out, y).item()\n"


@pytest.mark.parametrize(
    "definitions, body, safe",
    [
        # Functions of the file run under no_grad with the region: the same conditions hold in them.
        (
            "criterion = nn.CrossEntropyLoss()\n\n\ndef loss_function(out, y):\n    penalty = out.pow(2).mean()\n"
            "    penalty /= 10\n    return criterion(out, y) + penalty\n",
            _LOSS,
            True,
        ),
        (
            "def repackage(h):\n    if isinstance(h, torch.Tensor):\n        return h.detach()\n    return tuple(repackage(v) for v in h)\n",
            "    state = repackage((out, out))\n    return out.max(1)[1]\n",
            True,
        ),
        ("criterion = nn.CrossEntropyLoss()\n", "    return criterion(out, y).item()\n", True),  # a loss module of the module
        # What the function does with the value reads differently under no_grad, or is seen outside.
        ("def loss_function(out, y):\n    print(out)\n    return (out - y).pow(2).mean()\n", _LOSS, False),
        ("def loss_function(out, y):\n    assert out.requires_grad\n    return (out - y).pow(2).mean()\n", _LOSS, False),
        ("history = []\n\n\ndef loss_function(out, y):\n    history.append(out)\n    return (out - y).pow(2).mean()\n", _LOSS, False),
        ("last = None\n\n\ndef keep(out):\n    global last\n    last = out\n", "    keep(out)\n    return out.max(1)[1]\n", False),
        ("def add(total, out):\n    total += out.sum()\n", "    total = torch.zeros(1)\n    add(total, out)\n    return total\n", False),
        ("def add(total, out):\n    total.add_(out.sum())\n", "    total = torch.zeros(1)\n    add(total, out)\n    return total\n", False),
        ("def loss_function(out, y):\n    return score(out, y)\n", _LOSS, False),  # another file's function
        (
            "def a(h, n):\n    return b(h, n - 1) if n else h.detach()\n\n\ndef b(h, n):\n    print(h)\n    return a(h, n)\n",
            "    a(out, 3)\n    return out.max(1)[1]\n",
            False,
        ),
        # The call may run something else than the `def`, or a module that is not one.
        (
            "def loss_function(out, y):\n    return (out - y).pow(2).mean()\n\n\nloss_function = functools.partial(loss_function, y=0)\n",
            _LOSS,
            False,
        ),
        ("@functools.lru_cache()\ndef loss_function(out, y):\n    return (out - y).pow(2).mean()\n", _LOSS, False),
        ("criterion = nn.CrossEntropyLoss()\ncriterion = make_loss()\n", "    return criterion(out, y).item()\n", False),
        # What it returns is judged where the call's result goes: here it leaves the function.
        ("def loss_function(out, y):\n    return (out - y).pow(2).mean()\n", "    return loss_function(out, y)\n", False),
    ],
)
def test_functions_of_the_file_a_region_calls_are_held_to_its_conditions(definitions, body, safe):
    fix = fix_of(_SCORED + definitions + _EVALUATE + body)
    assert fix is not None and (fix.applicability.value == "safe") is safe


@pytest.mark.parametrize(
    "definitions, body, why",
    [
        (
            "def loss_function(out, y):\n    loss = (out - y).pow(2).mean()\n    loss.backward()\n    return loss\n",
            _LOSS,
            "it calls `.backward()`",
        ),
        (
            "def scaled(scaler, loss):\n    scaler.scale(loss).backward()\n",
            "    scaled(scaler, (out - y).pow(2).mean())\n",
            "it calls `.backward()`",
        ),
        (
            "def refine(optimizer, model, x, y):\n    def closure():\n        optimizer.zero_grad()\n"
            "        loss = (model(x) - y).pow(2).mean()\n        loss.backward()\n        return loss\n    optimizer.step(closure)\n",
            "    refine(optimizer, model, x, out.detach())\n",
            "it calls `.backward()`",
        ),
        (
            "def loss_function(out, y):\n    return (out - y).pow(2).mean()\n",
            "    return loss_function(out, y)\n\n\nevaluate(model, x, y, optimizer, scaler).backward()\n",
            "a caller backpropagates through what it returns",
        ),
    ],
)
def test_functions_of_the_file_that_train_or_feed_a_backward_keep_the_region_from_being_wrapped(definitions, body, why):
    assert reason(_SCORED + definitions + _EVALUATE + body) == why


def test_an_in_place_change_of_an_outside_tensor_with_a_graph_is_a_store():
    """`total.add_(out.sum())` gives `total`, made before the loop, the graph no_grad would remove."""
    loop = "import torch\nfrom torch.autograd import Variable\n\ntotal = torch.zeros(1)\nfor x in loader:\n"
    loop += "    out = model(Variable(x, volatile=True))\n"
    assert reason(loop + "    total.add_(out.sum())\n") == "it stores a value that may hold a graph in `total`"
    assert fix_of(loop + "    total.add_(out.sum().item())\n").applicability.value == "safe"


def test_a_flag_parameter_whose_evaluation_repackages_its_state_is_fixed_safely():
    """The word language model: `evaluate` asks `get_batch` for volatile batches, scores them with
    a loss module of the module and repackages the recurrent state with a recursive function of
    the file; `train` asks for the default batches and backpropagates."""
    source = """\
import torch
import torch.nn as nn
from torch.autograd import Variable

criterion = nn.CrossEntropyLoss()


def repackage_hidden(h):
    if type(h) == Variable:
        return Variable(h.data)
    else:
        return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i, evaluation=False):
    data = Variable(source[i:i + 2], volatile=evaluation)
    target = Variable(source[i + 1:i + 3].view(-1))
    return data, target


def evaluate(model, data_source, hidden):
    total_loss = 0
    for i in range(0, data_source.size(0) - 1, 2):
        data, targets = get_batch(data_source, i, evaluation=True)
        output, hidden = model(data, hidden)
        total_loss += len(data) * criterion(output.view(-1, 10), targets).data
        hidden = repackage_hidden(hidden)
    return total_loss[0] / len(data_source)


def train(model, optimizer, data_source, hidden):
    for i in range(0, data_source.size(0) - 1, 2):
        data, targets = get_batch(data_source, i)
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        criterion(output.view(-1, 10), targets).backward()
        optimizer.step()
"""
    fix = fix_of(source)
    assert fix.applicability.value == "safe"
    assert "@torch.no_grad()\ndef evaluate(model, data_source, hidden):" in fixed(source)
    assert "    data = Variable(source[i:i + 2])\n" in fixed(source)


def test_a_loss_module_of_the_module_is_a_model_in_its_functions_and_methods_but_not_in_nested_functions():
    module = "import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\n\ncriterion = nn.CrossEntropyLoss()\n\n\n"
    scored = "out = model(Variable(x, volatile=True))\n{0}return criterion(out, y).item()\n"
    function = module + "def evaluate(model, x, y):\n    " + scored.format("    ")
    method = module + "class Trainer(object):\n    def evaluate(self, model, x, y):\n        " + scored.format("        ")
    nested = (
        module + "def outer(criterion):\n    def evaluate(model, x, y):\n        " + scored.format("        ") + "    return evaluate\n"
    )
    assert [fix_of(source).applicability.value for source in (function, method, nested)] == ["safe", "safe", "unsafe"]


FUNCTION_LOCAL_TORCH = """\
def evaluate(model, loader):
    import torch
    from torch import nn

    class Scaled(nn.Module):
        def __init__(self, model):
            super(Scaled, self).__init__()
            self.model = model

        def forward(self, input):
            input.data.div_(255.)
            return self.model(input)

    return Scaled(model)
"""


def test_a_function_local_torch_serves_the_no_grad_block_of_a_class_defined_there():
    result = fix_text(FUNCTION_LOCAL_TORCH, "example.py", frozenset({"GL301"}))
    assert result.error is None
    assert [finding.fix.applicability for finding in lint(FUNCTION_LOCAL_TORCH, "GL301")] == [Applicability.SAFE]
    assert "            with torch.no_grad():\n                input.div_(255.)\n" in result.text
    assert result.text.count("import torch") == 1


@pytest.mark.parametrize(
    "change",
    [
        # imported after the class: not bound yet where the class is defined
        (
            "    import torch\n    from torch import nn\n",
            "    from torch import nn\n",
            "    return Scaled(model)\n",
            "    import torch\n    return Scaled(model)\n",
        ),
        # imported on one branch only
        ("    import torch\n", "    if loader:\n        import torch\n", "", ""),
        # the method binds the name itself
        ("            input.data.div_(255.)\n", "            torch = None\n            input.data.div_(255.)\n", "", ""),
        # a parameter of the function
        ("def evaluate(model, loader):\n", "def evaluate(model, loader, torch=None):\n", "", ""),
        # bound to something else as well
        ("    from torch import nn\n", "    from torch import nn\n    torch = nn\n", "", ""),
    ],
)
def test_a_function_local_torch_that_may_not_be_the_module_gets_no_fix(change):
    first, first_new, second, second_new = change
    source = (
        FUNCTION_LOCAL_TORCH.replace(first, first_new).replace(second, second_new)
        if second
        else FUNCTION_LOCAL_TORCH.replace(first, first_new)
    )
    assert source != FUNCTION_LOCAL_TORCH
    assert [finding.fix for finding in lint(source, "GL301")] == [None]
    result = fix_text(source, "example.py", frozenset({"GL301"}))
    assert "no_grad" not in result.text


EVALUATION = """\
import time

import torch
from torch import nn


class AverageMeter(object):
    def __init__(self):
        self.val = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n


def validate(val_loader, model, criterion):
    losses, batch_time = AverageMeter(), AverageMeter()
    end = time.time()
    for i, (input, target) in enumerate(val_loader):
        input_var = torch.autograd.Variable(input, volatile=True)
        loss = criterion(model(input_var), target)
        losses.update(loss.data[0], input.size(0))
        batch_time.update(time.time() - end)
        end = time.time()
        print('Test: [{0}/{1}] Loss {loss.val:.4f} Time {time.val:.3f}'.format(i, len(val_loader), loss=losses, time=batch_time))
    print(' * Loss {loss.sum:.3f}'.format(loss=losses))


def main(model, loader):
    criterion = nn.CrossEntropyLoss().cuda()
    return validate(loader, model, criterion)
"""


def test_an_evaluation_loop_that_prints_numbers_and_times_itself_runs_under_no_grad_exactly():
    """The ImageNet example's `validate`: a timing meter fed `time.time()`, a progress line whose
    fields are numbers, and a criterion every call passes as a module."""
    (finding,) = lint_text(EVALUATION, "example.py", GL102, project=ProjectFacts(called_elsewhere=frozenset())).findings
    assert finding.fix is not None and finding.fix.applicability == Applicability.SAFE


@pytest.mark.parametrize(
    "change",
    [
        ("Loss {loss.val:.4f}", "Loss {loss.val}"),  # the loss's text, `grad_fn` and all
        ("batch_time.update(time.time() - end)", "batch_time.update(model.elapsed - end)"),
        ("criterion = nn.CrossEntropyLoss().cuda()", "criterion = make_criterion()"),
    ],
)
def test_an_evaluation_loop_is_left_unsafe_when_a_value_may_show_or_keep_a_graph(change):
    source = EVALUATION.replace(*change)
    assert source != EVALUATION
    (finding,) = lint_text(source, "example.py", GL102, project=ProjectFacts(called_elsewhere=frozenset())).findings
    assert finding.fix is None or finding.fix.applicability == Applicability.UNSAFE
