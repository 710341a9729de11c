from __future__ import annotations

import libcst as cst

from gradlint.analysis.syntax import method_call_on
from gradlint.fix.plan import Applicability, Availability, Replace
from gradlint.messages import snippet
from gradlint.rules.base import Invalid, Rule, Severity

_MESSAGE = (
    "`{key}` is a 0-dim tensor since PyTorch 0.4, not a number: a tensor hashes by identity, so "
    "`{lookup}` raises KeyError; use `{key}.item()`"
)


class ZeroDimResultAsNumber(Rule):
    """
    ## What it does
    Flags a dict looked up with one number read out of a one-number tensor, the PyTorch 0.3 way:
    `word_id = torch.multinomial(p, 1)[0]` then `idx2word[word_id]`, where `idx2word` is a dict.

    ## Why is this bad?
    In PyTorch 0.3 indexing a 1-D tensor with an int gave a Python number. Since 0.4 it gives a
    0-dim tensor, a new object on each read, which hashes by identity: in torch 2.13 the lookup
    raises `KeyError: tensor(1)` for every value, although the dict holds the key `1`. (A list
    index or a `range` bound takes a 0-dim int tensor through `__index__`: those still run and
    are not reported.)

    ## Example
    ```python
    import torch
    idx2word = {i: w for i, w in enumerate(words)}
    word_id = torch.multinomial(probs, 1)[0]
    word = idx2word[word_id]
    ```

    ## Use instead
    ```python
    import torch
    idx2word = {i: w for i, w in enumerate(words)}
    word_id = torch.multinomial(probs, 1)[0]
    word = idx2word[word_id.item()]
    ```

    ## Fix safety
    Safe: the key becomes `key.item()`, the Python number 0.3 read. The original raises KeyError
    on every value (the key is a tensor created by the read, so no key of the dict can be that
    object), and `.item()` of a one-element tensor is the number at `[0]`. Unsafe inside a `try`
    that handles the error: there the original runs, taking the missing-key path every time.

    ## Known limits
    Reported only where the key is evidently one number read from a one-number tensor (a
    `multinomial` or `torch.distributions` sample, a tensor built from one literal element), read
    with `[0]`, `[0, 0]` or `[0][0]` in the lookup or bound once to a name, and the container is
    evidently a dict (bound in the function or at module level only to dict displays,
    comprehensions or `dict(...)`). `d.get(key)` and `key in d` (which silently miss) and the
    other number uses of a 0-dim tensor (format arguments, environment actions) are not reported;
    `x.data[0]` reads are GL103's, per-element class targets GL108's.
    """

    code = "GL109"
    name = "zero-dim-result-as-number"
    summary = "0-dim tensor used as a dict key"
    severity = Severity.ERROR
    migration = "variable"
    fix_availability = Availability.ALWAYS
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    # Every finding reads `[0]` out of a tensor.
    triggers = ("[0",)

    VALID = (
        # A list takes a 0-dim int tensor through `__index__`.
        """
        import torch
        words = ["a", "b"]
        word_id = torch.multinomial(probs, 1)[0]
        word = words[word_id]
        """,
        # Not evidently a dict.
        """
        import torch
        word_id = torch.multinomial(probs, 1)[0]
        word = vocab[word_id]
        """,
        # A number already.
        """
        import torch
        lookup = {0: "a"}
        word_id = torch.multinomial(probs, 1)[0].item()
        word = lookup[word_id]
        """,
        # Rebound: the lookup may see another value.
        """
        import torch
        lookup = {0: "a"}
        word_id = torch.multinomial(probs, 1)[0]
        word_id = int(word_id)
        word = lookup[word_id]
        """,
        # A batch of samples: the first row, not a number.
        """
        import torch
        lookup = {0: "a"}
        word = lookup[batch[0]]
        counts = {}
        counts[batch[0]] = 1
        """,
        "first = dataset.data[0]\nnames = {}\nname = names[self.data[0]]\n",
    )
    INVALID = (
        Invalid(
            """
            import torch
            idx2word = {i: w for i, w in enumerate(words)}
            word_id = torch.multinomial(probs, 1)[0]
            word = idx2word[word_id]
            """,
            """
            import torch
            idx2word = {i: w for i, w in enumerate(words)}
            word_id = torch.multinomial(probs, 1)[0]
            word = idx2word[word_id.item()]
            """,
            line=4,
            column=17,
            message="raises KeyError",
            fix_title="Replace with `word_id.item()`",
        ),
        Invalid(
            """
            import torch
            from torch.distributions import Categorical
            NAMES = dict(zip(range(3), "abc"))
            def act(probs):
                return NAMES[Categorical(probs).sample()[0, 0]]
            """,
            """
            import torch
            from torch.distributions import Categorical
            NAMES = dict(zip(range(3), "abc"))
            def act(probs):
                return NAMES[Categorical(probs).sample()[0, 0].item()]
            """,
        ),
        # The error is handled: the original runs, on its missing-key path.
        Invalid(
            """
            import torch
            names = {0: "a", 1: "b"}
            def name_of(p):
                try:
                    return names[p.multinomial(1)[0]]
                except KeyError:
                    return "?"
            """,
            """
            import torch
            names = {0: "a", 1: "b"}
            def name_of(p):
                try:
                    return names[p.multinomial(1)[0].item()]
                except KeyError:
                    return "?"
            """,
        ),
    )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) or self._is_written():
            return
        key = node.slice[0].slice.value
        scope = self.context.scope()
        # The key first: most are plainly no tensor read, while the container's bindings need the scope's analysis.
        if not isinstance(node.value, cst.Name) or not self.context.values.is_one_number_read(key, scope) or not self._is_dict(node.value):
            return
        fix_title = f"Replace with `{snippet(self.context.code_for(key), 40, 'key')}.item()`"
        make = self.unsafe_fix if self._handles_key_error() else self.safe_fix
        fix = make(fix_title, Replace(key, method_call_on(key, "item")))
        message = _MESSAGE.format(
            key=snippet(self.context.code_for(key), 30, "key"), lookup=snippet(self.context.code_for(node), 40, "d[key]")
        )
        self.report(key, message, fix)

    def _is_dict(self, container: cst.BaseExpression) -> bool:
        """Bound in the function, or else at module level, only to dicts."""
        if not isinstance(container, cst.Name):
            return False
        values = self._bound_values(container.value)
        return bool(values) and all(_builds_dict(value) for value in values)

    def _bound_values(self, name: str) -> list[cst.BaseExpression]:
        scope, module = self.context.scope(), self.context.module
        return self.context.scopes.values_of(name, scope) or (self.context.scopes.values_of(name, module) if scope is not module else [])

    def _handles_key_error(self) -> bool:
        return any(isinstance(ancestor, cst.Try) and ancestor.handlers for ancestor in self.context.stack)

    def _is_written(self) -> bool:
        parent = self.context.parent()
        return isinstance(parent, (cst.AssignTarget, cst.Del)) or (
            isinstance(parent, (cst.AugAssign, cst.AnnAssign)) and parent.target is self.context.stack[-1]
        )


def _builds_dict(value: cst.BaseExpression) -> bool:
    if isinstance(value, (cst.Dict, cst.DictComp)):
        return True
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"
