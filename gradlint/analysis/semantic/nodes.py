"""Where each node of a file sits: its parent, the statement holding it, its place in source order,
the loops, `with` statements, functions and classes around it, and the statements that run before
and after it in one pass over its function's body.

One walk of the module answers all of these; it runs on the first question, so a file no rule
asks about is never walked. Nodes are keyed by identity: a parsed LibCST tree holds each node once.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence

import libcst as cst

from gradlint.analysis.syntax import DEFINITIONS
from gradlint.analysis.tree import iter_children

# What holds statements: a statement's parent is one of these.
BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite, cst.SimpleStatementLine, cst.Module)
LOOPS = (cst.For, cst.While)
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
# A body past which "before" and "after" do not look: what runs there runs where it is called.
_BODY_OWNERS = (cst.FunctionDef, cst.ClassDef)


@dataclass(frozen=True)
class Position:
    """A statement's place in the block holding it (a `Module` or an `IndentedBlock`)."""

    block: cst.CSTNode
    index: int
    owner: Optional[cst.CSTNode]  # what the block belongs to (FunctionDef, For, If, Else...), None for the module

    @property
    def statement(self) -> cst.CSTNode:
        return self.block.body[self.index]

    @property
    def earlier(self) -> Sequence[cst.CSTNode]:
        """The statements of the block before this one, the latest first."""
        return self.block.body[self.index - 1 :: -1] if self.index else ()

    @property
    def later(self) -> Sequence[cst.CSTNode]:
        """The statements of the block after this one, in order."""
        return self.block.body[self.index + 1 :]


class NodeIndex:
    """Parent links and source-order positions of every node under `root` (whitespace and
    punctuation excepted, as `tree.iter_children` sees them).

    Answers are always about the whole tree, but the walk behind them is lazy: `subtree(node)`
    indexes only that node's subtree when nothing around it is indexed yet (a rule asking about one
    function of a large file walks that function, as a per-function index would), and the first
    question that needs more (the parent of such a subtree's top, the order of nodes of two
    subtrees indexed apart) indexes the whole tree, once. Each walk numbers the nodes it meets
    after every number given before, so a node's number is that of its latest walk, and two
    nodes of one walk compare in source order."""

    def __init__(self, root: cst.CSTNode) -> None:
        self.root = root
        self._parents: dict[int, cst.CSTNode] = {}
        self._starts: dict[int, int] = {}  # id -> position in `_order`
        self._order: list[cst.CSTNode] = []  # the nodes of each walk in pre-order, walk after walk
        self._walks: list[int] = []  # the first position of each walk
        self._ends: dict[int, int] = {}  # id -> position of its last descendant, once asked
        self._complete = False

    def _index(self, top: cst.CSTNode) -> None:
        """Index the subtree of `top` in one walk."""
        parents, starts, order = self._parents, self._starts, self._order
        self._walks.append(len(order))
        self._ends.clear()  # the nodes of this walk get new positions
        pending = [top]
        while pending:
            node = pending.pop()
            starts[id(node)] = len(order)
            order.append(node)
            children = iter_children(node)
            for child in children:
                parents[id(child)] = node
            pending += children[::-1]

    def _index_all(self) -> None:
        if not self._complete:
            self._parents, self._starts, self._order, self._walks, self._ends = {}, {}, [], [], {}
            self._index(self.root)
            self._complete = True

    # -- structure ------------------------------------------------------------------------------

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The node directly holding `node`; None for the root (and for nodes not under it)."""
        parent = self._parents.get(id(node))
        if parent is None and not self._complete and node is not self.root:
            self._index_all()  # the top of a subtree indexed alone, or a node not indexed yet
            parent = self._parents.get(id(node))
        return parent

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The nodes holding `node`, innermost first, up to the root."""
        parent = self.parent(node)
        while parent is not None:
            yield parent
            parent = self.parent(parent)

    def statement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The innermost statement holding `node` (a small statement such as `Assign`, or a
        compound one such as `If`); `node` itself when it is a statement."""
        parent = self.parent(node)
        while parent is not None and type(parent) not in BLOCKS:
            node, parent = parent, self.parent(parent)
        return node if parent is not None else None

    def enclosing(self, node: cst.CSTNode, kinds: tuple[type, ...], *, stop: tuple[type, ...] = ()) -> Optional[cst.CSTNode]:
        """The innermost node of one of the exact types `kinds` around `node`, not looking past a
        node of the types `stop`."""
        for ancestor in self.ancestors(node):
            kind = type(ancestor)
            if kind in kinds:
                return ancestor
            if kind in stop:
                return None
        return None

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        return self.enclosing(node, (cst.FunctionDef,))

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        return self.enclosing(node, (cst.ClassDef,))

    def enclosing_with(self, node: cst.CSTNode) -> Optional[cst.With]:
        """The innermost `with` around `node` in its own function (not one around the `def`)."""
        return self.enclosing(node, (cst.With,), stop=DEFINITIONS)

    def enclosing_loops(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The `for` and `while` statements around `node` in its own function, innermost first."""
        loops = []
        for ancestor in self.ancestors(node):
            kind = type(ancestor)
            if kind in DEFINITIONS:
                break
            if kind in LOOPS:
                loops.append(ancestor)
        return loops

    def positions_in_body(self, node: cst.CSTNode, around: Optional[Iterable[cst.CSTNode]] = None) -> list[Position]:
        """The places of the statements around `node` in the blocks holding them, innermost first,
        up to the body of its function or class (the module's when none). A one-line suite
        (`if x: y`) is no block of its own: its `if` is the statement placed. `around`: the nodes
        holding `node`, innermost first, when the caller has them (a walk's stack), so that no
        index of the whole module is built for them."""
        found: list[Position] = []
        holders = iter(self.ancestors(node) if around is None else around)
        current, parent = node, next(holders, None)
        while parent is not None:
            outer = next(holders, None)
            kind = type(parent)
            if (kind is cst.IndentedBlock or kind is cst.Module) and isinstance(current, _STATEMENTS):
                index = next(i for i, statement in enumerate(parent.body) if statement is current)
                owner = outer if kind is cst.IndentedBlock else None
                found.append(Position(parent, index, owner))
                if isinstance(owner, _BODY_OWNERS):
                    break
            current, parent = parent, outer
        return found

    def statements_before(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The statements that run before `node` in one pass over the body of its function (or
        the module), latest first: the earlier statements of its block, then those of each block
        around it. Earlier statements of a loop body run before `node` too, as this iteration's."""
        for position in self.positions_in_body(node):
            yield from position.earlier

    def statements_after(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        """The statements that run after `node` in one pass over the body of its function (or the
        module), in order: the rest of its block, then the rest of each block around it (the next
        iteration of a loop excepted)."""
        for position in self.positions_in_body(node):
            yield from position.later

    # -- source order ---------------------------------------------------------------------------

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """The position of `node` in a source-order walk, and of its last descendant: comparable
        between nodes of one `subtree` (ask `comes_before` / `comes_after` about any two nodes)."""
        return self._start(node), self._end(node)

    def _start(self, node: cst.CSTNode) -> int:
        found = self._starts.get(id(node))
        if found is None:
            self._index_all()
            found = self._starts[id(node)]
        return found

    def _end(self, node: cst.CSTNode) -> int:
        """The position of the last descendant of `node`, down its last children."""
        found = self._ends.get(id(node))
        if found is None:
            last = node
            children = iter_children(last)
            while children:
                last = children[-1]
                children = iter_children(last)
            found = self._ends[id(node)] = self._start(last)
        return found

    def _in_one_walk(self, node: cst.CSTNode, other: cst.CSTNode) -> None:
        """Index the whole tree when `node` and `other` were numbered by different walks."""
        first, second = self._start(node), self._start(other)
        if bisect_right(self._walks, first) != bisect_right(self._walks, second):
            self._index_all()

    def comes_before(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        """`node` and everything in it come before `other` starts."""
        self._in_one_walk(node, other)
        return self._end(node) < self._start(other)

    def comes_after(self, node: cst.CSTNode, other: cst.CSTNode) -> bool:
        """`node` starts after everything in `other`."""
        self._in_one_walk(node, other)
        return self._start(node) > self._end(other)

    def contains(self, outer: cst.CSTNode, node: cst.CSTNode) -> bool:
        """`node` is `outer` or one of its descendants (False for a node not under the root)."""
        # The walk that numbered `outer` numbered its whole subtree, after every earlier walk: a
        # number between those of `outer` and its last descendant is one that walk gave.
        found = self._starts.get(id(node))
        return found is not None and self._start(outer) <= found <= self._end(outer)

    def subtree(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """`node` and its descendants, in source order (indexing them, alone, if not yet done)."""
        if id(node) not in self._starts:
            if node is self.root:
                self._index_all()
            elif not self._complete:
                self._index(node)
        return self._order[self._start(node) : self._end(node) + 1]
