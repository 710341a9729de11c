"""Which argument of a call each parameter of the called function receives.

One binder for every signature: a `def` of the file (`Signature.of`), or a torch function or class
given as data (`Signature.of_names(("input", "/", "dim", "*", "out"))`, Python's own markers for
positional-only and keyword-only parameters). A method called through an object binds its first
parameter to the object (`receiver`). Python's rules, statically: after `*args`, which slot a
positional argument fills depends on the length of `args`, so it binds none and the slots left
may be filled by `*args`; a `**kwargs` may pass any parameter not passed explicitly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence, Union

import libcst as cst


@dataclass(frozen=True)
class Signature:
    positional_only: tuple[str, ...] = ()
    positional: tuple[str, ...] = ()  # positional or keyword
    keyword_only: tuple[str, ...] = ()
    takes_args: bool = False  # `*args`
    takes_kwargs: bool = False  # `**kwargs`
    defaults: dict[str, cst.BaseExpression] = field(default_factory=dict, compare=False)

    @classmethod
    def of(cls, function: Union[cst.FunctionDef, cst.Lambda]) -> "Signature":
        params = function.params
        every = (*params.posonly_params, *params.params, *params.kwonly_params)
        return cls(
            tuple(param.name.value for param in params.posonly_params),
            tuple(param.name.value for param in params.params),
            tuple(param.name.value for param in params.kwonly_params),
            isinstance(params.star_arg, cst.Param),
            params.star_kwarg is not None,
            {param.name.value: param.default for param in every if param.default is not None},
        )

    @classmethod
    def of_names(cls, names: Sequence[str]) -> "Signature":
        """From parameter names in order, with "/" after the positional-only ones, "*" before the
        keyword-only ones, and "*args" / "**kwargs" for the variadic ones."""
        groups: list[list[str]] = [[], [], []]
        group, takes_args, takes_kwargs = 1, False, False
        for name in names:
            if name == "/":
                groups[0], groups[1] = groups[1], []
            elif name.startswith("**"):
                takes_kwargs = True
            elif name.startswith("*"):
                group, takes_args = 2, takes_args or name != "*"
            else:
                groups[group].append(name)
        return cls(tuple(groups[0]), tuple(groups[1]), tuple(groups[2]), takes_args, takes_kwargs)

    @property
    def slots(self) -> tuple[str, ...]:
        """The parameters a positional argument can fill, in order."""
        return (*self.positional_only, *self.positional)

    def __contains__(self, name: str) -> bool:
        return name in self.positional_only or name in self.positional or name in self.keyword_only


class Unknown:
    """The value of a parameter that a `*args` or `**kwargs` of the call may pass."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


@dataclass
class BoundArguments:
    signature: Signature
    receiver: Optional[cst.BaseExpression] = None
    receiver_parameter: Optional[str] = None
    # Every explicit argument whose name is known, in the call's order: a positional one by the
    # parameter it fills, a keyword one by its keyword (a parameter of the signature or not).
    named: dict[str, cst.Arg] = field(default_factory=dict)
    extra_positional: list[cst.Arg] = field(default_factory=list)  # beyond the slots, without `*args` to take them
    unknown_keywords: list[cst.Arg] = field(default_factory=list)  # not a parameter, without `**kwargs` to take them
    repeated: list[cst.Arg] = field(default_factory=list)  # a parameter passed again (or the receiver's)
    unpacks_args: bool = False  # the call has a `*args`
    open_slots: tuple[str, ...] = ()  # the positional parameters its `*args` may fill
    open_keywords: bool = False  # the call has a `**kwargs`, which may pass any parameter left

    @property
    def starred(self) -> bool:
        """The call unpacks `*args` or `**kwargs`."""
        return self.unpacks_args or self.open_keywords

    @property
    def fits(self) -> bool:
        """Every explicit argument fills one parameter, and none is filled twice."""
        return not (self.extra_positional or self.unknown_keywords or self.repeated)

    def argument(self, name: str) -> Optional[cst.Arg]:
        """The explicit argument passed for the parameter `name` (not a default, not the receiver)."""
        return self.named.get(name) if name in self.signature else None

    def passed(self, name: str) -> Optional[cst.BaseExpression]:
        """The expression given for `name`: its explicit argument, or the receiver for the first
        parameter of a method; None when neither."""
        if name == self.receiver_parameter:
            return self.receiver
        argument = self.argument(name)
        return argument.value if argument is not None else None

    def value(self, name: str) -> Union[cst.BaseExpression, Unknown, None]:
        """What the parameter `name` holds in the call: the expression passed, else UNKNOWN when
        a `*args` / `**kwargs` may pass it, else its default (None without one)."""
        passed = self.passed(name)
        if passed is not None:
            return passed
        if name in self.open_slots or (self.open_keywords and name in self.signature and name not in self.signature.positional_only):
            return UNKNOWN
        return self.signature.defaults.get(name)

    def values(self) -> dict[str, cst.BaseExpression]:
        """Parameter -> the expression passed for it, the receiver first, then in the call's order."""
        found = {self.receiver_parameter: self.receiver} if self.receiver_parameter is not None else {}
        found.update((name, arg.value) for name, arg in self.named.items() if name in self.signature)
        return found


def bind(call: cst.Call, signature: Signature, receiver: Optional[cst.BaseExpression] = None) -> BoundArguments:
    """Bind the arguments of `call` to `signature`; `receiver`: the object a method is called on,
    bound to its first positional parameter (a signature without one cannot take it: `repeated`)."""
    bound = BoundArguments(signature, receiver)
    slots = list(signature.slots)
    if receiver is not None:
        if slots:
            bound.receiver_parameter = slots.pop(0)
        else:
            bound.repeated.append(cst.Arg(receiver))
    filled = 0
    after_star = False
    for arg in call.args:
        if arg.star == "*":
            after_star = bound.unpacks_args = True
            bound.open_slots = tuple(slot for slot in slots[filled:] if slot not in bound.named)
        elif arg.star == "**":
            bound.open_keywords = True
        elif arg.keyword is None:
            if after_star:
                continue  # its slot depends on the length of the unpacked sequence
            if filled < len(slots):
                bound.named[slots[filled]] = arg
            elif not signature.takes_args:
                bound.extra_positional.append(arg)
            filled += 1
        else:
            _bind_keyword(bound, arg, arg.keyword.value)
    return bound


def _bind_keyword(bound: BoundArguments, arg: cst.Arg, name: str) -> None:
    signature = bound.signature
    if name in bound.named or name == bound.receiver_parameter:
        bound.repeated.append(arg)
        return
    if name not in signature.positional_only:
        bound.named[name] = arg
    if (name not in signature or name in signature.positional_only) and not signature.takes_kwargs:
        bound.unknown_keywords.append(arg)
