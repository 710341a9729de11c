"""Per-file state handed to every rule: the tree, the traversal stack and the shared analyses."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Optional

import libcst as cst

from gradlint.analysis.async_keywords import AsyncKeywordRepair, repair_async_keywords
from gradlint.analysis.command_line import CommandLineOptions
from gradlint.analysis.evaluation import EvaluationLoops, TrainingModes
from gradlint.analysis.frameworks import imports_other_tensor_framework, imports_torch
from gradlint.analysis.functions import FunctionTable, enclosing_class, enclosing_function
from gradlint.analysis.grad_mode import functions_called_without_grad, runs_without_grad
from gradlint.analysis.grad_tracking import GeneratorOutputs, GradEvidence
from gradlint.analysis.history import HistoryEvidence
from gradlint.analysis.identity import IdentityEvidence
from gradlint.analysis.imports import ImportMap
from gradlint.analysis.module_machinery import ModuleInstanceUses, call_machinery
from gradlint.analysis.nn_module_classes import NnModuleClasses
from gradlint.analysis.nn_modules import NnModuleEvidence
from gradlint.analysis.parameter_flow import ParameterFlow
from gradlint.analysis.roles import Roles
from gradlint.analysis.legacy import is_variable
from gradlint.analysis.semantic.nodes import NodeIndex
from gradlint.analysis.variable_aliases import variable_aliases
from gradlint.analysis.semantic.scope import ScopeUsesTable
from gradlint.analysis.schedulers import SchedulerEvidence
from gradlint.analysis.scopes import Scope, ScopeTable, enclosing_scope
from gradlint.analysis.summaries import FunctionSummaries, FunctionSummary
from gradlint.analysis.scalars import ClassTargets, ScalarEvidence
from gradlint.analysis.tensors import TensorEvidence
from gradlint.analysis.training import TrainingAnalysis, may_optimise
from gradlint.analysis.training_objects import TrainingObjects
from gradlint.analysis.values import Evaluators, Shape, ValueModel, ValueRecord
from gradlint.source import FileText, LineIndex, indentation
from gradlint.positions import LazyPositions, member_statement, placement_map

if TYPE_CHECKING:
    from gradlint.model import Report
    from gradlint.model.project import ProjectFacts


class FileContext:
    def __init__(
        self, path: str, text: str, module: cst.Module, project: Optional["ProjectFacts"] = None, file_text: Optional[str] = None
    ) -> None:
        self.path = path
        # The whole file's text, for what a rule asks of the file anywhere (`weights_only=False`
        # somewhere): `text` may hold only some of its statements (an analysis in pieces).
        self.file_text = file_text if isinstance(file_text, FileText) else FileText(file_text if file_text is not None else text)
        # `text` as written; `module` is parsed from it with its `async=` keywords renamed, if any.
        self.repair: Optional[AsyncKeywordRepair] = repair_async_keywords(text)
        self.text = self.repair.text if self.repair is not None else text  # the text `module` was parsed from
        self.module = module
        self.project = project  # what this file uses from the other files of its run, if any
        self.reports: list["Report"] = []
        # Ancestors of the node being visited, the node itself last. Maintained by the walker.
        self.stack: list[cst.CSTNode] = []

    @cached_property
    def repaired_async_keywords(self) -> frozenset[tuple[int, int]]:
        """(line, 0-based column) in `text` of each `non_blocking` that was written `async`."""
        if self.repair is None:
            return frozenset()
        index = LineIndex.of(self.text)
        return frozenset((row, column - 1) for row, column in map(index.position, self.repair.repaired_sites))

    @cached_property
    def nodes(self) -> NodeIndex:
        """Parent links and source order of every node of the file, built on the first question."""
        return NodeIndex(self.module)

    @cached_property
    def scope_uses(self) -> ScopeUsesTable:
        """Per scope: where each name occurs, the bindings `scopes` does not record, returns, and
        which assignment a read sees; each scope's model is built when first asked about."""
        return ScopeUsesTable(self.nodes)

    @cached_property
    def imports(self) -> ImportMap:
        return ImportMap.build(self.module, self.project)

    @cached_property
    def variable_aliases(self) -> frozenset[str]:
        """Local stand-ins for `Variable` (`Variable = lambda *args, **kwargs: autograd.Variable(...)`)."""
        return variable_aliases(self.module, self.text, self.imports)

    def calls_variable(self, func: cst.BaseExpression) -> bool:
        """`func` is `torch.autograd.Variable`, or a local stand-in that hands it every argument."""
        return is_variable(func, self.imports) or isinstance(func, cst.Name) and func.value in self.variable_aliases

    @cached_property
    def scopes(self) -> ScopeTable:
        return ScopeTable(class_of=self.function_table.class_of)

    @cached_property
    def tensors(self) -> TensorEvidence:
        return TensorEvidence(
            self.imports,
            self.scopes,
            self.module,
            self.text,
            self.function_table,
            self._returns_only_numbers,
            returns_no_tensor=lambda function: self.functions.of(function).returns_no_tensor,
            scope_uses=self.scope_uses,
            call_sites=lambda function: self.functions.of(function).call_sites,
            used_elsewhere=self.project.called_elsewhere if self.project is not None else None,
            method_calls=lambda method: self.history.calls.all_calls_of_method(method),
        )

    @cached_property
    def scalars(self) -> ScalarEvidence:
        return ScalarEvidence(
            self.imports, self.scopes, self.tensors, self.module, self.nodes, lambda function: self.functions.of(function)
        )

    @cached_property
    def class_targets(self) -> ClassTargets:
        """Class-index losses fed one element of a target sequence at a time."""
        return ClassTargets(self.imports, self.scopes, self.functions)

    def is_scalar(self, node: cst.BaseExpression) -> bool:
        return self.values.is_scalar(node, self.scope())

    @cached_property
    def training(self) -> TrainingAnalysis:
        return TrainingAnalysis(
            self.module,
            self.imports,
            self.tensors,
            self.function_table,
            is_tensor=lambda node, scope: self.values.is_tensor(node, scope),
            spells_backward=self.spells("backward"),
        )

    @cached_property
    def may_optimise(self) -> bool:
        """Whether a statement of the file can backpropagate or update parameters (an OPTIMISING
        training event), from the text: False spares the event analysis of model definitions.
        A backward call's name may also come through another file of the run."""
        return may_optimise(self.text) or self.spells("backward")

    def spells(self, word: str) -> bool:
        """`word` is in the file's text or in the names it imports from the other files of the run:
        without it, no name and no attribute of the file is `word`."""
        return word in self.text or word in self._borrowed_names

    @cached_property
    def _borrowed_names(self) -> str:
        """The names the file may use from the other files of its run, joined once per file."""
        return self.project.trigger_text() if self.project is not None else ""

    @cached_property
    def evaluation(self) -> EvaluationLoops:
        """The loops that score a model on validation or test data, and the grad mode around them."""
        called_elsewhere = self.project.called_elsewhere if self.project is not None else None
        return EvaluationLoops(self.module, self.imports, self.scopes, self.training, self.functions, called_elsewhere)

    @cached_property
    def training_modes(self) -> TrainingModes:
        """Layers that depend on `module.training`, and the `eval()` / `train()` calls of the file."""
        return TrainingModes(self.module, self.imports, self.function_table)

    # -- functions of the file and what they do for their callers ---------------------------

    @cached_property
    def function_table(self) -> FunctionTable:
        return FunctionTable.build(self.module)

    def _returns_only_numbers(self, function: cst.FunctionDef) -> bool:
        return self.functions.of(function).returns_number

    @cached_property
    def functions(self) -> FunctionSummaries:
        return FunctionSummaries(
            self.module,
            self.imports,
            self.scopes,
            self.function_table,
            self.grads,
            self.training,
            scope_uses=self.scope_uses,
            only_calls=lambda function: self.tensors.only_calls(function),
        )

    def enclosing_function(self) -> Optional[cst.FunctionDef]:
        """The innermost `def` around the node being visited (None at module level)."""
        return enclosing_function(self.stack)

    def enclosing_class(self) -> Optional[cst.ClassDef]:
        """The innermost `class` around the node being visited."""
        return enclosing_class(self.stack)

    def summary_of_call(self, call: cst.Call) -> Optional[FunctionSummary]:
        """The summary of the function of this file that `call` (being visited, or inside the node
        being visited) runs."""
        return self.functions.of_call(call, self.enclosing_function())

    @cached_property
    def functions_called_without_grad(self) -> frozenset[str]:
        """Names of the functions and methods called somewhere inside a no-grad block."""
        return functions_called_without_grad(self.module, self.imports)

    @cached_property
    def uses_torch(self) -> bool:
        """The file imports torch, directly or through a local module of its project."""
        return imports_torch(self.imports)

    @cached_property
    def uses_other_tensor_framework(self) -> bool:
        """The file imports TensorFlow, JAX, MXNet...: `.numpy()` and friends may be theirs."""
        return imports_other_tensor_framework(self.imports)

    @cached_property
    def grads(self) -> GradEvidence:
        return GradEvidence(
            self.imports, self.scopes, self.tensors, self.history, backpropagated=lambda: self.training.backpropagated_names
        )

    @cached_property
    def generator_outputs(self) -> GeneratorOutputs:
        """Which expressions are a GAN generator's output with the generator's graph."""
        return GeneratorOutputs(self.imports, self.scopes, self.tensors, self.history, self.roles)

    @cached_property
    def nn_modules(self) -> NnModuleEvidence:
        """Which expressions are `nn.Module` instances."""
        return NnModuleEvidence(self.module, self.imports, self.scopes)

    @cached_property
    def nn_module_classes(self) -> NnModuleClasses:
        """The `nn.Module` subclasses of the file: bases, methods, what they assign to `self`."""
        return NnModuleClasses(self.module, self.imports)

    @cached_property
    def call_machinery(self) -> Optional[cst.Call]:
        """The first call of the file that attaches code only calling a module runs (a hook,
        `weight_norm`, pruning, `fully_shard`, `m.compile()`...), which `m.forward(x)` skips."""
        return call_machinery(self.nodes, self.text, self.imports, self.nn_modules)

    @cached_property
    def module_instance_uses(self) -> ModuleInstanceUses:
        """Which module classes of the file have an instance used as a module in it."""
        return ModuleInstanceUses(self.module, self.imports, self.nodes, self.nn_module_classes)

    @cached_property
    def parameter_flow(self) -> ParameterFlow:
        """Generators of a model's parameters consumed twice; optimizers left behind when a
        sub-module of their model is replaced."""
        optimizers = self.training.optimizers
        return ParameterFlow(self.imports, optimizers.is_optimizer_class, self.nn_modules.module_classes, self.nodes)

    @cached_property
    def schedulers(self) -> SchedulerEvidence:
        """Which expressions are `torch.optim.lr_scheduler` schedulers, by their construction."""
        return SchedulerEvidence(self.module, self.imports, self.scopes)

    @cached_property
    def training_objects(self) -> TrainingObjects:
        """Which expressions are models, optimizers, schedulers and gradient scalers."""
        return TrainingObjects(self.nn_modules, self.training.optimizers, self.schedulers)

    @cached_property
    def roles(self) -> Roles:
        """The roles names play: models, generator and discriminator, optimizers..."""
        return Roles()

    @cached_property
    def history(self) -> HistoryEvidence:
        """Which expressions provably carry no autograd history."""
        # Which names other files of the run import from this one is not known here yet: the
        # parameters of this file's functions are then not followed into their callers.
        return HistoryEvidence(
            self.module,
            self.imports,
            self.scopes,
            self.tensors,
            self.function_table,
            used_elsewhere=self.project.called_elsewhere if self.project is not None else None,
            nodes=self.nodes,
            scope_uses=self.scope_uses,
            options=self.command_line,
            reached_elsewhere=self.project.reached_elsewhere if self.project is not None else None,
            integer_attributes=self.project.integer_attributes if self.project is not None else frozenset(),
        )

    @cached_property
    def command_line(self) -> CommandLineOptions:
        """What the options of the file's argparse namespaces hold (`opt.batchSize` an int)."""
        argument_writes = self.project.argument_writes if self.project is not None else {}
        return CommandLineOptions(self.module, self.imports, self.scopes, self.scope_uses, argument_writes)

    @cached_property
    def identity(self) -> IdentityEvidence:
        """Which values are new objects, and what code tells an object from another sharing its storage."""
        return IdentityEvidence(self.history)

    # -- what a value is: views of the value model, evaluated where the visited node is -----------

    @cached_property
    def values(self) -> ValueModel:
        """What each expression evaluates to; each evaluator is built when a question first needs it."""
        return ValueModel(
            self.imports,
            self.scopes,
            self.nodes,
            Evaluators(
                tensors=lambda: self.tensors,
                scalars=lambda: self.scalars,
                grads=lambda: self.grads,
                generator_outputs=lambda: self.generator_outputs,
                history=lambda: self.history,
                nn_modules=lambda: self.nn_modules,
                optimizers=lambda: self.training.optimizers,
                options=lambda: self.command_line,
                scope_uses=lambda: self.scope_uses,
            ),
            passed=self.project.passed if self.project is not None else {},
            class_of=self.function_table.class_of,
            sealed=self.project.sealed_attributes if self.project is not None else frozenset(),
        )

    def value(self, node: cst.BaseExpression) -> ValueRecord:
        """The record of `node`'s value, evaluated where the node being visited is."""
        return self.values.record(node, self.scope())

    def is_history_free(self, node: cst.BaseExpression) -> bool:
        """`node`, evaluated where the node being visited is, provably carries no autograd history."""
        return self.values.is_history_free(node, self.scope())

    def carries_grad(self, node: cst.BaseExpression) -> bool:
        return self.values.carries_grad(node, self.scope())

    def without_grad(self) -> bool:
        """True when the node being visited runs with autograd off (no_grad block or decorator)."""
        return runs_without_grad(self.stack, self.imports)

    def scope(self) -> Scope:
        """The function (or module) enclosing the node being visited."""
        return enclosing_scope(self.stack)

    def shape_of(self, node: cst.BaseExpression) -> Optional[Shape]:
        """The shape the code states for the tensor `node` evaluates to (see `analysis.shapes`)."""
        return self.values.shape(node, self.scope())

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        return self.values.is_tensor(node, self.scope())

    def is_known_tensor(self, node: cst.BaseExpression) -> bool:
        """`node` is a tensor by more than its name, with nothing against it: enough for a safe fix
        that calls a tensor method."""
        return self.values.is_known_tensor(node, self.scope())

    def contradicts_tensor(self, node: cst.BaseExpression) -> bool:
        """Evidence that `node` is not a tensor: a Python number, another library's object, a file without torch."""
        return self.values.contradicts_tensor(node, self.scope())

    def qualified_name(self, node: cst.CSTNode) -> Optional[str]:
        return self.imports.qualified_name(node)

    def parent(self, levels: int = 1) -> Optional[cst.CSTNode]:
        index = -1 - levels
        return self.stack[index] if len(self.stack) >= levels + 1 else None

    @cached_property
    def positions(self) -> LazyPositions:
        """Node -> CodeRange, resolved per top-level statement and only when needed."""
        return LazyPositions(self.module, self.text, self.placement_of)

    def top_statement(self) -> Optional[cst.CSTNode]:
        """The statement positions are resolved in for the node being visited (top-level, or a
        member of a top-level class)."""
        return member_statement(self.stack)

    @cached_property
    def _placements(self) -> dict[int, cst.CSTNode]:
        return placement_map(self.module)

    def placement_of(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        """The statement positions of `node` are resolved in, wherever it is in the module. The
        map is built on first use only: rules reporting from within the traversal never need it."""
        return self._placements.get(id(node))

    def line_of(self, node: cst.CSTNode) -> int:
        return self.positions.lookup(node, self.top_statement() or self.placement_of(node)).start.line

    def indentation_of(self, node: cst.CSTNode) -> str:
        """The indentation of the line `node` starts on, as CPython measures it."""
        row = self.line_of(node)
        index = self.line_index
        return indentation(self.text[index.line_start(row) : index.line_end(row)])

    @cached_property
    def line_index(self) -> LineIndex:
        return LineIndex.of(self.text)

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)
