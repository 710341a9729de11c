"""Evident autograd history followed through the file's bindings: a helper's or a method's return
(whole or a tuple member), an attribute, a loop variable, a dict entry, a list then indexed, a
lambda's result; a GAN generator's output followed the same way; and the look-alikes each of these
must leave alone (detached, computed without grad, a placeholder, a list handed away...)."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from gradlint.context import FileContext
from support import lint


def context_of(source: str) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source))


def numpy_receivers(source: str) -> list[bool]:
    """Whether the receiver of each `.numpy()` of the file evidently carries history, where it is read."""
    context = context_of(source)
    found = []
    for node in context.nodes.subtree(context.module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy":
            scope = context.nodes.enclosing_function(node) or context.module
            found.append(context.values.carries_grad(node.func.value, scope))
    return found


WITH_HISTORY = {
    "a helper's return": """
        import torch

        def predict(model, x):
            return torch.sigmoid(model(x))

        def run(model, x):
            probs = predict(model, x)
            return probs.numpy()
    """,
    "a member of the tuples a helper returns": """
        def forward(model, x):
            hidden = model(x)
            return hidden, hidden.relu()

        def run(model, x):
            hidden, activation = forward(model, x)
            return activation.numpy()
    """,
    "a method of an object of the file's class": """
        class Scorer:
            def __init__(self, model):
                self.model = model

            def scores(self, x):
                return self.model(x)

        def run(model, x):
            scorer = Scorer(model)
            values = scorer.scores(x)
            return values.numpy()
    """,
    "an attribute set to None first, then to a model's output": """
        class Recorder:
            def __init__(self, model):
                self.model = model
                self.last = None

            def observe(self, x):
                self.last = self.model(x)
                return self.last.numpy()
    """,
    "a loop over outputs written out": """
        def run(model, x):
            for out in (model(x), model(2 * x)):
                out.numpy()
    """,
    "a loop over a list of losses": """
        def run(model, criterion, x, y):
            terms = [criterion(model(x), y), model.weight.pow(2).sum()]
            sum(terms).backward()
            for term in terms:
                term.numpy()
    """,
    "a loop over a tuple of outputs bound to a name and handed to a function": """
        def run(model, x, show):
            pair = (model(x), model(2 * x))
            show(pair)
            for out in pair:
                out.numpy()
    """,
    "a dict entry set after an empty dict": """
        def run(model, x):
            outputs = {}
            outputs["scores"] = model(x)
            return outputs["scores"].numpy()
    """,
    "a list filled by append, then indexed": """
        def run(model, x):
            outputs = []
            outputs.append(model(x))
            return outputs[-1].numpy()
    """,
    "a lambda's result": """
        def run(model, x):
            score = lambda inputs: model(inputs).squeeze(1)
            values = score(x)
            return values.numpy()
    """,
    "a binding the code backpropagates": """
        def run(batch):
            logits, loss = compute(batch)
            loss = loss / 4
            loss.backward()
            return loss.numpy()
    """,
}


@pytest.mark.parametrize("source", WITH_HISTORY.values(), ids=WITH_HISTORY.keys())
def test_history_is_followed_through_the_binding(source):
    assert numpy_receivers(source) == [True]


WITHOUT_EVIDENCE = {
    "a helper decorated with no_grad": """
        import torch

        @torch.no_grad()
        def predict(model, x):
            return model(x)

        def run(model, x):
            return predict(model, x).numpy()
    """,
    "a helper returning under no_grad": """
        import torch

        def predict(model, x):
            with torch.no_grad():
                return model(x)

        def run(model, x):
            return predict(model, x).numpy()
    """,
    "a name rebound after its backward": """
        def run(batch):
            loss = compute(batch).loss
            loss.backward()
            loss = loss.detach()
            return loss.numpy()
    """,
    "a binding another function backpropagates": """
        def step(batch):
            loss = compute(batch).loss
            loss.backward()

        def run(batch):
            loss = compute(batch).loss
            return loss.numpy()
    """,
    "a helper with one return that is not evidently a graph": """
        def predict(model, x, cached):
            if cached is not None:
                return cached
            return model(x)

        def run(model, x):
            return predict(model, x, None).numpy()
    """,
    "the detached member of a tuple": """
        def forward(model, x):
            hidden = model(x)
            return hidden, hidden.detach()

        def run(model, x):
            hidden, frozen = forward(model, x)
            return frozen.numpy()
    """,
    "a tuple unpacked under no_grad": """
        import torch

        def forward(model, x):
            hidden = model(x)
            return hidden, hidden.relu()

        def run(model, x):
            with torch.no_grad():
                hidden, activation = forward(model, x)
            return activation.numpy()
    """,
    "an attribute some method sets to a detached value": """
        class Recorder:
            def __init__(self, model):
                self.model = model
                self.last = None

            def observe(self, x):
                self.last = self.model(x)

            def freeze(self):
                self.last = self.last.detach()

            def show(self):
                return self.last.numpy()
    """,
    "a loop over a list one element of which has no graph": """
        import torch

        def run(model, x):
            for out in (model(x), torch.zeros(3)):
                out.numpy()
    """,
    "a list appended to under no_grad": """
        import torch

        def run(model, x):
            outputs = []
            with torch.no_grad():
                outputs.append(model(x))
            return outputs[-1].numpy()
    """,
    "a list handed to another function, which may fill it": """
        def run(model, x, fill):
            outputs = []
            outputs.append(model(x))
            fill(outputs)
            return outputs[-1].numpy()
    """,
    "a dict entry set under no_grad": """
        import torch

        def run(model, x):
            outputs = {}
            with torch.no_grad():
                outputs["scores"] = model(x)
            return outputs["scores"].numpy()
    """,
    "a lambda whose parameter shadows a name of the scope": """
        def run(model, x, inputs):
            score = lambda inputs: inputs.squeeze(1)
            return score(x).numpy()
    """,
    "a lambda over a plain value": """
        def run(x):
            scale = lambda t: t * 2
            return scale(x).numpy()
    """,
}


@pytest.mark.parametrize("source", WITHOUT_EVIDENCE.values(), ids=WITHOUT_EVIDENCE.keys())
def test_look_alikes_are_not_evidence_of_history(source):
    assert numpy_receivers(source) == [False]


def findings(source: str, code: str) -> list[int]:
    return [finding.location.row for finding in lint(textwrap.dedent(source), code)]


GAN_PROLOGUE = """
    import torch
    from torch import nn

    def run(netG, netD, optD, bce, real, z, ones, zeros):
"""

FAKES = {
    "a tuple member of a helper's return": """
    def generate(netG, z):
        return netG(z), z
    """
    + GAN_PROLOGUE
    + """
        fake, noise = generate(netG, z)
        errD = bce(netD(real), ones) + bce(netD(fake), zeros)
        errD.backward()
        optD.step()
    """,
    "a loop variable": GAN_PROLOGUE
    + """
        errD = bce(netD(real), ones)
        for fake in (netG(z), netG(2 * z)):
            errD = errD + bce(netD(fake), zeros)
        errD.backward()
        optD.step()
    """,
    "a dict entry": GAN_PROLOGUE
    + """
        batch = {}
        batch["fake"] = netG(z)
        errD = bce(netD(real), ones) + bce(netD(batch["fake"]), zeros)
        errD.backward()
        optD.step()
    """,
    "a list then indexed": GAN_PROLOGUE
    + """
        fakes = []
        fakes.append(netG(z))
        errD = bce(netD(real), ones) + bce(netD(fakes[-1]), zeros)
        errD.backward()
        optD.step()
    """,
    "a lambda's result": GAN_PROLOGUE
    + """
        generate = lambda n: netG(torch.randn(n, 2))
        fake = generate(8)
        errD = bce(netD(real), ones) + bce(netD(fake), zeros)
        errD.backward()
        optD.step()
    """,
}


@pytest.mark.parametrize("source", FAKES.values(), ids=FAKES.keys())
def test_generator_output_reaching_the_discriminator_through_a_binding_is_reported(source):
    assert len(findings(source, "GL406")) == 1


NOT_FAKES = {
    "the helper's other tuple member": """
    def generate(netG, z):
        return netG(z), z
    """
    + GAN_PROLOGUE
    + """
        fake, noise = generate(netG, z)
        errD = bce(netD(real), ones) + bce(netD(noise), zeros)
        errD.backward()
        optD.step()
    """,
    "a loss, not the generator's output, in the list": GAN_PROLOGUE
    + """
        fakes = []
        fakes.append(bce(netD(real), ones))
        errD = bce(netD(fakes[-1]), zeros)
        errD.backward()
        optD.step()
    """,
    "a tuple unpacked under no_grad": """
    def generate(netG, z):
        return netG(z), z
    """
    + GAN_PROLOGUE
    + """
        with torch.no_grad():
            fake, noise = generate(netG, z)
        errD = bce(netD(real), ones) + bce(netD(fake), zeros)
        errD.backward()
        optD.step()
    """,
    "a lambda's result detached": GAN_PROLOGUE
    + """
        generate = lambda n: netG(torch.randn(n, 2)).detach()
        fake = generate(8)
        errD = bce(netD(real), ones) + bce(netD(fake), zeros)
        errD.backward()
        optD.step()
    """,
}


@pytest.mark.parametrize("source", NOT_FAKES.values(), ids=NOT_FAKES.keys())
def test_values_that_are_not_the_generators_graph_are_not_reported(source):
    assert findings(source, "GL406") == []


ACCUMULATION = """
    def run(model, criterion, optimizer, loader):
        total = 0
        for x, y in loader:
            optimizer.zero_grad()
            terms = [criterion(model(x), y), 0.01 * model.weight.pow(2).sum()]
            sum(terms).backward()
            optimizer.step()
            for term in terms:
                total += term
        return total
"""


def test_a_total_kept_across_steps_by_an_inner_loop_over_the_terms_is_reported():
    assert findings(ACCUMULATION, "GL401") == [10]


def test_a_total_reset_by_each_step_is_not_reported_from_an_inner_loop():
    reset = ACCUMULATION.replace("            terms = [", "            total = 0\n            terms = [")
    assert findings(reset, "GL401") == []


def test_an_inner_loop_in_no_training_loop_is_not_reported():
    source = """
        def run(model, criterion, x, y, chunks):
            total = 0
            for step in range(3):
                for chunk in chunks:
                    total += criterion(model(chunk), y)
            return total
    """
    assert findings(source, "GL401") == []
