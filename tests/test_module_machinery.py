"""What in a file relies on `nn.Module`'s machinery: the first call attaching code only a module's
call runs (which `m.forward(x)` skips), and which module classes have an instance used as a module."""

import textwrap

import libcst as cst
import pytest

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.module_machinery import ModuleInstanceUses, call_machinery
from gradlint.analysis.nn_module_classes import NnModuleClasses
from gradlint.analysis.nn_modules import NnModuleEvidence
from gradlint.analysis.scopes import ScopeTable
from gradlint.analysis.semantic.nodes import NodeIndex


def _machinery(source: str):
    text = textwrap.dedent(source)
    module = cst.parse_module(text)
    imports = ImportMap.build(module)
    found = call_machinery(NodeIndex(module), text, imports, NnModuleEvidence(module, imports, ScopeTable()))
    return None if found is None else cst.Module(body=[]).code_for_node(found.func)


@pytest.mark.parametrize(
    "source, expected",
    [
        ("model.register_forward_hook(keep)\nlayer.register_full_backward_hook(log)\n", "model.register_forward_hook"),
        ("self.encoder.compile()\n", "self.encoder.compile"),
        ("import torch.nn as nn\nfc = nn.utils.weight_norm(nn.Linear(2, 2))\n", "nn.utils.weight_norm"),
        ("import torch.nn.utils.prune as prune\nprune.l1_unstructured(fc, 'weight', 0.5)\n", "prune.l1_unstructured"),
        ("from torch.distributed.fsdp import fully_shard\nfor layer in layers:\n    fully_shard(layer)\n", "fully_shard"),
        (
            "import torch\ntorch.nn.modules.module.register_module_forward_hook(trace)\n",
            "torch.nn.modules.module.register_module_forward_hook",
        ),
        ("from torch.ao.quantization import prepare\nprepared = prepare(model)\n", "prepare"),
    ],
)
def test_the_first_call_attaching_call_only_code_is_found(source, expected):
    assert _machinery(source) == expected


@pytest.mark.parametrize(
    "source",
    [
        "import re\nPATTERN = re.compile('x')\nout = model.forward(x)\n",
        "import torch\nfast = torch.compile(model)\n",
        "from torch.nn.utils import parametrizations\nparametrizations.weight_norm(fc)\n",
        "from mylib import prepare\nprepare(model)\n",
        "out = model.forward(x)  # register_forward_hook is only mentioned\n",
        "program = nvrtc_program(source)\nptx = program.compile()\n",
    ],
)
def test_look_alikes_attach_nothing(source):
    assert _machinery(source) is None


USES = textwrap.dedent(
    """
    import torch.nn as nn

    class Called(nn.Module):
        def __init__(self): self.a = 1
    class Moved(nn.Module):
        def __init__(self): self.a = 1
    class Listed(nn.Module):
        def __init__(self): self.a = 1
    class Held(nn.Module):
        def __init__(self): self.a = 1
    class HeldByPlain(nn.Module):
        def __init__(self): self.a = 1
    class Sampler(nn.Module):
        def __init__(self): self.a = 1
        def sample(self): return self.a
    class Mock(nn.Module):
        def __init__(self): self.config = {}
    class Never(nn.Module):
        def __init__(self): self.a = 1
    class OwnTrain(nn.Module):
        def __init__(self): self.steps = 0
        def train(self): self.steps += 1

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.held = Held()
    class Runner:
        def __init__(self):
            self.model = HeldByPlain()
        def run(self, x):
            return self.model(x)

    def main(x):
        out = Called()(x)
        moved = Moved()
        moved.to("cpu")
        layers = nn.ModuleList([Listed() for _ in range(2)])
        ts = Sampler().sample()
        config = read_config(Mock())
        trainer = OwnTrain()
        trainer.train()
        return Never
    """
)


def test_instances_used_as_modules_are_found():
    module = cst.parse_module(USES)
    classes = NnModuleClasses(module, ImportMap.build(module))
    uses = ModuleInstanceUses(module, ImportMap.build(module), NodeIndex(module), classes)
    used = {cls.name for cls in classes if uses.used_as_module(cls)}
    assert used == {"Called", "Moved", "Listed", "Held", "HeldByPlain"}
