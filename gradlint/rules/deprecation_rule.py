"""Rules over a table of deprecated torch APIs (GL517, GL518): one policy, two tables. A use is a
dotted name resolved through the imports (called, read, imported as a module, used as a
decorator, assigned when it is a setting), a keyword argument given in a call of the named
callable, a method called on a value known to be a tensor, or a member of a torch object (on a
value known to be one, or by a name only torch uses); a row may single out one form of a call
(more positional arguments, a keyword given, a keyword's value). The fix replaces the
name where the replacement is exact."""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar, Optional, Union

import libcst as cst

from gradlint.analysis.frameworks import imports_torch
from gradlint.analysis.syntax import dotted_name, keyword_arg, parameter_names, positional_args
from gradlint.analysis.torch_api.deprecations import Deprecated
from gradlint.analysis.version_fallbacks import in_version_fallback
from gradlint.fix.builders import call_without_argument, indentation, render_at, torch_alias, with_keywords
from gradlint.fix.plan import FixPlan, Replace
from gradlint.rules.base import Rule

_Reference = Union[cst.Name, cst.Attribute]


def triggers_of(callables: dict, keywords: dict, methods: dict, members: dict) -> tuple[str, ...]:
    """The prefilter's words for a table: the last part of each name, each keyword, each method."""
    # A row on what a subclass defines triggers on its class's name (`Sampler`), not on `__init__`.
    owners = {key.rsplit(".", 2)[-2] for key, entry in members.items() if entry.super_arguments}
    plain = {key.rsplit(".", 1)[-1] for key, entry in members.items() if not entry.super_arguments}
    names = {name.rsplit(".", 1)[-1] for name in callables} | owners | plain
    return tuple(sorted(names | {keyword for _, keyword in keywords} | set(methods)))


def _of_a_call(entry: Deprecated) -> bool:
    """Only a form of a call is deprecated: the name alone is not."""
    return entry.over_positional is not None or bool(entry.given or entry.tensor_argument)


class DeprecationTableRule(Rule):
    """Reports the uses of the rows of `callables`, `keywords`, `methods` and `members` (set by each rule)."""

    callables: ClassVar[dict[str, Deprecated]] = {}
    keywords: ClassVar[dict[tuple[str, str], Deprecated]] = {}
    methods: ClassVar[dict[str, Deprecated]] = {}
    members: ClassVar[dict[str, Deprecated]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if type(func) in (cst.Name, cst.Attribute):
            qualified = self.context.imports.qualified_name(func)
            entry = self.callables.get(qualified) if qualified is not None else None
            if entry is not None and self._call_form(node, entry) and not self._in_version_fallback():
                written = entry.form or self._callee(func, qualified)
                self.report(func, self._message(written, entry, quoted=True), self._call_fix(node, func, entry))
            if qualified is not None:
                self._check_keywords(node, qualified)
        if type(func) is cst.Attribute and func.attr.value in self.methods:
            self._check_method(node, func)
        if type(func) is cst.Attribute and func.attr.value in self._member_names:
            self._check_member(func, node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        """`torch.has_cuda`, `torch.FloatStorage`: an API read without a call (calls, decorators and
        imports are reported where they are visited)."""
        parent = self.context.parent()
        if isinstance(parent, (cst.Call, cst.Decorator)) and node in (getattr(parent, "func", None), getattr(parent, "decorator", None)):
            return
        # `torch.get_autocast_gpu_dtype = patched`: a monkey-patch replaces the API, it does not use
        # it; a setting (`torch._dynamo.config.flag = True`) is used by the assignment.
        assigned = isinstance(parent, (cst.AssignTarget, cst.Del)) or (isinstance(parent, cst.AugAssign) and parent.target is node)
        qualified = self.context.imports.qualified_name(node)
        entry = self.callables.get(qualified) if qualified is not None else None
        if entry is not None and (entry.setting or not assigned) and not _of_a_call(entry):
            if not self._in_import() and not self._in_version_fallback():
                self.report(node, self._message(self.context.code_for(node), entry), self._read_fix(node, parent, entry))
        if not assigned and node.attr.value in self._member_names:
            self._check_member(node, None)

    # -- members of torch objects ---------------------------------------------------------------

    @cached_property
    def _member_names(self) -> dict[str, str]:
        """member name -> its row's key (`cummulative_sizes` -> `torch.utils.data.ConcatDataset.cummulative_sizes`)."""
        return {key.rsplit(".", 1)[-1]: key for key, entry in self.members.items() if not _defined_by_class(entry)}

    @cached_property
    def _class_rows(self) -> dict[str, str]:
        """method name -> the key of a row on what a class defines (`__torch_function__`, `__init__`)."""
        return {key.rsplit(".", 1)[-1]: key for key, entry in self.members.items() if _defined_by_class(entry)}

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        key = self._class_rows.get(node.name.value)
        if key is None or len(self.context.stack) < 3 or not isinstance(self.context.stack[-3], cst.ClassDef):
            return
        entry, owner, owner_class = self.members[key], key.rsplit(".", 1)[0], self.context.stack[-3]
        if self._in_version_fallback():
            return
        if entry.plain_method and not _decorated_as_class_level(node) and self._tensor_like(owner_class, owner):
            self.report(node.name, self._message(entry.form, entry, quoted=True))
        if entry.super_arguments and any(self._same_class(base.value, owner) for base in owner_class.bases):
            for call in _super_init_calls(node):
                if call.args:
                    self.report(call, self._message(entry.form, entry, quoted=True), self._without_arguments_fix(call, entry))

    def _same_class(self, base: cst.BaseExpression, owner: str) -> bool:
        """`base` is `owner` under any of its module paths (`torch.utils.data.sampler.Sampler`)."""
        qualified = self.context.imports.qualified_name(base) or ""
        package, name = owner.rsplit(".", 1)
        return qualified == owner or (qualified.startswith(package + ".") and qualified.rsplit(".", 1)[-1] == name)

    def _tensor_like(self, owner_class: cst.ClassDef, owner: str) -> bool:
        """A class torch treats by the protocol only: a subclass of `owner`, or of no class at all
        (a `TorchFunctionMode` defines the method on its instances, rightly)."""
        bases = [base.value for base in owner_class.bases if base.keyword is None]
        if any(base.star for base in owner_class.bases):
            return False
        return all(isinstance(base, cst.Name) and base.value == "object" or self._same_class(base, owner) for base in bases)

    def _without_arguments_fix(self, call: cst.Call, entry: Deprecated) -> Optional[FixPlan]:
        if any(arg.star for arg in call.args) or not all(_inert(arg.value) for arg in call.args) or "#" in _code(call):
            return None
        return self.safe_fix("Remove the arguments", Replace(call, call.with_changes(args=[])), needs_torch=entry.needs_torch)

    @cached_property
    def _defined_members(self) -> frozenset[str]:
        """The member names this file defines: methods and class attributes, attributes it assigns."""
        collector = _MemberDefinitions()
        self.context.module.visit(collector)
        return frozenset(collector.names)

    def _check_member(self, node: cst.Attribute, call: Optional[cst.Call]) -> None:
        key = self._member_names[node.attr.value]
        entry, owner = self.members[key], key.rsplit(".", 1)[0]
        if (call is None and _of_a_call(entry)) or (call is not None and not self._call_form(call, entry)):
            return
        if not self._of_owner(node, owner) or self._in_version_fallback():
            return
        written = entry.form or f"`.{node.attr.value}`"
        self.report(
            call if call is not None else node, self._message(written, entry, quoted=True), self._member_fix(node, call, entry, owner)
        )

    def _of_owner(self, node: cst.Attribute, owner: str) -> bool:
        """The receiver can be an `owner`: a tensor or a module the analysis knows as one; for any
        other class, a file that uses torch and defines no member of that name itself."""
        if owner == "torch.Tensor":
            return self._tensor_receiver(node.value, self.members[f"{owner}.{node.attr.value}"])
        if owner == "torch.nn.Module":
            return self.context.nn_modules.is_module(node.value, self.context.stack)
        return imports_torch(self.context.imports) and node.attr.value not in self._defined_members

    def _tensor_receiver(self, receiver: cst.BaseExpression, entry: Deprecated) -> bool:
        if entry.built_receiver:
            return self.context.values.is_evident_tensor(receiver, self.context.scope()) and self.context.is_known_tensor(receiver)
        return self.context.is_known_tensor(receiver)

    def _member_fix(self, node: cst.Attribute, call: Optional[cst.Call], entry: Deprecated, owner: str) -> Optional[FixPlan]:
        if entry.new is None:
            return None
        built = self._built_as(node.value, owner, entry)
        if entry.new_arguments:
            return self._new_arguments_fix(node, call, entry, unsafe=not built)
        if entry.by_keyword:
            if call is None or not self._fits(call, entry) or any(arg.star for arg in call.args):
                return None
            return self._keyword_call_fix(call, entry, unsafe=not built)
        title, rename = f"Rename to `.{entry.new}`", Replace(node.attr, cst.Name(entry.new))
        if built:
            return self.safe_fix(title, rename, needs_torch=entry.needs_torch)
        return self.unsafe_fix(title, rename, needs_torch=entry.needs_torch)

    def _new_arguments_fix(self, node: cst.Attribute, call: Optional[cst.Call], entry: Deprecated, unsafe: bool) -> Optional[FixPlan]:
        """`d.sample_n(n)` -> `d.sample(torch.Size((n,)))`: the method renamed, its one argument rewritten."""
        if call is None or len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return None
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        template = entry.new_arguments.replace("torch.", f"{alias}.")
        argument = cst.parse_expression(template.format(self.context.code_for(call.args[0].value)))
        rewritten = call.with_changes(func=node.with_changes(attr=cst.Name(entry.new)), args=[cst.Arg(argument)])
        replaced = Replace(call, render_at(self.context, rewritten, indentation(self.context, self.context.stack)))
        make = self.unsafe_fix if unsafe else self.safe_fix
        return make(f"Replace with `.{entry.new}({template.format('n')})`", *changes, replaced, needs_torch=entry.needs_torch)

    def _built_as(self, receiver: cst.BaseExpression, owner: str, entry: Deprecated) -> bool:
        """The receiver is surely an `owner`: built by it here (`ConcatDataset(parts)`) or by a class
        of the package that only builds owners (`torch.distributions.Normal(...)`), or a module this
        file builds (or `self` in a module class)."""
        if owner == "torch.nn.Module":
            if isinstance(receiver, cst.Name) and receiver.value == "self":
                return self.context.nn_modules.is_module(receiver, self.context.stack)
            return self.context.nn_modules.is_built_module(receiver, self.context.stack)
        if entry.elements_of:
            return self._element_of(receiver, entry.elements_of)
        qualified = self.context.imports.qualified_name(receiver.func) if isinstance(receiver, cst.Call) else None
        if qualified is None:
            return False
        by_package = bool(entry.built_by) and qualified.startswith(entry.built_by) and qualified.rsplit(".", 1)[-1][:1].isupper()
        return qualified == owner or by_package

    def _element_of(self, receiver: cst.BaseExpression, attribute: str) -> bool:
        """`prof.function_events[0]`, or a name bound only to such items or only by loops over
        `prof.function_events` (as a whole, not unpacked)."""

        def source(value: cst.BaseExpression) -> bool:
            return isinstance(value, cst.Attribute) and value.attr.value == attribute

        if isinstance(receiver, cst.Subscript):
            return source(receiver.value)
        if not isinstance(receiver, cst.Name):
            return False
        bindings = self.context.values.scopes.of(self.context.scope())
        name = receiver.value
        assigned = bindings.plain_values(name)
        if assigned:
            return all(isinstance(value, cst.Subscript) and source(value.value) for value in assigned)
        loops = bindings.loop_sources.get(name, [])
        scope = self.context.scope()
        parameter = isinstance(scope, cst.FunctionDef) and name in parameter_names(scope.params)
        if not loops or parameter or name in bindings.unpacked or bindings.assigned(name):
            return False
        return all(position is None and source(iterable) for iterable, position in loops)

    # -- the deprecated form of a call ----------------------------------------------------------

    def _call_form(self, call: cst.Call, entry: Deprecated) -> bool:
        positional = positional_args(call)
        stars = {arg.star for arg in call.args if arg.star}
        if entry.over_positional is not None and ("*" in stars or len(positional) <= entry.over_positional):
            return False
        if entry.given and keyword_arg(call, entry.given) is None:
            return False
        if entry.tensor_argument:
            position, keyword = entry.tensor_argument
            given = keyword_arg(call, keyword) or (positional[position] if len(positional) > position else None)
            return given is not None and self.context.is_known_tensor(given.value)
        return True

    def _in_import(self) -> bool:
        for ancestor in reversed(self.context.stack):
            if isinstance(ancestor, (cst.Import, cst.ImportFrom)):
                return True
            if isinstance(ancestor, cst.BaseStatement):
                return False
        return False

    def visit_Decorator(self, node: cst.Decorator) -> None:
        """`@torch.cuda.amp.custom_fwd` without a call: the reference itself is the use."""
        reference = node.decorator
        if type(reference) not in (cst.Name, cst.Attribute):
            return
        qualified = self.context.imports.qualified_name(reference)
        entry = self.callables.get(qualified) if qualified is not None else None
        if entry is not None and not _of_a_call(entry) and not self._in_version_fallback():
            self.report(reference, self._message(self.context.code_for(reference), entry))

    def visit_Import(self, node: cst.Import) -> None:
        """`import torch.x.deprecated_module`: a module is reported where it is imported."""
        for alias in node.names:
            self._check_module(alias.name)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if not node.relative and node.module is not None:
            self._check_module(node.module)

    def _check_module(self, module: _Reference) -> None:
        written = self.context.code_for(module)
        entry = self.callables.get(written)
        if entry is not None and not self._in_version_fallback():
            self.report(module, self._message(written, entry))

    def _check_keywords(self, node: cst.Call, qualified: str) -> None:
        for arg in node.args:
            if arg.keyword is None:
                continue
            entry = self.keywords.get((qualified, arg.keyword.value))
            if entry is None or self._in_version_fallback():
                continue
            if entry.values:
                self._check_keyword_value(node, arg, entry)
                continue
            written = f"`{arg.keyword.value}=` of `{self.context.code_for(node.func)}`"
            self.report(arg, self._message(written, entry, keyword=True), self._keyword_fix(node, arg, entry))

    def _check_keyword_value(self, call: cst.Call, arg: cst.Arg, entry: Deprecated) -> None:
        """`reduction="elementwise_mean"`: a keyword deprecated with one of its values only."""
        value = _literal(arg.value)
        if value is _NOT_A_LITERAL or value not in entry.values:
            return
        name = arg.keyword.value
        written = f"`{name}={self.context.code_for(arg.value)}` of `{self.context.code_for(call.func)}`"
        fix, advice = None, f"use `{entry.replacement}`" if entry.replacement else None
        new = _written_literal(entry.new_value, arg.value)
        if new is not None and not entry.wrapped_in:
            fix = self.safe_fix(
                f"Replace with `{name}={new}`", Replace(arg.value, cst.parse_expression(new)), needs_torch=entry.needs_torch
            )
            advice = f"use `{name}={new}`"
        elif new is not None:
            fix = self._wrapped_fix(call, arg, new, entry)
        self.report(arg, self._message(written, entry, quoted=True, advice=advice), fix)

    def _wrapped_fix(self, call: cst.Call, arg: cst.Arg, new: str, entry: Deprecated) -> Optional[FixPlan]:
        """`torch.stft(..., return_complex=False)` -> `torch.view_as_real(torch.stft(..., return_complex=True))`."""
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        wrapper = alias + entry.wrapped_in[len("torch") :]
        inner = call.with_changes(
            args=[other.with_changes(value=cst.parse_expression(new)) if other is arg else other for other in call.args]
        )
        wrapped = cst.Call(func=cst.parse_expression(wrapper), args=[cst.Arg(inner)])
        replaced = Replace(call, render_at(self.context, wrapped, indentation(self.context, self.context.stack)))
        return self.safe_fix(f"Replace with `{wrapper}(...)`", *changes, replaced, needs_torch=entry.needs_torch)

    def _callee(self, func: cst.BaseExpression, qualified: str) -> str:
        """The callee as written, and the torch name it stands for when the code calls it by another
        (an alias: `gather_op = dist.all_gather_into_tensor`, `import ... as wn`)."""
        code = self.context.code_for(func)
        if code.rpartition(".")[2] == qualified.rpartition(".")[2]:
            return f"`{code}`"
        return f"`{code}` (`{qualified}`)"

    def _check_method(self, node: cst.Call, func: cst.Attribute) -> None:
        entry = self.methods[func.attr.value]
        # Other libraries share these names (a PIL image's `resize`): the receiver must be a tensor
        # with nothing against it, not one only by its name.
        if not self._call_form(node, entry) or not self._tensor_receiver(func.value, entry) or self._in_version_fallback():
            return
        fix = None
        if entry.new is not None and self._fits(node, entry):
            fix = self.safe_fix(f"Replace with `.{entry.new}()`", Replace(func.attr, cst.Name(entry.new)), needs_torch=entry.needs_torch)
        self.report(node, self._message(entry.form or f"`.{func.attr.value}()`", entry, quoted=True), fix)

    def _message(self, written: str, entry: Deprecated, keyword: bool = False, quoted: bool = False, advice: Optional[str] = None) -> str:
        """`keyword`: `written` names a keyword argument, already quoted; so does the replacement.
        `quoted`: `written` is quoted already. `advice`: what to do instead, when not the row's."""
        name = written if keyword or quoted else f"`{written}`"
        if entry.removed is not None:
            state, version = "was removed", f"removed in torch {entry.removed}"
        else:
            state, version = "is deprecated", f"deprecated in torch {entry.since}"
        if advice is not None:
            pass
        elif entry.dropped:
            advice = "it has no effect, drop it"
        elif entry.replacement:
            advice = f"use `{entry.replacement}{'=' if keyword else ''}`"
        else:
            advice = "nothing replaces it"
        return f"{name} {state}: {advice} ({version})"

    def _in_version_fallback(self) -> bool:
        return in_version_fallback(self.context.stack, self.context.code_for)

    # -- fixes ---------------------------------------------------------------------------------

    def _fits(self, call: cst.Call, entry: Deprecated) -> bool:
        """The call passes only what the replacement takes with the same meaning."""
        if entry.positional is not None and (any(arg.star for arg in call.args) or len(positional_args(call)) > entry.positional):
            return False
        added = [name for name, _ in entry.keywords]
        return all(keyword_arg(call, name) is None for name in (*entry.without, *added))

    def _call_fix(self, call: cst.Call, func: _Reference, entry: Deprecated) -> Optional[FixPlan]:
        if entry.new is None or not entry.new.startswith("torch.") or not self._fits(call, entry):
            return None
        if entry.read_as_call or entry.members:
            return None  # the attribute is not callable: the call raises, its replacement would not
        if (entry.leading or entry.keywords or entry.by_keyword) and any(arg.star for arg in call.args):
            return None
        if entry.by_keyword:
            return self._keyword_call_fix(call, entry)
        if entry.curried is not None:
            return self._curried_fix(call, entry)
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        reference = cst.parse_expression(alias + entry.new[len("torch") :])
        title = f"Replace with `{alias}{entry.new[len('torch') :]}`"
        if not entry.leading and not entry.keywords:
            return self.safe_fix(title, *changes, Replace(func, reference), needs_torch=entry.needs_torch)
        leading = [cst.Arg(cst.parse_expression(text)) for text in entry.leading]
        rewritten = call.with_changes(func=reference, args=[*leading, *call.args])
        rewritten = with_keywords(rewritten, [(name, cst.parse_expression(text)) for name, text in entry.keywords])
        shown = ", ".join([*entry.leading, "..."])
        replaced = Replace(call, render_at(self.context, rewritten, indentation(self.context, self.context.stack)))
        return self.safe_fix(
            f"Replace with `{alias}{entry.new[len('torch') :]}({shown})`", *changes, replaced, needs_torch=entry.needs_torch
        )

    def _keyword_call_fix(self, call: cst.Call, entry: Deprecated, unsafe: bool = False) -> Optional[FixPlan]:
        """The replacement called with each positional argument passed by its name, in place (a
        method keeps its receiver and name)."""
        positional = positional_args(call)
        names = [name for name in entry.by_keyword[: len(positional)] if name]
        if len(positional) > len(entry.by_keyword) or any(keyword_arg(call, name) is not None for name in names):
            return None  # more than it takes, or one given twice: the call raises
        if entry.new.startswith("torch."):
            found = self._new_reference(call.func, entry.new)
            if found is None:
                return None
            written, changes = found
        else:
            written, changes = self.context.code_for(call.func), []
        equal = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
        named = {id(arg): name for arg, name in zip(positional, entry.by_keyword) if name}
        args = [arg.with_changes(keyword=cst.Name(named[id(arg)]), equal=equal) if id(arg) in named else arg for arg in call.args]
        rewritten = call.with_changes(func=cst.parse_expression(written), args=args)
        replaced = Replace(call, render_at(self.context, rewritten, indentation(self.context, self.context.stack)))
        shown = ", ".join(f"{name}=" for name in names)
        make = self.unsafe_fix if unsafe else self.safe_fix
        return make(f"Pass {shown} by keyword", *changes, replaced, needs_torch=entry.needs_torch)

    def _curried_fix(self, call: cst.Call, entry: Deprecated) -> Optional[FixPlan]:
        """`explain(f, x)` -> `explain(f)(x)`: the first arguments to `new`, the rest to its result."""
        count = entry.curried
        first, rest = list(call.args[:count]), list(call.args[count:])
        if len(first) < count or any(arg.keyword is not None or arg.star for arg in first) or not rest:
            return None
        found = self._new_reference(call.func, entry.new)
        if found is None:
            return None
        written, changes = found
        first[-1] = first[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        inner = cst.Call(func=cst.parse_expression(written), args=first)
        rewritten = call.with_changes(func=inner, args=rest)
        replaced = Replace(call, render_at(self.context, rewritten, indentation(self.context, self.context.stack)))
        return self.safe_fix(f"Replace with `{written}(...)(...)`", *changes, replaced, needs_torch=entry.needs_torch)

    def _read_fix(self, node: cst.Attribute, parent: Optional[cst.CSTNode], entry: Deprecated) -> Optional[FixPlan]:
        """An attribute read: its value's call (`torch.backends.cuda.is_built()`), or the member
        of the replacement (`ReduceOp.SUM`)."""
        if entry.new is None or not entry.new.startswith("torch.") or not (entry.read_as_call or entry.members):
            return None
        if entry.members and not (isinstance(parent, cst.Attribute) and parent.value is node and parent.attr.value in entry.members):
            return None
        found = self._new_reference(node, entry.new)
        if found is None:
            return None
        written, changes = found
        written += "()" if entry.read_as_call else ""
        return self.safe_fix(
            f"Replace with `{written}`", *changes, Replace(node, cst.parse_expression(written)), needs_torch=entry.needs_torch
        )

    def _new_reference(self, old: cst.BaseExpression, new: str) -> Optional[tuple[str, list]]:
        """How to write `new` in place of `old`: through the module `old` is read from when that
        module holds `new` too (`dist.reduce_op` -> `dist.ReduceOp`), else from `torch`."""
        module, _, name = new.rpartition(".")
        if self.context.imports.qualified_name(old) == new:
            return self.context.code_for(old), []
        if isinstance(old, cst.Attribute) and self.context.imports.qualified_name(old.value) == module:
            return f"{self.context.code_for(old.value)}.{name}", []
        found = torch_alias(self.context)
        if found is None:
            return None
        alias, changes = found
        return alias + new[len("torch") :], changes

    def _keyword_fix(self, call: cst.Call, arg: cst.Arg, entry: Deprecated) -> Optional[FixPlan]:
        if entry.dropped or (entry.dropped_when and _literal(arg.value) in entry.dropped_when):
            return self._drop_fix(call, arg, entry)
        if entry.new is None or keyword_arg(call, entry.new) is not None:
            return None  # both given: the call raises either way
        return self.safe_fix(f"Rename to `{entry.new}=`", Replace(arg.keyword, cst.Name(entry.new)), needs_torch=entry.needs_torch)

    def _drop_fix(self, call: cst.Call, arg: cst.Arg, entry: Deprecated) -> Optional[FixPlan]:
        """The call without the argument, when nothing else hangs on it: its value has no effects
        (a literal, a name), no `**kwargs` could pass it again, no comment sits in it."""
        if any(other.star == "**" for other in call.args) or not _inert(arg.value) or "#" in _code(arg):
            return None
        dropped = call_without_argument(call, arg)
        replaced = Replace(call, render_at(self.context, dropped, indentation(self.context, self.context.stack)))
        return self.safe_fix(f"Remove `{arg.keyword.value}=`", replaced, needs_torch=entry.needs_torch)


def _defined_by_class(entry: Deprecated) -> bool:
    return entry.plain_method or entry.super_arguments


def _decorated_as_class_level(function: cst.FunctionDef) -> bool:
    return any(dotted_name(decorator.decorator) in ("classmethod", "staticmethod") for decorator in function.decorators)


def _super_init_calls(function: cst.FunctionDef) -> list[cst.Call]:
    """The `super().__init__(...)` calls of a method, outside the functions nested in it."""
    found: list[cst.Call] = []

    class Finder(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value == "__init__"
                and isinstance(func.value, cst.Call)
                and dotted_name(func.value.func) == "super"
                and not func.value.args
            ):
                found.append(node)

    function.visit(Finder())
    return found


class _MemberDefinitions(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for statement in node.body.body:
            if isinstance(statement, cst.FunctionDef):
                self.names.add(statement.name.value)
            elif isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else []
                    targets += [small.target] if isinstance(small, cst.AnnAssign) else []
                    self.names.update(target.value for target in targets if isinstance(target, cst.Name))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if isinstance(node.target, cst.Attribute):
            self.names.add(node.target.attr.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Attribute):
            self.names.add(node.target.attr.value)


_NOT_A_LITERAL = object()


def _literal(value: cst.BaseExpression) -> object:
    """The value of a string, `True`, `False` or `None` as written; `_NOT_A_LITERAL` otherwise."""
    if isinstance(value, cst.SimpleString):
        return value.evaluated_value
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[value.value]
    return _NOT_A_LITERAL


def _written_literal(value: object, written: cst.BaseExpression) -> Optional[str]:
    """`value` as source, a string in the quotes of the literal `written` it replaces."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and isinstance(written, cst.SimpleString):
        return f"{written.prefix}{written.quote}{value}{written.quote}"
    return None


def _inert(value: cst.BaseExpression) -> bool:
    """A value whose evaluation does nothing else: a number, a string, a name, a dotted name."""
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)) or dotted_name(value) is not None


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)
