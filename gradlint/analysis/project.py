"""The files of one run as a project: which local modules exist, what each binds at module level,
and which names a file brings in from them (explicitly, as module attributes, or by star imports).

Rules only need one thing from other files: when a name imported from a local module is really an
import of an outside library (`model.py` does `from torch.autograd import Variable`), the
importing file must see the outside name. Each file gets `ProjectFacts` (`gradlint.model.project`): a small, picklable map
from its own spellings (`model.Variable`, `.model.Variable`) to those outside names, plus what its
local star imports bring in. Names that stay inside the project (a class defined in `model.py`)
are left as the single-file analysis spells them.

For the fixer the index answers the other way round too (`users_of`): which names of a module
other files use through it, so that the import clean-up keeps them. A star import counts as a use of
the names its importer spells (and of every name of a literal `__all__`, which the star import
needs), not of everything the module binds.

A run over part of a project (`check train.py`, stdin, an editor) still resolves through the local
modules its files import: given `read_outside`, a module file that is not in the run is read from
disk when an import of a run file (directly or through such modules) names it, and only then.

The index is cheap by construction: import statements are found with a text scan and read by a
small parser, a module is parsed whole (with CPython's `ast`, never LibCST) only when a name asked
for may be one of its imports, and a file's facts are worked out only when asked for.
"""

from __future__ import annotations

import ast
import os
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Mapping, Optional, Sequence

from gradlint.analysis.attribute_writes import AttributeWrites
from gradlint.analysis.constructor_arguments import MODULE_BASES as _MODULE_BASES
from gradlint.analysis.constructor_arguments import ConstructorArguments, may_pass_stored_arguments, used_attributes
from gradlint.analysis.python_classes import dotted as _dotted
from gradlint.analysis.imports import CANONICAL
from gradlint.analysis.integer_attributes import integer_attributes
from gradlint.model.project import PassedValue, ProjectFacts, StarFacts

# Modules whose public spelling is what rules match: when torch's own sources are the project,
# `torch.nn.Module` must stay `torch.nn.Module`, not become the module that defines it.
FINAL_PACKAGES = frozenset({"torch"})
# A module larger than this is not parsed whole, so what it re-exports stays unresolved: the modules
# that re-export names in a training project are small, while parsing the largest modules of a
# library (when a library is the project) cost more than the rest of the index together.
MAX_MODULE_BYTES = 64 * 1024

ReadOutside = Callable[[str], Optional[bytes]]  # a module file's path -> its source; None: absent, or not to be read


@dataclass(frozen=True)
class _Import:
    """One import statement's binding: `from <module> import <name> as <local>` (name None: star),
    or `import <module> as <local>` (name None, star False)."""

    module: str
    level: int
    name: Optional[str]
    local: Optional[str]
    star: bool = False


_TOP_LEVEL_DEF = re.compile(rb"^(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)


# A `def` indented in a class (or a function: over-approximating the methods only costs a lookup).
_METHOD_DEF = re.compile(rb"^[ \t]+(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_CLASS_DEF = re.compile(rb"^[ \t]*class[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)
_CLASS_BASES = re.compile(rb"^[ \t]*class[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\(", re.MULTILINE)
# Calls that read an attribute whose name they are given: each is literal only when every name
# argument is a plain string; `getattr` takes it second, the others first (and further).
_NAMED_READERS = re.compile(rb"\b(getattr|attrgetter|methodcaller)[ \t]*\(")
# Reads of every attribute of an object by whatever name.
_ANY_ATTRIBUTE_READERS = re.compile(rb"\b(?:getmembers|__getattribute__)\b")
_DOTTED_WORDS = re.compile(rb"([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]*\.[ \t]*[A-Za-z_][A-Za-z0-9_]*)*")
# A text that may build an integer tensor with a legacy constructor.
_INTEGER_CONSTRUCTION = re.compile(rb"(?:Long|Int|Short|Byte|Char|Bool)Tensor[ \t]*\(")
# A class without a base but `object` (the only kind `integer_attributes` reads).
_PLAIN_CLASS = re.compile(rb"^class[ \t]+\w+[ \t]*(?:\([ \t]*(?:object)?[ \t]*\))?[ \t]*:", re.MULTILINE)
# `obj.name = ...`, `obj.name += ...`: the attribute names a text may write.
_ATTRIBUTE_WRITE = re.compile(rb"\.[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:[-+*/%&|^@]|//|\*\*|<<|>>)?=(?!=)")
# Writes of an object's attributes by whatever name: `setattr`, and an object's `__dict__` or
# `vars(obj)` other than read through one of the dict's reading methods.
_ANY_ATTRIBUTE_WRITERS = re.compile(
    rb"\bsetattr\b|(?:__dict__|\bvars[ \t]*\([^()]*\))(?![ \t]*\.[ \t]*(?:items|keys|values|get|copy)[ \t]*\()"
)
_PLAIN_STRING = re.compile(rb"[rRuU]?(?:'[A-Za-z0-9_.]*'|\"[A-Za-z0-9_.]*\")")


def _top_level_functions(source: bytes) -> frozenset[str]:
    return frozenset(match.decode() for match in _TOP_LEVEL_DEF.findall(source))


def _base_words(source: bytes) -> frozenset[str]:
    """The words of every `class` statement's bases (`class A(nn.Module, Mixin)`: nn, Module, Mixin)."""
    found: set[str] = set()
    for match in _CLASS_BASES.finditer(source):
        arguments = _call_arguments(source, match.end())
        found.update(word for argument in arguments for word in _WORD.findall(argument.decode("utf-8", "replace")))
    return frozenset(found)


def reads_computed_attributes(source: bytes, imported: frozenset[str] = frozenset()) -> bool:
    """The source may read an attribute by a name computed at run time: `getattr(obj, name)`,
    `attrgetter(name)`, `methodcaller(name)` with a name that is not a plain string literal,
    `inspect.getmembers`, `__getattribute__`. Not `getattr(nn, rnn_type)` on a name the file
    binds only by an import (`imported`): a module's attributes are not an instance's methods.
    A text scan: anything it cannot read counts."""
    if _ANY_ATTRIBUTE_READERS.search(source):
        return True
    for match in _NAMED_READERS.finditer(source):
        arguments = _call_arguments(source, match.end())
        if match.group(1) == b"getattr":
            if arguments and _only_imported(arguments[0].strip(), imported, source):
                continue
            names = arguments[1:2]
        else:
            names = arguments[:1] if match.group(1) == b"methodcaller" else arguments
        if not names or not all(_PLAIN_STRING.fullmatch(name.strip()) for name in names):
            return True
    return False


def _only_imported(receiver: bytes, imported: frozenset[str], source: bytes) -> bool:
    """`receiver` is a name (or a dotted path from one) that the file binds by an import and
    assigns nowhere."""
    found = _DOTTED_WORDS.fullmatch(receiver)
    if found is None:
        return False
    root = found.group(1)
    if root.decode() not in imported:
        return False
    name = re.escape(root)
    assigned = rb"^[ \t]*[\w, \t]*(?<![\w.])" + name + rb"\b[\w, \t]*=(?!=)"
    looped = rb"\bfor[ \t]+[\w, \t()]*(?<![\w.])" + name + rb"\b[\w, \t()]*[ \t]in\b"
    return re.search(assigned + rb"|" + looped, source, re.MULTILINE) is None


def _call_arguments(source: bytes, start: int) -> list[bytes]:
    """The top-level arguments of the call whose `(` ends right before `start`, as text; strings
    are skipped over roughly (a quote inside another string may cut an argument short, which
    then reads as computed)."""
    arguments: list[bytes] = []
    depth, position, begin = 0, start, start
    while position < len(source):
        character = source[position : position + 1]
        if character in (b"'", b'"'):
            end = source.find(character, position + 1)
            position = len(source) if end == -1 else end + 1
            continue
        if character in (b"(", b"[", b"{"):
            depth += 1
        elif character in (b")", b"]", b"}"):
            if depth == 0:
                arguments.append(source[begin:position])
                return [argument for argument in arguments if argument.strip()]
            depth -= 1
        elif character == b"," and depth == 0:
            arguments.append(source[begin:position])
            begin = position + 1
        position += 1
    return [argument for argument in arguments if argument.strip()]


_DEFINED = object()  # bound at module level by something other than one import
_UNKNOWN = object()


@dataclass
class _Module:
    """Module-level facts of one file, from a full `ast` parse."""

    bindings: dict[str, object] = field(default_factory=dict)  # name -> _Import, _DEFINED or _UNKNOWN
    stars: list[_Import] = field(default_factory=list)
    all_names: Optional[tuple[str, ...]] = None


class ProjectIndex:
    """Built once per run from (path, source bytes); `facts_for(path)` answers per file."""

    def __init__(
        self,
        files: Sequence[tuple[str, bytes]],
        roots: Sequence[str] = (),
        removed: Mapping[str, Iterable[str]] = {},
        read_outside: Optional[ReadOutside] = None,
    ) -> None:
        """`removed`: names whose imports a fix took out of a file; they count as still imported
        there, so that `users_of` finds the files that would break without them. `read_outside`:
        how to read a module of the project that is not in the run (None: such modules are unknown)."""
        self._sources: dict[str, bytes] = {}
        for path, raw in files:
            self._sources[os.path.abspath(path)] = raw
        self._run = frozenset(self._sources)
        self._read_outside = read_outside
        self._outside: dict[str, Optional[bytes]] = {}  # module files looked for on disk, and what they hold
        self._removed = {os.path.abspath(path): frozenset(names) for path, names in removed.items()}
        self._roots = [os.path.abspath(root) for root in roots]
        self._packages = {os.path.dirname(path) for path in self._sources if os.path.basename(path) == "__init__.py"}
        self._tops: dict[str, str] = {}
        self._local = {path for path in self._sources if not self._is_final(path)}
        self._statements: dict[str, list[_Import]] = {}
        self._modules: dict[str, Optional[_Module]] = {}
        self._trees: dict[str, Optional[ast.Module]] = {}
        self._passed: dict[str, dict[str, PassedValue]] = {}
        self._constructor_arguments: Optional[ConstructorArguments] = None
        self._attribute_writes: Optional[AttributeWrites] = None
        self._located: dict[tuple[str, str], Optional[str]] = {}
        self._resolved: dict[tuple[str, str], Optional[str]] = {}
        self._star_exports: dict[str, StarFacts] = {}
        self._facts: dict[str, ProjectFacts] = {}
        self._reimported: dict[str, dict[str, set[str]]] = {}  # module -> name -> files using it through the module
        self._words: dict[str, frozenset[str]] = {}
        self._files_by_word: Optional[Counter[str]] = None  # word -> how many run files spell it
        self._files_by_base: Optional[dict[str, set[str]]] = None  # word -> the run files whose class bases spell it
        self._computed_reads: Optional[bool] = None  # some file of the run reads attributes by a computed name
        self._files_writing: Optional[dict[str, set[str]]] = None  # attribute -> the run files that may write it ("*": any)
        self._integers: dict[str, frozenset[tuple[str, str]]] = {}
        self._done: set[str] = set()  # files whose own imports have been looked at
        self._unread: set[str] = set()  # files whose imports could not be followed
        self._importers: Optional[dict[str, set[str]]] = None  # module -> the run files whose imports name it

    # -- per-file answers -------------------------------------------------------------------

    def facts_for(self, path: str, *, for_fix: bool = False) -> Optional[ProjectFacts]:
        """The facts `path` uses from other files, or None when it uses none. `for_fix` adds the
        names other files import from it (the fixer must keep those imports)."""
        key = os.path.abspath(path)
        self._look_at(key)
        facts = self._facts.get(key)
        reimported = frozenset(self.users_of(key) or ()) if for_fix else frozenset()
        if reimported:
            facts = replace(facts, reimported=reimported) if facts else ProjectFacts(reimported=reimported)
        return facts or None

    def users_of(self, path: str) -> Optional[dict[str, frozenset[str]]]:
        """The names of module `path` that other files use through it, each with those files;
        None when some file's imports could not be followed (any name may be used)."""
        if len(self._done) < len(self._run):
            for importer in self._run:
                self._look_at(importer)  # whether another file imports from `path` needs them all
        if self._unread:
            return None
        used = self._reimported.get(os.path.abspath(path), {})
        return {name: frozenset(importers) for name, importers in used.items()}

    def functions_mentioned_elsewhere(self, path: str) -> frozenset[str]:
        """The top-level functions of module `path` whose names appear in a file of the run that
        imports it, directly or through other local modules. A name no such file spells (as a
        word, in code or in a string) cannot be called from another file of the run."""
        key = os.path.abspath(path)
        defined = _top_level_functions(self._sources.get(key, b""))
        if not defined:
            return frozenset()
        unseen, mentioned = set(defined), set()
        for importer in self._importers_of(key):  # each importer's words once, not once per function
            found = unseen.intersection(self._words_of(importer))
            mentioned |= found
            unseen -= found
            if not unseen:
                break
        return frozenset(mentioned)

    def methods_reached_elsewhere(self, path: str) -> frozenset[str]:
        """What may reach a method of module `path`'s classes from another file of the run: the
        names of its methods another file spells (as a word, in code or in a string: a call, a
        bound method handed over, `getattr(obj, "name")`), the names of its classes another file's
        `class` statement lists among its bases, and "*" when a file of the run (this one
        included) reads attributes by a computed name (`getattr(obj, name)`), which may be any
        method. Every file's words are read once per run, and only when some file asks."""
        key = os.path.abspath(path)
        source = self._sources.get(key, b"")
        methods = {match.decode() for match in _METHOD_DEF.findall(source)}
        if key not in self._run or not methods:
            return frozenset()
        own = self._words_of(key)
        reached = {name for name in methods if self._spelling_count(name) > (name in own)}
        classes = {match.decode() for match in _CLASS_DEF.findall(source)}
        reached |= {name for name in classes if self._subclassing_files(name) - {key}}
        if self._run_reads_computed_attributes():
            reached.add("*")
        return frozenset(reached)

    def _run_reads_computed_attributes(self) -> bool:
        """Some file of the run reads attributes by a computed name."""
        if self._computed_reads is None:
            self._computed_reads = any(self._reads_computed_attributes(path) for path in self._run)
        return self._computed_reads

    def integer_attributes(self, path: str) -> frozenset[str]:
        """The attributes of classes of other modules of the run that only ever hold an integer
        tensor (see `analysis.integer_attributes`), spelled as module `path` reaches them:
        `data.Corpus.train` after `import data`, `Corpus.train` after `from data import Corpus`.
        Not when a file of the run other than the class's writes an attribute of that name
        (`corpus.train = ...`) or may write attributes by a computed name (`setattr`, `__dict__`)."""
        key = os.path.abspath(path)
        if key not in self._run or b"import" not in self._sources.get(key, b""):
            return frozenset()
        found: set[str] = set()
        for item in self._import_statements(key):
            if item.star or item.local is None:
                continue
            if item.name is None and item.level == 0 and item.local == item.module:
                module, spelled = self._locate(key, item.module, 0), item.local  # `import data`
            elif item.name is not None:
                module, spelled = self._locate(key, item.module, item.level), None  # `from data import Corpus`
            else:
                continue
            if module is None or module == key or module not in self._run:
                continue
            for owner, attribute in self._integer_attributes_of(module):
                if spelled is not None:
                    name = f"{spelled}.{owner}.{attribute}"
                elif owner == item.name:
                    name = f"{item.local}.{attribute}"
                else:
                    continue
                if not self._written_elsewhere(attribute, module):
                    found.add(name)
        return frozenset(found)

    def _integer_attributes_of(self, module: str) -> frozenset[tuple[str, str]]:
        if module not in self._integers:
            source = self._sources.get(module, b"")
            candidate = _INTEGER_CONSTRUCTION.search(source) and _PLAIN_CLASS.search(source)
            tree = self._tree(module) if candidate else None
            self._integers[module] = integer_attributes(tree, lambda name: self._outside_name(module, name)) if tree else frozenset()
        return self._integers[module]

    def _written_elsewhere(self, attribute: str, module: str) -> bool:
        """A file of the run other than `module` may write `<object>.<attribute>`."""
        if self._files_writing is None:
            self._files_writing = {}
            for path in self._run:
                source = self._sources[path]
                written = {name.decode() for name in _ATTRIBUTE_WRITE.findall(source)}
                if _ANY_ATTRIBUTE_WRITERS.search(source):
                    written.add("*")
                for name in written:
                    self._files_writing.setdefault(name, set()).add(path)
        writers = self._files_writing.get(attribute, set()) | self._files_writing.get("*", set())
        return bool(writers - {module})

    def _spelling_count(self, word: str) -> int:
        """How many files of the run spell `word` (as an identifier-like word anywhere)."""
        if self._files_by_word is None:
            self._files_by_word = Counter()
            for path in self._run:
                self._files_by_word.update(self._words_of(path))
        return self._files_by_word[word]

    def _subclassing_files(self, name: str) -> set[str]:
        """The files of the run with a `class` statement whose bases spell `name`."""
        if self._files_by_base is None:
            self._files_by_base = {}
            for path in self._run:
                for found in _base_words(self._sources[path]):
                    self._files_by_base.setdefault(found, set()).add(path)
        return self._files_by_base.get(name, set())

    def _reads_computed_attributes(self, path: str) -> bool:
        imported = frozenset(item.local for item in self._import_statements(path) if item.local is not None)
        return reads_computed_attributes(self._sources.get(path, b""), imported)

    def passed_arguments(self, path: str) -> dict[str, PassedValue]:
        """What every construction in the run passes to the constructor parameters the classes of
        module `path` keep on `self` (see `analysis.constructor_arguments`); meaningful only when
        the run holds every file that may import `path`."""
        key = os.path.abspath(path)
        if key not in self._passed:
            found: dict[str, PassedValue] = {}
            source = self._sources.get(key, b"")
            if key in self._run and may_pass_stored_arguments(source):
                if self._constructor_arguments is None:
                    self._constructor_arguments = ConstructorArguments(
                        self._tree, self._definition, self._outside_name, lambda module: sorted(self._importers_of(module)), self._words_of
                    )
                try:
                    found = self._constructor_arguments.of(key, used_attributes(source))
                except RecursionError:
                    found = {}
            self._passed[key] = found
        return self._passed[key]

    def module_classes(self, path: str) -> frozenset[str]:
        """The `nn.Module` subclasses of other project modules that module `path` imports, by the
        qualified names its imports give them: `model.G12` after `from model import G12`,
        `densenet.DenseNet3` after `import densenet as dn` (absolute imports only)."""
        key = os.path.abspath(path)
        found: set[str] = set()
        for item in self._import_statements(key) if key in self._run else ():
            if item.level or item.star:
                continue
            target = self._locate(key, item.module, 0)
            if target is None or target == key:
                continue
            if item.name is not None:
                if self._subclasses_module(target, item.name, set()):
                    found.add(f"{item.module}.{item.name}")
                continue
            tree = self._tree(target)
            for statement in tree.body if tree is not None else ():
                if isinstance(statement, ast.ClassDef) and self._subclasses_module(target, statement.name, set()):
                    found.add(f"{item.module}.{statement.name}")
        return frozenset(found)

    def _subclasses_module(self, path: str, name: str, seen: set[tuple[str, str]]) -> bool:
        """`name` in module `path` is a project class deriving from `torch.nn.Module`, directly or
        through other project classes."""
        defined = self._definition(path, name)
        if defined is None or not isinstance(defined[1], ast.ClassDef) or (defined[0], name) in seen:
            return False
        where, statement = defined
        seen.add((where, name))
        for base in statement.bases:
            spelled = _dotted(base)
            if spelled is None:
                continue
            first, _, rest = spelled.partition(".")
            outside = self._outside_name(where, first)
            if outside is not None:
                if (f"{outside}.{rest}" if rest else outside) in _MODULE_BASES:
                    return True
            elif not rest and self._subclasses_module(where, first, seen):
                return True
        return False

    def argument_writes(self, path: str) -> dict[str, frozenset[str]]:
        """What the project callables module `path` hands a command-line namespace to may write on
        it (see `analysis.attribute_writes`)."""
        key = os.path.abspath(path)
        return self._attributes().argument_writes(key) if key in self._run else {}

    def sealed_attributes(self, path: str) -> frozenset[str]:
        """The attributes of module `path`'s classes that only the class's methods store in the
        run (see `analysis.attribute_writes`); meaningful only when the run holds the whole project."""
        key = os.path.abspath(path)
        return self._attributes().sealed_attributes(key) if key in self._run else frozenset()

    def _attributes(self) -> AttributeWrites:
        if self._attribute_writes is None:
            self._attribute_writes = AttributeWrites(
                self._tree, self._definition, lambda: sorted(self._sources), self._source_of, self._words_of, self._imported_modules
            )
        return self._attribute_writes

    def _source_of(self, path: str) -> bytes:
        return self._sources.get(path, b"")

    def _definition(self, path: str, name: str) -> Optional[tuple[str, ast.stmt]]:
        """The top-level class or function of a project module that `name` means in module `path`:
        defined there once, or imported from a local module (by name or by a star import)."""
        return self._definition_in(path, name, set())

    def _definition_in(self, path: str, name: str, seen: set[tuple[str, str]]) -> Optional[tuple[str, ast.stmt]]:
        if (path, name) in seen:
            return None
        seen.add((path, name))
        module = self._module(path)
        if module is None:
            return None
        bound = module.bindings.get(name)
        if bound is _DEFINED:
            tree = self._tree(path)  # parsed again only here: most names followed are imported
            assert tree is not None  # a module has facts only when it parsed
            defined = [node for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == name]
            others = [node for node in _module_level(tree.body) if name in set(_defined_names(node))]
            return (path, defined[0]) if len(defined) == 1 and len(others) == 1 else None
        if isinstance(bound, _Import):
            target = self._locate(path, bound.module, bound.level) if bound.name is not None else None
            return self._definition_in(target, bound.name, seen) if target is not None and bound.name is not None else None
        if bound is not None:
            return None
        found = []
        for star in module.stars:
            target = self._locate(path, star.module, star.level)
            exports = self._star_exports_of(target, set()) if target is not None else None
            if exports is None or not exports.closed:
                return None  # an outside or open star import may bring `name` too
            if name in exports.names:
                found.append(self._definition_in(target, name, seen))
        return found[0] if len(found) == 1 else None

    def _outside_name(self, path: str, name: str) -> Optional[str]:
        """The outside module or object `name` is an import of in module `path`."""
        return self._resolve(path, name, set())

    def importers_of(self, path: str) -> frozenset[str]:
        """The files of the run whose results may depend on module `path`: those importing it,
        directly or through other local modules."""
        return frozenset(self._importers_of(os.path.abspath(path)))

    def _importers_of(self, module: str) -> set[str]:
        """The files of the run that import `module`, directly or through local modules."""
        if self._importers is None:
            self._importers = {}
            for importer in self._run:
                for target in set(self._imported_modules(importer)):
                    self._importers.setdefault(target, set()).add(importer)
        found: set[str] = set()
        pending = [module]
        while pending:
            for importer in self._importers.get(pending.pop(), ()):
                if importer not in found and importer != module:
                    found.add(importer)
                    pending.append(importer)
        return found & self._run

    def modules_outside_run(self) -> dict[str, bytes]:
        """Every module not in the run that a file of the run imports, directly or through other
        local modules, with its source: what any file's facts may depend on besides the run."""
        seen = set(self._run)
        pending = list(self._run)
        while pending:
            for target in self._imported_modules(pending.pop()):
                if target not in seen:
                    seen.add(target)
                    pending.append(target)
        return {path: self._sources[path] for path in sorted(seen - self._run)}

    def _imported_modules(self, path: str) -> Iterator[str]:
        """The local modules `path`'s import statements name."""
        if not self._local:
            return
        for item in self._import_statements(path):
            if item.level == 0 and item.name is None and not item.star:
                parts = item.module.split(".")
                spelled = [".".join(parts[:length]) for length in range(1, len(parts) + 1)]
            else:
                spelled = [item.module] + ([f"{item.module}.{item.name}".lstrip(".")] if item.name else [])
            for module in spelled:
                found = self._locate(path, module, item.level)
                if found is not None:
                    yield found

    # -- building ---------------------------------------------------------------------------

    def _look_at(self, path: str) -> None:
        if path in self._done or path not in self._run:
            return
        self._done.add(path)
        if not self._local or b"import" not in self._sources.get(path, b""):
            return  # imports nothing, so it cannot see another file's names
        statements = self._import_statements(path)
        if any(self._locate(path, item.module, item.level) is not None for item in statements):
            try:
                self._facts_of_importer(path, statements)
            except RecursionError:
                self._unread.add(path)  # re-exports chained deeper than the stack: this file is checked on its own

    def _facts_of_importer(self, path: str, statements: list[_Import]) -> None:
        names: dict[str, str] = {}
        stars: dict[str, StarFacts] = {}
        text = self._sources[path]
        for item in statements:
            spelling = "." * item.level + item.module
            target = self._locate(path, item.module, item.level)
            if target is None:
                continue
            if item.star:
                exports = self._star_exports_of(target, set())
                stars[spelling] = exports
                self._mark_star_imported(path, target, set())
                for name in exports.names:
                    self._add(names, f"{spelling}.{name}", self._resolve(target, name, set()))
            elif item.name is not None:
                self._add(names, f"{spelling}.{item.name}", self._resolve(target, item.name, set()))
                submodule = self._locate(path, f"{item.module}.{item.name}".lstrip("."), item.level)
                if submodule is not None and submodule != target:
                    # `from . import model`: only the uses are marked, rules do not resolve through it
                    spelled = names if item.level == 0 else {}
                    self._module_attributes(spelled, f"{spelling}.{item.name}", submodule, path, item.local, text)
                elif path != target:
                    self._mark_used(target, item.name, path)
            elif item.level == 0:
                parts = item.module.split(".")
                for length in range(1, len(parts) + 1):
                    prefix = ".".join(parts[:length])
                    module = self._locate(path, prefix, 0)
                    if module is not None:
                        renamed = length == len(parts) and item.local != parts[0]
                        self._module_attributes(names, prefix, module, path, item.local if renamed else prefix, text)
        if names or stars:
            self._facts[path] = ProjectFacts(names, stars)

    def _module_attributes(self, names: dict[str, str], prefix: str, module: str, importer: str, local: Optional[str], text: bytes) -> None:
        """`prefix.<name>` for every import of `module` that leads outside the project; `local`
        is how the importer spells the module (`model`, `pkg.model`, an alias)."""
        for item in self._import_statements(module):
            if item.local is not None:
                self._add(names, f"{prefix}.{item.local}", self._resolve(module, item.local, set()))
        if module == importer:
            return
        bound_names = self._import_bound(module)
        spelled = _words_after(text, f"{local}.") if bound_names else frozenset()
        for bound in bound_names:
            # `local.bound` in the text: one scan for every name instead of one per name
            written = bound.encode()
            if written in spelled or any(word.startswith(written) for word in spelled):
                self._mark_used(module, bound, importer)

    def _mark_star_imported(self, importer: str, module: str, seen: set[str], wanted: Optional[frozenset[str]] = None) -> None:
        """The import-bound names of a star-imported module (and of the modules it star-imports)
        that the importer spells, or that a literal `__all__` on the way makes the star import
        need."""
        if module in seen or module == importer:
            return
        seen.add(module)
        parsed = self._module(module)
        if parsed is not None and parsed.all_names is not None:
            wanted = frozenset(parsed.all_names)  # only these pass, and each must exist
        elif wanted is None:
            wanted = self._words_of(importer)
        for name in self._import_bound(module) & wanted:
            self._mark_used(module, name, importer)
        for item in self._import_statements(module):
            if item.star:
                target = self._locate(module, item.module, item.level)
                if target is not None:
                    self._mark_star_imported(importer, target, seen, wanted)

    def _mark_used(self, module: str, name: str, importer: str) -> None:
        self._reimported.setdefault(module, {}).setdefault(name, set()).add(importer)

    def _import_bound(self, module: str) -> frozenset[str]:
        """Names an import statement of `module` binds (or bound before a fix removed it)."""
        bound = {item.local for item in self._import_statements(module) if item.local is not None}
        return frozenset(bound) | self._removed.get(module, frozenset())

    def _words_of(self, path: str) -> frozenset[str]:
        """Every identifier-like word of a file: what it can use of a star import, at most."""
        if path not in self._words:
            self._words[path] = frozenset(_WORD.findall(self._sources.get(path, b"").decode("utf-8", "replace")))
        return self._words[path]

    @staticmethod
    def _add(names: dict[str, str], spelling: str, target: Optional[str]) -> None:
        if target is not None:
            names[spelling] = target

    # -- resolution ---------------------------------------------------------------------------

    def _resolve(self, path: str, name: str, seen: set[tuple[str, str]]) -> Optional[str]:
        """The outside qualified name `name` in module `path` stands for; None when it is defined in
        the project or unknown."""
        key = (path, name)
        if key in self._resolved:
            return self._resolved[key]
        if key in seen:
            return None  # a cycle of re-exports names nothing outside
        seen.add(key)
        result = self._resolve_uncached(path, name, seen)
        self._resolved[key] = result
        return result

    def _resolve_uncached(self, path: str, name: str, seen: set[tuple[str, str]]) -> Optional[str]:
        if not any(item.local == name or item.star for item in self._import_statements(path)):
            return None  # not imported here at all: defined here, or nowhere
        module = self._module(path)
        if module is None:
            return None
        bound = module.bindings.get(name)
        if isinstance(bound, _Import):
            return self._follow(path, bound, seen)
        if bound is not None:
            return None
        found = [self._star_candidate(path, star, name, seen) for star in module.stars]
        found = [candidate for candidate in found if candidate is not _ABSENT]
        if len(found) == 1 and isinstance(found[0], str):
            return found[0]
        return None

    def _follow(self, path: str, item: _Import, seen: set[tuple[str, str]]) -> Optional[str]:
        if item.name is None:  # `import a.b` binds module `a`, `import a.b as c` binds `a.b`
            first = item.module.split(".", 1)[0]
            bound = first if item.local == first else item.module
            return None if self._is_project_module(path, bound) else bound
        target = self._locate(path, item.module, item.level)
        if target is not None:
            return self._resolve(target, item.name, seen)
        if item.level or self._is_project_module(path, item.module):
            return None  # a local module that is not in the run: unknown
        full = f"{item.module}.{item.name}"
        return CANONICAL.get(full, full)

    def _is_project_module(self, path: str, module: str) -> bool:
        """`module` or its top-level package is a file of the run."""
        return self._locate(path, module.split(".", 1)[0], 0) is not None or self._locate(path, module, 0) is not None

    def _star_candidate(self, path: str, star: _Import, name: str, seen: set[tuple[str, str]]) -> object:
        """Where `name` comes from through one star import: an outside name, None (somewhere
        unknown or inside), or _ABSENT (this star import does not bring it)."""
        target = self._locate(path, star.module, star.level)
        if target is None:
            if star.level or self._is_project_module(path, star.module):
                return None
            full = f"{star.module}.{name}"
            return CANONICAL.get(full, full)
        exports = self._star_exports_of(target, set())
        if name in exports.names:
            return self._resolve(target, name, seen)
        if exports.closed:
            return _ABSENT
        if exports.fallback is None:
            return None
        full = f"{exports.fallback}.{name}"
        return CANONICAL.get(full, full)

    def _star_exports_of(self, path: str, seen: set[str]) -> StarFacts:
        """What `from <path's module> import *` brings in, through chains of star imports."""
        if path in self._star_exports:
            return self._star_exports[path]
        if path in seen:
            return StarFacts(frozenset(), closed=False)  # a cycle: what it adds is not known here
        seen.add(path)
        module = self._module(path)
        if module is None:
            result = StarFacts(frozenset(), closed=False)
        elif module.all_names is not None:
            result = StarFacts(frozenset(module.all_names))
        else:
            names = {name for name in module.bindings if not name.startswith("_")}
            fallbacks: set[Optional[str]] = set()
            for star in module.stars:
                target = self._locate(path, star.module, star.level)
                if target is not None:
                    inner = self._star_exports_of(target, seen)
                    names |= inner.names
                    if not inner.closed:
                        fallbacks.add(inner.fallback)
                elif star.level or self._is_project_module(path, star.module):
                    fallbacks.add(None)
                else:
                    fallbacks.add(star.module)
            fallback = next(iter(fallbacks)) if len(fallbacks) == 1 else None
            result = StarFacts(frozenset(names), closed=not fallbacks, fallback=fallback)
        if len(seen) == 1 or result.closed:
            self._star_exports[path] = result  # results inside an open cycle depend on the entry point
        return result

    # -- locating modules -----------------------------------------------------------------------

    def _locate(self, path: str, module: str, level: int) -> Optional[str]:
        """The local file `module` names when imported from `path` (relative when level > 0)."""
        if level:
            base = os.path.dirname(path)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            return self._file_under(base, module)
        for root in self._search_roots(path):
            found = self._file_under(root, module)
            if found is not None:
                return found
        return None

    def _file_under(self, base: str, module: str) -> Optional[str]:
        key = (base, module)
        if key not in self._located:
            folder = os.path.join(base, *module.split(".")) if module else base
            candidates = (folder + ".py", os.path.join(folder, "__init__.py")) if module else (os.path.join(base, "__init__.py"),)
            self._located[key] = next((candidate for candidate in candidates if self._is_local_module(candidate)), None)
        return self._located[key]

    def _is_local_module(self, path: str) -> bool:
        """A module of the project: a file of the run, or one found on disk next to it."""
        if path in self._local:
            return True
        if path in self._sources or self._outside_source(path) is None or self._is_final(path):
            return False
        self._sources[path] = self._outside[path]
        self._local.add(path)
        return True

    def _outside_source(self, path: str) -> Optional[bytes]:
        if self._read_outside is None:
            return None
        if path not in self._outside:
            self._outside[path] = self._read_outside(path)
        return self._outside[path]

    def _is_package(self, folder: str) -> bool:
        return folder in self._packages or self._outside_source(os.path.join(folder, "__init__.py")) is not None

    def _search_roots(self, path: str) -> Iterator[str]:
        """Where an absolute import from `path` looks: the script's own folder (or the folder
        holding its top-level package), then the roots of the run."""
        yield self._top_folder(path)
        yield from self._roots

    def _top_folder(self, path: str) -> str:
        start = os.path.dirname(path)
        top = self._tops.get(start)
        if top is None:
            folder = start
            while self._is_package(folder):
                parent = os.path.dirname(folder)
                if parent == folder:
                    break
                folder = parent
            top = self._tops[start] = folder
        return top

    def _is_final(self, path: str) -> bool:
        """In a package (or a module) named like one of FINAL_PACKAGES."""
        top = self._top_folder(path)
        first = path[len(top) :].lstrip(os.sep).split(os.sep, 1)[0]
        return first.removesuffix(".py") in FINAL_PACKAGES

    # -- parsing (CPython's ast, import statements first) ----------------------------------------

    def _import_statements(self, path: str) -> list[_Import]:
        """Every import binding written in the file (at any depth), from a text scan."""
        if path not in self._statements:
            raw = self._sources.get(path, b"")
            self._statements[path] = [item for line in _import_lines(raw) for item in _parse_import(line)] if b"import" in raw else []
        return self._statements[path]

    def _module(self, path: str) -> Optional[_Module]:
        if path not in self._modules:
            # The tree itself is kept only for the few modules `passed_arguments` reads: the run's
            # files that may pass stored arguments, which it reads right after their facts.
            tree = self._trees[path] if path in self._trees else self._parse(path)
            if path in self._run and may_pass_stored_arguments(self._sources.get(path, b"")):
                self._trees[path] = tree
            self._modules[path] = _module_facts(tree)
        return self._modules[path]

    def _tree(self, path: str) -> Optional[ast.Module]:
        if path not in self._trees:
            self._trees[path] = self._parse(path)
        return self._trees[path]

    def _parse(self, path: str) -> Optional[ast.Module]:
        source = self._sources.get(path, b"")
        return _parse_module(source) if len(source) <= MAX_MODULE_BYTES else None


_ABSENT = object()
_WORD = re.compile(r"[^\W\d]\w*")


def _words_after(text: bytes, prefix: str) -> frozenset[bytes]:
    """The identifier characters after each occurrence of `prefix` (overlapping ones too): `b` is
    in the text right after `prefix` exactly when one of them starts with `b`."""
    follows = re.compile(b"(?=" + re.escape(prefix.encode()) + rb"([\w\x80-\xff]*))")
    return frozenset(found.group(1) for found in follows.finditer(text)) if prefix.encode() in text else frozenset()


def _import_lines(raw: bytes) -> list[bytes]:
    """The import statements of a source, each on one line without comments, found without
    tokenizing. Over-approximates (an import-like line in a string is found too); `_parse_import`
    keeps only what is exactly an import statement."""
    statements: list[bytes] = []
    position = raw.find(b"import")
    end = 0
    while position != -1:
        start = raw.rfind(b"\n", 0, position) + 1
        if start >= end:
            end = _line_end(raw, position)
            for part in raw[start:end].split(b";"):
                statement = _without_comment(part).strip()
                if not statement.startswith((b"import ", b"from ")):
                    continue
                pieces = [statement]
                while (b"(" in statement and b")" not in pieces[-1]) or pieces[-1].endswith(b"\\"):
                    if end >= len(raw) or len(pieces) > 200:
                        break
                    following = _line_end(raw, end + 1)
                    pieces[-1] = pieces[-1].rstrip(b"\\")
                    pieces.append(_without_comment(raw[end + 1 : following]).strip())
                    end = following
                statements.append(b" ".join(pieces))
        position = raw.find(b"import", max(end, position + 1))
    return statements


def _line_end(raw: bytes, position: int) -> int:
    end = raw.find(b"\n", position)
    return len(raw) if end == -1 else end


def _without_comment(line: bytes) -> bytes:
    return line.split(b"#", 1)[0]


_NAME = r"[^\W\d]\w*"
_DOTTED = rf"{_NAME}(?:\s*\.\s*{_NAME})*"
_ALIAS = re.compile(rf"\s*({_DOTTED})(?:\s+as\s+({_NAME}))?\s*")
_FROM = re.compile(rf"from\s*(\.*)\s*((?:{_DOTTED})?)\s+import\s*(.*)", re.S)
_IMPORT = re.compile(r"import\s+(.*)", re.S)


def _parse_import(line: bytes) -> list[_Import]:
    """The bindings of one import statement; [] when the line is not exactly one."""
    text = line.decode("utf-8", "replace").strip()
    found = _FROM.fullmatch(text)
    if found is not None:
        dots, module, names = found.groups()
        if not dots and not module:
            return []
        module = re.sub(r"\s+", "", module)
        names = names.strip()
        if names == "*":
            return [_Import(module, len(dots), None, None, star=True)]
        if names.startswith("(") and names.endswith(")"):
            names = names[1:-1]
        aliases = _aliases(names, dotted=False)
        return [] if aliases is None else [_Import(module, len(dots), name, local or name) for name, local in aliases]
    found = _IMPORT.fullmatch(text)
    if found is None:
        return []
    aliases = _aliases(found.group(1), dotted=True)
    if aliases is None:
        return []
    return [_Import(name, 0, None, local or name.split(".", 1)[0]) for name, local in aliases]


def _aliases(text: str, *, dotted: bool) -> Optional[list[tuple[str, Optional[str]]]]:
    parts = text.split(",")
    if parts and not parts[-1].strip() and not dotted:
        parts.pop()  # a trailing comma inside parentheses
    result = []
    for part in parts:
        found = _ALIAS.fullmatch(part)
        if found is None:
            return None
        name = re.sub(r"\s+", "", found.group(1))
        if not dotted and "." in name:
            return None
        result.append((name, found.group(2)))
    return result or None


def _parse_module(source: bytes) -> Optional[ast.Module]:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _bindings_of(node: ast.stmt) -> Iterator[_Import]:
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.asname is not None:
                yield _Import(alias.name, 0, None, alias.asname)
            else:
                yield _Import(alias.name, 0, None, alias.name.split(".", 1)[0])
    elif isinstance(node, ast.ImportFrom):
        module = node.module or ""
        for alias in node.names:
            if alias.name == "*":
                yield _Import(module, node.level, None, None, star=True)
            else:
                yield _Import(module, node.level, alias.name, alias.asname or alias.name)


def _module_facts(tree: Optional[ast.Module]) -> Optional[_Module]:
    if tree is None:
        return None
    result = _Module()
    for statement in _module_level(tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for item in _bindings_of(statement):
                if item.star:
                    result.stars.append(item)
                else:
                    previous = result.bindings.get(item.local)
                    result.bindings[item.local] = item if previous is None or previous == item else _UNKNOWN
            continue
        for name in _defined_names(statement):
            result.bindings[name] = _DEFINED
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and _assigns(statement, "__all__"):
            result.all_names = _literal_names(statement.value)
    return result


def _module_level(body: Iterable[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at module level: also inside `if`, `try`, `with` and loops."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            yield from _module_level(statement.body)
            yield from _module_level(getattr(statement, "orelse", ()))
        elif isinstance(statement, ast.Try) or type(statement).__name__ == "TryStar":
            yield from _module_level(statement.body)
            for handler in statement.handlers:
                yield from _module_level(handler.body)
            yield from _module_level(statement.orelse)
            yield from _module_level(statement.finalbody)
        elif type(statement).__name__ == "Match":
            for case in statement.cases:
                yield from _module_level(case.body)


def _defined_names(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield statement.name
    elif isinstance(statement, ast.Assign):
        for target in statement.targets:
            yield from _target_names(target)
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        yield from _target_names(statement.target)
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        yield from _target_names(statement.target)
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        for item in statement.items:
            if item.optional_vars is not None:
                yield from _target_names(item.optional_vars)
    elif isinstance(statement, ast.Try):
        for handler in statement.handlers:
            if handler.name:
                yield handler.name
    elif isinstance(statement, ast.Global):
        yield from statement.names


def _target_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _assigns(statement: ast.stmt, name: str) -> bool:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return any(isinstance(target, ast.Name) and target.id == name for target in targets)


def _literal_names(value: Optional[ast.expr]) -> Optional[tuple[str, ...]]:
    """`__all__` as a literal list or tuple of strings; None when it is anything else."""
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    names = []
    for element in value.elts:
        if not isinstance(element, ast.Constant) or not isinstance(element.value, str):
            return None
        names.append(element.value)
    return tuple(names)
