"""Identity: which values are new objects, and what code tells an unwrapped tensor from its source."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.tree import descendants
from gradlint.context import FileContext
from support import last_value


@pytest.mark.parametrize(
    "line, observed",
    [
        ("y.requires_grad_()", True),
        ("y.requires_grad = True", True),
        ("y.grad = g", True),
        ("y.register_hook(print)", True),
        ("y.resize_(4)", True),
        ("y.cuda().t_()", True),
        ("assert y is x", True),
        ("print(id(y))", True),
        ("y.add_(1)", False),
        ("y[0] = 1.0", False),
        ("print(y.sum())", False),
    ],
)
def test_identity_observed(line, observed):
    context, _, scope = last_value(f"import torch\ndef f(x, g):\n    y = x\n    {line}\n    probe = y\n")
    assert context.identity.identity_observed({"y"}, scope) is observed


@pytest.mark.parametrize(
    ("source", "fresh"),
    [
        ("def f(w, x):\n    with torch.no_grad():\n        probe = torch.matmul(w, x)\n", True),
        ("def f(w):\n    with torch.no_grad():\n        probe = torch.as_tensor(w)\n", False),
        ("def feat(x):\n    return torch.cat([x, x * 2], 1)\ndef f(t):\n    probe = feat(t)\n", True),
        ("def feat(x):\n    return x.view(-1) if x.dim() else x[:1]\ndef f(t):\n    probe = feat(t)\n", False),
        ("def same(x):\n    return x\ndef f(t):\n    probe = same(t)\n", False),
        ("@functools.lru_cache()\ndef feat(n):\n    return torch.zeros(n) * 2\ndef f():\n    probe = feat(2)\n", False),
        ("def feat(n):\n    yield torch.zeros(n)\ndef f():\n    probe = feat(2)\n", False),
        ("def f(model, x):\n    with torch.no_grad():\n        probe = model(x.detach())\n", False),
        ("def f(w, x):\n    probe = torch.matmul(w, x)\n", False),
    ],
)
def test_fresh_when_computed_without_grad(source, fresh):
    """A torch function computing under no_grad makes a new object; a module of the program may
    return a tensor it holds."""
    context, value, scope = last_value("import torch\n" + source)
    assert context.identity.is_fresh(value, scope) is fresh


def handed_over(source: str) -> bool:
    """Whether the name passed to `hand(...)` is the last use of a new local nothing else reaches."""
    text = textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    found = None
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef):
            scope = node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "hand":
            found = (node.args[0].value, scope)
    assert found is not None
    return context.identity.is_last_use_of_fresh_local(*found)


LAST_USES = {
    "returned after filling": "def f(n):\n    t = torch.zeros(n)\n    for i in range(n):\n        t[i] = i\n    return hand(t)\n",
    "rebound parameter": "def f(policy, s):\n    s = torch.from_numpy(s).float().unsqueeze(0)\n    return policy(hand(s))\n",
    "values read": "def f(n):\n    t = torch.ones(n)\n    t.mul_(2)\n    total = t.sum().item() + (t * 2).max()\n    return hand(t), total\n",
    "bound in the same iteration": "def f(xs):\n    for x in xs:\n        s = torch.from_numpy(x)\n        use(hand(s))\n",
    "inside an if": "def f(x):\n    s = torch.zeros(2)\n    if x:\n        use(hand(s))\n",
    "read by value by a function of the file": (
        "W = torch.randn(2, 1)\ndef feat(x, scale=1):\n    return x.mm(W) * scale + x.sum()\n"
        "def f():\n    s = torch.zeros(3, 2)\n    y = feat(s, scale=2)\n    return hand(s), y\n"
    ),
}
NOT_LAST_USES = {
    "read afterwards": "def f(s):\n    s = torch.from_numpy(s)\n    out = use(hand(s))\n    return out, s\n",
    "read in the same call": "def f():\n    s = torch.zeros(2)\n    return use(hand(s), s)\n",
    "stored before": "def f(seen):\n    s = torch.zeros(2)\n    seen.append(s)\n    return hand(s)\n",
    "passed to an unknown call": "def f():\n    s = torch.zeros(2)\n    log(s)\n    return hand(s)\n",
    "bound to another name": "def f():\n    s = torch.zeros(2)\n    v = s\n    return hand(s), v\n",
    "a view bound to another name": "def f():\n    s = torch.zeros(2)\n    v = s[0]\n    return hand(s), v\n",
    "flag set": "def f():\n    s = torch.zeros(2)\n    s.requires_grad_()\n    return hand(s)\n",
    "history written in": "def f(w):\n    s = torch.zeros(2)\n    s.copy_(w)\n    return hand(s)\n",
    "not fresh": "def f(model, x):\n    s = model(x).detach().cuda()\n    s = x\n    return hand(s)\n",
    "a parameter": "def f(s):\n    return hand(s)\n",
    "bound before the loop": "def f(xs):\n    s = torch.zeros(2)\n    for x in xs:\n        use(hand(s))\n",
    "read earlier in the loop": "def f(xs):\n    s = torch.zeros(2)\n    for x in xs:\n        use(s.sum())\n        s = torch.from_numpy(x)\n        use(hand(s))\n",
    "bound in a branch": "def f(x):\n    if x:\n        s = torch.zeros(2)\n    else:\n        s = x\n    return hand(s)\n",
    "read by a closure": "def f():\n    s = torch.zeros(2)\n    g = lambda: s\n    return hand(s), g\n",
    "yielded": "def f():\n    s = torch.zeros(2)\n    yield s\n    yield hand(s)\n",
    "global": "def f():\n    global s\n    s = torch.zeros(2)\n    return hand(s)\n",
    "frame read": "def f():\n    s = torch.zeros(2)\n    out = hand(s)\n    return out, locals()\n",
    "formatted by a view": "def f():\n    s = torch.zeros(2)\n    return hand(s), print(s.view(2))\n",
    "kept by a function of the file": (
        "def keep(x):\n    seen.append(x)\n    return x.sum()\ndef f():\n    s = torch.zeros(2)\n    y = keep(s)\n    return hand(s), y\n"
    ),
    "returned by a function of the file": "def same(x):\n    return x\ndef f():\n    s = torch.zeros(2)\n    y = same(s)\n    return hand(s), y\n",
    "rebound in a function of the file": (
        "def g(x):\n    x = x.cuda()\n    return x\ndef f():\n    s = torch.zeros(2)\n    y = g(s)\n    return hand(s), y\n"
    ),
    "flag set by a function of the file": (
        "def g(x):\n    x.requires_grad_()\n    return x.sum()\ndef f():\n    s = torch.zeros(2)\n    y = g(s)\n    return hand(s), y\n"
    ),
    "given to a decorated function": (
        "@memo\ndef g(x):\n    return x.sum()\ndef f():\n    s = torch.zeros(2)\n    y = g(s)\n    return hand(s), y\n"
    ),
}


@pytest.mark.parametrize("source", LAST_USES.values(), ids=LAST_USES)
def test_the_last_use_of_a_new_local(source):
    assert handed_over("import torch\n" + source)


@pytest.mark.parametrize("source", NOT_LAST_USES.values(), ids=NOT_LAST_USES)
def test_not_the_last_use_of_a_new_local(source):
    assert not handed_over("import torch\n" + source)


def read_by_value(source: str) -> bool:
    """Whether the `probe = ...` assignment's name is only read by value with autograd off."""
    text = "import torch\n" + textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    found = None
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef):
            scope = node
        if (
            found is None
            and isinstance(node, cst.Assign)
            and isinstance(node.targets[0].target, cst.Name)
            and node.targets[0].target.value == "probe"
        ):
            found = (node, scope)  # the last in source order: the walk visits later statements first
    assert found is not None
    return context.identity.read_only_by_value_without_grad(*found)


def no_grad_body(*lines: str) -> str:
    return "def f(model, x, y):\n    with torch.no_grad():\n" + "".join(f"        {line}\n" for line in lines)


BY_VALUE = {
    "reductions and lists": no_grad_body("probe = model(x)", "print(probe.mean(0).tolist(), probe.std(0).tolist())"),
    "arithmetic": no_grad_body("probe = model(x)", "loss = (probe - y).pow(2).mean()", "return loss"),
    "comparison and item": no_grad_body("probe = model(x)", "n = (probe.max(1)[1] == y).sum().item()"),
    "indexing consumed by value": no_grad_body("probe = model(x)", "first = probe[0].sum().item()"),
    "conversion consumed by value": no_grad_body("probe = model(x)", "values = probe.cpu().tolist()"),
    "torch function": no_grad_body("probe = model(x)", "total = torch.sum(probe)"),
    "rebinding itself": no_grad_body("probe = model(x)", "if isinstance(probe, torch.Tensor):", "    probe = probe.data", "e = probe - y"),
    "unused": no_grad_body("probe = model(x)"),
}
NOT_BY_VALUE = {
    "grad on": "def f(model, x):\n    probe = model(x)\n    return probe.sum().item()\n",
    "read after the block": no_grad_body("probe = model(x)") + "    return probe.sum()\n",
    "returned": no_grad_body("probe = model(x)", "return probe"),
    "printed": no_grad_body("probe = model(x)", "print(probe)"),
    "formatted": no_grad_body("probe = model(x)", "text = '%f' % probe"),
    "numpy": no_grad_body("probe = model(x)", "a = probe.numpy()"),
    "cpu numpy": no_grad_body("probe = model(x)", "a = probe.cpu().numpy()"),
    "flag read": no_grad_body("probe = model(x)", "flag = probe.requires_grad"),
    "in place": no_grad_body("probe = model(x)", "probe.add_(1)"),
    "element written": no_grad_body("probe = model(x)", "probe[0] = 1"),
    "stored": no_grad_body("probe = model(x)", "kept.append(probe)"),
    "bound to another name": no_grad_body("probe = model(x)", "other = probe", "return other.sum()"),
    "a view bound": no_grad_body("probe = model(x)", "row = probe[0]"),
    "passed to a call": no_grad_body("probe = model(x)", "show(probe)"),
    "saved": no_grad_body("probe = model(x)", "torch.save(probe, 'f.pt')"),
    "grad back on": no_grad_body("probe = model(x)", "with torch.enable_grad():", "    s = probe * 2"),
    "compared by identity": no_grad_body("probe = model(x)", "same = probe is x"),
    "backward": no_grad_body("probe = model(x)", "probe.backward(y)"),
    "closure": no_grad_body("probe = model(x)", "g = lambda: probe.sum()"),
    "read earlier in a loop": "def f(model, xs):\n    for x in xs:\n        with torch.no_grad():\n            print(probe.sum())\n            probe = model(x)\n",
}


@pytest.mark.parametrize("source", BY_VALUE.values(), ids=BY_VALUE)
def test_read_only_by_value_without_grad(source):
    assert read_by_value(source)


@pytest.mark.parametrize("source", NOT_BY_VALUE.values(), ids=NOT_BY_VALUE)
def test_not_read_only_by_value_without_grad(source):
    assert not read_by_value(source)


def settled(source: str) -> bool:
    """Whether `v = hand(buf)` in the loop may bind `buf` itself."""
    text = "import torch\n" + textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    found = None
    for node in descendants(module):
        if found is None and isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "hand":
            found = node
    assert found is not None
    functions = [f for f in descendants(module) if isinstance(f, cst.FunctionDef) and any(n is found for n in descendants(f))]
    return context.identity.identity_settled_before_binding(found, "buf", "v", functions[-1] if functions else module)


SCRIPT_LOOP = "buf = torch.zeros(4, 3)\n{functions}for x in loader:\n    buf.resize_as_(x).copy_(x)\n    v = hand(buf)\n    net(v)\n"


def buffer_loop(*lines: str, after: str = "") -> str:
    body = "".join(f"        {line}\n" for line in lines)
    return f"def f(net, loader):\n    buf = torch.zeros(4, 3)\n    for x in loader:\n{body}{after}"


SETTLED = {
    "resize and copy": buffer_loop("buf.resize_as_(x).copy_(x)", "v = hand(buf)", "net(v)"),
    "resize and fill": buffer_loop("buf.resize_(x.size(0)).fill_(1)", "v = hand(buf)", "net(v)", "v = hand(buf.fill_(0))", "net(v)"),
    "no resize": buffer_loop("buf.copy_(x)", "v = hand(buf)", "net(v)"),
    "a script's loop": SCRIPT_LOOP.format(functions=""),
}
NOT_SETTLED = {
    "resize without a write": buffer_loop("buf.resize_as_(x)", "v = hand(buf)", "net(v)"),
    "resize after the binding": buffer_loop("buf.resize_as_(x).copy_(x)", "v = hand(buf)", "buf.resize_(1).fill_(0)", "net(v)"),
    "alias read before its binding": buffer_loop("net(v)", "buf.resize_as_(x).copy_(x)", "v = hand(buf)"),
    "alias read by its first binding": buffer_loop("buf.resize_as_(x).copy_(x)", "v = hand(buf.add_(v))", "net(v)"),
    "alias read after the loop": buffer_loop("buf.resize_as_(x).copy_(x)", "v = hand(buf)", after="    return v\n"),
    "resize outside the loop": buffer_loop("v = hand(buf)", "net(v)", after="    buf.resize_(1).fill_(0)\n"),
    "flag on the buffer": buffer_loop("buf.requires_grad_()", "v = hand(buf)", "net(v)"),
    "flag on the alias": buffer_loop("buf.copy_(x)", "v = hand(buf)", "v.requires_grad_()"),
    "alias stored": buffer_loop("buf.resize_as_(x).copy_(x)", "v = hand(buf)", "kept.append(v)"),
    "first binding in a branch": buffer_loop("buf.resize_as_(x).copy_(x)", "if x:", "    v = hand(buf)", "net(v)"),
    "another name for the buffer": buffer_loop("b = buf", "b.resize_as_(x).copy_(x)", "v = hand(buf)", "net(v)"),
    "a script's buffer a function resizes": SCRIPT_LOOP.format(functions="def grow():\n    buf.resize_(8)\n"),
    "a script's alias a function reads": SCRIPT_LOOP.format(functions="def show():\n    return v.shape\n"),
}


@pytest.mark.parametrize("source", SETTLED.values(), ids=SETTLED)
def test_identity_settled_before_binding(source):
    assert settled(source)


@pytest.mark.parametrize("source", NOT_SETTLED.values(), ids=NOT_SETTLED)
def test_identity_not_settled_before_binding(source):
    assert not settled(source)


def sole_attribute(source: str) -> bool:
    """Whether `self.a = Variable(self.a)` rebinds an attribute holding an object nothing else references."""
    text = "import torch\nfrom torch.autograd import Variable\n" + textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    calls = [n for n in descendants(module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "Variable"]
    assert len(calls) == 1
    method = next(f for f in descendants(module) if isinstance(f, cst.FunctionDef) and any(n is calls[0] for n in descendants(f)))
    return context.identity.rebinds_sole_attribute(calls[0], method)


def init(*lines: str) -> str:
    body = "".join(f"        {line}\n" for line in lines)
    return f"class RN(nn.Module):\n    def __init__(self, args):\n        super().__init__()\n{body}"


SOLE = {
    "constructed, moved, rewrapped": init(
        "self.a = torch.FloatTensor(args.n, 2)",
        "if args.cuda:",
        "    self.a = self.a.cuda()",
        "self.fc = nn.Linear(2, 2)",
        "self.a = Variable(self.a)",
    ),
    "a factory": init("self.a = torch.zeros(3)", "self.a = Variable(self.a)", "self.a.data.fill_(1)"),
}
NOT_SOLE = {
    "a parameter": init("self.a = nn.Parameter(torch.zeros(3))", "self.a = Variable(self.a)"),
    "an argument": init("self.a = args.buffer", "self.a = Variable(self.a)"),
    "read between": init("self.a = torch.zeros(3)", "self.b = self.a", "self.a = Variable(self.a)"),
    "a method called between": init("self.a = torch.zeros(3)", "self.setup()", "self.a = Variable(self.a)"),
    "self handed over between": init("self.a = torch.zeros(3)", "register(self)", "self.a = Variable(self.a)"),
    "no write before": init("self.a = Variable(self.a)"),
    "in a loop": init("for i in range(2):", "    self.a = torch.zeros(3)", "    self.a = Variable(self.a)"),
    "another attribute": init("self.a = torch.zeros(3)", "self.b = torch.zeros(3)", "self.b = Variable(self.a)"),
    "a nested function using self": init("self.a = torch.zeros(3)", "def peek():", "    return self.a", "self.a = Variable(self.a)"),
}


@pytest.mark.parametrize("source", SOLE.values(), ids=SOLE)
def test_an_attribute_holding_the_only_reference(source):
    assert sole_attribute(source)


@pytest.mark.parametrize("source", NOT_SOLE.values(), ids=NOT_SOLE)
def test_an_attribute_whose_object_may_be_reached_otherwise(source):
    assert not sole_attribute(source)
