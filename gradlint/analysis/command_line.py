"""What does an option of the file's command line hold: is `opt.batchSize` a Python int?

A script's `opt = parser.parse_args()`, its parser built in the same file with
`argparse.ArgumentParser(...)` and `parser.add_argument(...)`, gives a namespace whose attributes
are what the declarations say: `type=int` converts the command line's text to an int, and a
default an int literal (or text `int()` reads) keeps it an int when the option is not given;
`required=True` and positional arguments always come from the command line. Without `type` the
command line's value is text, whatever the default; `type=int` without a default is None when the
option is left out. `action="store_true"` / `"store_false"` give a bool.

Only module-level names are read, and only when nothing else can change what they hold: the
parser is used only to declare arguments and parse them (no argument groups, parents,
`set_defaults`, or being handed to other code), every declaration spells its names and types
literally, and the namespace is never written through (`opt.batchSize = ...`), handed to other
code than printing, or rebound. Module-level code may also hand it to a callable of the project
(`model = RN(args)`) that the project index has read (`argument_writes`, see
`attribute_writes`): the options the callable may write are then unknown, the others keep their
declared type. Anything else is unknown.
"""

from __future__ import annotations

from functools import cached_property
from typing import Callable, Mapping, Optional

import libcst as cst

from gradlint.analysis.imports import ImportMap
from gradlint.analysis.scopes import Scope, ScopeTable
from gradlint.analysis.semantic.scope import ScopeUses, ScopeUsesTable, is_write_target
from gradlint.analysis.syntax import is_bool_literal

INT = "int"
NUMBER = "number"  # an int or a float
BOOL = "bool"

_PARSER = "argparse.ArgumentParser"
# Parser keywords that change which arguments it has or what their defaults are.
_CHANGES_ARGUMENTS = frozenset({"parents", "argument_default", "conflict_handler"})
# Calls a namespace may be given to without being changed.
_READERS = frozenset({"print", "str", "repr", "format"})
_CONVERTERS = {"int": INT, "float": NUMBER}


class CommandLineOptions:
    """Per file: the options of its module-level argparse namespaces, found when first asked."""

    def __init__(
        self,
        module: cst.Module,
        imports: ImportMap,
        scopes: ScopeTable,
        scope_uses: ScopeUsesTable,
        argument_writes: Mapping[str, frozenset[str]] = {},
    ) -> None:
        """`argument_writes`: "RN(0)" -> the attributes the project callable `RN` may write on
        what the file passes in that slot (the project index's answer, for a whole-project run)."""
        self.module = module
        self.imports = imports
        self.scopes = scopes
        self.scope_uses = scope_uses
        self.argument_writes = argument_writes

    def option_type(self, node: cst.BaseExpression, scope: Optional[Scope]) -> Optional[str]:
        """INT, NUMBER or BOOL for `opt.name` read in `scope`, where `opt` is a namespace of the
        file whose option `name` is declared to hold one; None otherwise."""
        if type(node) is not cst.Attribute or type(node.value) is not cst.Name:
            return None
        namespace = node.value.value
        options = self._namespaces.get(namespace)
        if options is None or not self._reads_module_name(namespace, scope):
            return None
        return options.get(node.attr.value)

    def is_int(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        return self.option_type(node, scope) == INT

    def is_number(self, node: cst.BaseExpression, scope: Optional[Scope]) -> bool:
        return self.option_type(node, scope) in (INT, NUMBER)

    def _reads_module_name(self, name: str, scope: Optional[Scope]) -> bool:
        """`name` read in `scope` is the module's: the module itself, or a function of it that binds no `name` of its own."""
        if scope is None or scope is self.module:
            return True
        if type(scope) is not cst.FunctionDef:
            return False
        uses = self.scope_uses.of(scope)
        return not self.scopes.of(scope).assigned(name) and name not in uses.unseen_bindings and name not in uses.loop_targets

    # -- the index, built once ----------------------------------------------------------------------

    @cached_property
    def _uses(self) -> ScopeUses:
        return self.scope_uses.of(self.module)

    @cached_property
    def _namespaces(self) -> dict[str, dict[str, str]]:
        """Namespace name -> option name -> its type, for the options whose type is known."""
        found: dict[str, dict[str, str]] = {}
        bindings = self.scopes.of(self.module)
        for name, values in bindings.values.items():
            if len(values) != 1 or type(values[0]) is not cst.Call:
                continue
            call = values[0]
            func = call.func
            if type(func) is not cst.Attribute or func.attr.value != "parse_args" or type(func.value) is not cst.Name:
                continue
            if any(arg.star or arg.keyword is not None and arg.keyword.value == "namespace" for arg in call.args):
                continue
            options = self._parser_options(func.value.value)
            written = self._written_options(name) if options is not None else None
            if written is not None:
                found[name] = {option: kind for option, kind in options.items() if kind is not None and option not in written}
        return found

    def _parser_options(self, parser: str) -> Optional[dict[str, Optional[str]]]:
        """Option name -> INT / NUMBER / BOOL / None (not known) for the module-level `parser`,
        or None when the parser is not one whose arguments are all seen."""
        values = self.scopes.of(self.module).assigned(parser)
        if len(values) != 1 or not self._builds_parser(values[0]) or parser in self._uses.unseen_bindings:
            return None
        options: dict[str, Optional[str]] = {}
        for occurrence in self._uses.occurrences(parser):
            parent = self._uses.parent(occurrence)
            if type(parent) is cst.AssignTarget:
                continue
            call = self._uses.parent(parent)
            if type(parent) is not cst.Attribute or type(call) is not cst.Call or call.func is not parent:
                return None
            if parent.attr.value == "parse_args":
                continue
            if parent.attr.value != "add_argument":
                return None
            declared = _declaration(call, self._builtin)
            if declared is None:
                return None
            name, kind = declared
            options[name] = None if name in options else kind  # declared twice: not known
        return options

    def _builds_parser(self, value: cst.BaseExpression) -> bool:
        return (
            type(value) is cst.Call
            and self.imports.qualified_name(value.func) == _PARSER
            and not any(arg.star or arg.keyword is not None and arg.keyword.value in _CHANGES_ARGUMENTS for arg in value.args)
        )

    def _written_options(self, namespace: str) -> Optional[set[str]]:
        """The options written through the namespace anywhere in the file (`opt.seed = ...`);
        None when it may be changed otherwise: rebound, or handed to code other than printing."""
        uses = self._uses
        if namespace in uses.unseen_bindings or namespace in uses.loop_targets:
            return None
        written = set()
        for occurrence in uses.occurrences(namespace):
            parent = uses.parent(occurrence)
            if type(parent) is cst.AssignTarget:
                continue
            if type(parent) is cst.Attribute and parent.value is occurrence:
                if is_write_target(uses, parent):
                    written.add(parent.attr.value)
                continue
            call = uses.parent(parent)
            if type(parent) is cst.Arg and type(call) is cst.Call and type(call.func) is cst.Name and call.func.value in _READERS:
                if self._builtin(call.func.value):
                    continue
            callee_writes = self._callee_writes(parent, call) if type(parent) is cst.Arg and type(call) is cst.Call else None
            if callee_writes is None:
                return None
            written |= callee_writes
        return written

    def _callee_writes(self, argument: cst.Arg, call: cst.Call) -> Optional[frozenset[str]]:
        """What the project callable a module-level call hands `argument` to may write on it."""
        func = call.func
        if type(func) is not cst.Name or argument.star or self._uses.in_nested_function(call):
            return None
        if argument.keyword is not None:
            slot = f"{argument.keyword.value}="
        else:
            positional = [arg for arg in call.args if arg.keyword is None]
            if any(arg.star for arg in positional[: positional.index(argument)]):
                return None
            slot = str(positional.index(argument))
        return self.argument_writes.get(f"{func.value}({slot})")

    def _builtin(self, name: str) -> bool:
        """`name` is the builtin of that name anywhere in the file (nothing binds it)."""
        uses = self._uses
        return name not in self.imports.bindings and not self.scopes.of(self.module).assigned(name) and name not in uses.unseen_bindings


def _declaration(call: cst.Call, builtin: Callable[[str], bool]) -> Optional[tuple[str, Optional[str]]]:
    """(option name, INT / NUMBER / BOOL / None) of `parser.add_argument(...)`; None when its
    name is not spelled literally."""
    flags = []
    keywords: dict[str, cst.BaseExpression] = {}
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if type(arg.value) is not cst.SimpleString:
                return None
            flags.append(arg.value.evaluated_value)
        else:
            keywords[arg.keyword.value] = arg.value
    name = _destination(flags, keywords.get("dest"))
    if name is None:
        return None
    return name, _kind(flags, keywords, builtin)


def _destination(flags: list, dest: Optional[cst.BaseExpression]) -> Optional[str]:
    if dest is not None:
        return dest.evaluated_value if type(dest) is cst.SimpleString else None
    if not flags or not all(isinstance(flag, str) and flag for flag in flags):
        return None
    if not flags[0].startswith("-"):
        return flags[0]  # a positional argument
    long = [flag for flag in flags if flag.startswith("--")]
    chosen = long[0] if long else flags[0]
    return chosen.lstrip("-").replace("-", "_") or None


def _kind(flags: list, keywords: dict[str, cst.BaseExpression], builtin: Callable[[str], bool]) -> Optional[str]:
    positional = bool(flags) and not flags[0].startswith("-")
    action = keywords.get("action")
    if action is not None:
        spelled = action.evaluated_value if type(action) is cst.SimpleString else None
        if spelled in ("store_true", "store_false") and "default" not in keywords:
            return BOOL
        if spelled != "store":
            return None
    if "nargs" in keywords or "const" in keywords:
        return None
    converter = keywords.get("type")
    if type(converter) is not cst.Name or converter.value not in _CONVERTERS or not builtin(converter.value):
        return None
    kind = _CONVERTERS[converter.value]
    if positional or is_bool_literal(keywords.get("required"), True):
        return kind  # always given on the command line
    default = keywords.get("default")
    if type(default) is cst.Integer:
        return kind
    if type(default) is cst.Float:
        return NUMBER if kind == NUMBER else None  # `type=int, default=0.5` keeps the float
    if type(default) is cst.SimpleString:
        return kind if _converts(default.evaluated_value, converter.value) else None
    return None  # no default: None when the option is left out


def _converts(text: object, converter: str) -> bool:
    """argparse passes a text default through `type`: `int("64")`."""
    try:
        (int if converter == "int" else float)(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False
    return True
