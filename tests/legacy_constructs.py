"""The PyTorch 0.3 constructs left in a source file, found by a plain AST walk.

This is the examples test's own yardstick, written independently of gradlint's rules: it knows
nothing about bindings, scopes or types beyond one function body, so it errs on the side of
reporting. It looks for the 0.3 API that torch 2.13 rejects, ignores with a warning, or answers
differently: `Variable`, `volatile`, `[0]` for a scalar, type tests against `Variable` or the
legacy tensor types, old-style autograd Functions. A `.data` read still means the same.
Per-element class targets are a matter of shapes, which the runs check instead.

`legacy_api_constructs` does the same for the APIs removed, renamed or changed since 0.3
(`clip_grad_norm`, `size_average=`, `torch.FloatTensor(...)`, `F.softmax(x)` without `dim`, ...),
resolving import aliases and nothing else. `all_constructs` counts every kind, including the
`async=` keyword arguments that keep Python 3.7+ from parsing a 0.3 file at all.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass

LEGACY_TENSOR_TYPE = re.compile(r"^torch\.(cuda\.)?(Float|Double|Half|Byte|Char|Short|Int|Long)Tensor$")
FUNCTION_BASES = {"Function", "autograd.Function", "torch.autograd.Function"}


@dataclass(frozen=True, order=True)
class Construct:
    line: int
    kind: str


def dotted(node: ast.AST) -> str:
    """`torch.cuda.FloatTensor` for that attribute chain, "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def is_variable(node: ast.AST) -> bool:
    return dotted(node) in {"Variable", "autograd.Variable", "torch.autograd.Variable"}


def is_type_of(node: ast.AST) -> bool:
    """`type(x)` or `x.__class__`."""
    call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
    return call or (isinstance(node, ast.Attribute) and node.attr == "__class__")


def is_legacy_tensor_type(node: ast.AST) -> bool:
    if isinstance(node, ast.Tuple):
        return any(is_legacy_tensor_type(element) for element in node.elts)
    return bool(LEGACY_TENSOR_TYPE.match(dotted(node)))


def is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def old_style_functions(tree: ast.Module) -> set[str]:
    """Classes deriving from autograd's Function whose `forward` is not a staticmethod."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(dotted(base) in FUNCTION_BASES for base in node.bases):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    if not any(dotted(decorator) == "staticmethod" for decorator in item.decorator_list):
                        found.add(node.name)
    return found


def running_sums(function: ast.AST) -> set[str]:
    """Names added to with `+=` in one body, other than by a list, tuple or string display
    (`total_loss += loss.data`: a one-element tensor in 0.3, read back as `total_loss[0]`)."""
    displays = (ast.List, ast.ListComp, ast.Tuple, ast.JoinedStr)
    return {
        node.target.id
        for node in ast.walk(function)
        if isinstance(node, ast.AugAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(node.op, ast.Add)
        and not isinstance(node.value, displays)
        and not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))
    }


def legacy_constructs(source: str) -> list[Construct]:
    tree = ast.parse(source)
    old_functions = old_style_functions(tree)
    found: set[Construct] = set()

    def add(node: ast.AST, kind: str) -> None:
        found.add(Construct(node.lineno, kind))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("torch.autograd", "torch.autograd.variable"):
            if any(alias.name == "Variable" for alias in node.names):
                add(node, "Variable import")
        elif isinstance(node, ast.Call):
            if is_variable(node.func):
                add(node, "Variable(...) call")
            if any(keyword.arg == "volatile" for keyword in node.keywords):
                add(node, "volatile= argument")
            if dotted(node.func) == "isinstance" and len(node.args) == 2:
                if is_variable(node.args[1]):
                    add(node, "isinstance(x, Variable)")
                if is_legacy_tensor_type(node.args[1]):
                    add(node, "legacy tensor type check")
            if isinstance(node.func, ast.Call) and dotted(node.func.func) in old_functions:
                add(node, "old-style Function instance call")
        elif isinstance(node, ast.Attribute) and node.attr == "volatile":
            add(node, "volatile attribute")
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                sides = (node.left, node.comparators[0])
                if any(is_type_of(side) for side in sides):
                    if any(is_variable(side) for side in sides):
                        add(node, "type(x) == Variable")
                    if any(is_legacy_tensor_type(side) for side in sides):
                        add(node, "legacy tensor type check")
        elif isinstance(node, ast.Subscript) and is_zero(node.slice):
            value = node.value
            if isinstance(value, ast.Attribute) and value.attr == "data":
                add(node, ".data[0]")
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "numpy":
                add(node, ".numpy()[0]")
        elif isinstance(node, ast.ClassDef) and node.name in old_functions:
            add(node, "old-style Function")
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            sums = running_sums(function)
            for node in ast.walk(function):
                if isinstance(node, ast.Subscript) and is_zero(node.slice) and isinstance(node.value, ast.Name):
                    if node.value.id in sums:
                        add(node, "[0] of a running sum")
    return sorted(found)


# ---------------------------------------------------------------------------------------------
# APIs removed, renamed or changed since 0.3: what `gradlint fix --migrate` is meant to leave none of.

INITIALISERS = "uniform normal constant xavier_uniform xavier_normal kaiming_uniform kaiming_normal orthogonal sparse eye dirac"
RENAMED_CALLS = {
    *(f"torch.nn.init.{name}" for name in INITIALISERS.split()),
    "torch.nn.utils.clip_grad_norm",
    "torch.nn.functional.upsample",
    "torch.nn.functional.upsample_bilinear",
    "torch.nn.functional.upsample_nearest",
    "torch.nn.UpsamplingNearest2d",
    "torch.nn.UpsamplingBilinear2d",
    "torch.nn.NLLLoss2d",
    "torch.cuda.memory_cached",
    "torch.ger",
    "torch.range",
    "torch.set_default_tensor_type",
    "torch.cuda.amp.autocast",
    "torch.cuda.amp.GradScaler",
    "torch.cpu.amp.autocast",
    *(f"torch.{name}" for name in "gesv potrf potrs gels trtrs btrifact solve symeig eig lstsq matrix_rank chain_matmul".split()),
}
LEGACY_CONSTRUCTOR = re.compile(r"^torch\.(cuda\.)?((Float|Double|Half|Byte|Char|Short|Int|Long)Tensor|Tensor)$")
SOFTMAX_FUNCTIONS = {f"torch.nn.functional.{name}" for name in ("softmax", "log_softmax", "softmin")}
SOFTMAX_MODULES = {f"torch.nn.{name}" for name in ("Softmax", "LogSoftmax", "Softmin")}
LOSS_FLAGS = {"size_average", "reduce"}


def import_aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted module or object it was imported as."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def resolved(node: ast.AST, aliases: dict[str, str]) -> str:
    """`torch.nn.functional.softmax` for `F.softmax` after `import torch.nn.functional as F`."""
    name = dotted(node)
    head, _, rest = name.partition(".")
    full = aliases.get(head, head)
    return f"{full}.{rest}" if rest else full


def legacy_api_constructs(source: str) -> list[Construct]:
    tree = ast.parse(source)
    aliases = import_aliases(tree)
    found: set[Construct] = set()

    def add(node: ast.AST, kind: str) -> None:
        found.add(Construct(node.lineno, kind))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(("torch._six", "functorch")):
            add(node, f"{node.module} import")
        elif isinstance(node, ast.Attribute) and node.attr == "saved_variables":
            add(node, "ctx.saved_variables")
        elif isinstance(node, ast.Call):
            name = resolved(node.func, aliases)
            keywords = {keyword.arg for keyword in node.keywords}
            if name in RENAMED_CALLS:
                add(node, f"{name}(...)")
            if LEGACY_CONSTRUCTOR.match(name):
                add(node, "legacy tensor constructor")
            if isinstance(node.func, ast.Attribute) and node.func.attr == "type" and len(node.args) == 1:
                argument = resolved(node.args[0], aliases)
                if LEGACY_CONSTRUCTOR.match(argument) or argument in module_level_types(tree, aliases):
                    add(node, ".type(legacy tensor type)")
            if name.startswith("torch.nn.") and keywords & LOSS_FLAGS:
                add(node, "size_average= / reduce=")
            if keywords & {"retain_variables", "unbiased"}:
                add(node, "retain_variables= / unbiased=")
            if name in SOFTMAX_FUNCTIONS and len(node.args) < 2 and "dim" not in keywords:
                add(node, "softmax without dim")
            if name in SOFTMAX_MODULES and not node.args and "dim" not in keywords:
                add(node, "softmax module without dim")
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("add_", "sub_", "add", "sub") and len(node.args) == 2:
                if is_number(node.args[0]):
                    add(node, "number-first add/sub overload")
    return sorted(found)


def module_level_types(tree: ast.Module, aliases: dict[str, str]) -> set[str]:
    """Names bound at module level to a legacy tensor type (`dtype = torch.FloatTensor`)."""
    return {
        target.id
        for statement in tree.body
        if isinstance(statement, ast.Assign) and LEGACY_CONSTRUCTOR.match(resolved(statement.value, aliases))
        for target in statement.targets
        if isinstance(target, ast.Name)
    }


def is_number(node: ast.AST) -> bool:
    """A number literal, a negated name or literal (`-lr`), or a name spelled like a rate."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    return isinstance(node, ast.Name) and node.id in ("lr", "learning_rate", "alpha", "step_size")


# ---------------------------------------------------------------------------------------------
# `.data` reads: the same spelling still works, but it meant the Variable's own tensor in 0.3 and
# is an untracked alias today, which is what the migration replaces.

NOT_TENSORS = {"self", "args", "opt", "config", "params", "options"}  # `args.data` is a path


def imported_modules(tree: ast.Module) -> set[str]:
    """Names bound by `import` statements: `torch` for `import torch` or `import torch.utils.data`,
    `tud` for `import torch.utils.data as tud`. Every dotted path starting from one names a module
    or a module's attribute, never a tensor."""
    return {alias.asname or alias.name.partition(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}


def is_module_path(node: ast.AST, modules: set[str]) -> bool:
    """`torch.utils` after `import torch`: a dotted name whose head is an imported module."""
    head = dotted(node).partition(".")[0]
    return head in modules


def data_receiver(node: ast.AST, modules: set[str]) -> ast.AST | None:
    """The receiver of a `.data` attribute, unless it is one of NOT_TENSORS or a module path
    (`torch.utils.data.DataLoader`)."""
    if not (isinstance(node, ast.Attribute) and node.attr == "data"):
        return None
    if (isinstance(node.value, ast.Name) and node.value.id in NOT_TENSORS) or is_module_path(node.value, modules):
        return None
    return node.value


def is_integer_index(node: ast.AST) -> bool:
    """`0`, `1`, `0, 0`: an index that gave a Python number in 0.3."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(is_integer_index(element) for element in node.elts)
    return isinstance(node, ast.Constant) and type(node.value) is int


def legacy_data_reads(source: str) -> list[Construct]:
    """Every `.data` read of a receiver not in NOT_TENSORS, and `.data[i]` read as a number for
    any integer index other than a plain `[0]` (which `legacy_constructs` counts). Name-based, so
    it errs on the side of reporting (a dataset's `.data` counts too), but a module path's `.data`
    (`torch.utils.data`) is an import, not a read."""
    tree = ast.parse(source)
    modules = imported_modules(tree)
    found: set[Construct] = set()
    for node in ast.walk(tree):
        if data_receiver(node, modules) is not None:
            found.add(Construct(node.lineno, ".data"))
        elif isinstance(node, ast.Subscript) and data_receiver(node.value, modules) is not None:
            if is_integer_index(node.slice) and not is_zero(node.slice):
                found.add(Construct(node.lineno, ".data[i]"))
    return sorted(found)


# ---------------------------------------------------------------------------------------------
# `x.cuda(async=True)`: a syntax error since Python 3.7, so the file is read with `non_blocking=`.


def all_constructs(source: str) -> list[Construct]:
    """Every legacy construct of a file: its `async=` keyword arguments, then what the scans above
    find in it with those read as `non_blocking=`."""
    source, found = without_async_keywords(source)
    return sorted(found + legacy_constructs(source) + legacy_api_constructs(source) + legacy_data_reads(source))


def without_async_keywords(source: str) -> tuple[str, list[Construct]]:
    """`source` with each `async=` keyword argument spelled `non_blocking=`, and where they were."""
    try:
        tokens = [token for token in tokenize.generate_tokens(io.StringIO(source).readline) if token.type not in _LAYOUT]
    except (tokenize.TokenError, SyntaxError):
        return source, []
    keywords = [
        token
        for before, token, after in zip(tokens, tokens[1:], tokens[2:])
        if token.string == "async" and after.string == "=" and before.string in ("(", ",")
    ]
    lines = source.splitlines(keepends=True)
    for token in reversed(keywords):
        row, column = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:column] + "non_blocking" + line[column + len("async") :]
    return "".join(lines), [Construct(token.start[0], "async= argument") for token in keywords]


_LAYOUT = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
