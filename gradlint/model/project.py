"""What one file needs from the other files of its run: the outside names its spellings stand for
(`model.Variable` -> `torch.autograd.Variable`), what its star imports bring in, and which of its
names and functions other files use.

The project index (`gradlint.analysis.project`) works these out; the engine, the analyses, the fixer
and the cache read them. They are small and picklable, so that the process pool can hand them to
its workers.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class StarFacts:
    """What `from <module> import *` brings in: `names` for sure, and when `closed` is False also
    names not listed, which come from `fallback` (an outside module) when that is known."""

    names: frozenset[str]
    closed: bool = True
    fallback: Optional[str] = None


@dataclass(frozen=True)
class PassedValue:
    """What every construction of a class in the run passes for one constructor parameter the
    class keeps on `self`: an instance of an outside class, or a module of the project whose
    `forward` returns one shape whatever its input."""

    made_by: Optional[str] = None  # the outside callable that built it: "torch.utils.data.DataLoader"
    output_shape: Optional[tuple[Optional[int], ...]] = None  # (None, 1) for a `forward` ending in `.view(-1, 1)`


@dataclass(frozen=True)
class ProjectFacts:
    """What one file needs from the other files of its project (spellings as the file writes them)."""

    names: dict[str, str] = field(default_factory=dict)  # "model.Variable" -> "torch.autograd.Variable"
    stars: dict[str, StarFacts] = field(default_factory=dict)  # "model" / ".model" -> star exports
    reimported: frozenset[str] = frozenset()  # names other files use through this module: the clean-up keeps their imports
    # The file's top-level functions that another file of the run mentions (and so may call); None
    # when the run does not include every file that may import this one (a partial run, stdin).
    called_elsewhere: Optional[frozenset[str]] = None
    # "Trainer.D" -> what every construction of the file's class `Trainer` in the run passes for the
    # parameter `__init__` stores as `self.D`; only for a run that holds every file that may build it.
    passed: dict[str, PassedValue] = field(default_factory=dict)
    # What may reach the methods of the file's classes from another file of the run: the method names
    # another file spells, the classes another file's `class` statement names among its bases, and
    # "*" when a file of the run reads attributes by a computed name; None when not known (as above).
    reached_elsewhere: Optional[frozenset[str]] = None
    # "data.Corpus.train": attributes of other modules' classes that only ever hold an integer
    # tensor, as the file spells them; only for a run that holds every file that may write them.
    integer_attributes: frozenset[str] = frozenset()
    # "RN(0)" -> the attributes the project callable `RN` may write on the command-line namespace
    # the file hands it in that slot; a callable left out may write any.
    argument_writes: dict[str, frozenset[str]] = field(default_factory=dict)
    # "Trainer.batch_size": attributes of the file's classes that only the class's own methods
    # store in the run; only for a run that holds every file of the project.
    sealed_attributes: frozenset[str] = frozenset()
    # "model.G12", "densenet.DenseNet3": the `nn.Module` subclasses of the project's other
    # modules that the file imports, by the qualified names its imports give them.
    module_classes: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(
            self.names
            or self.stars
            or self.reimported
            or self.called_elsewhere is not None
            or self.passed
            or self.reached_elsewhere is not None
            or self.integer_attributes
            or self.argument_writes
            or self.sealed_attributes
            or self.module_classes
        )

    def key(self) -> str:
        """A stable digest of these facts, for cache keys."""
        parts = [repr(sorted(self.names.items())), repr(sorted(self.reimported))]
        parts.append("?" if self.called_elsewhere is None else repr(sorted(self.called_elsewhere)))
        parts.append("?" if self.reached_elsewhere is None else repr(sorted(self.reached_elsewhere)))
        parts.append(repr(sorted(self.integer_attributes)))
        parts += [f"{name}:{sorted(star.names)}:{star.closed}:{star.fallback}" for name, star in sorted(self.stars.items())]
        parts += [f"{name}={value.made_by}:{value.output_shape}" for name, value in sorted(self.passed.items())]
        parts += [f"{callee}>{sorted(written)}" for callee, written in sorted(self.argument_writes.items())]
        parts += [f"sealed:{name}" for name in sorted(self.sealed_attributes)]
        parts += [f"module:{name}" for name in sorted(self.module_classes)]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]

    def trigger_text(self) -> str:
        """The outside names this file may use without spelling them (for the rules' prefilter)."""
        return " ".join(self.names.values()) + " " + " ".join(star.fallback or "" for star in self.stars.values())
