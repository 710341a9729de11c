from __future__ import annotations

from gradlint.analysis.torch_api.deprecations import of_subsystems
from gradlint.fix.plan import Applicability, Availability
from gradlint.rules.base import Invalid, Severity
from gradlint.rules.deprecation_rule import DeprecationTableRule, triggers_of

CALLABLES, KEYWORDS, METHODS, MEMBERS = of_subsystems(False)


class DeprecatedApi(DeprecationTableRule):
    """
    ## What it does
    Flags the public torch APIs that torch 2.13 deprecates, or that torch removed and old code still
    calls, beyond those the other GL5xx rules cover: a function, class or module under any import
    spelling (`torch.testing.assert_allclose`, `from torch.nn.utils import weight_norm`), a
    deprecated keyword argument of a call (`nn.Hardtanh(min_value=...)`) or one of its values
    (`reduction="elementwise_mean"`), a deprecated form of a call (`explain(f, *args)`,
    `model.state_dict(None, "net.")`), a deprecated setting
    assigned (`torch._dynamo.config.inline_inbuilt_nn_modules = True`), a deprecated method or
    attribute of a value known to be a tensor (`x.resize_as(y)`, `x.volatile`), and a member
    that only torch's objects have (`dataset.cummulative_sizes`, `event.cuda_time_total`). Every API of the table was called under
    torch 2.13 and seen to warn (or raise, once removed); rules/deprecations.md lists them all with
    the rule that reports each.

    ## Why is this bad?
    A deprecated API warns on every call (a `FutureWarning` or `UserWarning` in a training log,
    or an error under `-W error`) and is removed in a later release: the code stops running on
    the torch a project upgrades to. Some replacements also compute something else, which is
    better known before the removal forces the change.

    ## Example
    ```python
    import torch

    torch.testing.assert_allclose(actual, expected)
    torch.utils._pytree._register_pytree_node(Point, flatten, unflatten)
    ```

    ## Use instead
    ```python
    import torch

    torch.testing.assert_close(actual, expected)
    torch.utils._pytree.register_pytree_node(Point, flatten, unflatten)
    ```

    ## Fix safety
    Safe where the replacement is the same function under a new name, or computes the same for
    every input (the table records why, and bench/deprecations/probe.py compares both calls
    bitwise under torch 2.13): the name is replaced, the arguments the replacement needs first
    (a device type) are added, arguments whose order changed are passed by name, a keyword the
    API ignores is removed, and a call that passes what only the legacy API takes gets no fix.
    A replacement that computes something else (`assert_close` also compares dtypes and treats
    NaN as unequal; the parametrized `weight_norm` stores different state-dict keys) is named in
    the message without a fix. A fix whose replacement needs a newer torch than `target-torch`
    is offered as unsafe.

    ## Known limits
    A deprecated API in the fallback an older torch takes (an `except ImportError:` handler, a
    branch of an `if` on the torch version) is not reported. A method is reported only on a value
    the analysis knows is a tensor; a keyword only in a call of the callable itself (not through
    `functools.partial` or `**kwargs`). An API used as an object without a call is rewritten only
    where its value is a call's (`torch.has_cuda`) or one of its members is read
    (`dist.reduce_op.SUM`); one assigned to (a monkey-patch) is not reported. A keyword without
    effect is removed only when its value has none either (a literal, a name) and no comment
    sits in it. A member of another torch object (a profiler event, a dataset, a distribution)
    is reported by its name, in a file that imports torch and whose own classes define no member
    of that name; its rename is safe only on a value built by the class in place
    (`ConcatDataset(parts).cummulative_sizes`) or read from a profiler's `function_events`, else
    unsafe. Members whose names other objects
    commonly have (`FunctionEvent.cuda_time`, `metadata_json`) are not reported.
    """

    code = "GL517"
    name = "deprecated-api"
    summary = "A public torch API that torch deprecates or removed (`assert_allclose`, `weight_norm`, ...)"
    severity = Severity.WARNING
    migration = "api"
    fix_availability = Availability.SOMETIMES
    fix_applicabilities = (Applicability.SAFE, Applicability.UNSAFE)
    # The rows this rule reports (GL518 reports the deprecated subsystems' rows with the same policy).
    callables, keywords, methods, members = CALLABLES, KEYWORDS, METHODS, MEMBERS
    triggers = triggers_of(CALLABLES, KEYWORDS, METHODS, MEMBERS)
    cleanup_imports = tuple(sorted(name for name, entry in CALLABLES.items() if entry.new is not None))

    VALID = (
        """
        import torch
        torch.testing.assert_close(actual, expected)
        torch.nn.utils.parametrizations.weight_norm(layer)
        """,
        # not torch's
        """
        import numpy as np
        from mylib.testing import assert_allclose
        np.testing.assert_allclose(a, b)
        assert_allclose(a, b)
        """,
        # an older torch's fallback
        """
        try:
            from torch.utils._pytree import register_pytree_node
        except ImportError:
            from torch.utils._pytree import _register_pytree_node as register_pytree_node
        """,
        # not known to be a tensor
        """
        image = Image.open(path)
        small = image.resize((32, 32))
        """,
        """
        import torch.nn as nn
        act = nn.Hardtanh(min_val=-2.0, max_val=2.0)
        """,
        # a number, not a tensor, scattered with `reduce=`; a `scatter` of another library
        """
        import torch
        v = torch.zeros(3)
        out = v.scatter(0, torch.tensor([2, 0, 1]), 1.5, reduce="add")
        parts = comm.scatter(0, index, values, reduce="add")
        """,
        # members of the same names that the file's own classes define
        """
        import torch

        class Timer:
            def __init__(self):
                self.cuda_time_total = 0.0

            def sample_n(self, n):
                return [self.cuda_time_total] * n

        timer = Timer()
        print(timer.cuda_time_total, timer.sample_n(2))
        """,
        # a mode's `__torch_function__` is an instance method; a subclass of another sampler passes
        # the data source to that sampler's own `__init__`
        """
        import torch
        from torch.overrides import TorchFunctionMode
        from torch.utils.data import RandomSampler

        class Logged(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        class Wrapped(torch.Tensor):
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return super().__torch_function__(func, types, args, kwargs)

        class Shuffled(RandomSampler):
            def __init__(self, data_source):
                super().__init__(data_source)
        """,
        # a file without torch
        """
        def report(stats):
            return stats.cuda_time_total, stats.children_specs
        """,
        # the forms that are not deprecated
        """
        import torch
        import torch._dynamo
        import torch.nn.functional as F
        import torch.distributed.checkpoint as dcp
        loss = F.mse_loss(x, y, reduction="mean")
        spec = torch.stft(signal, 16, return_complex=True)
        spec = torch.stft(signal, 16, **options)
        report = torch._dynamo.explain(model)(x)
        dcp.save(state, storage_writer=writer)
        torch._dynamo.config.suppress_errors = True
        weights = model.state_dict(prefix="net.")
        flags.volatile
        """,
    )
    INVALID = (
        Invalid(
            """
            import torch
            torch.testing.assert_allclose(actual, expected)
            """,
            fixed=None,
            line=2,
            column=1,
            message="`torch.testing.assert_allclose` is deprecated: use `torch.testing.assert_close` (deprecated in torch 1.12)",
        ),
        Invalid(
            """
            from torch.nn.utils import weight_norm
            layer = weight_norm(nn.Linear(4, 4))
            """,
            fixed=None,
            line=2,
            column=9,
        ),
        Invalid(
            """
            import torch
            torch.utils._pytree._register_pytree_node(Point, flatten, unflatten)
            """,
            """
            import torch
            torch.utils._pytree.register_pytree_node(Point, flatten, unflatten)
            """,
            fix_title="Replace with `torch.utils._pytree.register_pytree_node`",
        ),
        # the legacy string functions have no counterpart in the replacement
        Invalid(
            """
            import torch.utils._pytree as pytree
            pytree._register_pytree_node(Point, flatten, unflatten, to_str_fn=str)
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch.nn as nn
            act = nn.Hardtanh(min_value=-2.0, max_value=2.0)
            """,
            """
            import torch.nn as nn
            act = nn.Hardtanh(min_val=-2.0, max_val=2.0)
            """,
            line=2,
            column=19,
            message="`min_value=` of `nn.Hardtanh` is deprecated: use `min_val=` (deprecated in torch 0.4)",
            fix_title="Rename to `min_val=`",
        ),
        Invalid(
            """
            import torch
            cuda = torch.has_cuda
            """,
            """
            import torch
            cuda = torch.backends.cuda.is_built()
            """,
            fix_title="Replace with `torch.backends.cuda.is_built()`",
        ),
        # not callable: the call raises, the replacement's would not
        Invalid(
            """
            import torch
            cuda = torch.has_cuda()
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch.distributed as dist
            dist.all_reduce(t, op=dist.reduce_op.SUM)
            """,
            """
            import torch.distributed as dist
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
            """,
        ),
        # the namespace itself is another object than `ReduceOp`
        Invalid(
            """
            import torch.distributed as dist
            ops = dist.reduce_op
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch.nn.functional as F
            y = F.gumbel_softmax(logits, eps=1e-5, hard=True)
            """,
            """
            import torch.nn.functional as F
            y = F.gumbel_softmax(logits, hard=True)
            """,
            message="`eps=` of `F.gumbel_softmax` is deprecated: it has no effect, drop it (deprecated in torch 1.2)",
            fix_title="Remove `eps=`",
        ),
        # the value is computed for its effects, or `**options` may pass it again
        Invalid(
            """
            import torch.nn.functional as F
            y = F.gumbel_softmax(logits, eps=next_eps(), hard=True)
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch
            g = torch.autograd.grad(loss, w, only_inputs=False, **options)
            """,
            fixed=None,
        ),
        # a comment in the argument's place would go with it
        Invalid(
            """
            import torch
            g = torch.autograd.grad(
                loss,
                w,
                only_inputs=True,
                # keep the graph for the second pass
                retain_graph=True,
            )
            """,
            fixed=None,
            line=5,
        ),
        Invalid(
            """
            from torch.distributed.elastic import metrics
            metrics.publish_metric("trainer", "steps", n)
            """,
            """
            from torch.distributed.elastic import metrics
            metrics.put_metric(metric_group="trainer", metric_name="steps", metric_value=n)
            """,
        ),
        # the group given twice: the call raises
        Invalid(
            """
            from torch.distributed.elastic import metrics
            metrics.publish_metric("trainer", "steps", metric_group="x")
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch.nn.functional as F
            loss = F.mse_loss(x, y, reduction='elementwise_mean')
            """,
            """
            import torch.nn.functional as F
            loss = F.mse_loss(x, y, reduction='mean')
            """,
            line=2,
            message="`reduction='elementwise_mean'` of `F.mse_loss` is deprecated: use `reduction='mean'` (deprecated in torch 0.4.1)",
        ),
        Invalid(
            """
            import torch.nn as nn
            model = nn.Linear(4, 2)
            state = model.state_dict(None, "net.")
            """,
            """
            import torch.nn as nn
            model = nn.Linear(4, 2)
            state = model.state_dict(destination=None, prefix="net.")
            """,
            line=3,
            message="`.state_dict(...)` with positional arguments is deprecated",
            fix_title="Pass destination=, prefix= by keyword",
        ),
        Invalid(
            """
            import torch
            report = torch._dynamo.explain(model, x, y)
            """,
            """
            import torch
            report = torch._dynamo.explain(model)(x, y)
            """,
            line=2,
            message="`explain(f, *args)` is deprecated: use `torch._dynamo.explain(f)(*args)` (deprecated in torch 2.1)",
        ),
        Invalid(
            """
            import torch.distributed.checkpoint as dcp
            dcp.save(state, dcp.FileSystemWriter(path))
            """,
            """
            import torch.distributed.checkpoint as dcp
            dcp.save(state, storage_writer=dcp.FileSystemWriter(path))
            """,
        ),
        Invalid(
            """
            import torch
            torch._dynamo.config.inline_inbuilt_nn_modules = True
            """,
            fixed=None,
            line=2,
            message="`torch._dynamo.config.inline_inbuilt_nn_modules` is deprecated: nothing replaces it",
        ),
        Invalid(
            """
            import torch
            spec = torch.stft(signal, 16, window=window, return_complex=False)
            """,
            """
            import torch
            spec = torch.view_as_real(torch.stft(signal, 16, window=window, return_complex=True))
            """,
            line=2,
            column=46,
            message="`return_complex=False` of `torch.stft` is deprecated: use `torch.view_as_real(torch.stft(..., return_complex=True))`",
        ),
        Invalid(
            """
            from torch.utils.data import ConcatDataset
            sizes = ConcatDataset(parts).cummulative_sizes
            """,
            """
            from torch.utils.data import ConcatDataset
            sizes = ConcatDataset(parts).cumulative_sizes
            """,
            line=2,
            message="`.cummulative_sizes` is deprecated: use `.cumulative_sizes` (deprecated in torch 0.4)",
            fix_title="Rename to `.cumulative_sizes`",
        ),
        # any value: a name only torch's profiler events have (the rename is offered as unsafe)
        Invalid(
            """
            import torch
            total = sum(event.self_cuda_time_total for event in events)
            """,
            """
            import torch
            total = sum(event.self_device_time_total for event in events)
            """,
            line=2,
            message="`.self_cuda_time_total` is deprecated: use `.self_device_time_total` (deprecated in torch 2.4)",
        ),
        Invalid(
            """
            import torch
            samples = torch.distributions.Normal(0.0, 1.0).sample_n(3)
            """,
            """
            import torch
            samples = torch.distributions.Normal(0.0, 1.0).sample(torch.Size((3,)))
            """,
            line=2,
            message="`.sample_n` is deprecated: use `.sample((n,))` (deprecated in torch 1.0)",
        ),
        Invalid(
            """
            import torch

            class Same(torch.autograd.Function):
                @staticmethod
                def forward(ctx, t):
                    ctx.mark_shared_storage((t, t))
                    return t
            """,
            fixed=None,
            line=6,
            message="`.mark_shared_storage` is deprecated: nothing replaces it",
        ),
        Invalid(
            """
            import torch

            class Wrapped(torch.Tensor):
                def __torch_function__(self, func, types, args=(), kwargs=None):
                    return super().__torch_function__(func, types, args, kwargs)
            """,
            fixed=None,
            line=4,
            column=9,
            message="`__torch_function__` defined as a plain method is deprecated: use `@classmethod` (deprecated in torch 1.12)",
        ),
        Invalid(
            """
            from torch.utils.data import Sampler

            class Indices(Sampler):
                def __init__(self, data_source):
                    super().__init__(data_source)
                    self.data_source = data_source
            """,
            """
            from torch.utils.data import Sampler

            class Indices(Sampler):
                def __init__(self, data_source):
                    super().__init__()
                    self.data_source = data_source
            """,
            line=5,
            message="`super().__init__(data_source)` of a `Sampler` was removed: use `super().__init__()` (removed in torch 2.2)",
        ),
        Invalid(
            """
            import torch
            x = torch.randn(4)
            if x.volatile:
                pass
            y = x.resize(2, 2)
            z = x.scatter(0, torch.tensor([3, 2, 1, 0]), x, reduce="multiply")
            """,
            fixed=None,
        ),
        Invalid(
            """
            import torch
            x = torch.randn(4)
            y = x.resize_as(torch.empty(2, 2))
            """,
            fixed=None,
            line=3,
            column=5,
        ),
    )
