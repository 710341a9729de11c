"""The value model: what each expression of a file evaluates to (kind, how it is known, grad
state, dimensions, literal shape and dtype), and the questions rules ask of it."""

from gradlint.analysis.values.model import Evaluators, ValueModel
from gradlint.analysis.values.record import Certainty, Dim, Grad, Kind, Shape, ValueRecord

__all__ = ["Certainty", "Dim", "Evaluators", "Grad", "Kind", "Shape", "ValueModel", "ValueRecord"]
