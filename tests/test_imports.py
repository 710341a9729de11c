"""Import resolution: every import form of torch.autograd.Variable, and the look-alikes."""

from __future__ import annotations

import libcst as cst
import pytest

from gradlint.analysis.imports import import_anchor
from gradlint.fix.apply import fix_text
from support import lint

VARIABLE_FORMS = [
    "from torch.autograd import Variable\nx = Variable(t)\n",
    "from torch.autograd import Variable as V\nx = V(t)\n",
    "import torch.autograd as ag\nx = ag.Variable(t)\n",
    "from torch import autograd\nx = autograd.Variable(t)\n",
    "import torch\nx = torch.autograd.variable.Variable(t)\n",
    "from torch.autograd.variable import Variable\nx = Variable(t)\n",
    "import torch\nx = torch.autograd.Variable(t)\n",
    "import torch as th\nx = th.autograd.Variable(t)\n",
    "from torch.autograd import *\nx = Variable(t)\n",
    "def f():\n    from torch.autograd import Variable\n    return Variable(t)\n",
    # aliases of the imported name
    "from torch import autograd\nV = autograd.Variable\nx = V(t)\n",
    "from torch.autograd import Variable\nV = Variable\nW = V\nx = W(t)\n",
    "import torch\ndef f(t):\n    V = torch.autograd.Variable\n    return V(t)\n",
]

LOOK_ALIKES = [
    "import tensorflow as tf\nx = tf.Variable(t)\n",
    "from tensorflow import Variable\nx = Variable(t)\n",
    "import sympy\nx = sympy.Variable(t)\n",
    "import cvxpy as cp\nx = cp.Variable(3)\n",
    "class Variable:\n    pass\nx = Variable(t)\n",
    "def Variable(t):\n    return t\nx = Variable(t)\n",
    "from torch.autograd import Variable\nVariable = make_variable\nx = Variable(t)\n",
    "x = Variable(t)\n",
    "from torch.autograd import *\nfrom sympy import *\nx = Variable(t)\n",
    "from .autograd import Variable\nx = Variable(t)\n",
    "import torch\nx = torch.Variable(t)\n",
    # aliases of something else, or of more than one thing
    "import tensorflow as tf\nV = tf.Variable\nx = V(t)\n",
    "from torch.autograd import Variable\nV = Variable\nV = make_variable\nx = V(t)\n",
    "from torch.autograd import Variable\nV = Variable\ndef V(t):\n    return t\nx = V(t)\n",
    "a = b\nb = a\nx = a(t)\n",
]


@pytest.mark.parametrize("source", VARIABLE_FORMS)
def test_every_import_form_is_resolved(source):
    assert [f.code for f in lint(source, "GL101")] == ["GL101"]


@pytest.mark.parametrize("source", LOOK_ALIKES)
def test_look_alikes_are_not_flagged(source):
    assert lint(source, "GL101") == []


@pytest.mark.parametrize(
    "source, expected",
    [
        # A new `import torch` joins the torch imports, after the standard library.
        ('"""Doc."""\nimport random\n\nimport torch.optim as optim\nfrom torch import nn\n\nx = 1\n', "import torch.optim as optim"),
        ("import os\nfrom torch.autograd import Variable\n", "from torch.autograd import Variable"),
        # No torch import among the leading imports: after the docstring and `__future__`.
        ('"""Doc."""\nfrom __future__ import annotations\nimport os\nx = 1\n', "import os"),
        ("import os\nx = 1\nimport torch.nn as nn\n", "import os"),
        ("import torchvision\nx = 1\n", "import torchvision"),
    ],
)
def test_a_new_torch_import_goes_next_to_the_torch_imports(source, expected):
    module = cst.parse_module(source)
    anchor = import_anchor(module, near="torch")
    assert module.code_for_node(anchor).strip() == expected


def test_the_clean_up_drops_every_name_of_one_import_the_fixes_left_unused():
    """Two names of one `from ... import` are dropped in one edit (two edits of the statement would
    conflict, and both names stayed)."""
    fixed = fix_text(
        "from torch.cuda.amp import GradScaler, autocast\ns = GradScaler()\nwith autocast():\n    pass\n",
        "example.py",
        frozenset({"GL509"}),
    )
    modern = 's = torch.amp.GradScaler("cuda")\nwith torch.amp.autocast("cuda", dtype=torch.float16, cache_enabled=True):\n'
    assert fixed.text == "import torch\n" + modern + "    pass\n"
    kept = fix_text(
        "from torch.cuda.amp import GradScaler, autocast, custom_fwd\ns = GradScaler()\nwith autocast():\n    f = custom_fwd\n",
        "example.py",
        frozenset({"GL509"}),
    )
    assert kept.text == "import torch\nfrom torch.cuda.amp import custom_fwd\n" + modern + "    f = custom_fwd\n"
