"""A safe fix never raises on a value that is not a tensor.

Every rule whose safe fix calls a tensor method (`.detach()`, `.item()`), or drops `.data` on the
assumption that its receiver is a tensor, is run on small look-alike programs: the receiver is a
Python number or another library's object, the program runs as written, and after gradlint's
fixes it must still run. Where the evidence of a tensor is only a name, or a file that never
imports torch, the fix is unsafe (offered, never applied by default); where the value is a Python
number, GL401 reports nothing at all. The intentionally safe cases run on real tensors.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
import torch

from gradlint.analysis.frameworks import imports_torch
from gradlint.analysis.imports import ImportMap
from gradlint.engine import lint_text
from gradlint.fix.apply import fix_text
from gradlint.fix.plan import Applicability
from gradlint.model.project import ProjectFacts
from support import lint

# A loss as a number: what a criterion gives in these programs, where nothing is a tensor.
NUMBER_TRAINING = """
class Loss(float):
    def backward(self):
        pass

    def item(self):
        return float(self)


class Optimizer:
    def step(self):
        pass


def criterion(out, y):
    return Loss((out - y) ** 2)


def model(x):
    return 2.0 * x


optimizer = Optimizer()
loader = [(1.0, 1.5), (2.0, 3.0), (3.0, 7.0)]
"""


def program(body: str, prelude: str = NUMBER_TRAINING) -> str:
    return textwrap.dedent(prelude) + textwrap.dedent(body)


# rule -> programs whose receivers are Python numbers or objects of other libraries.
LOOK_ALIKES = {
    "GL401": [
        # A helper returning a sum of `.item()`s, named like a loss and added to a float total.
        """
        def train_loss(model, batch):
            losses = [criterion(model(x), y) for x, y in batch]
            losses[-1].backward()
            optimizer.step()
            return sum(l.item() for l in losses)


        running = 0.0
        for batch in [loader, loader]:
            running += train_loss(model, batch)
        assert running > 0
        """,
        # A helper returning a float total; the caller names the returned float `loss`.
        """
        def epoch_loss(model, loader):
            total = 0.0
            for x, y in loader:
                loss = criterion(model(x), y)
                loss.backward()
                optimizer.step()
                total += float(loss)
            return total / len(loader)


        running_loss = 0.0
        for epoch in range(3):
            loss = epoch_loss(model, loader)
            running_loss += loss
        assert running_loss > 0
        """,
        # A method returning `float(...)`, appended to the trainer's history.
        """
        class Trainer:
            def __init__(self):
                self.model, self.criterion, self.optimizer, self.losses = model, criterion, optimizer, []

            def loss_fn(self, x, y):
                return float(self.criterion(self.model(x), y))

            def fit(self, loader):
                for x, y in loader:
                    self.criterion(self.model(x), y).backward()
                    self.optimizer.step()
                    self.losses.append(self.loss_fn(x, y))


        trainer = Trainer()
        trainer.fit(loader)
        assert len(trainer.losses) == 3
        """,
        # A file that never imports torch, accumulating what a criterion named so returns.
        """
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss
        assert total > 0
        """,
    ],
    "GL303": [
        # jinja2's code generator: a template node's `.data` is a string.
        """
        class TemplateData:
            def __init__(self, data):
                self.data = data


        def visit_output(nodes):
            body = []
            for output_node in nodes:
                if output_node.data.isspace():
                    continue
                body.append(output_node.data)
            return body


        assert visit_output([TemplateData("a"), TemplateData(" ")]) == ["a"]
        """,
        # A masked array's `.data` in torch code.
        """
        import numpy.ma as ma
        import torch


        def unmasked(values, mask):
            output = ma.masked_array(values, mask=mask)
            return output.data.tolist()


        assert unmasked([1.0, 2.0], [True, False]) == [1.0, 2.0]
        """,
        # torch Inductor's IR: a buffer's `.data` is the box it wraps, in a file that imports torch.
        """
        import torch


        class StorageBox:
            def __init__(self, data):
                self.data = data


        def boxed_device(output_buffer):
            assert isinstance(output_buffer.data, str)
            return output_buffer.data


        assert boxed_device(StorageBox("cpu")) == "cpu"
        """,
    ],
    "GL511": [
        # numpy code: a 3-D array's `.T` reverses its axes; an array has no `.permute`.
        """
        import numpy as np

        cube = np.arange(24).reshape(2, 3, 4).T
        assert cube.shape == (4, 3, 2)
        """,
        # The same array in torch code.
        """
        import numpy as np
        import torch

        cube = np.arange(24).reshape(2, 3, 4).T
        assert cube.shape == (4, 3, 2) and torch.from_numpy(cube.copy()).shape == (4, 3, 2)
        """,
    ],
    "GL301": [
        # A numpy masked array: `.data` is the array under the mask.
        """
        import numpy.ma


        def clear_masked(output):
            output.data[output.mask] = 0
            return output


        values = clear_masked(numpy.ma.masked_array([1.0, 2.0], mask=[True, False]))
        assert values.data.tolist() == [0.0, 2.0]
        """,
        # The same in torch code: the name is bound to numpy's masked array.
        """
        import numpy.ma as ma
        import torch


        def clear_masked(output, mask):
            output = ma.masked_array(output, mask=mask)
            output.data[output.mask] = 0
            return output.data.tolist()


        assert clear_masked([1.0, 2.0], [True, False]) == [0.0, 2.0]
        """,
    ],
    "GL505": [
        # sympy's quaternions in torch code: a parameter named like a tensor is still another object.
        """
        import torch


        class Quaternion:
            def __init__(self, w):
                self.w = w

            def add(self, scale, other):
                return Quaternion(self.w + scale * other.w)


        def combine(output, q):
            return output.add(2, q)


        assert combine(Quaternion(1), Quaternion(3)).w == 7
        """,
        # sympy's quaternions: `add(scale, other)` of another library.
        """
        class Quaternion:
            def __init__(self, w):
                self.w = w

            def add(self, scale, other):
                return Quaternion(self.w + scale * other.w)


        def combine(output, q):
            return output.add(2, q)


        assert combine(Quaternion(1), Quaternion(3)).w == 7
        """,
        # A matrix class of another library with a BLAS-style `addmm(beta, a, b)` of its own.
        """
        class Matrix:
            def __init__(self, value):
                self.value = value

            def addmm(self, beta, a, b):
                return Matrix(beta * self.value + a.value * b.value)


        def project(output, a, b):
            return output.addmm(0.5, a, b)


        assert project(Matrix(2), Matrix(3), Matrix(4)).value == 13
        """,
    ],
    "GL103": [
        # A result record whose `.data` is a list, named like a loss.
        """
        class Result:
            def __init__(self, data):
                self.data = data


        cost = Result([0.5, 0.25])
        assert cost.data[0] == 0.5
        """,
    ],
    "GL404": [
        # A model of another library whose output converts itself with `.numpy()`.
        """
        class Frame:
            def numpy(self):
                return [1.0]


        def model(x):
            return Frame()


        def show(x):
            outputs = model(x)
            return outputs.numpy()


        assert show(1) == [1.0]
        """,
    ],
}
CASES = [(code, program(body)) for code, bodies in LOOK_ALIKES.items() for body in bodies]
IDS = [f"{code}-{index}" for code, bodies in LOOK_ALIKES.items() for index in range(len(bodies))]


def run(source: str) -> None:
    exec(compile(source, "look_alike.py", "exec"), {"__name__": "look_alike"})


@pytest.mark.parametrize("code, source", CASES, ids=IDS)
def test_look_alike_runs_as_written(code, source):
    run(source)  # the programs are real: the receivers are numbers or other objects, and work


@pytest.mark.parametrize("code, source", CASES, ids=IDS)
def test_no_safe_fix_on_a_value_that_is_not_a_tensor(code, source):
    fixes = [finding.fix for finding in lint(source, code) if finding.code == code and finding.fix is not None]
    assert all(fix.applicability is not Applicability.SAFE for fix in fixes), [fix.message for fix in fixes]


@pytest.mark.parametrize("code, source", CASES, ids=IDS)
def test_safe_fixes_leave_the_look_alike_running(code, source):
    fixed = fix_text(source, "look_alike.py", frozenset({code}))
    assert fixed.error is None
    run(fixed.text)


def test_float_accumulators_are_not_reported():
    """No graph can be kept by a Python number: GL401 says nothing, not even with an unsafe fix."""
    for body in LOOK_ALIKES["GL401"][:3]:
        assert [f for f in lint(program(body), "GL401") if f.code == "GL401"] == []


def test_the_detach_once_offered_on_a_float_raises():
    """Why the float accumulators matter: `.detach()` on the helper's float raises AttributeError."""
    source = program(LOOK_ALIKES["GL401"][0]).replace("running += train_loss(model, batch)", "running += train_loss(model, batch).detach()")
    with pytest.raises(AttributeError, match="'float' object has no attribute 'detach'"):
        run(source)


# In torch code, a `.data` read or write whose reaching binding is numpy's masked array is not a tensor's.
BOUND_TO_ANOTHER_LIBRARY = ("GL303-1", "GL301-1")
UNREPORTED = ("GL401-0", "GL401-1", "GL401-2", *BOUND_TO_ANOTHER_LIBRARY)
REPORTED = [(code, source) for (code, source), name in zip(CASES, IDS) if name not in UNREPORTED]


def test_data_of_a_value_bound_to_another_library_is_not_reported():
    for name in BOUND_TO_ANOTHER_LIBRARY:
        code, source = CASES[IDS.index(name)]
        assert "import torch" in source and "ma.masked_array(" in source
        assert [f for f in lint(source, code) if f.code == code] == []


@pytest.mark.parametrize("code, source", REPORTED, ids=[name for name in IDS if name not in UNREPORTED])
def test_unsafe_fixes_are_still_offered_where_only_names_say_tensor(code, source):
    """A name-based guess keeps its finding (the look-alike is really checked); the fix needs `--unsafe-fixes`."""
    fixes = [f.fix for f in lint(source, code) if f.code == code]
    assert fixes and all(fix is not None and fix.applicability is Applicability.UNSAFE for fix in fixes)


# Intentionally safe: the same shapes on real tensors in torch code, fixed and run.
TENSOR_CASES = {
    "GL401": """
        import torch

        model = torch.nn.Linear(2, 1)
        criterion = torch.nn.MSELoss()
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loader = [(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(3)]
        total = 0
        for x, y in loader:
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss
        assert total.grad_fn is None
        """,
    "GL303": """
        import torch

        model = torch.nn.Linear(2, 3)
        output = model(torch.randn(4, 2))
        pred = output.data.max(1)[1]
        assert pred.shape == (4,)
        """,
    "GL505": """
        import torch

        model = torch.nn.Linear(2, 1)
        model(torch.randn(4, 2)).sum().backward()
        for p in model.parameters():
            p.data.add_(-0.1, p.grad.data)
        """,
}


@pytest.mark.parametrize("code", sorted(TENSOR_CASES))
def test_safe_fix_on_a_tensor_runs(code):
    source = textwrap.dedent(TENSOR_CASES[code])
    fixes = [f.fix for f in lint(source, code) if f.code == code]
    assert fixes and all(fix is not None and fix.applicability is Applicability.SAFE for fix in fixes)
    fixed = fix_text(source, "tensors.py", frozenset({code}))
    assert fixed.error is None and fixed.text != source
    torch.manual_seed(0)
    run(fixed.text)


# -- files that never import torch: their findings stay, their fixes need `--unsafe-fixes` ---------

# `optimizer.zero_grad` without the call, in a file that never imports torch: the rule's fix is safe.
UNCALLED_OUTSIDE_TORCH = """
for x, y in loader:
    optimizer.zero_grad
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
"""


def test_outside_torch_a_finding_stays_and_its_fix_is_unsafe_saying_why():
    (finding,) = lint(UNCALLED_OUTSIDE_TORCH, "GL606")
    assert finding.fix.applicability is Applicability.UNSAFE
    assert finding.fix.message == "Call it: `optimizer.zero_grad()` (the file does not import torch)"
    assert fix_text(UNCALLED_OUTSIDE_TORCH, "train.py", frozenset({"GL606"})).text == UNCALLED_OUTSIDE_TORCH
    fixed = fix_text(UNCALLED_OUTSIDE_TORCH, "train.py", frozenset({"GL606"}), unsafe=True).text
    assert "    optimizer.zero_grad()\n" in fixed
    (in_torch,) = lint("import torch\n" + UNCALLED_OUTSIDE_TORCH, "GL606")
    assert in_torch.fix.applicability is Applicability.SAFE


def test_fixes_that_stand_on_python_alone_stay_safe_outside_torch():
    (iterator,) = lint('words = iter(["a", "b"])\nfirst = words.next()\n', "GL516")
    assert iterator.fix.applicability is Applicability.SAFE
    (noqa,) = lint("x = 1  # noqa: GL101\n", "GL900", "GL101")
    assert noqa.code == "GL900" and noqa.fix.applicability is Applicability.SAFE


# `torch` brought in through a local module of the project: the file is torch code.
THROUGH_A_LOCAL_MODULE = textwrap.dedent(TENSOR_CASES["GL303"]).replace("import torch\n", "from common import torch\n", 1)


def test_torch_imported_through_a_local_module_keeps_the_safe_fix():
    project = ProjectFacts(names={"common.torch": "torch"})
    (through,) = [f for f in lint_text(THROUGH_A_LOCAL_MODULE, "m.py", frozenset({"GL303"}), project=project).findings]
    assert through.fix.applicability is Applicability.SAFE
    (alone,) = lint(THROUGH_A_LOCAL_MODULE, "GL303")
    assert alone.fix.applicability is Applicability.UNSAFE


@pytest.mark.parametrize(
    "source, expected",
    [
        ("import torch.nn as nn\n", True),
        ("from torch import *\n", True),
        ("from torch.nn.functional import relu\n", True),
        ("import numpy as np\n", False),
        ("from common import torch\n", False),  # without the project's facts: unknown
    ],
)
def test_which_files_import_torch(source, expected):
    assert imports_torch(ImportMap.build(cst.parse_module(source))) is expected


# In torch code, what torch's internals return and what a package's relative imports bring are no tensors.
INDUCTOR_BOXES = [
    """
    import torch
    from torch._inductor import lowering as L


    def reinterpret(node, sizes):
        return L.view(node, sizes).data
    """,
    """
    import torch
    from .. import lowering as L


    def reinterpret(node, sizes):
        return L.view(node, sizes).data
    """,
]


# Checked alone, or with its package (where the index resolves `..lowering` to a module of the run).
IN_A_RUN = [None, ProjectFacts(called_elsewhere=frozenset())]


@pytest.mark.parametrize("project", IN_A_RUN, ids=["alone", "in-a-run"])
@pytest.mark.parametrize("source", INDUCTOR_BOXES)
def test_inductor_ir_boxes_get_no_safe_fix(source, project):
    (finding,) = lint_text(textwrap.dedent(source), "codegen.py", frozenset({"GL303"}), project=project).findings
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
