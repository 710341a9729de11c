"""The torch API table: what gradlint knows about each tensor method, tensor attribute,
`nn.Module` method and torch function or class, and about the APIs torch removed or renamed.

One place for what the analyses and rules know of torch's API (which calls make tensors, which
keep autograd history, which return a view, a number, the receiver, a module...). The tables are
data: one row per API in `method_table`, `attribute_table`, `module_table` and `function_table`,
read through the queries below; the migration tables (`removed`, `renamed`, `legacy_linalg`,
`legacy_losses`, `amp`, `context_managers`, `deprecations`) are records with the version that deprecated or
removed each API and what replaces it; `environments` names the gym environments whose `step`
rejects a tensor action. A fact about an API is written once, and
tests/test_torch_api.py measures each row under torch 2.13.

    methods("ends")                   # tensor methods whose result never has history
    methods("view", without=("tuple",))
    functions("factory", "sized")     # `torch.randn`, `torch.zeros`, ...
    method("add_").inplace_of         # "add"
    out_of_place_twins()              # "add", "abs", "clamp", ... (of `add_`, `abs_`, `clamp_`, ...)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Optional

from gradlint.analysis.torch_api import amp, context_managers, deprecations, environments, legacy_linalg, legacy_losses, removed, renamed
from gradlint.analysis.torch_api import attribute_table as _attributes
from gradlint.analysis.torch_api import function_table as _functions
from gradlint.analysis.torch_api import method_table as _methods
from gradlint.analysis.torch_api import module_table as _module_methods
from gradlint.analysis.torch_api.records import Row, read_rows

METHODS: Mapping[str, Row] = read_rows(_methods.ROWS, _methods.VOCABULARY, "methods")
FUNCTIONS: Mapping[str, Row] = read_rows(_functions.ROWS, _functions.VOCABULARY, "functions")
ATTRIBUTES: Mapping[str, Row] = read_rows(_attributes.ROWS, _attributes.VOCABULARY, "attributes")
MODULE_METHODS: Mapping[str, Row] = read_rows(_module_methods.ROWS, _module_methods.VOCABULARY, "module methods")


@dataclass(frozen=True)
class Method:
    """A tensor method's row, with its in-place twin."""

    row: Row

    @property
    def name(self) -> str:
        return self.row.name

    @property
    def inplace_of(self) -> Optional[str]:
        """`add_` is `add` in place: the out-of-place twin of an in-place method, when recorded."""
        twin = _out_of_place(self.name)
        return twin if twin in METHODS else None

    @property
    def inplace_twin(self) -> Optional[str]:
        """`add` has `add_`: the in-place twin of an out-of-place method, when recorded."""
        twin = self.name + "_"
        return twin if twin in METHODS else None

    def has(self, word: str) -> bool:
        return self.row.has(word)

    def value(self, word: str) -> Optional[str]:
        return self.row.value(word)


def method(name: str) -> Optional[Method]:
    row = METHODS.get(name)
    return Method(row) if row is not None else None


def function(qualified: str) -> Optional[Row]:
    return FUNCTIONS.get(qualified)


@lru_cache(maxsize=None)
def methods(*words: str, without: tuple[str, ...] = ()) -> frozenset[str]:
    """Names of the tensor methods whose rows have every word of `words` and none of `without`."""
    return _select(METHODS, _methods.VOCABULARY, words, without)


@lru_cache(maxsize=None)
def in_place_methods() -> frozenset[str]:
    """The recorded in-place tensor methods (`add_`, `zero_`): each returns its receiver."""
    return frozenset(name for name in METHODS if _out_of_place(name) is not None)


@lru_cache(maxsize=None)
def out_of_place_twins() -> frozenset[str]:
    """The recorded out-of-place twins of the recorded in-place methods (`add` of `add_`): each
    returns a new tensor and leaves its receiver as it was."""
    return frozenset(twin for twin in (method(name).inplace_of for name in METHODS) if twin is not None)


@lru_cache(maxsize=None)
def functions(*words: str, without: tuple[str, ...] = ()) -> frozenset[str]:
    """Qualified names of the torch functions whose rows have every word and none of `without`."""
    return _select(FUNCTIONS, _functions.VOCABULARY, words, without)


@lru_cache(maxsize=None)
def attributes(*words: str, without: tuple[str, ...] = ()) -> frozenset[str]:
    """Names of the tensor attributes whose rows have every word and none of `without`."""
    return _select(ATTRIBUTES, _attributes.VOCABULARY, words, without)


@lru_cache(maxsize=None)
def module_methods(*words: str, without: tuple[str, ...] = ()) -> frozenset[str]:
    """Names of the `nn.Module` methods whose rows have every word and none of `without`."""
    return _select(MODULE_METHODS, _module_methods.VOCABULARY, words, without)


def rejects_tensor_actions(factory: Optional[str], environment_id: str) -> bool:
    """`factory(environment_id)` (`gym.make("CartPole-v0")`) makes an environment whose `step`
    raises for a tensor action whatever its value (see `environments`)."""
    return factory in environments.ENVIRONMENT_FACTORIES and environment_id in environments.TENSOR_REJECTING_ENVIRONMENTS


def short_names(qualified: Iterable[str]) -> frozenset[str]:
    """`torch.nn.functional.dropout` -> `dropout`."""
    return frozenset(name.rsplit(".", 1)[-1] for name in qualified)


def knows(name: str) -> bool:
    """A name the table records: a tensor method or attribute, a module method, a torch function or
    class (qualified, or by its last name), or an API of a migration table."""
    return name in recorded_names()


@lru_cache(maxsize=None)
def recorded_names() -> frozenset[str]:
    qualified = {
        *FUNCTIONS,
        *removed.REMOVED_FUNCTIONS,
        *removed.REMOVED_FFT_FUNCTIONS,
        *removed.REMOVED_MODULES,
        *renamed.RENAMED,
        *amp.LEGACY_AMP,
        *deprecations.CALLABLES,
        *context_managers.CONTEXT_MANAGER_CLASSES,
        *(f"torch.{name}" for name in legacy_linalg.LEGACY_LINALG),
        *(f"torch.nn.{name}" for name in legacy_losses.LOSS_MODULE_PARAMETERS),
        *(f"torch.nn.functional.{name}" for name in legacy_losses.LOSS_FUNCTION_PARAMETERS),
    }
    return frozenset({*METHODS, *deprecations.METHODS, *ATTRIBUTES, *MODULE_METHODS, *qualified, *short_names(qualified)})


def _select(table: Mapping[str, Row], vocabulary: Mapping[str, str], words, without) -> frozenset[str]:
    for word in (*words, *without):
        if word not in vocabulary:
            raise KeyError(f"no property {word!r} in this table")
    return frozenset(name for name, row in table.items() if all(row.has(w) for w in words) and not any(row.has(w) for w in without))


def _out_of_place(name: str) -> Optional[str]:
    if not name.endswith("_") or name.startswith("_"):
        return None
    return name[:-1]
