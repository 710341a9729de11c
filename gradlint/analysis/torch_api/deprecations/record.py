"""One deprecated public torch API as GL517 knows it: the release that deprecated (or removed) it,
what replaces it, and the exact fix when the replacement computes the same for every input."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Deprecated:
    since: str  # the torch release that deprecated it
    replacement: str = ""  # what to use instead, as the message names it; "" when nothing replaces it
    removed: Optional[str] = None  # the torch release that removed it
    # The exact fix, when there is one: `new` is the dotted name (or, for a method or keyword, the
    # name) written in place of the deprecated one, the call's arguments kept; `leading` are
    # argument texts put before them and `keywords` (name, text) pairs added after them.
    new: Optional[str] = None
    leading: tuple[str, ...] = ()
    keywords: tuple[tuple[str, str], ...] = ()
    positional: Optional[int] = None  # fixed only with at most this many positional arguments
    without: tuple[str, ...] = ()  # keywords only the deprecated API takes: a call passing one gets no fix
    # The parameter names of the deprecated API's positional arguments, which the fix passes by
    # keyword (the replacement takes them under the same names, in another order): evaluated in
    # the order written, they bind as before.
    by_keyword: tuple[str, ...] = ()
    read_as_call: bool = False  # an attribute whose value is `new()`: the fix writes the call in place of a read
    members: tuple[str, ...] = ()  # an attribute fixed only where one of these members of it is read (`reduce_op.SUM`)
    dropped: bool = False  # a keyword argument without any effect: the fix removes it
    dropped_when: tuple[object, ...] = ()  # ... without effect only with one of these literal values
    # Only one form of a call is deprecated: one passing more positional arguments than
    # `over_positional`, one passing the keyword `given`; a keyword row only where its value is
    # one of the literals `values`.
    over_positional: Optional[int] = None
    given: str = ""
    values: tuple[object, ...] = ()
    new_value: Optional[object] = None  # a keyword row's fix: the literal written in place of the value
    wrapped_in: str = ""  # ... and the dotted function the fix then calls on the call's result
    curried: Optional[int] = None  # the fix calls `new` with the first so many arguments, and its result with the rest
    tensor_argument: tuple = ()  # (position, keyword) of an argument that must be a tensor for the form to be deprecated
    form: str = ""  # the deprecated form, as the message names it
    new_arguments: str = ""  # a member call's fix: its arguments, `{}` standing for the call's one argument
    built_by: str = ""  # a package whose classes all build the member's owner (`torch.distributions.`)
    elements_of: str = ""  # an attribute whose elements are all owners (`prof.function_events[0]`, a loop over it)
    setting: bool = False  # a configuration entry: assigning it is the use
    # A tensor member other objects have too (a PIL image's `resize`): reported only on a tensor
    # the code visibly builds, never on one known by its name (`image`) alone.
    built_receiver: bool = False
    # A member a class defines rather than reads: a protocol method deprecated as a plain method
    # (not a classmethod), or an `__init__` deprecated with arguments from a subclass's `super().__init__(...)`.
    plain_method: bool = False
    super_arguments: bool = False
    record: str = ""  # the harvest's key of the row, where the table's key is not it
    needs_torch: Optional[str] = None  # the oldest torch release that has `new`
    why_no_fix: str = ""  # when `replacement` is not exact: how it differs (shown in the docs)
    # A whole subsystem torch deprecates for a successor that is no drop-in replacement
    # ("TorchScript", "quantization"): reported by GL518, which is opt-in, not by GL517.
    subsystem: str = ""
