"""The static rank of tensor expressions (analysis/shapes.py), used to write softmax's legacy dim."""

import textwrap
from typing import Optional

import libcst as cst
import libcst.matchers as m
import pytest

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.shapes import legacy_softmax_dim, static_rank
from gradlint.analysis.scopes import ScopeTable


def rank_of_last_argument(source: str):
    """The rank of the first argument of the last `use(...)` call in `source`, in its function."""
    module = cst.parse_module(source)
    functions = m.findall(module, m.FunctionDef())
    scope = functions[-1] if functions else module
    call = m.findall(scope, m.Call(func=m.Name("use")))[-1]
    return static_rank(call.args[0].value, ImportMap.build(module), ScopeTable(), scope)


@pytest.mark.parametrize(
    "expression, rank",
    [
        ("torch.randn(4, 5)", 2),
        ("torch.zeros((2, 3, 4))", 3),
        ("torch.ones([7])", 1),
        ("torch.rand(())", 0),
        ("torch.empty(3, requires_grad=True)", 1),
        ("torch.tensor([[1.0, 2.0], [3.0, 4.0]])", 2),
        ("torch.tensor(-2.5)", 0),
        ("torch.randn(n)", None),  # an int or a tuple of sizes
        ("torch.randn(*shape)", None),
        ("torch.tensor([[1.0], 2.0])", None),
        ("torch.randn(size=(2, 3))", None),
        ("np.zeros((2, 3))", None),
    ],
)
def test_rank_of_expressions(expression, rank):
    assert rank_of_last_argument(f"import torch\nimport numpy as np\nuse({expression})\n") == rank


def test_a_name_bound_once_has_the_rank_of_its_value():
    source = "import torch\ndef f():\n    x = torch.randn(2, 3, 4)\n    use(x)\n"
    assert rank_of_last_argument(source) == 3


@pytest.mark.parametrize(
    "body",
    [
        "x = torch.randn(2, 3)\n    x = x.sum(0)",  # rebound to something else
        "x = torch.randn(2, 3)\n    x.unsqueeze_(0)",  # reshaped in place
        "x = torch.randn(2, 3)\n    x.data = torch.randn(4)",
        "for x in batches:\n        pass",
    ],
)
def test_a_name_whose_rank_may_change_is_unknown(body):
    source = f"import torch\ndef f(batches):\n    {body}\n    use(x)\n"
    assert rank_of_last_argument(source) is None


def test_a_parameter_is_unknown():
    assert rank_of_last_argument("import torch\ndef f(x):\n    use(x)\n") is None


def test_legacy_softmax_dim():
    assert [legacy_softmax_dim(rank) for rank in range(6)] == [0, 0, 1, 0, 1, 1]


def shape_of_probe(body: str):
    """The shape the value model gives the last `probe = ...` of `body`, written in a function."""
    from tests.support import last_value

    source = "import torch\nimport torch.nn as nn\nfrom torch.autograd import Variable\ndef f(a):\n" + textwrap.indent(body, "    ")
    context, node, scope = last_value(source)
    return context.values.shape(node, scope)


@pytest.mark.parametrize(
    "body, shape",
    [
        ("probe = a.view(-1, 1)", (None, 1)),
        ("probe = a.reshape((4, -1, 2))", (4, None, 2)),
        ("probe = a.view(4)", (4,)),
        ("probe = a.view(n)", None),  # an int or a whole shape
        ("probe = torch.randn(8).unsqueeze(1)", (8, 1)),
        ("probe = torch.randn(8, 2).unsqueeze(-1)", (8, 2, 1)),
        ("probe = Variable(torch.randn(8)).data.float().detach()", (8,)),
        ("probe = 2 * torch.randn(8) + 1", (8,)),
        ("probe = -torch.randn(8, 1).mul(3)", (8, 1)),
        ("probe = torch.randn(8, 1) - torch.randn(1, 5)", (8, 5)),
        ("probe = torch.randn(8, 1) * a", None),
        ("probe = torch.randn(8).mul(a)", None),  # a tensor argument may broadcast
        ("probe = torch.randn(3, 4).type()", None),  # the type's name
        ("model = nn.Linear(3, 1)\nprobe = model(torch.randn(8, 3))", (8, 1)),
        ("model = nn.Linear(3, out_features=2)\nprobe = model(torch.randn(5, 8, 3))", (5, 8, 2)),
        ("model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid())\nprobe = model(torch.rand(8, 2))", (8, 1)),
        ("model = nn.Sequential(nn.Linear(2, 4), nn.Flatten())\nprobe = model(torch.rand(8, 2))", None),
        ("model = nn.Linear(3, 1)\nprobe = model(a)", None),
        ("model = nn.Conv2d(3, 1, 3)\nprobe = model(torch.rand(8, 3, 5, 5))", None),
    ],
)
def test_shapes_derived_from_operands_and_modules(body, shape):
    assert shape_of_probe(body) == shape


def test_legacy_constructors_give_a_shape_for_a_list_only():
    assert shape_of_probe("probe = torch.FloatTensor([0, 1, 1])") == (3,)
    assert shape_of_probe("probe = torch.FloatTensor(3)") is None


def test_a_module_class_of_the_file_passes_its_layers_shapes_through_forward():
    classes = (
        "import torch\nfrom torch import nn\n"
        "class Gen(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.gen = nn.Sequential(nn.Linear(100, 784), nn.Tanh())\n"
        "    def forward(self, x):\n        x = self.gen(x)\n        return x\n"
        "class Dis(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(784, 1)\n"
        "    def forward(self, x):\n        if x.dim() > 2:\n            x = x.flatten(1)\n        return self.fc(x)\n"
        "def f(n):\n"
        "    G = Gen()\n    G = G.cuda()\n    D = Dis()\n"
        "    hidden = G(torch.randn(n.size(0), 100))\n"
        "    probe = D(hidden)\n"
    )
    from tests.support import last_value

    context, node, scope = last_value(classes)
    assert context.values.shape(node, scope) is None  # Dis.forward branches: not followed
    context, node, scope = last_value(classes.replace("D(hidden)", "hidden"))
    assert context.values.shape(node, scope) == (None, 784)


@pytest.mark.parametrize(
    "body, shape",
    [
        ("n = a.size(0)\nprobe = torch.ones(n)", (None,)),
        ("probe = torch.zeros(len(a))", (None,)),
        ("probe = torch.zeros(a.shape[0])", (None,)),
        ("n = a.size()\nprobe = torch.ones(n)", None),  # a whole shape
    ],
)
def test_a_single_size_known_to_be_an_int_gives_one_dimension(body, shape):
    assert shape_of_probe(body) == shape


def test_a_module_method_named_like_a_tensor_method_gives_no_shape():
    source = (
        "import torch\nfrom torch import nn\n"
        "class RPN(nn.Module):\n"
        "    def reshape(self, x, d):\n        return x.view(x.size(0), int(d), -1, x.size(3))\n"
        "    def forward(self, base):\n        probe = self.reshape(base, 2)\n"
    )
    from tests.support import last_value

    context, node, scope = last_value(source)
    assert context.values.shape(node, scope) is None


@pytest.mark.parametrize(
    "body, shape",
    [
        ("probe = a.view(-1).float().sum(0)", ()),
        ("probe = torch.randn(8, 3).mean(-1)", (8,)),
        ("probe = torch.randn(8, 3).argmax(0)", (3,)),
        ("probe = torch.randn(8, 3).sum(2)", None),  # torch raises: no such dim
        ("probe = a.view(-1).sum(0, keepdim=True)", None),
        ("probe = a.view(-1).sum(d)", None),
        ("probe = torch.randn(8, 3).max(0)", None),  # (values, indices)
    ],
)
def test_a_reduction_over_one_literal_dim_drops_it(body, shape):
    assert shape_of_probe(body) == shape


def resized(body: str) -> Optional[int]:
    return rank_of_last_argument(f"import torch\ndef f(y, n, shape, g):\n    bs = y.size(0)\n    {body}\n")


@pytest.mark.parametrize(
    "body, rank",
    [
        # resized in place before the read, in the same block or one around it
        ("x = torch.FloatTensor(n)\n    x.data.resize_(bs)\n    x.data.fill_(1)\n    use(x)", 1),
        ("x = g()\n    for i in range(3):\n        x.resize_(bs, 3)\n        if i:\n            use(x)", 2),
        ("x = torch.randn(2, 3)\n    x.resize_(6)\n    print(x.shape)\n    use(x)", 1),
        # the read comes first, or the resize does not always run before it
        ("x = torch.FloatTensor(n)\n    use(x)\n    x.data.resize_(bs)", None),
        ("x = torch.FloatTensor(n)\n    for i in range(3):\n        use(x)\n        x.data.resize_(bs)", None),
        ("x = torch.FloatTensor(n)\n    if n:\n        x.data.resize_(bs)\n    use(x)", None),
        ("x = torch.FloatTensor(n)\n    x.resize_(bs)\n    for i in range(3):\n        use(x)", None),
        # something between may change it, or the sizes are not Python ints
        ("x = torch.FloatTensor(n)\n    x.data.resize_(bs)\n    g(x)\n    use(x)", None),
        ("x = torch.FloatTensor(n)\n    x.data.resize_(bs)\n    x.data.t_()\n    use(x)", None),
        ("x = torch.FloatTensor(n)\n    z = x\n    x.data.resize_(bs)\n    z.unsqueeze_(0)\n    use(x)", None),
        ("x = torch.FloatTensor(n)\n    x.data.resize_(shape)\n    use(x)", None),
        ("x = torch.FloatTensor(n)\n    x.data.resize_(*shape)\n    use(x)", None),
    ],
)
def test_a_name_resized_in_place_before_the_read_has_one_dimension_per_size(body, rank):
    assert resized(body) == rank


def test_resizing_through_data_counts_as_reshaping_the_name():
    source = "import torch\ndef f(n):\n    x = torch.randn(2, 3)\n    x.data.unsqueeze_(0)\n    use(x)\n"
    assert rank_of_last_argument(source) is None


@pytest.mark.parametrize(
    "body, shape",
    [
        ("x = a.view(-1, 4)\nx = torch.relu(x)\nx = nn.functional.dropout(x, training=True)\nprobe = x", (None, 4)),
        ("x = a.view(-1, 4)\nx = x.unsqueeze(0)\nprobe = x + 1", (1, None, 4)),
        ("x = a.view(-1, 4)\nfor _ in range(2):\n    x = x.unsqueeze(0)\nprobe = x", None),  # a loop may repeat
        ("x = a.view(-1, 4)\nif a.dim() > 3:\n    x = x.unsqueeze(0)\nprobe = x", None),  # either binding
        ("x = a.view(-1, 4)\nx.unsqueeze_(0)\nprobe = x", None),  # reshaped in place
        ("x = a.view(-1, 4)\nx, y = x.t(), a\nprobe = x", None),  # unpacked
        ("x = a\nprobe = x", None),
    ],
)
def test_a_name_rebound_statement_by_statement_has_the_shape_of_the_assignment_its_read_sees(body, shape):
    assert shape_of_probe(body) == shape


def test_a_linear_layer_bound_in_init_gives_the_shape_of_a_rebound_name_in_forward():
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.fc1 = nn.Linear(320, 50)\n        self.fc2 = nn.Linear(50, 10)\n"
        "    def forward(self, x):\n"
        "        x = F.relu(F.max_pool2d(x, 2))\n        x = x.view(-1, 320)\n        x = F.relu(self.fc1(x))\n"
        "        x = F.dropout(x, training=self.training)\n        x = self.fc2(x)\n        probe = x\n"
    )
    from tests.support import last_value

    context, node, scope = last_value(source)
    assert context.values.shape(node, scope) == (None, 10)
    context, node, scope = last_value(source.replace("x = x.view(-1, 320)", "x = x"))
    assert context.values.shape(node, scope) is None  # the input's rank is not in the code


def shape_in_module(source: str):
    """The shape the value model gives the last module-level `probe = ...` of `source`."""
    from gradlint.context import FileContext

    text = "import numpy as np\nimport torch\nimport torch.nn as nn\n" + textwrap.dedent(source)
    module = cst.parse_module(text)
    context = FileContext("probe.py", text, module)
    probes = [
        small.value
        for line in module.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
        if m.matches(small, m.Assign(targets=[m.AssignTarget(m.Name("probe"))]))
    ]
    return context.values.shape(probes[-1], module)


@pytest.mark.parametrize(
    "body, shape",
    [
        ("probe = torch.Tensor(np.random.normal(4, 1.25, (1, n)))", (1, None)),
        ("probe = torch.tensor(np.random.uniform(0, 1, size=(3, 2)))", (3, 2)),
        ("probe = torch.Tensor(np.random.normal(4, 1.25, 5))", (5,)),
        ("probe = torch.Tensor(np.random.normal(4, 1.25, size))", None),  # an int or a whole shape
        ("probe = torch.Tensor(np.zeros((1, 5)))", None),
        ("probe = torch.Tensor(n)", None),  # a size, not data
        ("probe = torch.cat([torch.randn(1, 3), torch.randn(1, 4)], 1)", (1, 7)),
        ("probe = torch.cat([torch.randn(2, 3), a], dim=-1)", (2, None)),
        ("probe = torch.cat((torch.randn(2, 3), torch.randn(5, 3)))", (7, 3)),
        ("probe = torch.cat([torch.randn(3), a])", None),  # a 1-D part may be an empty tensor cat skips
        ("probe = torch.cat([a, torch.randn(2, 3)], 1)", None),
        ("probe = torch.cat([torch.randn(2, 3), a], d)", None),
        ("probe = torch.randn(2, 3).t()", (3, 2)),
        ("probe = torch.randn(3).t()", (3,)),
        ("probe = torch.randn(1, 2, 3).t()", None),  # torch raises
    ],
)
def test_numpy_draws_concatenation_and_transpose(body, shape):
    assert shape_in_module(body) == shape


def test_a_call_of_a_lambda_or_a_function_of_the_file_has_the_shape_it_returns():
    source = """
    def decorate(data, exponent):
        diffs = torch.pow(data - data.mean(), exponent)
        return torch.cat([data, diffs], 1)
    def sampler(mu, sigma):
        return lambda n: torch.Tensor(np.random.normal(mu, sigma, (1, n)))
    (name, preprocess, other) = ("diffs", lambda data: decorate(data, 2.0), lambda x: x * 2)
    d_sampler = sampler(4, 1.25)
    real = d_sampler(100)
    probe = preprocess(real)
    """
    assert shape_in_module(source) == (1, None)
    assert shape_in_module(source.replace("probe = preprocess(real)", "probe = real.t()")) == (None, 1)


@pytest.mark.parametrize(
    "change",
    [
        ("d_sampler = sampler(4, 1.25)", "d_sampler = sampler(4, 1.25) if a else other"),  # either binding
        ("def sampler(mu, sigma):", "@cache\ndef sampler(mu, sigma):"),  # a decorator may return anything
        ("    return torch.cat([data, diffs], 1)", "    data.unsqueeze_(0)\n    return torch.cat([data, diffs], 1)"),
        ("    return torch.cat([data, diffs], 1)", "    if exponent:\n        data = data.t()\n    return torch.cat([data, diffs], 1)"),
        ("probe = preprocess(real)", "def preprocess(x):\n    return x\nprobe = preprocess(real)"),  # bound twice
        ("probe = preprocess(real)", "def f():\n    global preprocess\n    preprocess = len\nprobe = preprocess(real)"),
        ("probe = preprocess(real)", "probe = preprocess(real, 3)"),
    ],
)
def test_a_call_whose_function_may_be_another_or_may_reshape_has_no_shape(change):
    source = textwrap.dedent(
        """
        def decorate(data, exponent):
            diffs = torch.pow(data - data.mean(), exponent)
            return torch.cat([data, diffs], 1)
        def sampler(mu, sigma):
            return lambda n: torch.Tensor(np.random.normal(mu, sigma, (1, n)))
        (name, preprocess, other) = ("diffs", lambda data: decorate(data, 2.0), lambda x: x * 2)
        d_sampler = sampler(4, 1.25)
        real = d_sampler(100)
        probe = preprocess(real)
        """
    )
    assert shape_in_module(source) == (1, None)
    assert shape_in_module(source.replace(*change)) is None


def test_a_function_whose_parameter_shadows_a_function_of_the_file_calls_the_parameter():
    source = """
    def g(x):
        return torch.randn(2, 3)
    def f(g, x):
        return g(x)
    probe = f(len, torch.randn(4, 4))
    """
    assert shape_in_module(source) is None
