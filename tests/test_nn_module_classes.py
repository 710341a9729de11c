"""The module classes of a file: which classes are `nn.Module` subclasses, provably so, their
ancestry among the file's classes, what builds a module, how the file spells `torch.nn` names."""

import textwrap

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.nn_module_classes import NnModuleClasses, parameter_conversion

SOURCE = textwrap.dedent(
    """
    import torch
    from torch import nn
    from mylib import Mixin, Other

    class Base(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
            self.fc: nn.Module = nn.Linear(2, 2)

    class Head(Base):
        def forward(self, x):
            return x

    class Mixed(nn.Module, Mixin):
        pass

    class Layer(torch.nn.Linear):
        pass

    class Plain(Other):
        pass
    """
)


def _classes(source=SOURCE):
    module = cst.parse_module(source)
    return NnModuleClasses(module, ImportMap.build(module)), module


def test_module_classes_and_their_bases():
    classes, _ = _classes()
    assert sorted(classes.by_name) == ["Base", "Head", "Layer", "Mixed"]
    assert classes.by_name["Head"].provably_module and classes.by_name["Layer"].provably_module
    assert not classes.by_name["Mixed"].provably_module
    assert classes.by_name["Base"].direct_module_only and not classes.by_name["Head"].direct_module_only
    assert [c.name for c in classes.by_name["Head"].lineage()] == ["Head", "Base"]
    assert classes.by_name["Head"].only_plain_module_ancestry() and not classes.by_name["Layer"].only_plain_module_ancestry()
    assert classes.by_name["Head"].defines_in_lineage("__init__") and not classes.by_name["Base"].defines_in_lineage("forward")
    assert [c.name for c in classes.by_name["Base"].subclasses()] == ["Head"]
    assert [a.attribute for a in classes.by_name["Base"].self_assignments] == ["fc", "fc"]


def test_a_class_written_twice_is_a_class_per_definition():
    classes, module = _classes(
        textwrap.dedent(
            """
            from torch import nn
            from mylib import Mixin

            class Net(nn.Module):
                pass

            class Net(Net):
                pass

            class Plain:
                pass

            class Plain(nn.Module, Mixin):
                pass

            class Later(Mixin, nn.Module):
                pass
            """
        )
    )
    first, second, _, plain, later = [s for s in module.body if isinstance(s, cst.ClassDef)]
    assert classes.by_name["Net"] is classes.of(second) and classes.of(first) is not None
    assert [c.node for c in classes.of(second).lineage()] == [second, first]
    assert classes.of(second).provably_module and not classes.of(second).direct_module_only
    assert classes.by_name["Plain"] is classes.of(plain) and classes.of(plain).module_before_other_bases
    assert not classes.of(later).module_before_other_bases and not classes.of(first).module_before_other_bases
    assert len(list(classes)) == 4


def test_what_builds_a_module_and_how_torch_nn_is_spelt():
    classes, _ = _classes()
    built = ["nn.Linear(2, 2)", "Head()", "torch.nn.Dropout(0.1)", "nn.ReLU()"]
    assert all(classes.constructs_module(cst.parse_expression(code)) for code in built)
    assert not any(
        classes.constructs_module(cst.parse_expression(code)) for code in ("nn.Parameter(t)", "Plain()", "teacher", "nn.functional.relu(x)")
    )
    assert not classes.builds_stateful_module(cst.parse_expression("nn.ReLU()"))
    assert classes.builds_stateful_module(cst.parse_expression("nn.Dropout()"))
    assert classes.spelling("torch.nn.ModuleList") == "nn.ModuleList"
    only_torch, _ = _classes("import torch\n")
    assert only_torch.spelling("torch.nn.ModuleList") == "torch.nn.ModuleList"
    assert _classes("x = 1\n")[0].spelling("torch.nn.ModuleList") is None


def test_a_conversion_applied_to_a_new_parameter():
    classes, _ = _classes()
    call = cst.parse_expression("nn.Parameter(t, requires_grad=False).half().cuda()")
    wrapper, data = parameter_conversion(call, classes.imports)
    assert cst.Module([]).code_for_node(wrapper) == "nn.Parameter(t, requires_grad=False)"
    assert data.value.value == "t"
    assert parameter_conversion(cst.parse_expression("nn.Parameter(t.cuda())"), classes.imports) is None
    assert parameter_conversion(cst.parse_expression("nn.Linear(2, 2).cuda()"), classes.imports) is None


def test_an_init_storing_module_state_is_found():
    classes, _ = _classes(
        textwrap.dedent(
            """
            import torch
            from torch import nn
            class Layer(nn.Module):
                def __init__(self):
                    self.fc = nn.Linear(2, 2).to("cpu")
            class Weight(nn.Module):
                def __init__(self):
                    self.w = nn.Parameter(torch.zeros(2))
            class Buffer(nn.Module):
                def __init__(self):
                    if True:
                        self.register_buffer("b", torch.zeros(2))
            class Initialised(nn.Module):
                def __init__(self):
                    self.apply(init_weights)
            class OwnApply(nn.Module):
                def __init__(self):
                    self.apply(1)
                def apply(self, value):
                    self.value = value
            class Plain(nn.Module):
                def __init__(self):
                    self.t = torch.zeros(2)
                    self.layers = [nn.Linear(2, 2)]
                    def later():
                        self.fc = nn.Linear(2, 2)
            class Made(nn.Module):
                def __init__(self):
                    self.fc = make_layer()
            """
        )
    )
    stores = {name for name, cls in classes.by_name.items() if cls.init_needs_module_state}
    assert stores == {"Layer", "Weight", "Buffer", "Initialised"}


PARAMETER_FREE = textwrap.dedent(
    """
    import torch
    import torchaudio
    from torch import nn

    class Resample(nn.Module):
        def __init__(self, orig_freq=16000, new_freq: int = 8000):
            super().__init__()
            self.ratio = orig_freq / new_freq
            self.resampler = torchaudio.transforms.Resample(orig_freq, new_freq)
            self.window = torch.ones(3)

    class Chain(Resample):
        def __init__(self):
            super().__init__()
            self.inner = Resample()
            self.act = nn.ReLU()

    class Passed(nn.Module):
        def __init__(self, inner, scale=None):
            super().__init__()
            self.inner = inner

    class Unpacked(nn.Module):
        def __init__(self):
            super().__init__()
            self.act, self.fc = nn.ReLU(), nn.Linear(2, 2)

    class Recursive(nn.Module):
        def __init__(self):
            super().__init__()
            self.child = Recursive()

    class Linear(nn.Linear):
        pass

    class Stateful(Resample):
        def build(self):
            self.fc = nn.Linear(2, 2)

    class Pitch(nn.Module):
        def __init__(self):
            super().__init__()
            self.shift = torchaudio.transforms.PitchShift(16000, 2)
    """
)


def test_a_module_class_is_parameter_free_only_when_all_it_stores_is_plain_or_parameter_free():
    classes, _ = _classes(PARAMETER_FREE)
    free = {cls.name for cls in classes if cls.parameter_free}
    assert free == {"Resample", "Chain"}
    assert not classes.builds_stateful_module(cst.parse_expression("Chain()"))
    assert classes.builds_stateful_module(cst.parse_expression("Passed(nn.Linear(2, 2))"))
    assert classes.builds_parameter_free_module(cst.parse_expression("torchaudio.transforms.MelSpectrogram()"))
    assert not classes.builds_parameter_free_module(cst.parse_expression("torchaudio.transforms.MVDR()"))
