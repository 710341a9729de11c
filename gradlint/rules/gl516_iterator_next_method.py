from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from gradlint.analysis.values.record import Certainty
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{call}` calls the Python 2 iterator method: torch 0.3's DataLoader iterator still offered "
    "`.next()`, torch 2.x's and every builtin iterator of Python 3 raise AttributeError; "
    "`next({receiver})` gives the next item"
)
# A name `next` of the file's own (a method, a function, an assignment, an import): the receiver
# may define `.next()`, or `next(...)` may not be the builtin.
_OWN_NEXT = re.compile(r"\bdef\s+next\s*\(|^\s*next\s*=|\bimport\b[^\n]*\bnext\b", re.MULTILINE)
# Iterables whose iterator is a builtin one, without `.next`.
_BUILTIN_ITERABLES = frozenset({"range", "list", "tuple", "dict", "set", "frozenset", "str", "bytes", "zip", "enumerate", "sorted"})
_DATA_LOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
_LITERALS = (
    cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp, cst.SimpleString, cst.ConcatenatedString,
)  # fmt: skip


class IteratorNextMethod(Rule):
    """
    ## What it does
    Flags `it.next()` called on an iterator made by `iter(...)`: written inline
    (`iter(loader).next()`), or a name (or `self` attribute) bound only to `iter(...)`, the
    2017-18 idiom for drawing one batch (`data_iter = iter(loader)` ... `images, labels = data_iter.next()`).

    ## Why is this bad?
    `.next()` is Python 2's iterator method. PyTorch 0.3's DataLoader iterator still defined it;
    torch 2.x's DataLoader iterators do not, nor does any builtin iterator of Python 3 (of a list,
    tuple, dict, range, string or tensor), so the call raises
    `AttributeError: '_SingleProcessDataLoaderIter' object has no attribute 'next'`.

    ## Example
    ```python
    import torch

    data_iter = iter(torch.utils.data.DataLoader(dataset, batch_size=2))
    images, labels = data_iter.next()
    ```

    ## Use instead
    ```python
    import torch

    data_iter = iter(torch.utils.data.DataLoader(dataset, batch_size=2))
    images, labels = next(data_iter)
    ```

    ## Fix safety
    `it.next()` becomes `next(it)`. The fix is safe when what `iter()` is given is known: a
    `DataLoader(...)`, a list, tuple, dict, set or string written out, `range(...)` and the other
    builtin containers' constructors, or a tensor; also `self.loader` kept from a constructor
    parameter when, in a run over the whole project, every construction of the class passes a
    `DataLoader` (`Solver(config, svhn_loader, mnist_loader)` in `main.py`, the loaders returned by
    `get_loader` of `data_loader.py`). Their iterators have no `.next`, so the original raises on
    every value, and `next(it)` draws the item 0.3's `.next()` drew. Otherwise (a loader passed
    as a parameter, `self.loader` checked without the files that build the class) the fix is
    unsafe: an object of an unknown class may define `__iter__` returning an iterator of its own
    with a `.next` method that `next()` would not call.

    ## Known limits
    Only iterators made by `iter(...)` in the same function (or assigned only so to a `self`
    attribute in the class) are followed; `it = loader.__iter__()` and iterators handed around
    are not. A file that defines or binds a name `next` of its own (a class with `def next(self)`)
    is left alone.
    """

    code = "GL516"
    name = "iterator-next-method"
    summary = "`iter(x).next()`: the Python 2 iterator method torch 0.3's DataLoader still had raises AttributeError"
    severity = Severity.ERROR
    migration = "api"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    rewrites_torch = False  # `next(it)` is Python 3's spelling for any iterator; the safe fix needs no torch
    triggers = (".next()",)

    VALID = (
        """
        import torch
        data_iter = iter(loader)
        images, labels = next(data_iter)
        """,
        """
        def sample(gen):
            return gen.next()
        """,
        """
        class Batches:
            def __init__(self, data):
                self.data = data

            def __iter__(self):
                return self

            def next(self):
                return self.data.pop()

        it = iter(Batches([1, 2]))
        first = it.next()
        """,
        """
        class Stream:
            def step(self):
                return self.next()
        """,
        """
        def draw(loader, it):
            if it is None:
                it = iter(loader)
            return it.next()
        """,
        """
        for it in iterators:
            it.next()
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            loader = torch.utils.data.DataLoader(dataset, batch_size=2)
            data_iter = iter(loader)
            images, labels = data_iter.next()
            """,
            """
            import torch
            loader = torch.utils.data.DataLoader(dataset, batch_size=2)
            data_iter = iter(loader)
            images, labels = next(data_iter)
            """,
            line=4,
            column=18,
            message="calls the Python 2 iterator method",
            fix_title="Replace with `next(data_iter)`",
        ),
        Invalid(
            """
            def first_batch(loader):
                return iter(loader).next()
            """,
            """
            def first_batch(loader):
                return next(iter(loader))
            """,
            line=2,
            fix_title="Replace with `next(iter(loader))`",
        ),
        Invalid(
            """
            class Solver:
                def __init__(self, loader):
                    self.loader = loader

                def train(self):
                    self.batches = iter(self.loader)
                    images = self.batches.next()
                    return images
            """,
            """
            class Solver:
                def __init__(self, loader):
                    self.loader = loader

                def train(self):
                    self.batches = iter(self.loader)
                    images = next(self.batches)
                    return images
            """,
            line=7,
        ),
        Invalid(
            """
            words = iter(["a", "b"])
            first = words.next()
            """,
            """
            words = iter(["a", "b"])
            first = next(words)
            """,
            line=2,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        if node.args or not isinstance(node.func, cst.Attribute) or node.func.attr.value != "next":
            return
        receiver = node.func.value
        iterated = self._iterated(receiver)
        if not iterated or self.context.file_text.search(_OWN_NEXT):
            return
        replacement = cst.Call(func=cst.Name("next"), args=[cst.Arg(receiver)])
        title = f"Replace with `{snippet(self.context.code_for(replacement), 60)}`"
        change = Replace(node, replacement)
        safe = all(self._builtin_iteration(value, scope) for value, scope in iterated)
        fix = self.safe_fix(title, change) if safe else self.unsafe_fix(title, change)
        message = _MESSAGE.format(call=snippet(self.context.code_for(node), 60), receiver=snippet(self.context.code_for(receiver), 40))
        self.report(node, message, fix)

    def _iterated(self, receiver: cst.BaseExpression) -> list[tuple[cst.BaseExpression, object]]:
        """What `iter()` was given to make `receiver`, each with the scope it is evaluated in;
        empty unless every binding of `receiver` is `iter(x)`."""
        scope = self.context.scope()
        if isinstance(receiver, cst.Call):
            argument = self._iter_argument(receiver)
            return [(argument, scope)] if argument is not None else []
        if isinstance(receiver, cst.Name):
            plain = self.context.scopes.of(scope).plain_values(receiver.value) if scope is not None else None
            if plain is None:
                return []
            values = [(value, scope) for value in plain]
        elif isinstance(receiver, cst.Attribute):
            values = self.context.scopes.instance_attribute_values(receiver, scope)
        else:
            return []
        arguments = [(self._iter_argument(value), where) for value, where in values]
        if not arguments or any(argument is None for argument, _ in arguments):
            return []
        return arguments

    def _iter_argument(self, value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """`x` of the builtin `iter(x)`, else None."""
        if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Name) or value.func.value != "iter":
            return None
        if len(value.args) != 1 or value.args[0].keyword is not None or value.args[0].star:
            return None
        return value.args[0].value

    def _builtin_iteration(self, iterated: cst.BaseExpression, scope, depth: int = 0) -> bool:
        """`iter(iterated)` is a builtin or DataLoader iterator: `iterated` is a container written
        out, a builtin container's constructor, a DataLoader, a tensor, or a name bound only to them."""
        if isinstance(iterated, _LITERALS):
            return True
        if isinstance(iterated, cst.Call):
            if isinstance(iterated.func, cst.Name) and iterated.func.value in _BUILTIN_ITERABLES:
                return self.context.qualified_name(iterated.func) in (None, iterated.func.value, f"builtins.{iterated.func.value}")
            if self.context.qualified_name(iterated.func) in _DATA_LOADERS:
                return True
        if isinstance(iterated, cst.Attribute):
            passed = self.context.values.passed_value(iterated, scope)
            if passed is not None and passed.made_by in _DATA_LOADERS:
                return True  # `self.loader`, given a DataLoader by every construction of the class in the run
        if isinstance(iterated, cst.Name) and depth == 0 and scope is not None:
            values = self.context.scopes.values_of(iterated.value, scope)
            bindings = self.context.scopes.of(scope)
            if values and iterated.value not in bindings.opaque and iterated.value not in bindings.loop_sources:
                return all(self._builtin_iteration(value, scope, depth + 1) for value in values)
        return scope is not None and self._evident_tensor(iterated, scope)

    def _evident_tensor(self, iterated: cst.BaseExpression, scope) -> bool:
        """A plain tensor by construction or binding, not by a name's role: a class of its own
        could define `__iter__`."""
        record = self.context.values.record(iterated, scope)
        return record.is_tensor_like and record.certainty in (Certainty.CONSTRUCTED, Certainty.BOUND)
