"""The shared history fact: which values provably carry no autograd history."""

from __future__ import annotations


import libcst as cst
import pytest

from gradlint.analysis.tree import descendants
from gradlint.analysis.history import HistoryEvidence
from gradlint.context import FileContext
from support import last_value


ARGPARSE = (
    "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--batchSize', type=int, default=64)\n"
    "parser.add_argument('--lr', type=float, default=0.1)\nparser.add_argument('--size', default=3)\nopt = parser.parse_args()\n"
)
# A script's probe is read at module level: a function after it tells `last_value` so.
SCRIPT_END = "def end():\n    pass\n"
SAMPLERS = (
    "def gaussian(mu):\n    return lambda n: torch.Tensor(np.random.normal(mu, 1.0, (1, n)))\n"
    "def uniform():\n    return lambda m, n: torch.rand(m, n)\n"
)


FREE = {
    "factory": "def f():\n    probe = torch.randn(3).cuda().view(-1)\n",
    "constructor": "def f():\n    probe = torch.FloatTensor([1.0, 2.0])\n",
    "numpy": "def f(a):\n    x = torch.from_numpy(np.asarray(a))\n    probe = x * 2 + 1\n",
    "loader batch": "def f(train_loader):\n    for i, (x, y) in enumerate(train_loader):\n        probe = x\n",
    "detach of anything": "def f(model, x):\n    probe = model(x).detach()\n",
    "batch function": "def f(source):\n    x, y = get_batch(source)\n    probe = x\n",
    "module constant": "MEAN = torch.zeros(2)\ndef f():\n    probe = MEAN + torch.randn(2)\n",
    "local function": "def make():\n    return torch.ones(2)\ndef f():\n    probe = make()\n",
    "self attribute": "class D:\n    def __init__(self):\n        self.p = torch.randn(2)\n    def f(self):\n        probe = self.p[0]\n",
    "integer tensor": "def f(x):\n    probe = x.long()\n",
    "rebound in a loop": "def f(loader):\n    for x in loader:\n        x = x.cuda()\n        probe = x\n",
    "torch function under no_grad": "def f(w, x):\n    with torch.no_grad():\n        probe = torch.matmul(w, x)\n",
    "operator under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = -(w * 2)\n",
    "method under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = w.sum(0)\n",
    "model output in a no_grad function": "@torch.no_grad()\ndef f(model, loader):\n    for x in loader:\n        probe = model(x)\n",
    "name bound under no_grad": "def f(model, loader):\n    for x in loader:\n        with torch.no_grad():\n            out = model(x)\n        probe = out\n",
    "in-place write under no_grad": "def f(h):\n    x = torch.zeros(2)\n    with torch.no_grad():\n        x.add_(h)\n        x[0] = h[0]\n    probe = x\n",
    "item write into an integer tensor": "def f(text, h):\n    t = torch.zeros(len(text)).long()\n    for c in range(3):\n        t[c] = h[c]\n    probe = t\n",
    "index function of a model output": "def f(model, x):\n    probe = torch.argmax(model(x), 1)\n",
    "comparison function of a model output": "def f(model, x):\n    probe = torch.isnan(model(x))\n",
    "plain builtins of a model output": "def f(model, x):\n    out = model(x)\n    probe = (float(out.sum()), len(out), str(out), isinstance(out, int))\n",
    "formatted string": "def f(model, x):\n    probe = f'{model(x)}'\n",
    "metadata of a tensor with history": "def f(model, x):\n    out = model(x)\n    probe = (out.dtype, out.device, out.shape, out.requires_grad)\n",
    "legacy constructor of an int option": ARGPARSE + "def f():\n    probe = torch.FloatTensor(opt.batchSize)\n",
    "int option filled in place": ARGPARSE + "label = torch.FloatTensor(opt.batchSize)\nlabel.fill_(1)\nprobe = label\n" + SCRIPT_END,
    "sampler returned by a function": SAMPLERS + "sample = gaussian(0.5)\nfor i in range(3):\n    probe = sample(4)\n" + SCRIPT_END,
    "sampler of a global read in a function": SAMPLERS + "sample = uniform()\ndef f():\n    probe = sample(3, 2)\n",
    "list of history-free values": "def f(loader):\n    outs = []\n    for x in loader:\n        outs.append(x * 2)\n    probe = torch.cat(outs)\n",
    "the binding a read sees": (
        "def f(words, table):\n    ids = []\n    for w in words:\n        ids.append(table[w])\n"
        "    ids = torch.LongTensor(ids)\n    ids = ids.unsqueeze(0)\n    probe = ids\n"
    ),
    "lambda bound to a name": "scale = lambda n: torch.zeros(n) * 2\ndef f():\n    probe = scale(3)\n",
    "value-free in-place changes": (
        "def f():\n    x = torch.zeros(2)\n    x.fill_(1.0)\n    x.zero_()\n    x.copy_(torch.ones(2))\n"
        "    x.resize_as_(torch.ones(3))\n    x[0] = 3\n    probe = x\n"
    ),
}
NOT_FREE = {
    "parameter": "def f(x):\n    probe = x\n",
    "model output": "def f(model, x):\n    probe = model(x)\n",
    "one binding with history": "def f(loader, model):\n    for x in loader:\n        x = model(x)\n        probe = x\n",
    "flag set later": "def f():\n    x = torch.zeros(2)\n    x.requires_grad_()\n    probe = x\n",
    "in-place write with history": "def f(h):\n    x = torch.zeros(2)\n    x.add_(h)\n    probe = x\n",
    "write through a view": "def f(h):\n    x = torch.zeros(4)\n    v = x.view(2, 2)\n    v.copy_(h)\n    probe = x\n",
    "factory asking for grad": "def f():\n    probe = torch.ones(2, requires_grad=True)\n",
    "alias of a tensor with history": "def f(h):\n    probe = torch.Tensor(h)\n",
    "a global statement": "def f():\n    global x\n    probe = x\n",
    "parameter read under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = w\n",
    "module weight read under no_grad": "def f(model):\n    with torch.no_grad():\n        probe = model.weight\n",
    "view of a parameter under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = w.view(-1)\n",
    "row of a parameter under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = w[0]\n",
    "split of a parameter under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = torch.split(w, 1)\n",
    "conversion under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = w.float()\n",
    "in-place under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = w.mul_(2)\n",
    "dropout under no_grad": "def f(w):\n    with torch.no_grad():\n        probe = torch.nn.functional.dropout(w, training=False)\n",
    "submodule of a parameter under no_grad": "def f(self, w):\n    with torch.no_grad():\n        probe = self.identity(w)\n",
    "model of a parameter under no_grad": "def f(model, w):\n    with torch.no_grad():\n        probe = model(w)\n",
    "bound before the block": "def f(model, x):\n    out = model(x)\n    with torch.no_grad():\n        probe = out\n",
    "enable_grad inside no_grad": "def f(w):\n    with torch.no_grad():\n        with torch.enable_grad():\n            probe = w * 2\n",
    "nested function under no_grad": "def f(w):\n    with torch.no_grad():\n        def g():\n            probe = w * 2\n",
    "write with history after the block": (
        "def f(h):\n    x = torch.zeros(2)\n    with torch.no_grad():\n        x.add_(h)\n    x.add_(h)\n    probe = x\n"
    ),
    "index function asking for grad": "def f():\n    probe = torch.arange(3.0, requires_grad=True)\n",
    "absolute value of a parameter": "def f(w):\n    probe = abs(w)\n",
    "a rebound builtin": "def f(model, x):\n    float = model\n    probe = float(x)\n",
    "metadata of an object not evidently a tensor": "def f(model):\n    probe = model.dtype\n",
    "the graph of a tensor": "def f(model, x):\n    probe = model(x).grad_fn\n",
    "list a model output is appended to": "def f(model, xs):\n    outs = []\n    for x in xs:\n        outs.append(model(x))\n    probe = torch.cat(outs)\n",
    "list extended with model outputs": "def f(model, x):\n    outs = [x.detach()]\n    outs.extend([model(x)])\n    probe = outs\n",
    "a list read before it is converted": (
        "def f(model, xs):\n    outs = []\n    for x in xs:\n        outs.append(model(x))\n    probe = torch.cat(outs)\n"
        "    outs = torch.zeros(2)\n"
    ),
    "the binding a read sees in a loop": (
        "def f(model, xs):\n    h = torch.zeros(2)\n    for x in xs:\n        probe = h\n        h = model(x)\n"
    ),
    "legacy constructor of a float option": ARGPARSE + "def f():\n    probe = torch.FloatTensor(opt.lr)\n",
    "legacy constructor of an option without type": ARGPARSE + "def f():\n    probe = torch.FloatTensor(opt.size)\n",
    "legacy constructor of an option of another namespace": ARGPARSE + "def f(opt):\n    probe = torch.FloatTensor(opt.batchSize)\n",
    "lambda returning a model output": "def wrap(model):\n    return lambda x: model(x)\nrun = wrap(net)\nprobe = run(torch.zeros(2))\n"
    + SCRIPT_END,
    "lambda given a parameter": SAMPLERS + "def f(h):\n    same = lambda x: x\n    probe = same(h)\n",
    "sampler rebound to something else": SAMPLERS + "sample = gaussian(0.5)\nsample = net\nprobe = sample(4)\n" + SCRIPT_END,
    "decorated sampler factory": "@cache\ndef make():\n    return lambda n: torch.zeros(n)\nsample = make()\nprobe = sample(4)\n"
    + SCRIPT_END,
    "integer tensor rebound to a float one": (
        "def f(h):\n    t = torch.zeros(3).long()\n    t = torch.zeros(3)\n    t[0] = h[0]\n    probe = t\n"
    ),
}


@pytest.mark.parametrize("source", FREE.values(), ids=FREE.keys())
def test_history_free(source):
    context, value, scope = last_value("import torch\nimport numpy as np\n" + source)
    assert context.history.is_history_free(value, scope)


@pytest.mark.parametrize("source", NOT_FREE.values(), ids=NOT_FREE.keys())
def test_may_carry_history(source):
    context, value, scope = last_value("import torch\nimport numpy as np\n" + source)
    assert not context.history.is_history_free(value, scope)


@pytest.mark.parametrize("change", ["x.data.t_()", "x.data.resize_(h.size()).copy_(h)", "x.data.requires_grad_()"])
def test_what_is_done_to_data_leaves_the_tensor_without_history(change):
    """`x.data` is another tensor object since PyTorch 0.4: changing it, even with values that
    carry history, gives `x` none."""
    context, value, scope = last_value(f"import torch\ndef f(h):\n    x = torch.zeros(2, 3)\n    {change}\n    probe = x\n")
    assert context.history.is_history_free(value, scope)
    if change != "x.data.t_()":  # on `x` itself: a flag, or a write of values that may carry history
        context, value, scope = last_value(
            f"import torch\ndef f(h):\n    x = torch.zeros(2, 3)\n    {change.replace('.data', '')}\n    probe = x\n"
        )
        assert not context.history.is_history_free(value, scope)


FREE_IN_LOOP = {
    "another loop reuses the name": ("for step, (x, y) in enumerate(train_loader):\n    probe = x\nfor x, y in zip(X, Y):\n    print(x)\n"),
    "a nested function's own x": (
        "class Net:\n    def forward(self, x):\n        x = self.conv(x)\n        return x\nfor x, y in train_loader:\n    probe = x\n"
    ),
    "max indices": "def f(model, x):\n    probe = torch.max(model(x), 1)[1]\n",
    "method max indices": "def f(model, x):\n    probe = model(x).max(dim=1)[1]\n",
    "constructor of a list": "def f(r):\n    probe = torch.Tensor([r])\n",
    "argmax": "def f(model, x):\n    probe = model(x).argmax(1)\n",
    "legacy constructor of sizes": "probe = torch.FloatTensor(opt.batchSize, 3, opt.imageSize, opt.imageSize)\n",
    "powers in a list comprehension": "def f():\n    x = torch.randn(3, 1)\n    probe = torch.cat([x ** i for i in range(1, 4)], 1)\n",
    "generator of a history-free tensor": "def f():\n    x = torch.randn(3)\n    probe = torch.stack(x * i for i in range(3))\n",
    "global buffer filled in a function from numpy": (
        "buf = torch.FloatTensor(4, 3)\ndef fill(data):\n    img = torch.from_numpy(data)\n    buf.resize_(img.size()).copy_(img)\n"
        "probe = buf\n"
    ),
}
NOT_FREE_IN_LOOP = {
    "rebound in the loop body": "def f(loader, model):\n    for x in loader:\n        x = model(x)\n        probe = x\n",
    "element-wise max": "def f(a, b):\n    probe = torch.max(a, b)[1]\n",
    "max without a dimension": "def f(a):\n    probe = a.max()[1]\n",
    "flag set in the loop": "def f(loader):\n    for x in loader:\n        x.requires_grad_()\n        probe = x\n",
    "legacy constructor of one unknown value": "probe = torch.FloatTensor(opt.batchSize)\n",
    "legacy constructor with a keyword": "def f(h):\n    probe = torch.FloatTensor(h, device=d)\n",
    "comprehension of model outputs": "def f(model, x):\n    probe = torch.cat([model(x) for i in range(3)])\n",
    "comprehension over a model output": "def f(model, x):\n    probe = [h * 2 for h in model(x)]\n",
    "comprehension variable shadowing a local": "def f(model):\n    i = model(1)\n    probe = [i for i in range(3)]\n",
    "comprehension of a parameter": "def f(x):\n    probe = torch.cat([x ** i for i in range(1, 4)], 1)\n",
    "global buffer filled in a function with history": (
        "buf = torch.FloatTensor(4, 3)\ndef fill(model, data):\n    out = model(data)\n    buf.resize_(out.size()).copy_(out)\n"
        "probe = buf\n"
    ),
}


def probe_value(source: str) -> tuple[FileContext, cst.BaseExpression, cst.CSTNode]:
    """The context, the value of `probe = ...` and its scope (a function or the module)."""
    text = "import torch\n" + source
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    functions = [node for node in descendants(module) if isinstance(node, cst.FunctionDef)]
    for node in descendants(module):
        if isinstance(node, cst.Assign) and isinstance(node.targets[0].target, cst.Name) and node.targets[0].target.value == "probe":
            around = [f for f in functions if any(n is node for n in descendants(f))]
            return context, node.value, around[-1] if around else module
    raise AssertionError("no probe")


@pytest.mark.parametrize("source", FREE_IN_LOOP.values(), ids=FREE_IN_LOOP.keys())
def test_history_free_where_read(source):
    context, value, scope = probe_value(source)
    assert context.history.is_history_free(value, scope)


@pytest.mark.parametrize("source", NOT_FREE_IN_LOOP.values(), ids=NOT_FREE_IN_LOOP.keys())
def test_may_carry_history_where_read(source):
    context, value, scope = probe_value(source)
    assert not context.history.is_history_free(value, scope)


WORD_MODEL = """
import torch

class Corpus:
    def __init__(self, lines):
        self.train = self.tokenize(lines)

    def tokenize(self, lines):
        ids = torch.LongTensor(len(lines))
        for position, line in enumerate(lines):
            ids[position] = len(line)
        return ids

def batchify(data, bsz):
    data = data.narrow(0, 0, data.size(0) // bsz * bsz)
    return data.view(bsz, -1).t().contiguous()

def get_batch(source, i):
    probe = source[i + 1:i + 3].view(-1)
    return probe

def evaluate(model, data_source):
    for i in range(0, data_source.size(0) - 1, 2):
        target = get_batch(data_source, i)

def main(lines):
    corpus = Corpus(lines)
    train_data = batchify(corpus.train, 4)
    get_batch(train_data, 0)
    evaluate(None, batchify(corpus.train, 2))
"""


def parameter_free(source: str, used_elsewhere=frozenset()) -> bool:
    """Whether `probe` in `get_batch` is history-free, its parameter followed into the callers."""
    module = cst.parse_module(source)
    context = FileContext("probe.py", source, module)
    history = HistoryEvidence(context.module, context.imports, context.scopes, context.tensors, context.function_table, used_elsewhere)
    function = context.function_table.module_level["get_batch"]
    value = next(n.value for n in descendants(function) if isinstance(n, cst.Assign) and n.targets[0].target.value == "probe")
    return history.is_history_free(value, function)


def test_a_parameter_every_caller_passes_without_history():
    assert parameter_free(WORD_MODEL)


PARAMETER_CASES = {
    "a caller passes history": ("get_batch(train_data, 0)", "get_batch(model(train_data), 0)"),
    "a caller's caller passes history": ("evaluate(None, batchify(corpus.train, 2))", "evaluate(None, model(lines))"),
    "handed over as a value": ("get_batch(train_data, 0)", "run(get_batch)"),
    "called with *args": ("get_batch(train_data, 0)", "get_batch(*pair)"),
    "an attribute written with history": (
        "train_data = batchify(corpus.train, 4)",
        "corpus.train.copy_(h)\n    train_data = batchify(corpus.train, 4)",
    ),
    "the object handed over": ("corpus = Corpus(lines)", "corpus = Corpus(lines)\n    prepare(corpus)"),
    "a method writing history": (
        "self.train = self.tokenize(lines)",
        "self.train = self.tokenize(lines)\n\n    def load(self, h):\n        self.train = h",
    ),
    "decorated": ("def get_batch(", "@cache\ndef get_batch("),
    "redefined": ("def main(lines):", "get_batch = other\n\ndef main(lines):"),
}


@pytest.mark.parametrize("old, new", PARAMETER_CASES.values(), ids=PARAMETER_CASES)
def test_a_parameter_whose_callers_are_not_all_known_free(old, new):
    assert old in WORD_MODEL
    assert not parameter_free(WORD_MODEL.replace(old, new, 1))


def test_a_function_other_files_import_or_an_unknown_run_keeps_its_parameters_unknown():
    assert not parameter_free(WORD_MODEL, frozenset({"get_batch"}))
    assert not parameter_free(WORD_MODEL, None)
    assert parameter_free(WORD_MODEL, frozenset({"Corpus"}))
