"""How a vendored 0.3-era training script runs on synthetic data, and what it computed.

A script runs as its authors ran it (`python train.py --flags`), unedited: `sys.argv` is faked,
its working directory is a scratch folder holding small synthetic versions of the files it opens,
the packages it imports for data or display (torchvision's datasets, gym, cv2, ...) are stand-ins
serving small synthetic data, and it stops after a few optimisation steps. What it computed is the
value of every tensor it backpropagated (`Tensor.backward` and `torch.autograd.backward` are
wrapped), in order: the loss trajectory, comparable bit for bit between runs.

`tests/data/legacy_scripts/manifest.json` says, per script, which repository and commit it comes
from, its licence, its flags, its step cap, the stand-ins it needs and the files it opens.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import pickle
import random
import runpy
import sys
import traceback
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from legacy_shim import LegacyUse, legacy_semantics

CORPUS = Path(__file__).parent / "data" / "legacy_scripts"
MANIFEST = CORPUS / "manifest.json"


@dataclass(frozen=True)
class Script:
    repo: str
    path: str  # in the repository, and below the repository's folder of the corpus
    argv: tuple[str, ...]
    steps: int  # backward calls before the run is stopped
    standins: tuple[str, ...]  # names of STANDINS
    files: tuple[str, ...]  # names of FILES written to the scratch folder first
    workdir: str = "."  # below the scratch folder

    @property
    def name(self) -> str:
        return f"{self.repo.split('/')[0]}/{self.path}"

    @property
    def folder(self) -> str:
        """The repository's folder in the corpus."""
        return self.repo.replace("/", "__")


def load_manifest() -> tuple[dict, tuple[Script, ...]]:
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    scripts = tuple(
        Script(
            entry["repo"],
            entry["path"],
            tuple(entry.get("argv", ())),
            entry.get("steps", 4),
            tuple(entry.get("standins", ())),
            tuple(entry.get("files", ())),
            entry.get("workdir", "."),
        )
        for entry in manifest["scripts"]
    )
    return manifest["repositories"], scripts


# ---------------------------------------------------------------------------------------------
# Recording the losses and stopping after a few steps.


class StepCap(BaseException):
    """Raised at the backward call after the last one recorded. A BaseException, so that a
    script's own `except Exception:` does not swallow it."""


@dataclass
class Run:
    losses: list[str] = field(default_factory=list)  # float.hex of each backpropagated value (summed)
    error: str | None = None  # the exception's last line, with the script frame that raised it
    trace: str = ""
    output: str = ""
    legacy: LegacyUse | None = None
    # `.detach()` sites in the scripts: (file, line) -> [calls, calls on a value with history]
    detaches: dict[tuple[str, int], list[int]] = field(default_factory=dict)

    @property
    def ran(self) -> bool:
        """It reached its step cap, or ended by itself after at least one step."""
        return self.error is None and bool(self.losses)

    @property
    def history_free_detaches(self) -> list[tuple[str, int]]:
        return sorted(site for site, (calls, with_history) in self.detaches.items() if calls and not with_history)


def _value(tensor) -> str:
    with torch.no_grad():
        total = tensor.detach().double().sum().item() if isinstance(tensor, torch.Tensor) else float("nan")
    return float(total).hex()


@contextlib.contextmanager
def recorded_backward(run: Run, steps: int):
    """Each outermost backward call records its tensor's value; the call after `steps` stops."""
    tensor_backward, autograd_backward = torch.Tensor.backward, torch.autograd.backward
    depth = [0]

    def record(tensor):
        if depth[0] == 0:
            if len(run.losses) >= steps:
                raise StepCap
            first = tensor[0] if isinstance(tensor, (list, tuple)) and tensor else tensor
            run.losses.append(_value(first))

    def backward(self, *args, **kwargs):
        record(self)
        depth[0] += 1
        try:
            return tensor_backward(self, *args, **kwargs)
        finally:
            depth[0] -= 1

    def functional_backward(tensors, *args, **kwargs):
        record(tensors)
        depth[0] += 1
        try:
            return autograd_backward(tensors, *args, **kwargs)
        finally:
            depth[0] -= 1

    torch.Tensor.backward, torch.autograd.backward = backward, functional_backward
    try:
        yield
    finally:
        torch.Tensor.backward, torch.autograd.backward = tensor_backward, autograd_backward


def has_history(tensor: torch.Tensor) -> bool:
    """Whether autograd could reach anything through the tensor: a graph behind it, or it is a
    leaf that requires grad (a parameter). Without either, `.detach()` only copies the handle."""
    return tensor.requires_grad or tensor.grad_fn is not None


@contextlib.contextmanager
def recorded_detaches(root: Path, sites: dict):
    """Count, per `.detach()` call site in the files under `root` ((path relative to it, line)),
    the calls and those on a value with history."""
    original = torch.Tensor.detach
    prefix = str(root.resolve())

    def detach(self):
        caller = sys._getframe(1)
        if caller.f_code.co_filename.startswith(prefix):
            where = (os.path.relpath(caller.f_code.co_filename, prefix), caller.f_lineno)
            counts = sites.setdefault(where, [0, 0])
            counts[0] += 1
            counts[1] += has_history(self)
        return original(self)

    torch.Tensor.detach = detach
    try:
        yield
    finally:
        torch.Tensor.detach = original


# ---------------------------------------------------------------------------------------------
# Stand-ins for the packages the scripts import for data, display or hardware.


class SyntheticImages(Dataset):
    """`size` images of `shape` in [0, 1] with labels below `classes`, the same on every run (100, so that
    a script assuming full batches of 100, as MNIST's 60000 images give, gets them)."""

    def __init__(self, shape, classes, size=100, seed=0, transform=None, target_transform=None, label=int):
        self.shape, self.classes, self.size, self.seed = shape, classes, size, seed
        self.transform, self.target_transform, self.label = transform, target_transform, label

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        generator = torch.Generator().manual_seed(self.seed * 100_003 + index)
        image = torch.rand(self.shape, generator=generator)
        label = self.label(int(torch.randint(self.classes, (1,), generator=generator)))
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label


def _image_dataset(shape, classes, label=int):
    def dataset(root=None, train=True, download=False, transform=None, target_transform=None, split=None, **_):
        is_train = train if split is None else split == "train"
        return SyntheticImages(
            shape, classes, seed=0 if is_train else 1, transform=transform, target_transform=target_transform, label=label
        )

    return dataset


def _size_pair(size):
    return (size, size) if isinstance(size, int) else tuple(size)


class _Transforms:
    """torchvision.transforms on the synthetic images, which are already tensors in [0, 1]."""

    class Compose:
        def __init__(self, transforms):
            self.transforms = transforms

        def __call__(self, image):
            for transform in self.transforms:
                image = transform(image)
            return image

    class ToTensor:
        def __call__(self, image):
            return image

    class Normalize:
        """Channel by channel, as many as the image has (torchvision zipped the channels with the means)."""

        def __init__(self, mean, std):
            self.mean, self.std = torch.tensor(mean).view(-1, 1, 1), torch.tensor(std).view(-1, 1, 1)

        def __call__(self, image):
            channels = image.shape[0]
            return (image - self.mean[:channels]) / self.std[:channels]

    class Scale:
        def __init__(self, size, *_):
            self.size = size

        def __call__(self, image):
            height, width = image.shape[-2:]
            if isinstance(self.size, int):
                scale = self.size / min(height, width)
                target = (round(height * scale), round(width * scale))
            else:
                target = tuple(self.size)
            return F.interpolate(image[None], size=target, mode="bilinear", align_corners=False)[0]

    Resize = Scale

    class CenterCrop:
        def __init__(self, size):
            self.size = _size_pair(size)

        def __call__(self, image):
            height, width = image.shape[-2:]
            top, left = (height - self.size[0]) // 2, (width - self.size[1]) // 2
            return image[..., top : top + self.size[0], left : left + self.size[1]]

    class RandomCrop(CenterCrop):
        def __init__(self, size, padding=0):
            super().__init__(size)
            self.padding = padding

        def __call__(self, image):
            return super().__call__(F.pad(image, [self.padding] * 4))

    class Pad:
        def __init__(self, padding, fill=0):
            self.padding = padding

        def __call__(self, image):
            return F.pad(image, [self.padding] * 4)

    class Lambda:
        def __init__(self, function):
            self.function = function

        def __call__(self, image):
            return self.function(image)

    class _Identity:
        def __init__(self, *_, **__):
            pass

        def __call__(self, image):
            return image

    RandomHorizontalFlip = RandomSizedCrop = RandomResizedCrop = ColorJitter = _Identity


def _torchvision() -> dict[str, types.ModuleType]:
    torchvision = types.ModuleType("torchvision")
    datasets = types.ModuleType("torchvision.datasets")
    datasets.MNIST = datasets.FashionMNIST = _image_dataset((1, 28, 28), 10)
    datasets.CIFAR10 = _image_dataset((3, 32, 32), 10)
    # The SVHN of 2017 gave each label as the .mat file's row: an array of one digit from 1 to 10.
    datasets.SVHN = _image_dataset((3, 32, 32), 10, label=lambda digit: np.array([digit + 1]))
    datasets.CIFAR100 = _image_dataset((3, 32, 32), 100)
    datasets.STL10 = _image_dataset((3, 96, 96), 10)
    datasets.ImageFolder = datasets.LSUN = _image_dataset((3, 64, 64), 10)
    transforms = types.ModuleType("torchvision.transforms")
    for name, value in vars(_Transforms).items():
        if not name.startswith("__"):
            setattr(transforms, name, value)
    utils = types.ModuleType("torchvision.utils")
    utils.save_image = lambda *args, **kwargs: None
    utils.make_grid = lambda tensor, *args, **kwargs: tensor
    torchvision.datasets, torchvision.transforms, torchvision.utils = datasets, transforms, utils
    return {"torchvision": torchvision, "torchvision.datasets": datasets, "torchvision.transforms": transforms, "torchvision.utils": utils}


class CartPole:
    """gym's CartPole-v0 dynamics, with gym's check that an action is a Python or numpy integer."""

    def __init__(self):
        self.random = np.random.RandomState(0)
        self.state = None
        self.steps = 0
        self.spec = types.SimpleNamespace(reward_threshold=195.0)
        self.action_space = types.SimpleNamespace(n=2)
        self.observation_space = types.SimpleNamespace(shape=(4,))

    def seed(self, seed=None):
        self.random = np.random.RandomState(seed)
        return [seed]

    def reset(self):
        self.state = self.random.uniform(-0.05, 0.05, size=(4,))
        self.steps = 0
        return np.array(self.state)

    def step(self, action):
        assert isinstance(action, (int, np.integer)) and action in (0, 1), f"{action!r} ({type(action)}) invalid"
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot * theta_dot * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos * cos / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * x_acc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * theta_acc
        self.state = (x, x_dot, theta, theta_dot)
        self.steps += 1
        done = abs(x) > 2.4 or abs(theta) > 12 * 2 * math.pi / 360 or self.steps >= 200
        return np.array(self.state), 1.0, done, {}

    def render(self, *args, **kwargs):
        return None


def _gym() -> dict[str, types.ModuleType]:
    gym = types.ModuleType("gym")
    gym.make = lambda name: CartPole()
    return {"gym": gym}


class _Anything(types.ModuleType):
    """A module whose every attribute is a callable that accepts anything and returns itself."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args, **kwargs):
        return self


def _inert(*names: str):
    def modules() -> dict[str, types.ModuleType]:
        return {name: _Anything(name) for name in names}

    return modules


def _six() -> dict[str, types.ModuleType]:
    six = types.ModuleType("six")
    moves = types.ModuleType("six.moves")
    moves.cPickle = pickle
    six.moves = moves
    return {"six": six, "six.moves": moves}


class _InProcess:
    """torch.multiprocessing.Process running its target in this process, when started."""

    def __init__(self, target, args=(), kwargs=None):
        self.target, self.args, self.kwargs = target, args, kwargs or {}

    def start(self):
        self.target(*self.args, **self.kwargs)

    def join(self, *args):
        return None


# Module stand-ins by name. Two are patches instead: "cuda" runs `.cuda()` on the CPU (there is no
# GPU here), "in_process" runs torch.multiprocessing's processes in this process.
STANDINS = {
    "torchvision": _torchvision,
    "gym": _gym,
    "six": _six,
    "display": _inert(
        "cv2",
        "IPython",
        "progressbar",
        "tensorboard_logger",
        "matplotlib",
        "matplotlib.pyplot",
        "PIL",
        "PIL.Image",
        "visdom",
        "scipy",
        "scipy.io",
        "scipy.misc",
    ),
}


@contextlib.contextmanager
def standins(names: tuple[str, ...]):
    modules = {}
    for name in names:
        if name not in ("cuda", "in_process"):
            modules.update(STANDINS[name]())
    saved = {name: sys.modules.get(name) for name in modules}
    patches = []
    if "cuda" in names:
        on_cpu = lambda self, *args, **kwargs: self  # noqa: E731
        patches = [(torch.Tensor, "cuda"), (torch.nn.Module, "cuda")]
    replacements = [(owner, name, on_cpu) for owner, name in patches]
    if "in_process" in names:
        replacements.append((torch.multiprocessing, "Process", _InProcess))
    previous = [(owner, name, getattr(owner, name)) for owner, name, _ in replacements]
    sys.modules.update(modules)
    for owner, name, value in replacements:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in previous:
            setattr(owner, name, value)
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


@contextlib.contextmanager
def loaders_in_process():
    """DataLoader workers are processes: on two shared cores they cost more than the steps."""
    original = DataLoader.__init__

    def init(self, *args, **kwargs):
        kwargs["num_workers"] = 0
        kwargs.pop("pin_memory", None)
        original(self, *args, **kwargs)

    DataLoader.__init__ = init
    try:
        yield
    finally:
        DataLoader.__init__ = original


# ---------------------------------------------------------------------------------------------
# Synthetic versions of the files the scripts open.


def _sine_waves(folder: Path) -> None:
    """time_sequence_prediction's traindata.pt (generate_sine_wave.py's recipe, 10 waves of 60)."""
    rng = np.random.RandomState(2)
    x = np.array(range(60)) + rng.randint(-80, 80, 10).reshape(10, 1)
    torch.save(np.sin(x / 1.0 / 20).astype("float64"), open(folder / "traindata.pt", "wb"))


def _text(folder: Path, names: tuple[str, ...], lines: int) -> None:
    words = "the cat sat on a mat and the dog ran to the park while birds sang".split()
    rng = random.Random(3)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        text = "\n".join(" ".join(rng.choice(words) for _ in range(rng.randint(4, 9))) for _ in range(lines))
        (folder / name).write_text(text + "\n", encoding="utf-8")


def _penn(folder: Path) -> None:
    _text(folder / "data" / "penn", ("train.txt", "valid.txt", "test.txt"), 60)


def _rvae_text(folder: Path) -> None:
    _text(folder / "data", ("train.txt", "test.txt"), 40)


def _sort_of_clevr(folder: Path) -> None:
    """data/sort-of-clevr.pickle: (train, test), each a list of (image, relations, non-relations)."""
    rng = np.random.RandomState(4)

    def sample():
        questions = lambda: ([rng.randint(0, 2, 11).astype(np.float32) for _ in range(10)], [int(a) for a in rng.randint(0, 10, 10)])  # noqa: E731
        return (rng.rand(75, 75, 3).astype(np.float32), questions(), questions())

    (folder / "data").mkdir()
    with open(folder / "data" / "sort-of-clevr.pickle", "wb") as file:
        pickle.dump(([sample() for _ in range(8)], [sample() for _ in range(2)]), file)


def _shapenet(folder: Path) -> None:
    """The ShapeNet part-segmentation layout PointNet reads: two categories of sixty shapes."""
    root = folder / "shapenetcore_partanno_segmentation_benchmark_v0"
    rng = np.random.RandomState(5)
    categories = {"Airplane": "02691156", "Chair": "03001627"}
    root.mkdir()
    (root / "synsetoffset2category.txt").write_text("".join(f"{name}\t{code}\n" for name, code in categories.items()))
    for code in categories.values():
        (root / code / "points").mkdir(parents=True)
        (root / code / "points_label").mkdir()
        for shape in range(60):
            np.savetxt(root / code / "points" / f"{shape}.pts", rng.rand(50, 3))
            np.savetxt(root / code / "points_label" / f"{shape}.seg", rng.randint(1, 4, 50), fmt="%d")


FILES = {
    "sine_waves": _sine_waves,
    "penn": _penn,
    "rvae_text": _rvae_text,
    "sort_of_clevr": _sort_of_clevr,
    "shapenet": _shapenet,
}


# ---------------------------------------------------------------------------------------------
# Running one script.


def _error(exc: BaseException, root: Path) -> str:
    """`ExceptionType: message (file:line)` with the innermost frame in the scripts."""
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if frame.filename.startswith(str(root.resolve()))]
    where = f" ({os.path.relpath(frames[-1].filename, root.resolve())}:{frames[-1].lineno})" if frames else ""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message[:200]}{where}"


def run_script(root: Path, script: Script, scratch: Path, *, legacy: bool) -> Run:
    """Run `script` of the corpus copy at `root` in `scratch`, under the 0.3 meanings if `legacy`."""
    home = (root / script.folder / script.path).parent
    workdir = scratch / script.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    for name in script.files:
        FILES[name](scratch)
    run = Run()
    stdout = io.StringIO()
    saved_argv, saved_cwd, saved_path, saved_environ = sys.argv, os.getcwd(), list(sys.path), dict(os.environ)
    repository = str((root / script.folder).resolve())
    sys.argv = [str(home / Path(script.path).name), *script.argv]
    sys.path[:0] = [str(home), repository]
    os.chdir(workdir)
    torch.manual_seed(0), random.seed(0), np.random.seed(0)
    try:
        with contextlib.ExitStack() as stack:
            if legacy:
                run.legacy = stack.enter_context(legacy_semantics(root))
            stack.enter_context(standins(script.standins))
            stack.enter_context(loaders_in_process())
            stack.enter_context(recorded_detaches(root, run.detaches))
            stack.enter_context(recorded_backward(run, script.steps))
            stack.enter_context(warnings.catch_warnings())
            warnings.simplefilter("ignore")
            stack.enter_context(contextlib.redirect_stdout(stdout))
            stack.enter_context(contextlib.redirect_stderr(stdout))
            try:
                runpy.run_path(sys.argv[0], run_name="__main__")
            except StepCap:
                pass
            except SystemExit as exit:
                if exit.code not in (None, 0):
                    run.error = f"SystemExit: {exit.code}"
            except Exception as exc:  # what the script raised is the result
                run.error = _error(exc, root)
                run.trace = traceback.format_exc()
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)
        sys.argv = saved_argv
        sys.path[:] = saved_path
        for name, module in list(sys.modules.items()):
            if getattr(module, "__file__", None) and str(module.__file__).startswith(str(root.resolve())):
                del sys.modules[name]
    run.output = stdout.getvalue()
    return run
