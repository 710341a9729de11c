"""A method's parameters take what its callers pass when every call of it is known: each call is
`self.m(...)` in a method of its own plain class, nothing else in the file or the run reads the
name, and the class is subclassed nowhere; and the look-alikes each of these must leave alone."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst
import pytest

from gradlint.context import FileContext
from gradlint.model.project import ProjectFacts

# A whole-project run in which no other file reaches this file's methods.
ALONE = ProjectFacts(called_elsewhere=frozenset(), reached_elsewhere=frozenset())

TRAINER = """
import torch

class Trainer:
    def __init__(self, G):
        self.G = G

    def _noise(self, noise, bs, scale=1.0):
        noise.data.uniform_(-scale, scale)
        return noise

    def train(self, loader):
        noise = torch.FloatTensor(16, 8)
        for x, _ in loader:
            z = self._noise(noise, x.size(0))
            out = self.G(z)
"""


def context_of(source: str, project: Optional[ProjectFacts] = ALONE) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source), project)


def parameter_facts(source: str, method: str, parameter: str, project: Optional[ProjectFacts] = ALONE) -> tuple[bool, bool]:
    """(is a tensor, is history-free) for the first read of `parameter` in `method` of `Trainer`."""
    context = context_of(source, project)
    (function,) = [
        f for f in context.function_table.all if f.name.value == method and context.function_table.class_of(f).name.value == "Trainer"
    ]
    read = next(n for n in context.nodes.subtree(function.body) if isinstance(n, cst.Name) and n.value == parameter)
    return context.values.is_tensor(read, function), context.values.is_history_free(read, function)


def test_the_parameter_of_a_method_every_call_of_which_is_known_takes_its_callers_facts():
    assert parameter_facts(TRAINER, "_noise", "noise") == (True, True)


def test_keywords_defaults_and_the_instance_bind_as_python_binds_them():
    source = TRAINER.replace("self._noise(noise, x.size(0))", "self._noise(bs=x.size(0), noise=noise)")
    assert parameter_facts(source, "_noise", "noise") == (True, True)
    assert parameter_facts(TRAINER, "_noise", "scale")[1]  # the literal default
    context = context_of(TRAINER)
    (function,) = context.function_table.methods["_noise"]
    assert not context.history.arguments_are_history_free(function, "self", 0)  # the instance is never asked


@pytest.mark.parametrize(
    "change",
    [
        # one caller passes a value with history
        lambda s: s.replace("            out = self.G(z)\n", "            out = self.G(z)\n            self._noise(out, 3)\n"),
        # also called on another object
        lambda s: s.replace("            out = self.G(z)\n", "            out = self.G(z)\n            other._noise(noise, 3)\n"),
        # handed over as a callback
        lambda s: s.replace("            out = self.G(z)\n", "            out = self.G(z)\n            run(self._noise)\n"),
        # named in a string (`getattr(self, "_noise")`)
        lambda s: s.replace("            out = self.G(z)\n", '            out = self.G(z)\n            getattr(self, "_noise")(z, 3)\n'),
        # overridden in a subclass
        lambda s: s + "\nclass Other(Trainer):\n    def _noise(self, noise, bs, scale=1.0):\n        return noise\n",
        # a base class may call it by its name
        lambda s: s.replace("class Trainer:", "class Trainer(Base):"),
        # a decorated class, or method
        lambda s: s.replace("class Trainer:", "@register\nclass Trainer:"),
        lambda s: s.replace("    def _noise(", "    @cached\n    def _noise("),
        # another name for it in the class body
        lambda s: s.replace("    def train(self, loader):", "    noise_again = _noise\n\n    def train(self, loader):"),
        # attributes looked up by `__getattr__`
        lambda s: s + "    def __getattr__(self, name):\n        return name\n",
        # called from a nested function, or a lambda
        lambda s: s.replace("            z = self._noise(noise, x.size(0))", "            z = (lambda: self._noise(noise, 3))()"),
        # `*args` at a call
        lambda s: s.replace("self._noise(noise, x.size(0))", "self._noise(*args)"),
        # the instance rebound in the caller
        lambda s: s.replace(
            "        noise = torch.FloatTensor(16, 8)\n", "        noise = torch.FloatTensor(16, 8)\n        self = other\n"
        ),
    ],
    ids=[
        "a caller with history",
        "another object",
        "a callback",
        "a string",
        "a subclass",
        "a base class",
        "a class decorator",
        "a method decorator",
        "an alias in the class body",
        "__getattr__",
        "a lambda",
        "*args",
        "self rebound",
    ],
)
def test_a_method_whose_calls_are_not_all_known_keeps_its_parameters_unknown(change):
    assert parameter_facts(change(TRAINER), "_noise", "noise")[1] is False


@pytest.mark.parametrize(
    "project",
    [
        None,  # a partial run: who calls it is unknown
        ProjectFacts(called_elsewhere=frozenset(), reached_elsewhere=frozenset({"_noise"})),  # another file spells it
        ProjectFacts(called_elsewhere=frozenset(), reached_elsewhere=frozenset({"Trainer"})),  # another file subclasses it
        ProjectFacts(called_elsewhere=frozenset(), reached_elsewhere=frozenset({"*"})),  # read by a computed name somewhere
    ],
    ids=["partial run", "spelled elsewhere", "subclassed elsewhere", "computed read"],
)
def test_a_method_other_files_may_reach_keeps_its_parameters_unknown(project):
    assert parameter_facts(TRAINER, "_noise", "noise", project) == (False, False)


def test_gl301_fixes_an_update_of_a_parameter_every_caller_fills_with_a_tensor():
    from gradlint.engine import lint_text

    def applicabilities(project):
        findings = lint_text(textwrap.dedent(TRAINER), "example.py", frozenset({"GL301"}), project=project).findings
        return [finding.fix.applicability.value for finding in findings]

    assert applicabilities(ALONE) == ["safe"]
    assert applicabilities(None) == []  # `noise` is not known to be a tensor


SOLVER = """
import torch
from torch.autograd import Variable

class Solver(object):
    def to_var(self, x):
        if torch.cuda.is_available():
            x = x.cuda()
        return Variable(x)

    def train(self, loader):
        it = iter(loader)
        fixed = self.to_var(next(it)[0])
        for step in range(3):
            images, labels = next(it)
            images, labels = self.to_var(images), self.to_var(labels)
            fake = self.to_var(torch.zeros(4).long())
            self.step(images, labels, fake, fixed)
"""


def gl101_fix(source: str, project: Optional[ProjectFacts] = ALONE) -> str:
    """The title of GL101's fix of `return Variable(x)`."""
    from gradlint.engine import lint_text

    source = textwrap.dedent(source)
    row = source.splitlines().index("        return Variable(x)") + 1
    findings = lint_text(source, "example.py", frozenset({"GL101"}), project=project).findings
    (finding,) = [f for f in findings if f.location.row == row]
    return finding.fix.message if finding.fix is not None else ""


def test_a_wrapper_returning_a_parameter_goes_when_every_caller_may_get_its_own_object_back():
    assert gl101_fix(SOLVER) == "Replace with `x`"
    assert gl101_fix(SOLVER, None) == "Replace with `x.detach()`"  # who calls it is unknown


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda s: s.replace("self.to_var(images)", "self.to_var(model(images))"), "an argument with history"),
        (lambda s: s.replace("            self.step(", "            labels.requires_grad = True\n            self.step("), "a flag set"),
        (
            lambda s: (
                s.replace("        it = iter(loader)\n", "        it = iter(loader)\n        noise = torch.zeros(4)\n")
                .replace("self.to_var(torch.zeros(4).long())", "self.to_var(noise)")
                .replace("            self.step(", "            self.samples.append(fake)\n            self.step(")
            ),
            "the result stored while the argument stays in use",
        ),
        (lambda s: s.replace("            x = x.cuda()\n", "            x = x.cuda()\n        self.last = x\n"), "stored by the method"),
        (
            lambda s: s.replace("    def to_var(self, x):", "    def to_var(self, x=torch.zeros(2)):").replace(
                "self.to_var(torch.zeros(4).long())", "self.to_var()"
            ),
            "a default",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_a_returned_parameter_keeps_detach_where_a_caller_could_tell_the_objects_apart(change, why):
    assert gl101_fix(change(SOLVER)) == "Replace with `x.detach()`", why


MAIN = """
import torch
import data
from torch.autograd import Variable

corpus = data.Corpus(path)

def batchify(data, bsz):
    data = data.narrow(0, 0, 8)
    return data.view(bsz, -1).t().contiguous()

train_data = batchify(corpus.train, 4)

def get_batch(source, i):
    return Variable(source[i:i+2].view(-1))

def train():
    for i in range(3):
        target = get_batch(train_data, i)
"""
INTEGERS = ProjectFacts(called_elsewhere=frozenset(), reached_elsewhere=frozenset(), integer_attributes=frozenset({"data.Corpus.train"}))


def returned_wrapper_fix(source: str, project: Optional[ProjectFacts]) -> str:
    from gradlint.engine import lint_text

    (finding,) = lint_text(textwrap.dedent(source), "main.py", frozenset({"GL101"}), project=project).findings
    return finding.fix.message


def test_an_attribute_another_file_keeps_an_integer_tensor_in_carries_no_history():
    assert returned_wrapper_fix(MAIN, INTEGERS) == "Replace with `source[i:i+2].view(-1)`"
    assert returned_wrapper_fix(MAIN, ALONE) == "Replace with `source[i:i+2].view(-1).detach()`"


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.replace("corpus = data.Corpus(path)\n", "corpus = data.Corpus(path)\ncorpus = other\n"),  # rebound
        lambda s: s.replace("import data\n", "import data\ndata = loader\n"),  # the module's name rebound
        lambda s: s.replace("corpus = data.Corpus(path)", "corpus = data.Dataset(path)"),  # another class
    ],
    ids=["the object rebound", "the module rebound", "another class"],
)
def test_an_integer_attribute_needs_the_object_and_the_module_as_the_import_gives_them(change):
    assert returned_wrapper_fix(change(MAIN), INTEGERS).endswith(".detach()`")
