from __future__ import annotations

from typing import Optional

import libcst as cst

from gradlint.analysis.nn_module_classes import NnModuleClass
from gradlint.analysis.scopes import self_name
from gradlint.analysis.syntax import is_docstring, parameter_names, suite_statements
from gradlint.analysis.tree import descendants, iter_children
from gradlint.fix.plan import Applicability, Availability, InsertLineBefore
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{name}.__init__` never calls `super().__init__()`: `nn.Module`'s state is never created, so assigning a "
    "sub-module or parameter raises AttributeError and so does every call of the model"
)


class ModuleInitWithoutSuper(Rule):
    """
    ## What it does
    Flags an `nn.Module` subclass whose `__init__` never calls the base initialiser: no
    `super().__init__()`, `super(Net, self).__init__()`, `nn.Module.__init__(self)` or
    `Base.__init__(self, ...)` anywhere in the class, when that breaks something: `__init__`
    assigns a sub-module, parameter or buffer to `self` (or registers one, or calls a method
    such as `self.apply(...)` that needs the module's state), which raises while the instance is
    built, or the file uses an instance as a module (calls it, moves it, asks for its
    parameters or state, registers it in another module), which raises there.

    ## Why is this bad?
    `nn.Module.__init__` creates the dictionaries that hold parameters, buffers, sub-modules and
    hooks. Without it, measured in torch 2.13: `self.fc = nn.Linear(2, 2)` raises
    `AttributeError: cannot assign module before Module.__init__() call`, `self.w = nn.Parameter(...)`
    raises `AttributeError: cannot assign parameters before Module.__init__() call`, and
    `register_buffer` raises `... cannot assign buffer before Module.__init__() call`. A class
    that only stores plain values is constructed, then breaks at first use: calling it raises
    `AttributeError: 'Net' object has no attribute '_backward_hooks'`, and `.parameters()`,
    `.to()`, `.train()` and `repr()` raise `AttributeError: 'Net' object has no attribute
    '_parameters'` (or `'_modules'`), and so do `.parameters()` and `.to()` of a module it was
    registered in. What needs none of that state works: its own methods (`sampler.sample(t)`),
    plain attributes, `m.forward(x)`, `isinstance`, pickling.

    ## Example
    ```python
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
        def forward(self, x):
            return self.fc(x)
    ```

    ## Use instead
    ```python
    import torch.nn as nn
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(2, 2)
        def forward(self, x):
            return self.fc(x)
    ```

    ## Fix safety
    Safe, offered when the class's only base is `nn.Module`: `super().__init__()` is inserted as
    the first statement of `__init__` (after its docstring). `nn.Module.__init__` takes no
    argument the class could have meant, and runs before anything it sets up, as any module does;
    the code that raised then runs. With another base (a torch layer, a class of this file) the
    arguments it needs are not known: no fix.

    ## Known limits
    A class whose `__init__` stores only plain values is reported only when the file uses an
    instance as a module (`Net()(x)`, `net = Net(); net.to(device)`, `net.parameters()`,
    `self.block = Net()` in a module class, `nn.Sequential(Net())`): on current code such classes
    were used only through a helper method or a plain attribute (a sampler's `.sample()`, a test
    mock read for its `.config`) or never built, and worked. An instance used as a module by
    another file, or after being handed to a function, is not seen. Sub-modules, parameters
    and buffers count when `__init__` builds them where it assigns them (`nn.Linear(...)`, a
    module class of the file, `nn.Parameter(...)`, `nn.Buffer(...)`); a module made by a
    helper (`self.fc = make_layer()`) is not known to be one.

    Reported when every base is `nn.Module`, a torch.nn module class, or a class of this file that
    is provably a module; or when such bases come first and other classes after them
    (`class Net(nn.Module, Mixin)`: `nn.Module`'s methods come first in its method resolution
    order, and `Mixin.__init__` never runs either) and `__init__` is undecorated, and no method
    of the class calls a method of `self` the file does not show or passes `self` to a call (code
    the file does not show could initialise the module there). A base from another file listed first may initialise it:
    not reported. A class written twice is checked once per definition (the later one is the
    class its name means). Any `X.__init__(...)` call in the class's methods silences the rule,
    also in a nested function that is called (not in a class nested in them, which initialises
    its own instances, nor a bare `super().__init__()` in a nested function without parameters,
    which raises `RuntimeError: super(): no arguments`), as do a decorated class, a metaclass,
    `__new__`, and an `__init__` that raises.
    """

    code = "GL709"
    name = "module-init-without-super"
    summary = "an `nn.Module` subclass whose `__init__` never calls `super().__init__()`"
    severity = Severity.ERROR
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE,)
    triggers = ("__init__",)

    VALID = (
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                super(Net, self).__init__()
                self.fc = nn.Linear(2, 2)
        class Wide(Net):
            def __init__(self, width):
                Net.__init__(self)
                self.width = width
        class Plain(nn.Module):
            def __init__(self):
                nn.Module.__init__(self)
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                self._setup()
            def _setup(self):
                super().__init__()
        """,
        # another base first, which may initialise the module; a mixin's method, a decorator or
        # a helper given `self`, any of which may call the base initialiser
        """
        import torch.nn as nn
        from mylib import Mixin, init_module, register
        class First(Mixin, nn.Module):
            def __init__(self):
                self.fc = nn.Linear(2, 2)
        class Setup(nn.Module, Mixin):
            def __init__(self):
                self.setup_mixin()
        class Decorated(nn.Module, Mixin):
            @register
            def __init__(self):
                self.fc = nn.Linear(2, 2)
        class Helper(nn.Module, Mixin):
            def __init__(self):
                init_module(self)
        class Deferred(nn.Module, Mixin):
            def __init__(self):
                self._build()
            def _build(self):
                self.setup_mixin()
        """,
        # the initialiser called from a nested function that runs
        """
        import torch.nn as nn
        class Net(nn.Module):
            def __init__(self):
                def start():
                    super(Net, self).__init__()
                start()
                self.fc = nn.Linear(2, 2)
        class Wide(nn.Module):
            def __init__(self):
                def start(instance):
                    super().__init__()
                start(self)
        """,
        # a class written once per branch, each initialised
        """
        import torch.nn as nn
        if compact:
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
        else:
            class Net(nn.Module):
                def __init__(self):
                    nn.Module.__init__(self)
        """,
        """
        from mylib import BaseModel
        class Net(BaseModel):
            def __init__(self):
                self.size = 2
        """,
        """
        import torch.nn as nn
        class Net(nn.Module):
            pass
        class Config:
            def __init__(self):
                self.size = 2
        """,
        """
        import torch.nn as nn
        class Abstract(nn.Module):
            def __init__(self):
                raise NotImplementedError
        """,
        # plain values only, and no instance used as a module: a sampler used through its own
        # method, a test mock read for its config, a class never built
        """
        import torch
        import torch.nn as nn
        class StratifiedSampler(nn.Module):
            def __init__(self, depth_mode="linear"):
                self.depth_mode = depth_mode
            def sample(self, t0, t1, n):
                return torch.linspace(0, 1, n) * (t1 - t0) + t0
        class ModelWithConfig(nn.Module):
            def __init__(self):
                self.config = {"hidden": 4}
        class Extractor(nn.Module):
            def __init__(self, args):
                self.reader = FeatureReader(args.path)
            def forward(self, sample):
                return self.reader(sample)
        sampler = StratifiedSampler()
        ts = sampler.sample(t0, t1, 8)
        config = get_model_config(ModelWithConfig())
        """,
        """
        import torch.nn as nn
        from dataclasses import dataclass
        @dataclass(eq=False)
        class Net(nn.Module):
            def __init__(self):
                self.size = 2
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    self.fc = nn.Linear(2, 2)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2, 2)
            """,
            line=3,
            column=9,
            message="`Net.__init__` never calls `super().__init__()`",
            fix_title="Call `super().__init__()` first",
        ),
        Invalid(
            """
            from torch import nn
            class Scale(nn.Module):
                def __init__(self, factor):
                    \"\"\"Multiply by `factor`.\"\"\"
                    self.factor = factor
                def forward(self, x):
                    return x * self.factor
            doubled = Scale(2.0)(x)
            """,
            """
            from torch import nn
            class Scale(nn.Module):
                def __init__(self, factor):
                    \"\"\"Multiply by `factor`.\"\"\"
                    super().__init__()
                    self.factor = factor
                def forward(self, x):
                    return x * self.factor
            doubled = Scale(2.0)(x)
            """,
        ),
        # plain values, and an instance moved, registered in a container, or held by a module
        Invalid(
            """
            import torch.nn as nn
            class Flatten(nn.Module):
                def __init__(self):
                    pass
                def forward(self, x):
                    return x.flatten(1)
            class Shift(nn.Module):
                def __init__(self, by):
                    self.by = by
                def forward(self, x):
                    return x + self.by
            class Gate(nn.Module):
                def __init__(self):
                    self.open = True
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = Gate()
            head = nn.Sequential(Flatten(), nn.Linear(4, 2))
            shift = Shift(1.0)
            shift.to("cpu")
            """,
            """
            import torch.nn as nn
            class Flatten(nn.Module):
                def __init__(self):
                    super().__init__()
                    pass
                def forward(self, x):
                    return x.flatten(1)
            class Shift(nn.Module):
                def __init__(self, by):
                    super().__init__()
                    self.by = by
                def forward(self, x):
                    return x + self.by
            class Gate(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.open = True
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gate = Gate()
            head = nn.Sequential(Flatten(), nn.Linear(4, 2))
            shift = Shift(1.0)
            shift.to("cpu")
            """,
            line=3,
            column=9,
        ),
        # a buffer registered, and the weights initialised through `self.apply`
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Norm(nn.Module):
                def __init__(self):
                    self.register_buffer("mean", torch.zeros(4))
            class Init(nn.Module):
                def __init__(self):
                    self.apply(init_weights)
            """,
            """
            import torch
            import torch.nn as nn
            class Norm(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("mean", torch.zeros(4))
            class Init(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.apply(init_weights)
            """,
            line=4,
            column=9,
        ),
        Invalid(
            """
            import torch.nn as nn
            class Base(nn.Module):
                def __init__(self):
                    super().__init__()
            class Head(Base):
                def __init__(self, n):
                    self.fc = nn.Linear(n, 1)
            """,
            line=6,
        ),
        # the later of two definitions, the one the name means
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
            class Net(nn.Module):
                def __init__(self):
                    self.fc = nn.Linear(2, 2)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(2, 2)
            """,
            line=6,
            column=9,
            message="`Net.__init__` never calls `super().__init__()`",
        ),
        # the initialiser of a nested class, and one in a helper nothing calls
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    class Block(nn.Module):
                        def __init__(self):
                            super().__init__()
                    self.block = Block()
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    class Block(nn.Module):
                        def __init__(self):
                            super().__init__()
                    self.block = Block()
            """,
            line=3,
            column=9,
        ),
        Invalid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    def start():
                        super(Net, self).__init__()
                    self.fc = nn.Linear(2, 2)
            """,
            """
            import torch.nn as nn
            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    def start():
                        super(Net, self).__init__()
                    self.fc = nn.Linear(2, 2)
            """,
            line=3,
            column=9,
        ),
        # another base after nn.Module: nn.Module's methods come first, and neither initialiser runs
        Invalid(
            """
            import torch.nn as nn
            from mylib import Mixin
            class Net(nn.Module, Mixin):
                def __init__(self):
                    self.fc = nn.Linear(2, 2)
            """,
            fixed=None,
            line=4,
            column=9,
        ),
        Invalid(
            """
            import torch
            class Wide(torch.nn.Linear):
                def __init__(self, n):
                    self.n = n
            wide = Wide(3)
            params = list(wide.parameters())
            """,
        ),
    )

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        cls = self.context.nn_module_classes.of(node)
        if cls is None or node.decorators or cls.init is None or "__new__" in cls.methods:
            return
        if not cls.provably_module and not (cls.module_before_other_bases and _initialises_nothing_unseen(cls)):
            return
        if _calls_an_initialiser(node, cls.init) or _raises_at_top(cls.init):
            return
        if not (cls.init_needs_module_state or self.context.module_instance_uses.used_as_module(cls)):
            return  # nothing the file shows needs the module's state: it works as built
        self.report(cls.init.name, _MESSAGE.format(name=cls.name), self._fix(cls))

    def _fix(self, cls: NnModuleClass):
        first = _first_statement_after_docstring(cls.init)
        if not cls.direct_module_only or first is None:
            return None
        return self.safe_fix("Call `super().__init__()` first", InsertLineBefore(first, "super().__init__()"))


def _calls_an_initialiser(node: cst.ClassDef, init: cst.FunctionDef) -> bool:
    """Any `<something>.__init__(...)` in the class's own code: `super().__init__()`,
    `Base.__init__(self)`. Not in a class nested in it (that initialises its own instances), nor a
    bare `super().__init__()` in a nested function without parameters (called, it raises
    `RuntimeError: super(): no arguments`). `__init__` (one of the class's statements) is searched
    first: that is where the call nearly always is, and the rest of the class is then not read."""
    others = [statement for statement in suite_statements(node.body) if statement is not init]
    if len(others) < len(suite_statements(node.body)) and _initialiser_call_statement_in(init):
        return True  # the usual case, found without walking the parameters' defaults first
    return _initialiser_call_in(node, [init]) or _initialiser_call_in(node, others)


def _initialiser_call_statement_in(init: cst.FunctionDef) -> bool:
    """A statement of the block of `__init__` itself that is an initialiser call: `super().__init__(...)`."""
    for statement in suite_statements(init.body):
        smalls = statement.body if isinstance(statement, cst.SimpleStatementLine) else (statement,)
        if any(isinstance(small, cst.Expr) and _is_initialiser_call(small.value) for small in smalls):
            return True
    return False


def _initialiser_call_in(node: cst.ClassDef, statements: list[cst.BaseStatement]) -> bool:
    # Depth first in the order written: a `super().__init__()` opening `__init__` is met first.
    pending: list[tuple[cst.CSTNode, bool]] = [(statement, False) for statement in reversed(statements)]
    while pending:
        current, argumentless = pending.pop()
        if isinstance(current, cst.ClassDef):
            continue
        if isinstance(current, (cst.FunctionDef, cst.Lambda)) and _is_nested_function(current, node):
            if isinstance(current, cst.FunctionDef) and not _referenced_outside(current, node):
                continue  # a helper nothing calls never runs
            argumentless = not parameter_names(current.params)
        if _is_initialiser_call(current) and not (argumentless and _is_bare_super(current.func.value)):
            return True
        pending.extend((child, argumentless) for child in reversed(list(iter_children(current))))
    return False


def _is_nested_function(function: cst.CSTNode, cls: cst.ClassDef) -> bool:
    """A def or lambda inside a method, not a method of the class itself."""
    return not any(function is statement for statement in suite_statements(cls.body))


def _referenced_outside(function: cst.FunctionDef, cls: cst.ClassDef) -> bool:
    """The name of a nested def occurs in the class's code other than as the def's own name."""
    name = function.name.value
    return any(isinstance(node, cst.Name) and node.value == name and node is not function.name for node in descendants(cls.body))


def _is_initialiser_call(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "__init__"


def _is_bare_super(node: cst.BaseExpression) -> bool:
    """`super()` without arguments."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "super" and not node.args


def _initialises_nothing_unseen(cls: NnModuleClass) -> bool:
    """`__init__` is plain (no decorator), and the methods of the class (and of its module bases
    of this file) hand `self` to no code the file does not show: they call no method of `self`
    those classes lack (another base may define it and initialise the module there), and pass
    `self` to no call."""
    if cls.init.decorators:
        return False
    assigned = {assignment.attribute for owner in cls.lineage() for assignment in owner.self_assignments}
    for owner in cls.lineage():
        for method in owner.methods.values():
            instance = self_name(method)
            if instance is not None and not _keeps_instance_to_itself(method, instance, cls, assigned):
                return False
    return True


def _keeps_instance_to_itself(method: cst.FunctionDef, instance: str, cls: NnModuleClass, assigned: set[str]) -> bool:
    """No call in `method` of a method of `self` the file does not show (`self.fc(x)`, a
    sub-module assigned to `self`, is not one), nor any call given `self`."""
    for call in descendants(method.body):
        if not isinstance(call, cst.Call):
            continue
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == instance:
            if not cls.defines_in_lineage(func.attr.value) and func.attr.value not in assigned:
                return False
        if any(isinstance(arg.value, cst.Name) and arg.value.value == instance for arg in call.args):
            return False
    return True


def _raises_at_top(function: cst.FunctionDef) -> bool:
    statements = function.body.body
    return any(
        isinstance(line, cst.SimpleStatementLine) and any(isinstance(small, cst.Raise) for small in line.body) for line in statements
    )


def _first_statement_after_docstring(function: cst.FunctionDef) -> Optional[cst.CSTNode]:
    if not isinstance(function.body, cst.IndentedBlock):
        return None
    statements = list(function.body.body)
    if statements and is_docstring(statements[0]):
        statements = statements[1:]
    return statements[0] if statements else None
