from __future__ import annotations

from functools import cached_property
import re
from typing import Iterator

import libcst as cst

from gradlint.analysis.syntax import DEFINITIONS, dotted_name
from gradlint.analysis.syntax import suite_statements
from gradlint.analysis.tree import descendants, iter_children
from gradlint.fix.plan import Applicability, Availability, InsertLineBefore
from gradlint.rules.base import Invalid, Rule, Severity
from gradlint.rules.gl605_distributed_sampler_without_set_epoch.samplers import DistributedLoader, SamplerEvidence

# Built-ins that only look at a loader: handing it to them cannot call `set_epoch`.
_READS_ONLY = frozenset({"len", "enumerate", "iter", "zip", "print", "tqdm", "isinstance", "getattr", "hasattr"})
_EPOCH = re.compile(r"^(?:\w+_)?(?:ep|epoch|epoch_idx|epoch_id)$|^epoch\w*$", re.IGNORECASE)


class DistributedSamplerWithoutSetEpoch(Rule):
    """
    ## What it does
    Flags a training loop over a data loader that shuffles through a `DistributedSampler`, run
    once per epoch inside an epoch loop that never calls `sampler.set_epoch(epoch)` (or
    `loader.sampler.set_epoch(epoch)`).

    ## Why is this bad?
    A `DistributedSampler` shuffles with the seed plus the epoch it was last given, so without
    `set_epoch` every epoch serves the same order. In torch 2.13, a sampler over 8 samples
    (`num_replicas=2`, `rank=0`) gave the batches `[[4, 7], [2, 1]]` in each of three epochs;
    with `set_epoch(epoch)`: `[[4, 7], [2, 1]]`, `[[5, 2], [7, 1]]`, `[[0, 7], [6, 1]]`. No
    warning: the model just sees the data in one fixed order, which hurts generalisation.

    ## Example
    ```python
    from torch.utils.data import DataLoader, DistributedSampler
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    ```

    ## Use instead
    ```python
    from torch.utils.data import DataLoader, DistributedSampler
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            optimizer.zero_grad()
            criterion(model(x), y).backward()
            optimizer.step()
    ```

    ## Fix safety
    Unsafe: inserting `sampler.set_epoch(epoch)` at the top of the epoch loop changes the order
    the data is served in, on purpose. Offered when the epoch loop's variable is named like an
    epoch (`epoch`, `ep`, `cur_epoch`).

    ## Known limits
    Only loaders built in the file with `DataLoader(..., sampler=...)` and a
    `torch.utils.data.DistributedSampler` are known (not samplers of other libraries, nor
    `shuffle=False` ones), and only loops over them that backpropagate or step an optimizer,
    nested in another loop of the same function. An epoch loop that hands the loader or the
    sampler to a function of another file, or builds them in each epoch, is not reported.
    """

    code = "GL605"
    name = "distributed-sampler-without-set-epoch"
    summary = "`DistributedSampler` loader iterated every epoch without `set_epoch(epoch)`: the same order each epoch"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.UNSAFE,)
    triggers = ("DistributedSampler",)

    VALID = (
        """
        from torch.utils.data import DataLoader, DistributedSampler
        sampler = DistributedSampler(dataset)
        loader = DataLoader(dataset, sampler=sampler)
        for epoch in range(10):
            sampler.set_epoch(epoch)
            for x in loader:
                f(x).backward()
                optimizer.step()
        """,
        """
        from torch.utils.data import DataLoader, DistributedSampler
        loader = DataLoader(dataset, sampler=DistributedSampler(dataset))
        for epoch in range(10):
            loader.sampler.set_epoch(epoch)
            for x in loader:
                f(x).backward()
                optimizer.step()
        """,
        """
        from torch.utils.data import DataLoader, DistributedSampler
        sampler = DistributedSampler(dataset, shuffle=False)
        loader = DataLoader(dataset, sampler=sampler)
        for epoch in range(10):
            for x in loader:
                f(x).backward()
                optimizer.step()
        """,
        """
        from torch.utils.data import DataLoader, DistributedSampler
        sampler = DistributedSampler(dataset)
        loader = DataLoader(dataset, sampler=sampler)
        for x in loader:
            f(x).backward()
            optimizer.step()
        """,
        """
        from torch.utils.data import DataLoader, DistributedSampler
        val_loader = DataLoader(dataset, sampler=DistributedSampler(dataset))
        for epoch in range(10):
            with torch.no_grad():
                for x in val_loader:
                    metric.update(model(x))
        """,
        """
        from torch.utils.data import DataLoader, DistributedSampler
        from engine import prepare_epoch
        sampler = DistributedSampler(dataset)
        loader = DataLoader(dataset, sampler=sampler)
        for epoch in range(10):
            prepare_epoch(sampler, epoch)
            for x in loader:
                f(x).backward()
                optimizer.step()
        """,
        """
        from torch.utils.data import DataLoader, DistributedSampler
        def train(dataset, model, optimizer):
            sampler = DistributedSampler(dataset)
            loader = DataLoader(dataset, sampler=sampler)
            def start(epoch):
                sampler.set_epoch(epoch)
            for epoch in range(10):
                start(epoch)
                for x in loader:
                    model(x).sum().backward()
                    optimizer.step()
        """,
        """
        from torch.utils.data import DataLoader
        from some_library import DistributedSampler
        loader = DataLoader(dataset, sampler=DistributedSampler(dataset))
        for epoch in range(10):
            for x in loader:
                f(x).backward()
                optimizer.step()
        """,
    )
    INVALID = (
        Invalid(
            """
            from torch.utils.data import DataLoader, DistributedSampler
            sampler = DistributedSampler(dataset)
            loader = DataLoader(dataset, batch_size=32, sampler=sampler)
            for epoch in range(10):
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
            """,
            """
            from torch.utils.data import DataLoader, DistributedSampler
            sampler = DistributedSampler(dataset)
            loader = DataLoader(dataset, batch_size=32, sampler=sampler)
            for epoch in range(10):
                sampler.set_epoch(epoch)
                for x, y in loader:
                    optimizer.zero_grad()
                    criterion(model(x), y).backward()
                    optimizer.step()
            """,
            line=5,
            column=17,
            message="`loader` shuffles through a `DistributedSampler` that is never given the epoch",
            fix_title="Call `sampler.set_epoch(epoch)` at the start of each epoch",
        ),
        Invalid(
            """
            import torch
            from tqdm import tqdm
            class Trainer:
                def __init__(self, dataset):
                    self.train_loader = torch.utils.data.DataLoader(
                        dataset, sampler=torch.utils.data.distributed.DistributedSampler(dataset)
                    )
                def fit(self, epochs):
                    for ep in range(epochs):
                        for step, batch in enumerate(tqdm(self.train_loader)):
                            loss = self.model(batch).mean()
                            loss.backward()
                            self.optimizer.step()
            """,
            """
            import torch
            from tqdm import tqdm
            class Trainer:
                def __init__(self, dataset):
                    self.train_loader = torch.utils.data.DataLoader(
                        dataset, sampler=torch.utils.data.distributed.DistributedSampler(dataset)
                    )
                def fit(self, epochs):
                    for ep in range(epochs):
                        self.train_loader.sampler.set_epoch(ep)
                        for step, batch in enumerate(tqdm(self.train_loader)):
                            loss = self.model(batch).mean()
                            loss.backward()
                            self.optimizer.step()
            """,
            line=10,
            column=47,
            message="`self.train_loader` shuffles through a `DistributedSampler`",
            fix_title="Call `self.train_loader.sampler.set_epoch(ep)` at the start of each epoch",
        ),
        Invalid(  # a while loop over epochs, the variable not named like an epoch: no fix
            """
            from torch.utils.data import DataLoader
            from torch.utils.data.distributed import DistributedSampler
            sampler = DistributedSampler(dataset)
            loader = DataLoader(dataset, sampler=sampler)
            i = 0
            while i < 10:
                for x in loader:
                    f(x).backward()
                    optimizer.step()
                i += 1
            """,
            line=7,
            column=14,
            message="every epoch serves the same order",
        ),
    )

    @cached_property
    def samplers(self) -> SamplerEvidence:
        """Which loaders shuffle through a `DistributedSampler`, by their construction."""
        return SamplerEvidence(self.context.imports, self.context.scopes)

    def visit_Module(self, node: cst.Module) -> None:
        training = self.context.training
        enclosing: dict[int, tuple[cst.For, list[cst.CSTNode], object]] = {}
        for region in training.loops:
            for inner in _loops_below(region.owner):
                entry = enclosing.setdefault(id(inner), (inner, [], training.scope_of(region)))
                entry[1].append(region.owner)
        for inner, outers, scope in enclosing.values():
            self._check(inner, outers, scope or self.context.module)

    def _check(self, inner: cst.For, outers: list[cst.CSTNode], scope) -> None:
        samplers = self.samplers
        iterated = samplers.iterated_loader(inner.iter)
        if iterated is None or not self.context.training.optimises(inner):
            return
        found = samplers.shuffling_distributed_loader(iterated, scope)
        if found is None or any(self._may_set_epoch(outer, found, scope) for outer in outers):
            return
        self.report(
            iterated,
            f"`{found.loader}` shuffles through a `DistributedSampler` that is never given the epoch: every epoch "
            f"serves the same order; call `{_set_epoch_target(found)}.set_epoch(epoch)` at the start of each epoch",
            self._fix([outer for outer in outers if _epoch_loop(outer)], found),
        )

    def _may_set_epoch(self, outer: cst.CSTNode, found: DistributedLoader, scope) -> bool:
        """`outer` calls `set_epoch`, builds the loader, runs a helper of the file that calls
        `set_epoch`, or hands the loader or its sampler to code the file does not show."""
        handed_texts = [found.loader, *([found.sampler] if found.sampler else [])]
        inside = {id(n) for n in descendants(outer)}
        if any(id(construction) in inside for construction in found.constructions):
            return True
        for call in _calls_in(outer):
            if _calls_set_epoch(call):
                return True
            helper = self.context.function_table.resolve(call, scope if isinstance(scope, cst.FunctionDef) else None)
            if helper is not None:
                if any(_calls_set_epoch(c) for c in descendants(helper) if isinstance(c, cst.Call)):
                    return True
                continue
            callee = self.context.qualified_name(call.func) or dotted_name(call.func) or ""
            if callee.rsplit(".", 1)[-1] in _READS_ONLY:
                continue
            if any(text in self.context.code_for(arg.value) for arg in call.args for text in handed_texts):
                return True
        return False

    def _fix(self, epoch_loops: list[cst.For], found: DistributedLoader):
        if len(epoch_loops) != 1:
            return None
        outer = epoch_loops[0]
        statements = list(suite_statements(outer.body))
        if not statements:
            return None
        target = _set_epoch_target(found)
        return self.unsafe_fix(
            f"Call `{target}.set_epoch({outer.target.value})` at the start of each epoch",
            InsertLineBefore(statements[0], f"{target}.set_epoch({outer.target.value})"),
        )


def _epoch_loop(loop: cst.CSTNode) -> bool:
    """`for epoch in ...`, `for ep in ...`, `for cur_epoch in ...`."""
    return isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and bool(_EPOCH.match(loop.target.value))


def _set_epoch_target(found: DistributedLoader) -> str:
    return found.sampler if found.sampler is not None else f"{found.loader}.sampler"


def _calls_set_epoch(call: cst.Call) -> bool:
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "set_epoch"


def _loops_below(owner: cst.CSTNode) -> Iterator[cst.For]:
    """The `for` loops nested in `owner`'s body (not in nested definitions)."""
    pending = list(iter_children(owner.body))
    while pending:
        node = pending.pop()
        if isinstance(node, DEFINITIONS):
            continue
        if isinstance(node, cst.For):
            yield node
        pending.extend(iter_children(node))


def _calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.Call):
            yield current
        pending.extend(iter_children(current))
