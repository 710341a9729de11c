"""Tensors and 0-dim values followed through the file's bindings: a parameter every call fills with a
tensor, a module-level name, a helper's return (whole or a tuple member), a network's output, a
loop over tensors written out, a lambda; and the look-alikes each of these must leave alone."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst
import pytest

from gradlint.context import FileContext
from gradlint.model.project import ProjectFacts

# A whole-project run in which no other file mentions this file's functions.
ALONE = ProjectFacts(called_elsewhere=frozenset())


def context_of(source: str, project: Optional[ProjectFacts] = ALONE) -> FileContext:
    source = textwrap.dedent(source)
    return FileContext("example.py", source, cst.parse_module(source), project)


def data_receivers(context: FileContext) -> list[tuple[cst.BaseExpression, cst.CSTNode]]:
    """The receiver of every `.data` in the file, with the function (or module) it is read in."""
    found = []
    for node in context.nodes.subtree(context.module):
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            found.append((node.value, context.nodes.enclosing_function(node) or context.module))
    return found


def tensor_receivers(source: str, project: Optional[ProjectFacts] = ALONE) -> list[bool]:
    context = context_of(source, project)
    return [context.tensors.is_tensor(receiver, scope) for receiver, scope in data_receivers(context)]


def scalar_receivers(source: str) -> list[bool]:
    context = context_of(source)
    return [context.scalars.is_scalar(receiver, scope) for receiver, scope in data_receivers(context)]


PARAMETER = """
    import torch

    def to_np(x):
        return x.data.numpy()

    def log(model, images):
        for name, value in model.named_parameters():
            print(name, to_np(value), to_np(value.grad))
        print(to_np(images.view(-1, 28, 28)))
"""

TENSORS = {
    "a parameter every call of the file fills with a tensor": PARAMETER,
    "a parameter filled by its default": """
        import torch

        def clip(bound=torch.ones(3)):
            return bound.data

        clip()
    """,
    "a module-level name read in a function": """
        import torch
        from torch.autograd import Variable

        x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)
        x = Variable(x, requires_grad=False)

        def plot():
            return x.data.numpy()
    """,
    "a helper's return": """
        import torch

        def make_scale(n):
            return torch.randn(n, requires_grad=True)

        def run():
            scale = make_scale(3)
            scale.data.clamp_(-1, 1)
    """,
    "a member of a helper's tuple": """
        import torch
        from torch.autograd import Variable

        def paintings_with_labels():
            labels = torch.from_numpy(make_labels())
            return Variable(torch.randn(4)), Variable(labels)

        paintings, labels = paintings_with_labels()
        print(labels.data[0, 0])
    """,
    "the indices of a reduction over a dim": """
        import torch

        def decode(outputs):
            _, idx = outputs.max(1)
            return idx.data.numpy()

        decode(torch.randn(3, 5))
    """,
    "the output of a torch.nn layer held in a name": """
        import torch

        def fit(x):
            net = torch.nn.Sequential(torch.nn.Linear(1, 10), torch.nn.ReLU(), torch.nn.Linear(10, 1))
            fitted = net(x)
            return fitted.data.numpy()
    """,
    "a member of a module class's tuple output": """
        import torch.nn as nn

        class AutoEncoder(nn.Module):
            def forward(self, x):
                encoded = self.encoder(x)
                return encoded, self.decoder(encoded)

        autoencoder = AutoEncoder()
        encoded, _ = autoencoder(view)
        print(encoded.data[:, 0])
    """,
    "the one-tensor output of a module class": """
        import torch.nn as nn

        class Head(nn.Module):
            def forward(self, x):
                return self.fc(x)

        head = Head()

        def predict(x):
            probabilities = head(x)
            return probabilities.data
    """,
    "a method's return, called on `self`": """
        import torch
        from torch.autograd import Variable

        class Trainer:
            def _get_variable(self, inputs):
                if self.num_gpu > 0:
                    out = Variable(inputs.cuda())
                else:
                    out = Variable(inputs)
                return out

            def train(self, loader):
                x_fixed = self._get_variable(next(loader))
                return x_fixed.data
    """,
    "a method's return, called on an object of a class of the file": """
        import torch
        from torch import nn

        class Probe:
            def __init__(self, model):
                self.model = model

            def features(self, x):
                return self.model(x)

        def run(x):
            feats = Probe(nn.Linear(4, 3)).features(x)
            probe = Probe(nn.Linear(4, 3))
            kept = probe.features(x)
            return feats.data, kept.data
    """,
    "the input of a module class's forward": """
        import torch
        import torch.nn as nn

        class Generator(nn.Module):
            def forward(self, input):
                if isinstance(input.data, torch.cuda.FloatTensor):
                    return self.parallel(input)
                return self.main(input)
    """,
    "a loop over tensors written out": """
        import torch

        def run():
            gain, shift = torch.ones(3, requires_grad=True), torch.zeros(3, requires_grad=True)
            for tensor in (gain, shift):
                tensor.data.mul_(0.5)
    """,
    "a lambda's result": """
        import torch
        from torch import nn

        def run():
            model = nn.Linear(4, 3)
            embed = lambda inputs: 2 * model(inputs)
            feats = embed(torch.randn(5, 4))
            return feats.data
    """,
    "the input of a module class defined in a function, whose `nn` is imported there": """
        def evaluate(model):
            from torch import nn

            class Scaled(nn.Module):
                def forward(self, input):
                    input.data.div_(255.)
                    return model(input)

            return Scaled()
    """,
    "a comprehension variable over a model's parameters, the model rebound later": """
        import densenet as dn

        def main(args):
            model = dn.DenseNet3(args.layers, 10)
            print(sum([p.data.nelement() for p in model.parameters()]))
            model = model.cuda()
    """,
    "a batch drawn from an iterator over a loader": """
        def first(train_loader):
            batches = iter(train_loader)
            images, labels = batches.next()
            return images.data, batches.next()[0].data, next(batches)[1].data, next(iter(train_loader))[0].data
    """,
    "a module's first parameter": """
        from torch import nn

        class RNNModel(nn.Module):
            def init_hidden(self, bsz):
                weight = next(self.parameters()).data
                return weight.new(2, bsz, 4).zero_(), next(iter(self.parameters())).data
    """,
    "an in-place method's result, the receiver itself": """
        import torch

        def decay(avg, beta):
            return avg.mul_(beta).data

        decay(torch.zeros(3), 0.9)
    """,
    "a factory's result on a tensor's `.data`, zeroed in place": """
        import torch

        def fresh(p):
            return p.data.new().resize_as_(p.data).zero_().data

        fresh(torch.ones(2))
    """,
    "an entry every method of an optimizer class stores a tensor under": """
        import torch
        from torch.optim import Optimizer

        class Adam(Optimizer):
            def __init__(self, params):
                super().__init__(params, {})
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        state["exp_avg"] = torch.zeros_like(p)

            def step(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        exp_avg = state["exp_avg"]
                        print(exp_avg.data, self.state[p]["exp_avg"].data)
    """,
    "the parts of a loader's batch, enumerated": """
        def train(train_loader):
            for index, (inputs, targets) in enumerate(train_loader):
                print(inputs.data, targets.data)
    """,
}


@pytest.mark.parametrize("source", TENSORS.values(), ids=TENSORS.keys())
def test_tensors_followed_through_bindings(source):
    found = tensor_receivers(source)
    assert found and all(found)


LOOK_ALIKES = {
    "a parameter in a partial run (another file may call the function)": (PARAMETER, None),
    "a parameter of a function another file mentions": (PARAMETER, ProjectFacts(called_elsewhere=frozenset({"to_np"}))),
    "a parameter some call fills with a numpy array": (
        """
        import numpy as np
        import torch

        def to_np(x):
            return x.data

        to_np(torch.zeros(3))
        to_np(np.zeros(3))
        """,
        ALONE,
    ),
    "a parameter of a function handed over as a value": (
        """
        import torch

        def to_np(x):
            return x.data

        to_np(torch.zeros(3))
        arrays = list(map(to_np, buffers))
        """,
        ALONE,
    ),
    "a parameter of a decorated function": (
        """
        import functools
        import torch

        @functools.lru_cache()
        def to_np(x):
            return x.data

        to_np(torch.zeros(3))
        """,
        ALONE,
    ),
    "a module-level name another function rebinds through `global`": (
        """
        import torch

        x = torch.zeros(3)

        def reset():
            global x
            x = load_array()

        def show():
            return x.data
        """,
        ALONE,
    ),
    "a comprehension's own variable named like a module-level tensor": (
        """
        import torch

        x = torch.zeros(3)

        def show(items):
            return [x.data for x in items]
        """,
        ALONE,
    ),
    "a module-level numpy array": (
        """
        import numpy as np

        buffer = np.zeros(3)

        def show():
            return buffer.data
        """,
        ALONE,
    ),
    "a module-level name bound to a tensor and to something else": (
        """
        import torch

        x = torch.zeros(3)
        if use_memoryview:
            x = memoryview(b"abc")

        def show():
            return x.data
        """,
        ALONE,
    ),
    "a helper returning a numpy array": (
        """
        import numpy as np

        def make():
            return np.zeros(3)

        def run():
            buffer = make()
            return buffer.data
        """,
        ALONE,
    ),
    "a helper that may return None": (
        """
        import torch

        def make(flag):
            if flag:
                return torch.zeros(3)
            return

        def run():
            buffer = make(True)
            return buffer.data
        """,
        ALONE,
    ),
    "the numpy member of a helper's tuple": (
        """
        import numpy as np
        import torch

        def make():
            return np.zeros(3), torch.zeros(3)

        def run():
            buffer, scale = make()
            return buffer.data
        """,
        ALONE,
    ),
    "the output of an LSTM (a tuple) held whole": (
        """
        import torch

        def run(x):
            recurrent = torch.nn.LSTM(4, 8)
            result = recurrent(x)
            return result.data
        """,
        ALONE,
    ),
    "a member of a network's output in a file that packs sequences": (
        """
        import torch
        from torch.nn.utils.rnn import pack_padded_sequence

        def run(x, lengths):
            recurrent = torch.nn.LSTM(4, 8)
            packed, hidden = recurrent(pack_padded_sequence(x, lengths))
            return packed.data
        """,
        ALONE,
    ),
    "a module class whose forward returns a dict": (
        """
        import torch.nn as nn

        class Detector(nn.Module):
            def forward(self, x):
                return {"boxes": self.head(x)}

        detector = Detector()
        result = detector(images)
        print(result.data)
        """,
        ALONE,
    ),
    "an input of forward with a default": (
        """
        import torch.nn as nn

        class Decoder(nn.Module):
            def forward(self, x, cache=None):
                return cache.data
        """,
        ALONE,
    ),
    "an input of forward in a file that packs sequences": (
        """
        import torch.nn as nn
        from torch.nn.utils.rnn import pack_padded_sequence

        class Encoder(nn.Module):
            def forward(self, packed):
                return packed.data
        """,
        ALONE,
    ),
    "an input of forward of a class that is no module": (
        """
        class Pipeline:
            def forward(self, batch):
                return batch.data
        """,
        ALONE,
    ),
    "a method of an object whose class is imported": (
        """
        from probes import Probe

        def run(x):
            feats = Probe(x).features(x)
            return feats.data
        """,
        ALONE,
    ),
    "a method of an object whose class returns numpy arrays": (
        """
        import numpy as np

        class Buffer:
            def values(self):
                return np.zeros(3)

        def run():
            kept = Buffer().values()
            return kept.data
        """,
        ALONE,
    ),
    "a loop over a tuple holding a numpy array": (
        """
        import numpy as np
        import torch

        def run():
            for buffer in (torch.zeros(3), np.zeros(3)):
                print(buffer.data)
        """,
        ALONE,
    ),
    "a lambda whose parameter the scope also binds": (
        """
        import numpy as np

        def run(a):
            a = np.zeros(3)
            total = lambda a: a.sum()
            s = total(a)
            return s.data
        """,
        ALONE,
    ),
    "a parameter filled with what torch.load gives back (a checkpoint's dict)": (
        """
        import torch

        def load(path):
            state = torch.load(path, weights_only=False)
            return upgrade(state)

        def upgrade(state):
            if isinstance(state["args"].data, list):
                state["args"].data = state["args"].data[0]
            return state
        """,
        ALONE,
    ),
    "the input of a class defined in a function that is not a module": (
        """
        import torch
        from torch import nn

        def evaluate(model, Base):
            class Scaled(Base):
                def forward(self, input):
                    return input.data

            class Plain:
                def forward(self, input):
                    return input.data

            return Scaled(), Plain()
        """,
        ALONE,
    ),
    "a comprehension variable over names, though the function loops over parameters under the same name": (
        """
        def names(model, records):
            for p in model.parameters():
                p.requires_grad = False
            return [p.data for p in records]
        """,
        ALONE,
    ),
    "a batch drawn from an iterator over something else, or with `next` rebound": (
        """
        from itertools import count as next

        def first(records, train_loader):
            rows = iter(records)
            batches = iter(train_loader)
            return rows.next()[0].data, next(batches)[0].data
        """,
        ALONE,
    ),
    "the next of another iterator, or a shadowed `next`": (
        """
        from torch import nn
        from itertools import count as next

        def first(model, records):
            return next(model.buffers()).data, next(records.parameters()).data
        """,
        ALONE,
    ),
    "an optimizer's state entry also stored as a number, or not stored by the class": (
        """
        import torch
        from torch.optim import Adagrad

        class Clipped(Adagrad):
            def reset(self, p):
                state = self.state[p]
                state["buffer"] = torch.zeros_like(p)

            def clear(self, p):
                self.state[p]["buffer"] = None
                state = self.state[p]
                state["buffer"] = 0.0

            def step(self):
                for group in self.param_groups:
                    for p in group["params"]:
                        state = self.state[p]
                        print(state["buffer"].data, state["sum"].data)
        """,
        ALONE,
    ),
    "a state entry of a class that is no optimizer": (
        """
        import torch

        class Tracker:
            def reset(self, p):
                state = self.state[p]
                state["buffer"] = torch.zeros_like(p)

            def read(self, p):
                state = self.state[p]
                return state["buffer"].data
        """,
        ALONE,
    ),
    "a batch enumerated whole, and the pairs of named parameters": (
        """
        def train(loader, model):
            for index, batch in enumerate(loader):
                print(batch.data)
            for index, pair in enumerate(model.named_parameters()):
                print(pair.data)
        """,
        ALONE,
    ),
}


@pytest.mark.parametrize("source, project", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
def test_look_alikes_stay_unknown(source, project):
    found = tensor_receivers(source, project)
    assert found and not any(found)


ZERO_DIM = {
    "a helper's return": """
        def batch_error(model, criterion, x, y):
            return criterion(model(x), y)

        def run(model, criterion, x, y):
            err = batch_error(model, criterion, x, y)
            return err.data[0]
    """,
    "a member of a helper's tuple": """
        def forward_pass(model, criterion, x, y):
            out = model(x)
            return criterion(out, y), out

        def run(model, criterion, x, y):
            err, out = forward_pass(model, criterion, x, y)
            return err.data[0]
    """,
    "an attribute set from a criterion called on self (and None)": """
        class Evaluator:
            def __init__(self, model, criterion):
                self.model, self.criterion = model, criterion
                self.err = None

            def evaluate(self, x, y):
                self.err = self.criterion(self.model(x), y)
                return self.err.data[0]
    """,
    "a dict entry": """
        def run(model, criterion, x, y):
            stats = {}
            stats["err"] = criterion(model(x), y)
            return stats["err"].data[0]
    """,
    "a lambda's result": """
        def run(model, criterion, x, y):
            measure = lambda inputs, targets: criterion(model(inputs), targets)
            err = measure(x, y)
            return err.data[0]
    """,
    "a loop over 0-dim values written out": """
        def run(model, criterion, x, y):
            for term in (criterion(model(x), y), model.weight.pow(2).sum()):
                print(term.data[0])
    """,
}


@pytest.mark.parametrize("source", ZERO_DIM.values(), ids=ZERO_DIM.keys())
def test_zero_dim_values_followed_through_bindings(source):
    assert scalar_receivers(source) == [True]


@pytest.mark.parametrize(
    "source",
    [
        # the other member of the tuple is the model's output, not one number
        """
        def forward_pass(model, criterion, x, y):
            out = model(x)
            return criterion(out, y), out

        def run(model, criterion, x, y):
            err, prediction = forward_pass(model, criterion, x, y)
            return prediction.data[0]
        """,
        # a helper returning a row of outputs
        """
        def predict(model, x):
            return model(x)[0]

        def run(model, x):
            row = predict(model, x)
            return row.data[0]
        """,
        # an attribute also set to the model's output
        """
        class Evaluator:
            def evaluate(self, x, y):
                self.err = self.criterion(self.model(x), y)
                self.err = self.model(x)
                return self.err.data[0]
        """,
        # a dict entry holding the output
        """
        def run(model, criterion, x, y):
            stats = {"err": model(x)}
            return stats["err"].data[0]
        """,
        # a lambda whose parameter is also a name of the scope
        """
        def run(model, criterion, x, y):
            measure = lambda x: criterion(model(x), y)
            err = measure(x)
            return err.data[0]
        """,
        # one element of the loop is a full tensor
        """
        def run(model, criterion, x, y):
            for term in (criterion(model(x), y), model.weight):
                print(term.data[0])
        """,
    ],
)
def test_rows_are_not_zero_dim(source):
    assert scalar_receivers(source) == [False]
