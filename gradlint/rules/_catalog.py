"""What every rule declares, for the registry to answer without importing the rules.

Generated from the rule classes by `python -m gradlint.docs rules`; do not edit by hand.
"""

from gradlint.rules.info import RuleInfo

RULES = (
    RuleInfo(
        code='GL001',
        name='invalid-syntax',
        summary='file could not be parsed',
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('except',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure='invalid-syntax',
        judges_noqa=False,
        module='gradlint.rules.gl001_invalid_syntax',
        class_name='InvalidSyntax',
        doc=(
            '## What it does\n'
            'Reports a file that is not valid Python 3 (a syntax error, or a Python 2 file with\n'
            '`print x` or `except E, e:`), at the position of the error.\n'
            '\n'
            '## Why is this bad?\n'
            'Such a file cannot be analysed, so none of its mistakes can be found; under Python 3 it\n'
            'raises `SyntaxError` on import.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'print "epoch", epoch\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'print("epoch", epoch)\n'
            '```\n'
            '\n'
            '`except E, e:` is reported too: Python 2 meant "bind the exception to `e`", Python 3.9-3.13\n'
            'reject it, and Python 3.14 reads it as "catch E or e".\n'
            '\n'
            '## Fix safety\n'
            'No fix.\n'
            '\n'
            '## Known limits\n'
            'Only the first syntax error of a file is reported, at the position CPython gives it. A\n'
            "notebook's code cells are read as the kernel runs them: IPython syntax (magics, shell escapes,\n"
            'help) is masked, and a cell indented as a whole is dedented first, as IPython does; a cell\n'
            'whose later lines are indented less than its first is reported (IPython 9 raises on it).\n'
            "Valid Python beyond LibCST's parser (an expression of several thousand implicitly joined\n"
            'strings) cannot be analysed either: it is reported with a reason that says so.\n'
            'Suppress with `--ignore GL001`.'
        ),
    ),
    RuleInfo(
        code='GL002',
        name='undecodable-file',
        summary='file is not valid text in its declared encoding',
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=(),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=False,
        failure='undecodable',
        judges_noqa=False,
        module='gradlint.rules.gl002_undecodable_file',
        class_name='UndecodableFile',
        doc=(
            '## What it does\n'
            'Reports a file whose bytes are not valid text in the encoding it declares (UTF-8 unless a\n'
            'PEP 263 coding cookie such as `# -*- coding: latin-1 -*-` says otherwise), at the first\n'
            'invalid byte (the line CPython names in its error), or at the coding cookie when that names\n'
            'an unknown encoding or contradicts a UTF-8 BOM.\n'
            '\n'
            '## Why is this bad?\n'
            "Python refuses to import it (`SyntaxError: Non-UTF-8 code starting with '\\xe9' in file ... on\n"
            'line 6, but no encoding declared`), and it cannot be analysed.\n'
            '\n'
            '## Example\n'
            'A file saved as Latin-1 (`é` is the byte `0xe9`) with no coding cookie.\n'
            '\n'
            '## Use instead\n'
            'Save the file as UTF-8, or declare its encoding on the first or second line:\n'
            '`# -*- coding: latin-1 -*-`.\n'
            '\n'
            '## Fix safety\n'
            'No fix.\n'
            '\n'
            '## Known limits\n'
            'Suppress with `--ignore GL002`.'
        ),
    ),
    RuleInfo(
        code='GL101',
        name='variable-call',
        summary='`torch.autograd.Variable(...)` wrapper',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('Variable',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl101_variable_call',
        class_name='VariableCall',
        doc=(
            '## What it does\n'
            'Flags calls of `torch.autograd.Variable`, under every import form (`Variable`, `ag.Variable`,\n'
            '`torch.autograd.Variable`, `torch.autograd.variable.Variable`, star imports) and through\n'
            'aliases (`V = autograd.Variable`, then `V(x)`). Names resolve per scope and in source order, as\n'
            "Python resolves them: a function's own `from torch.autograd import Variable` counts in that\n"
            'function whatever the module imports under the name (also a call written before the import,\n'
            'which raises UnboundLocalError: reported without a fix, which would make it run), and another\n'
            "library's `Variable` imported in a function is not torch's there.\n"
            '\n'
            '## Why is this bad?\n'
            'Since PyTorch 0.4 tensors and Variables are the same type. In torch 2.13, `Variable(t)` builds\n'
            '`t.detach()`: a new `torch.Tensor` leaf sharing storage and version counter with `t`, with\n'
            'autograd history cut, and `requires_grad` set from the argument. The wrapper hides that the\n'
            'history is cut, which readers of the code rarely expect, and it is legacy API.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.autograd import Variable\n'
            'for data, target in train_loader:\n'
            '    data, target = Variable(data), Variable(target)\n'
            '    x, y = Variable(data.cuda()), Variable(target.cuda())\n'
            '    h = Variable(h.data)\n'
            '    w = Variable(torch.randn(3, 4), requires_grad=True)\n'
            '    b = Variable(torch.FloatTensor([0.5]), requires_grad=True)\n'
            '    out = Variable(model(x))\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for data, target in train_loader:\n'
            '    x, y = data.cuda(), target.cuda()\n'
            '    h = h.detach()\n'
            '    w = torch.randn(3, 4, requires_grad=True)\n'
            '    b = torch.tensor([0.5], dtype=torch.float32, requires_grad=True)\n'
            '    out = model(x).detach()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: every rewrite is exact in torch 2.13 (values, dtype, `requires_grad`, leaf-ness,\n'
            'gradients, random draws, storage and version counter sharing). The wrapper is dropped where\n'
            'its argument provably carries no autograd history: a torch factory or constructor,\n'
            '`torch.from_numpy`, numpy, a literal, a value computed only from those, a conversion or view\n'
            'of one (`.cuda()`, `.float()`, `.to()`, `.view()`...), `x.detach()`, an integer tensor, and a\n'
            'name every binding of which in the function is one of those (module constants, `self`\n'
            "attributes and the results of this file's functions are followed the same way; a loop's\n"
            "target read in the loop's body, where nothing rebinds it, is the loop's item, whatever the name\n"
            "holds elsewhere in a script; a nested function's parameters and locals of the same name are\n"
            "other variables; an option of the file's argparse namespace declared `type=int` with an int\n"
            'default, or required, is a Python int, so `torch.FloatTensor(opt.batchSize)` is a new tensor;\n'
            "a sampler a function of the file returns as a lambda is followed into the lambda's body).\n"
            '`Variable(h.data)` becomes `h.detach()`: the same\n'
            "leaf, which shares `h`'s version counter, so an in-place change while a graph needs `h` raises\n"
            'instead of corrupting the gradient silently (as GL303 rewrites `.data`). Elsewhere the exact\n'
            'form `t.detach()` is kept, and never twice. `Variable(t)` is a new tensor object, so dropping\n'
            'it also requires that nothing tells the two objects apart: when the result, the source name\n'
            'or an alias of either has its flag set (`requires_grad_()`, `.requires_grad =`), gets a hook,\n'
            '`retain_grad()`, `.grad` or any attribute written, `resize_`/`set_`/`t_`/`squeeze_`..., or is\n'
            'compared with `is`, `.detach()` stays; also when the source stays in use and the result is\n'
            "returned or stored away. A local's last use is unwrapped even so (`return Variable(t)`,\n"
            '`policy(Variable(state))` with nothing reading `state` afterwards) when the binding it reads\n'
            'made a new object without history (a factory, or a call of a function of the file every\n'
            '`return` of which builds a new tensor, such as `torch.cat(...)`) and the code since only filled\n'
            'it in place or read its values (also through a function of the file that reads its parameter\n'
            'only by value): no other code can reach the object once it is handed over (in a loop, the name must be\n'
            'bound earlier in the same iteration and read nowhere else in the loop). In-place changes of\n'
            'values are the same on both, since storage and version counter are shared. `y =\n'
            'Variable(x.data)` becomes `y = x` under `torch.no_grad()` when every later read of `y` is in\n'
            'the same block and takes only its values (see GL303). A preallocated buffer wrapped in a loop\n'
            '(`input.resize_as_(x).copy_(x)`, then `inputv = Variable(input)`) is unwrapped when every\n'
            'resize or other identity-sensitive change of the buffer comes before the first binding of\n'
            'the alias in the loop body, each resize chained with a value write (which moves the version\n'
            'counter the two objects share), and the alias is read only after that binding, inside the\n'
            "loop: the alias never outlives a change of the buffer's metadata. `self.a = Variable(self.a)`\n"
            'in a method, outside any loop, where every earlier write of `self.a` there made a new object\n'
            'or moved it (`self.a = self.a.cuda()`) and nothing between the first write and the rewrapping\n'
            'can reach `self.a` otherwise (no method of `self` called, `self` not handed over), is removed:\n'
            'the attribute alone holds its tensor, so whether it keeps it or gets a copy sharing its\n'
            'storage cannot be told. `return Variable(x)` of a parameter `x` becomes `return x` where every\n'
            'call of the function is known (a module-level function no other file of the run mentions, or\n'
            'a method called only as `self.m(...)` in the methods of its own plain class, whose name no\n'
            'other file spells), each passes a history-free object for `x` explicitly (a default is one\n'
            'object for every call), the function binds `x` otherwise only to conversions of itself\n'
            '(`x = x.cuda()`) and neither stores it nor tells it apart, and at each call the object handed\n'
            'over may come back itself by the conditions above (a new object, a local at its last use, or\n'
            'nothing telling the result from it where the argument stays reachable): each caller gets\n'
            'back the object it handed over where it got a new one sharing its storage. A source\n'
            'carrying history (a model output, a parameter) keeps `.detach()`.\n'
            'Batches from iterating a data loader (a `DataLoader(...)`, or an iterable named like one:\n'
            '`train_loader`, `dataloaders[phase]`, also through `enumerate`, `iter`/`next` and `tqdm`) and\n'
            'the values of a batch function (`get_batch(...)`, `digits.batch()`) are treated as carrying no\n'
            'history. That holds for the code this rule migrates: PyTorch 0.3 could\n'
            'not collate a `Variable`, so a loader yielded plain tensors, and the default collate builds\n'
            'new ones for every batch; a loader-like iterable that yields tensors with history would keep\n'
            'it (and a list iterated as a loader sees the same objects again).\n'
            '`x = Variable(x)` and `x, y = Variable(x), Variable(y)` rebind names to themselves once\n'
            'unwrapped and are removed (a trailing comment stays on its own line; a block left empty gets\n'
            '`pass`). With `requires_grad=True`, factories that take the keyword get it (the same random\n'
            'numbers are drawn); `torch.Tensor(list)`, `torch.FloatTensor(list)`, `torch.DoubleTensor`,\n'
            '`torch.LongTensor` and `torch.IntTensor` of numeric literals become `torch.tensor(...)` with\n'
            'the exact dtype (`torch.Tensor` follows the default dtype, like `torch.tensor` of float\n'
            'literals; the typed constructors name theirs); `torch.Tensor(3, 4)` is a size, not data, and\n'
            'gets `.requires_grad_()`. Any other fresh tensor gets `.requires_grad_()`, and everything else\n'
            '`.detach().requires_grad_()`. `Variable` also takes an int 0..255 or a one-element integer or\n'
            'bool tensor as the flag, while `requires_grad_()` and the factories take only a bool: an int\n'
            'literal is read as True / False, and a flag that is not a literal becomes\n'
            '`requires_grad_(bool(flag))` (which also accepts the flags `Variable` rejected, such as None).\n'
            'No fix while a `volatile` flag that is not literally False is passed: GL102 restores its\n'
            'no-grad intent first, and the wrapper is dropped in the next round. When the last use of the\n'
            'imported `Variable` name disappears, the import is removed (an import at the top of the\n'
            'module; one inside a function stays).\n'
            '\n'
            '## Known limits\n'
            'An alias (`V = Variable`) is followed where it is the only binding of the name that can reach\n'
            'the call; a name bound to an expression (`V = Variable if old else Tensor`), or to other values\n'
            'on other paths, is not. History\n'
            "and identity are followed within one file: a value that comes from another file (a corpus's\n"
            '`torch.LongTensor` read as `corpus.train`, even an integer one), a method of another object,\n'
            'or a parameter of a function or method other code may call (a partial run, a name another\n'
            'file spells, an attribute read by a computed name anywhere in the run) keeps `.detach()`; a\n'
            'function of another\n'
            'file called with the tensor that sets its flag, or a dict keyed by the tensor object, is not\n'
            'seen.\n'
            '`x = Variable(x); y = 1` (two statements on a line) becomes `x = x; y = 1`.\n'
            'Calls with `*args`/`**kwargs`, `Variable(None)` (an empty tensor) and an int flag above 255\n'
            '(torch raises `OverflowError`) are left unfixed.'
        ),
    ),
    RuleInfo(
        code='GL102',
        name='volatile-flag',
        summary='`volatile=` has no effect since PyTorch 0.4',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('Variable',),
        also_required=(),
        migration='variable',
        fixes_first=True,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl102_volatile_flag',
        class_name='VolatileFlag',
        doc=(
            '## What it does\n'
            'Flags the `volatile` argument of a `torch.autograd.Variable(...)` call, also through a local\n'
            'stand-in that passes every argument on (`Variable = lambda *args, **kwargs:\n'
            'autograd.Variable(*args, **kwargs).cuda() if USE_CUDA else autograd.Variable(*args, **kwargs)`).\n'
            '\n'
            '## Why is this bad?\n'
            '`volatile=True` used to switch off graph building for inference. Since PyTorch 0.4 it does\n'
            'nothing but warn (`UserWarning: volatile was removed and now has no effect`): in torch 2.13,\n'
            '`Variable(x, volatile=True) * w` with `w` requiring grad still gives an output with\n'
            '`requires_grad=True`, so every evaluation batch builds an autograd graph that keeps its input\n'
            'and intermediate results alive as long as the output is. Together with a true\n'
            '`requires_grad` it raises `ValueError`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.autograd import Variable\n'
            '\n'
            'def test(model, loader):\n'
            '    for images, labels in loader:\n'
            '        x = Variable(images, volatile=True)\n'
            '        print(model(x).data.max(1)[1])\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            '@torch.no_grad()\n'
            'def test(model, loader):\n'
            '    for images, labels in loader:\n'
            '        print(model(images).data.max(1)[1])\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'For `volatile=True` the fix restores what the flag meant. The values computed under\n'
            '`torch.no_grad()` are bitwise the same, but they no longer require grad, have no `grad_fn`\n'
            'and keep no graph (nor the batches it holds), so code that backpropagates through them would\n'
            'now raise. The fix is safe where that cannot happen: nothing in the wrapped code asks for\n'
            '`requires_grad`, `grad_fn`, `.grad` or the grad mode, modifies in place a value that may\n'
            'require grad (`model.weight += d` raises with grad on and changes the weight under no_grad; a\n'
            'name the code assigns only what it computes may be), shows a tensor as text (`print(out)`, `"%s" % out`: the text names the\n'
            '`grad_fn`; a field with a numeric format, `"{loss.val:.4f}".format(...)`, writes the value only), or hands a value that may hold a graph to a function of another file; and only\n'
            'values that provably have no history leave it. A function of the file that the code calls\n'
            "(the VAE example's `loss_function`, a recursive `repackage_hidden`) runs under no_grad with it,\n"
            'so its body is held to the same conditions: it trains nothing, computes no gradients, and\n'
            'stores nothing that may hold a graph into its arguments (`total.add_(out)`, `total += out`),\n'
            "a global or another object from outside; what it returns is judged where the call's result\n"
            'goes. It is followed where its name is mentioned only where it is defined and called, and it\n'
            'has no decorator but a no-grad one. A loss module held by a name of the module and bound\n'
            'nowhere else (`criterion = nn.CrossEntropyLoss()`) is a model, and so is a parameter every call\n'
            'of the function fills with one (`validate(loader, model, criterion)`). Otherwise it is unsafe. The fix runs the code\n'
            'that uses the value under `torch.no_grad()` and removes the `volatile=` argument, leaving the\n'
            '`Variable(...)` call to GL101. A statement that builds no graph (`z = Variable(torch.rand(n),\n'
            'volatile=True)`, `if gpu: x = x.cuda()`) is never wrapped on its own: no_grad there would\n'
            'change nothing. The flag is dropped there, and the code that uses the value after it (one\n'
            'block further out when the value is bound in an `if`) is wrapped; for a value stored on\n'
            "`self` (`self.sample_z_` in `__init__`), each computation of the class's methods that reads\n"
            'it (`self.G(self.sample_z_)` in `visualize_results`) is, by the same policy. It picks the smallest clear\n'
            'form: `@torch.no_grad()` right above the `def` of an evaluation function (named like `test`,\n'
            '`evaluate`, `validate`, `predict`, `sample`, or with the call at its top level); else\n'
            '`with torch.no_grad():` around the innermost loop that holds the call; else around the\n'
            "statements of the call's block from the call to the last use of the value, or only around\n"
            'the uses when the call just binds the value. When the uses are spread through training code\n'
            '(a test set scored every few steps of a training loop), each run of statements that uses the\n'
            'value or what is computed from it is wrapped on its own, inside the loops and `if`s that\n'
            'train, in one fix: all runs or none. `import torch` is added when missing, and the\n'
            "file's own alias is used otherwise. A form is used only when nothing in it calls\n"
            '`.backward()` or `torch.autograd.grad`, steps an optimizer, updates parameters from their\n'
            'gradients, sets `requires_grad`, turns grad back on or yields; and when no value that may\n'
            'hold a graph leaves it: read after it, stored on `self` or into an object from outside\n'
            '(`results.append(out)`, `total.add_(out)`), or returned when it does not come from the volatile value or a\n'
            'caller in the file backpropagates through the result (a value computed from the volatile one\n'
            'never had a graph in the legacy program; for a run, a name that only ever holds values\n'
            'computed from the volatile one may be read after it too: its readers are runs themselves).\n'
            "A value without autograd history (`.data`, `.item()`, a loader's batch, the indices of\n"
            '`max`), a list filled only with such values (`pred += list(out.data.max(1)[1])`) and a\n'
            "recurrent network's fresh state (`model.hidden = model.init_hidden()`) hold no graph and\n"
            "may leave. Never inside a model's `forward`.\n"
            '\n'
            'When the flag is a parameter of its function (`def get_batch(source, i, evaluation=False)`\n'
            'passing `volatile=evaluation`), its callers choose the mode: the fix removes `volatile=` there\n'
            'and runs each call that passes a true flag, with the code that uses its result, under\n'
            "`torch.no_grad()` by the same policy (the function's signature stays). It does so only when\n"
            'every call is known: a module-level function that no other file of the run imports, used in\n'
            'its file only by calling it, each call passing a literal flag or the default. When no call\n'
            'passes a true flag, removing the argument changes nothing (safe).\n'
            '\n'
            'A flag that is not a literal and not a parameter of its function (`volatile=self.test`,\n'
            '`volatile=not train`) asked for no grad when true: the same region runs under\n'
            '`with torch.set_grad_enabled(not self.test):` (the region must not bind what the flag reads,\n'
            'nor hold a `Variable` call with another flag). When the flag is false that turns grad on,\n'
            "which changes nothing where grad is on already, but under a caller's `torch.no_grad()` it\n"
            'would build a graph the original did not: the fix is safe only in script code (nothing runs\n'
            'around it), and where the code already runs under `torch.no_grad()` the flag is just removed.\n'
            '\n'
            'When no form qualifies, the finding stays, with what to do and why it was not done. Safe where\n'
            'the code already runs under `torch.no_grad()`, and for `volatile=False`: the argument is\n'
            'removed, which changes nothing.\n'
            '\n'
            '## Known limits\n'
            'A flag stored on `self` together with a flag that is not a literal is not followed into the\n'
            'other methods. A flag that is a parameter of a method, or of a\n'
            'function passed around, called with a computed flag, or imported by another file, is reported\n'
            'with what to do: the no-grad code belongs at the calls that pass a true flag. Another file\n'
            'reaching the function as a module attribute (`import data; data.get_batch(...)`) is not seen.\n'
            "A fresh state is known by its method's name (`init_hidden`, `initHidden`, `zero_state`,\n"
            '`begin_state`): one that returns a learned initial state stored on the model would lose its\n'
            'graph in that store. Uses spread through training code are not wrapped when a use cannot be\n'
            'separated from training (the statement that calls `.backward()` reads the value), a name\n'
            'also holds other values, or a value computed from the volatile one is stored into an object\n'
            'from outside the run (`layer_inputs.append(out)`). Values leaving the code through objects the\n'
            'analysis does not follow (an alias of `self`, a closure called later) are not seen. A value\n'
            'stored on `self` is followed into the methods of its class only: another object reading it\n'
            '(`gan.sample_z_`) is not seen. Only module-level functions of the file called by name are\n'
            'followed into: a method or a nested function the code calls is judged like a function of\n'
            'another file. A model whose `forward` reads the grad mode computes\n'
            'differently under no_grad, which the safe fix does not see. Reading or assigning\n'
            '`x.volatile` (always False, no effect) is not reported. A stand-in for `Variable` is followed\n'
            'only where its name has no other binding in the file and it hands `*args, **kwargs` to\n'
            '`Variable` unchanged (then maybe converted: `.cuda()`, `.to(device)`, `.float()`).'
        ),
    ),
    RuleInfo(
        code='GL103',
        name='legacy-scalar-index',
        summary='`x.data[0]` instead of `x.item()`',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('[0]',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl103_legacy_scalar_index',
        class_name='LegacyScalarIndex',
        doc=(
            '## What it does\n'
            'Flags the PyTorch 0.3 number reads `x.data[0]`, `x.data.numpy()[0]`, `x.data.cpu().numpy()[0]`\n'
            'and `x.cpu().data.numpy()[0]` of a one-number tensor (a loss, a full reduction, a sampled\n'
            'action, the argmax of one row, `torch.Tensor([v])`, a value backpropagated without a gradient),\n'
            "`x.data[0][0]` (the first row's number, from when reductions over a dim kept it),\n"
            "`total_loss[0]` on a sum of losses' `.data` (`total_loss += loss.data`), and `x[0]` of a value\n"
            '0-dim by how it is made: `prec1[0]` where `prec1 = accuracy(out, y)[0]` and `accuracy`\n'
            'returns a list of `correct[:k].view(-1).float().sum(0)` (a 1-D sum over its one dim).\n'
            '\n'
            '## Why is this bad?\n'
            'Since PyTorch 0.4 a loss is a 0-dim tensor. In torch 2.13, `loss.data[0]` raises\n'
            '`IndexError: invalid index of a 0-dim tensor. Use tensor.item() in Python ...`. On a 1-element\n'
            '1-dim tensor (a sampled action of shape `(1,)`) it returns a 0-dim tensor, not a number: as a\n'
            'dict key it misses (`KeyError: tensor(2)`), `"%s" % t` prints `tensor(2)`, and environments\n'
            'reject it. `x.data.numpy()[0]` raises `IndexError: too many indices for array` on a 0-dim\n'
            'tensor, or gives a numpy scalar. `x.item()` returns the Python number (`float`, or `int` for an\n'
            'integer tensor) and does not warn.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'running_loss += loss.data[0]\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'running_loss += loss.item()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe on 0-dim values (losses, full reductions, accumulated losses): the original raises and\n'
            '`.item()` returns the number 0.3 read. An accumulator is migrated as a whole and stays a\n'
            'tensor: every `total_loss += loss.data` becomes `+= loss.detach()` (`+= loss` where the loss\n'
            "provably has no history, as under `torch.no_grad()` over a data loader's batches) and every\n"
            '`total_loss[0]` becomes `total_loss.item()`. 0.3 summed the one-element losses in their dtype\n'
            '(`0 + t` made a new tensor, then `+=` added in place) and read the float at `[0]`; the 0-dim\n'
            'sum today adds the same values in the same dtype and order (`len(x) * loss` stays float32), so\n'
            "every read is bitwise 0.3's, however often the sum is reset to a number and read (measured\n"
            "under torch 2.13 on pytorch/examples' word_language_model `evaluate`, a small LSTM on random\n"
            "tokens: `0x1.f0a3c88888889p+1` under 0.3's meaning and after the fix, where summing `.item()`s\n"
            'in float64 gives `0x1.f0a3cd2aaaaabp+1`). Where a `+=` also\n'
            'adds a Python number (`loss.item()`), the fix sums `.item()`s in float64 and reads\n'
            '`total_loss`: unsafe, the last bits of the sum differ.\n'
            '`x[0]` of a value 0-dim by construction raises IndexError for every value: `.item()` is safe,\n'
            'except inside a `try` with handlers (code that catches the error and goes on with the tensor).\n'
            'On one-element values the fix is safe where the result is the same (`int(...)`, `float(...)`,\n'
            '`str.format` and f-string arguments) and unsafe elsewhere: the original still runs and gives a\n'
            '0-dim tensor (or a numpy scalar), the fix gives the number the code meant. It is safe also\n'
            'where the read reaches nothing but `env.step` of an environment made by\n'
            '`gym.make("CartPole-v0")` (`CartPole-v1`, `MountainCar-v0`; `gymnasium.make` too), directly or\n'
            'as the result of a function every call of which hands it only to such steps\n'
            '(`action = select_action(state)` then `env.step(action)`): their `step` begins with\n'
            '`assert self.action_space.contains(action)`, and `Discrete.contains` accepts only an `int` or a\n'
            "0-dim numpy integer (openai/gym's `gym/envs/classic_control/cartpole.py` and `mountain_car.py`\n"
            "with `gym/spaces/discrete.py`, v0.9.5 to 0.26.2; Gymnasium 1.3's), so the original raises\n"
            'AssertionError for every value and `.item()` passes the int 0.3 passed. In a file that\n'
            'never imports torch, where a value is one number only by its name (`cost.data[0]` of a record\n'
            'whose `.data` is a list), the fix is unsafe: `.item()` raises on such objects.\n'
            '`x.data[0][0]` of a value with dimensions becomes `x[0].item()`, unsafe: it raises where `x`\n'
            'is 1-D (`torch.max(out, 1)[1]` of a 2-D `out`) and `x[0].item()` reads the number meant, but\n'
            'where `x` has two dims the read still runs (a 0-dim tensor) and `x[0].item()` raises on a row\n'
            'of several numbers.\n'
            '\n'
            '## Known limits\n'
            'Only expressions that evidently hold one number are reported: losses (criterion calls, also\n'
            'through `.forward`, functional losses, names like `loss` or `val_loss`), values backpropagated\n'
            'without a gradient (`out.backward()`, `out` bound once in the function), full reductions (`.sum()`, `.argmax()`;\n'
            "read as `v.max().data[0]` even when `v`'s type is unknown, since no other type's reduction has\n"
            'an indexable `.data`, unless `v` evidently comes from numpy or another library),\n'
            'sampled actions (`multinomial`, a `torch.distributions` sample), tensors built from one literal\n'
            'element, and names bound to them. The indices of a reduction over a dim (`out.max(1)[1]`,\n'
            '`out.argmax(1)`) are reported only where the read is used as a number (`int()`, a key, a\n'
            'format argument, `env.step`). `output.data[0]` (the first row of a batch), `.data[0, 0]`,\n'
            '`.data[:5]`, `.data[i]`, `dataset.data[0]` and `self.data[0]` are left alone, as is any write\n'
            'such as `x.data[0] = 1`. An accumulator is migrated only when it is set to numbers, grows by\n'
            "`+=` of losses' `.data` (possibly times a number) and is read only as `total_loss[0]` or\n"
            '`total_loss.data[0]` in the same function (`print(total_loss)` of the tensor is left as it is).\n'
            'A loss the history proof does not reach (a model and batches passed in as arguments) is added\n'
            'as `.detach()`, even under `torch.no_grad()`. `x[0]` without `.data` is reported only where `x`\n'
            'is 0-dim by construction (a full reduction, a reduction over the one dim of a 1-D shape, a\n'
            'criterion module, an element of a list a function of the file fills only with such values),\n'
            'never by a name. An action is followed to `env.step` only through a name bound to the\n'
            'environment in the scope or at module level (not `self.env`, nor a wrapper), and through a\n'
            "function's result only in a whole run (no other file may call it); the environments listed are\n"
            "those whose step was read. Under `python -O` the environments' asserts are stripped and the\n"
            'original runs (`action == 1` compares the tensor): the fix still gives the number meant.'
        ),
    ),
    RuleInfo(
        code='GL104',
        name='variable-isinstance',
        summary='`isinstance(x, Variable)`',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('Variable',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl104_variable_isinstance',
        class_name='VariableIsinstance',
        doc=(
            '## What it does\n'
            'Flags `isinstance(x, Variable)` (also inside a tuple of classes) where `Variable` is\n'
            '`torch.autograd.Variable`.\n'
            '\n'
            '## Why is this bad?\n'
            '`Variable` is legacy API. In torch 2.13 `isinstance(t, Variable)` is True for every tensor and\n'
            'Parameter (through a metaclass hook), so the check says "is a tensor" in an obscure way, and it\n'
            'keeps the legacy import alive.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.autograd import Variable\n'
            '\n'
            'if isinstance(x, Variable):\n'
            '    x = x.data\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'if isinstance(x, torch.Tensor):\n'
            '    x = x.data\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: `isinstance(x, Variable)` and `isinstance(x, torch.Tensor)` agree for every object.\n'
            '`import torch` is added when the module does not import it at top level. No fix when the name\n'
            '`torch` is already taken otherwise (imported only inside a function, or bound to another module).\n'
            '\n'
            '## Known limits\n'
            '`issubclass(C, Variable)` is not rewritten: `issubclass(torch.Tensor, Variable)` is False, so\n'
            'the two are not equivalent. `type(x) == Variable` (always False) is GL105.'
        ),
    ),
    RuleInfo(
        code='GL105',
        name='variable-type-comparison',
        summary='`type(x) == Variable` (always False)',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('Variable',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl105_variable_type_comparison',
        class_name='VariableTypeComparison',
        doc=(
            '## What it does\n'
            'Flags `type(x) == Variable`, `type(x) is Variable`, `x.__class__ == Variable` and their\n'
            'negations (`!=`, `is not`), on either side of the operator, where `Variable` is\n'
            '`torch.autograd.Variable` under any import form.\n'
            '\n'
            '## Why is this bad?\n'
            'Since PyTorch 0.4 `Variable(t)` returns a plain `torch.Tensor`: no object ever has the type\n'
            '`Variable`, so in torch 2.13 `type(x) == Variable` is False for every tensor and Parameter (and\n'
            '`!=` is True). Code written for 0.3 silently takes the other branch. The widely copied\n'
            '`repackage_hidden` (`if type(h) == Variable: return Variable(h.data)` else recurse into the\n'
            'tuple) now recurses into the hidden-state tensor itself, row by row down to its 0-dim elements,\n'
            'and raises `TypeError: iteration over a 0-d tensor` for every non-empty hidden state, a tensor\n'
            'or a tuple of tensors alike (an empty tensor silently becomes `()`).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.autograd import Variable\n'
            '\n'
            'def repackage_hidden(h):\n'
            '    if type(h) == Variable:\n'
            '        return Variable(h.data)\n'
            '    return tuple(repackage_hidden(v) for v in h)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'def repackage_hidden(h):\n'
            '    if isinstance(h, torch.Tensor):\n'
            '        return h.detach()\n'
            '    return tuple(repackage_hidden(v) for v in h)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe in `repackage_hidden` and its copies, where the original raises for every tensor that\n'
            'reaches the test: the test is the first statement of a plain one-parameter function, and the\n'
            'branch taken when it is False is `return tuple(f(v) for v in h)` (or `list(...)`, `[...]`)\n'
            "over that parameter, recursing with the function itself on each element (the file's only\n"
            "binding of its name) and nothing else: it descends through the tensor's rows to a 0-d element\n"
            'and raises `TypeError: iteration over a 0-d tensor`. The rewrite gives what 0.3 computed\n'
            'there. The one input that does not raise is a tensor with a zero-size dimension, which becomes\n'
            'nested empty tuples (`()` for shape (0, 2), `((), ())` for (2, 0)) where a tensor was meant, and\n'
            "raises where it is used as one (`AttributeError: 'tuple' object has no attribute 'dim'` in an\n"
            'LSTM); after the fix it is returned as the tensor it was in 0.3.\n'
            '\n'
            'Elsewhere unsafe: the rewrite changes what torch 2.13 executes (the legacy test is constant, the rewrite\n'
            'is True for tensors), to what the code meant in PyTorch 0.3, where a `Variable` was the\n'
            'autograd-carrying wrapper that now is every tensor. `isinstance` also accepts subclasses\n'
            '(`nn.Parameter`), which `type(x) == Variable` did not in 0.3; in 0.3 a Parameter was a\n'
            '`Variable` subclass and such code usually meant it too. `!=` / `is not` become\n'
            '`not isinstance(x, torch.Tensor)`. `import torch` is added when the module lacks it; no fix when\n'
            'the name `torch` or `isinstance` is taken otherwise.\n'
            '\n'
            '## Known limits\n'
            '`type(x) in (Variable, ...)` and chained comparisons are not reported. A name `Variable` that\n'
            'is not `torch.autograd.Variable` (`tf.Variable`, a class of the project) is left alone.'
        ),
    ),
    RuleInfo(
        code='GL106',
        name='legacy-tensor-type-check',
        summary='`isinstance(x, torch.cuda.FloatTensor)` / `type(x) == torch.FloatTensor`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('Tensor',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl106_legacy_tensor_type_check',
        class_name='LegacyTensorTypeCheck',
        doc=(
            '## What it does\n'
            'Flags type tests against the legacy tensor type classes (`torch.FloatTensor`,\n'
            '`torch.cuda.FloatTensor`, `torch.LongTensor`, ... for the ten dtypes on CPU and CUDA):\n'
            '`isinstance(x.data, torch.cuda.FloatTensor)` (also in a tuple of classes),\n'
            '`type(x.data) == torch.FloatTensor` (and `is`, `!=`, `is not`, `x.__class__`), and\n'
            '`x.type() == "torch.cuda.FloatTensor"`.\n'
            '\n'
            '## Why is this bad?\n'
            'In PyTorch 0.3 these classes were the tensor types; since 0.4 every tensor is a\n'
            '`torch.Tensor` and the classes only survive as legacy names. Measured in torch 2.13:\n'
            '`type(x) == torch.FloatTensor` is **always False** (also for a float32 CPU tensor, a\n'
            'Parameter and `x.data`), so the branch written for 0.3 never runs.\n'
            '`isinstance(x, torch.FloatTensor)` still answers through a metaclass hook: True exactly for a\n'
            'float32 tensor whose dispatch key is plain CPU; False for float64, int64, float16, meta, sparse\n'
            'COO and CSR, nested, `torch._neg_view` and efficient-zero tensors, even when they are float32\n'
            'on the CPU. `x.type()` returns a string that spells layout and device\n'
            '(`"torch.sparse.FloatTensor"`, `"torch.meta.FloatTensor"`) and raises `RuntimeError` for sparse\n'
            'CSR and MKL-DNN tensors. The readable modern form asks for the device and the dtype directly.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'if isinstance(x.data, torch.cuda.FloatTensor):\n'
            '    x = x.half()\n'
            'if type(y) == torch.LongTensor:\n'
            '    y = y.float()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'if x.is_cuda and x.dtype == torch.float32:\n'
            '    x = x.half()\n'
            'if y.device.type == "cpu" and y.dtype == torch.int64:\n'
            '    y = y.float()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe. A CUDA class becomes `x.is_cuda` and a CPU class `x.device.type == "cpu"`, each with\n'
            '`x.dtype == torch.<dtype>` (the device test is dropped when the classes name both devices for\n'
            'the same dtypes); `.data` is dropped from the tested value (it has the same device and dtype).\n'
            'This equals the `isinstance` form on every dense strided tensor, measured over ten dtypes,\n'
            'CPU and meta devices, Parameters, non-leaf and 0-dim tensors, but it differs on sparse,\n'
            'nested, negative-view and efficient-zero float32 CPU tensors (the rewrite says True), and it\n'
            'raises `AttributeError` where `isinstance` was False for a value that is not a tensor. For\n'
            '`type(x) == ...` the rewrite is the meaning of the 0.3 code, not what torch 2.13 executes\n'
            '(always False). `import torch` is added when needed; no fix when the tested value is not a\n'
            'plain name or attribute (it would be evaluated twice), when a tuple mixes legacy classes with\n'
            'other classes, or when the classes name different dtypes per device.\n'
            '\n'
            '## Known limits\n'
            'Only the legacy classes of `torch` and `torch.cuda` are recognised, under any import form;\n'
            '`torch.Tensor`, `np.ndarray`, `tf.Tensor` are not legacy and are left alone, as is\n'
            '`type(x) in (...)`. `x.type(torch.FloatTensor)` (a conversion, exact as `x.to(torch.float32)`\n'
            'on the CPU) is not reported.'
        ),
    ),
    RuleInfo(
        code='GL107',
        name='legacy-autograd-function',
        summary='old-style `torch.autograd.Function` (non-static `forward`)',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('Function',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl107_legacy_autograd_function',
        class_name='LegacyAutogradFunction',
        doc=(
            '## What it does\n'
            'Flags subclasses of `torch.autograd.Function` written in the PyTorch 0.3 style: a non-static\n'
            '`forward(self, ...)` (with `self.save_for_backward`, `self.saved_tensors`), used by\n'
            'instantiating the class and calling the instance, `Fn()(x)`.\n'
            '\n'
            '## Why is this bad?\n'
            'Old-style functions were deprecated in PyTorch 1.3 and removed in 1.5. In torch 2.13,\n'
            "`Fn()` warns `DeprecationWarning: <class 'Fn'> should not be instantiated. Methods on autograd\n"
            'functions are all static, so you should invoke them on the class itself.` and calling the\n'
            'instance raises `RuntimeError: Legacy autograd function with non-static forward method is\n'
            'deprecated. Please use new-style autograd function with static forward method.` The model\n'
            'cannot run its forward pass at all.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'class Square(torch.autograd.Function):\n'
            '    def forward(self, x):\n'
            '        self.save_for_backward(x)\n'
            '        return x * x\n'
            '\n'
            '    def backward(self, grad):\n'
            '        x, = self.saved_tensors\n'
            '        return 2 * x * grad\n'
            '\n'
            'y = Square()(x)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'class Square(torch.autograd.Function):\n'
            '    @staticmethod\n'
            '    def forward(ctx, x):\n'
            '        ctx.save_for_backward(x)\n'
            '        return x * x\n'
            '\n'
            '    @staticmethod\n'
            '    def backward(ctx, grad):\n'
            '        x, = ctx.saved_tensors\n'
            '        return 2 * x * grad\n'
            '\n'
            'y = Square.apply(x)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: every call of an instance raises today, and the migrated function computes what the\n'
            'legacy one did. In 0.3 the instance was the context of its own call: `save_for_backward`,\n'
            '`saved_tensors`, `needs_input_grad`, `mark_dirty` and `mark_non_differentiable` were its\n'
            'members, and they are the members of `ctx` now (torch 2.13 even runs a non-static `forward`\n'
            'through `Fn.apply`, passing the context as `self`); the migrated functions pass\n'
            '`torch.autograd.gradcheck` in double precision. The fix makes `forward` and `backward`\n'
            'static methods, renames their first parameter to `ctx` (`self.saved_variables` becomes\n'
            '`ctx.saved_tensors`), removes an `__init__` that only calls the base class, and turns every\n'
            '`Fn()` of the file into `Fn.apply` (`Fn()(x)` becomes `Fn.apply(x)`; `fn = Fn(); fn(x)` in a\n'
            'function becomes `Fn.apply(x)`, and at module level, where other files may import `fn`,\n'
            '`fn = Fn.apply`). It is offered only when the instance holds no state beyond what it saves:\n'
            'otherwise the finding says what to move (an `__init__` with parameters, another method,\n'
            '`self.attribute` stored in `forward` and read in `backward`, `Fn(...)` called with arguments,\n'
            'or the class used as a value).\n'
            '\n'
            '## Known limits\n'
            'Only direct subclasses of `torch.autograd.Function` are reported. Instances created in other\n'
            'files (`from ops import Fn; Fn()(x)`) are not rewritten; they raise before and after the fix.\n'
            'An instance kept in a variable and used other than by calling it (`fn.saved_tensors`) is not\n'
            'followed.'
        ),
    ),
    RuleInfo(
        code='GL108',
        name='zero-dim-class-target',
        summary='class-index loss fed a 0-dim target element',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('cross_entropy', 'nll_loss', 'CrossEntropyLoss', 'NLLLoss'),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl108_zero_dim_class_target',
        class_name='ZeroDimClassTarget',
        doc=(
            '## What it does\n'
            'Flags a class-index loss (`nn.CrossEntropyLoss`, `nn.NLLLoss`, `F.cross_entropy`,\n'
            '`F.nll_loss`) fed one element of a 1-D target sequence at a time, the char-RNN way:\n'
            '`for c in range(chunk_len): loss += criterion(output, target[c])`, where `output` is one row\n'
            '`(1, C)`.\n'
            '\n'
            '## Why is this bad?\n'
            'In PyTorch 0.3 indexing a tensor (or iterating it) gave a 1-element tensor of shape `(1,)`,\n'
            'which is the target a `(1, C)` input wants. Since 0.4 `target[c]` is 0-dim, and in torch 2.13\n'
            'the loss raises `ValueError: Expected input batch_size (1) to match target batch_size (0).`\n'
            '(A 1-D input `(C,)` does accept a 0-dim target: that case is fine and not reported.)\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch import nn\n'
            'criterion = nn.CrossEntropyLoss()\n'
            'for c in range(chunk_len):\n'
            '    output, hidden = decoder(inp[c], hidden)\n'
            '    loss += criterion(output, target[c])\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'from torch import nn\n'
            'criterion = nn.CrossEntropyLoss()\n'
            'for c in range(chunk_len):\n'
            '    output, hidden = decoder(inp[c], hidden)\n'
            '    loss += criterion(output, target[c].unsqueeze(0))\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            '`target[c]` becomes `target[c].unsqueeze(0)`: the `(1,)` target of 0.3, so the loss is\n'
            'bitwise the legacy one. (`target[c:c+1]` would be empty for a negative `c`.) Safe when the\n'
            'input is shaped as a batch of one in the call (`output.view(1, -1)`, `.unsqueeze(0)`) and the\n'
            'target sequence is evidently 1-D: the original raises. Unsafe when the `(1, C)` shape is\n'
            'inferred from a model stepped on one element of a paired sequence (`decoder(inp[c], h)`): a\n'
            'model returning `(C,)` would accept the 0-dim target and reject the `(1,)` one.\n'
            '\n'
            '## Known limits\n'
            'Reported only with evidence of a one-row input: a model called on the element of a sequence\n'
            'indexed by the same loop variable, or an input shaped as a batch of one with a target built\n'
            'from a flat list (or `.view(-1)`). Targets of unknown shape, batched loops (`target[:, c]`),\n'
            'elements picked by a literal index (`target[0]`) outside a loop and criteria not bound to a\n'
            'class-index loss in the file are left alone. A criterion received as a parameter counts when\n'
            'every call of the function in the file passes a class-index loss module for it.'
        ),
    ),
    RuleInfo(
        code='GL109',
        name='zero-dim-result-as-number',
        summary='0-dim tensor used as a dict key',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('[0',),
        also_required=(),
        migration='variable',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl109_zero_dim_result_as_number',
        class_name='ZeroDimResultAsNumber',
        doc=(
            '## What it does\n'
            'Flags a dict looked up with one number read out of a one-number tensor, the PyTorch 0.3 way:\n'
            '`word_id = torch.multinomial(p, 1)[0]` then `idx2word[word_id]`, where `idx2word` is a dict.\n'
            '\n'
            '## Why is this bad?\n'
            'In PyTorch 0.3 indexing a 1-D tensor with an int gave a Python number. Since 0.4 it gives a\n'
            '0-dim tensor, a new object on each read, which hashes by identity: in torch 2.13 the lookup\n'
            'raises `KeyError: tensor(1)` for every value, although the dict holds the key `1`. (A list\n'
            'index or a `range` bound takes a 0-dim int tensor through `__index__`: those still run and\n'
            'are not reported.)\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'idx2word = {i: w for i, w in enumerate(words)}\n'
            'word_id = torch.multinomial(probs, 1)[0]\n'
            'word = idx2word[word_id]\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'idx2word = {i: w for i, w in enumerate(words)}\n'
            'word_id = torch.multinomial(probs, 1)[0]\n'
            'word = idx2word[word_id.item()]\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the key becomes `key.item()`, the Python number 0.3 read. The original raises KeyError\n'
            'on every value (the key is a tensor created by the read, so no key of the dict can be that\n'
            'object), and `.item()` of a one-element tensor is the number at `[0]`. Unsafe inside a `try`\n'
            'that handles the error: there the original runs, taking the missing-key path every time.\n'
            '\n'
            '## Known limits\n'
            'Reported only where the key is evidently one number read from a one-number tensor (a\n'
            '`multinomial` or `torch.distributions` sample, a tensor built from one literal element), read\n'
            'with `[0]`, `[0, 0]` or `[0][0]` in the lookup or bound once to a name, and the container is\n'
            'evidently a dict (bound in the function or at module level only to dict displays,\n'
            'comprehensions or `dict(...)`). `d.get(key)` and `key in d` (which silently miss) and the\n'
            'other number uses of a 0-dim tensor (format arguments, environment actions) are not reported;\n'
            "`x.data[0]` reads are GL103's, per-element class targets GL108's."
        ),
    ),
    RuleInfo(
        code='GL201',
        name='missing-zero-grad',
        summary='gradients are never reset in a training loop',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('backward',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl201_missing_zero_grad',
        class_name='MissingZeroGrad',
        doc=(
            '## What it does\n'
            'Flags a `for`/`while` loop whose iteration runs a backward pass and an optimizer step (or a\n'
            'manual update from `.grad`) but never resets the gradients: no `optimizer.zero_grad()`,\n'
            '`model.zero_grad()`, `p.grad = None` or `p.grad.zero_()` in the loop, in a function of the same\n'
            'file that the loop calls, or in the closure passed to `optimizer.step(closure)`.\n'
            '\n'
            '## Why is this bad?\n'
            '`backward()` adds into `.grad`. Without a reset, the gradient used at step k is the sum of the\n'
            'fresh gradients of steps 1..k (measured in torch 2.13: at step 2 the update used\n'
            '`[-6.4191, -11.3620]` instead of `[-1.7612, -3.2368]`). Training runs, with no error or\n'
            'warning, on ever larger and staler gradients.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for x, y in loader:\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix inserts `<optimizer>.zero_grad()` right before the statement that calls\n'
            'backward, which changes the numbers (that is the point). It is offered only when exactly one\n'
            'optimizer steps in the loop and the backward call is written in the loop itself. Manual\n'
            'updates (`w -= lr * w.grad`) get no fix.\n'
            '\n'
            '## Known limits\n'
            'Resets done in another file (a trainer base class, a callback) are not seen, unless they are\n'
            'called by a reset-like name (`zero_grad(model)`, `utils.zero_grads(model)`, `model.cleargrads()`).\n'
            'Loops that reset every k iterations (gradient accumulation) are not reported. A manual update\n'
            'counts only when the tensor changed in place is the one whose `.grad` it reads (`w -= lr * w.grad`);\n'
            '`x_adv = x_adv + alpha * x_adv.grad.sign()` builds a new tensor each iteration and is not one.\n'
            "MXNet's `gluon.Trainer` overwrites gradients and is not an optimizer here. A loop that builds\n"
            'its optimizer in each iteration over tensors or a model it also builds there (an input\n'
            'optimised per denoising step) has no earlier gradient to accumulate and is not reported (the\n'
            'parameters may pass through `list(...)`, `filter(...)`, a comprehension, a dict of them and its\n'
            '`.values()`, or parameter groups); a\n'
            'fresh optimizer over a model kept across iterations still is, since `.grad` lives on the\n'
            'parameters (torch 2.13: the bias gradient reads 4, 8, 12 over three such iterations). A loop\n'
            'that trains on noise is not reported either: every backward it runs itself backpropagates a\n'
            "whole reduction (`.sum()`, `.mean()`) of one forward call on inputs drawn by torch's random\n"
            'factories in the same iteration (`output = tp_model(torch.rand(20, 10)); output.sum().backward()`).\n'
            'It reads no data and its loss measures nothing: the accumulated gradients are technically\n'
            "there, but such loops demonstrate or test the training machinery (pytorch/examples' tensor\n"
            "parallel demos, peft's mock training). A copy that reads real data (`for x in loader`), a\n"
            'loss with a target, or a generator trained from noise through a discriminator (`D(G(z))`)\n'
            'stays reported, outside test modules. Test modules (`test_*.py`, `*_test.py`, as pytest\n'
            "collects them) are not checked: their loops run a few steps to exercise the machinery (fairseq's\n"
            "BMUF test, peft's mock training), and their own assertions judge the result. Silence a deliberate\n"
            'accumulation across the whole loop with `# noqa: GL201` on the loop line.'
        ),
    ),
    RuleInfo(
        code='GL202',
        name='zero-grad-before-step',
        summary='gradients are reset between backward and step',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('zero_grad',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl202_zero_grad_before_step',
        class_name='ZeroGradBeforeStep',
        doc=(
            '## What it does\n'
            'Flags a gradient reset (`optimizer.zero_grad()`, or `model.zero_grad()` where one optimizer\n'
            "is used) that runs after `backward()` and before that optimizer's `step()` in the same\n"
            'iteration, with no backward in between.\n'
            '\n'
            '## Why is this bad?\n'
            'The step sees no gradients. With the default `zero_grad(set_to_none=True)` the optimizer skips\n'
            'every parameter: in torch 2.13 the weights stayed at their initial `[0.5, -0.25]` for every\n'
            'step, with no error. With `set_to_none=False`, plain SGD is frozen too, while SGD with momentum\n'
            'and Adam keep moving on stale state.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for x, y in loader:\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.zero_grad()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for x, y in loader:\n'
            '    loss = criterion(model(x), y)\n'
            '    optimizer.zero_grad()\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix moves the reset to just before the backward statement, which changes what\n'
            'the step does (it starts training). Offered when the reset is a statement of its own line.\n'
            '\n'
            '## Known limits\n'
            "Resets of another optimizer (a GAN zeroing the generator between the discriminator's\n"
            'backward and step) are not reported; neither are conditional resets, unless the same branch\n'
            'of the `if` steps right after (a reset inside the stepping branch of an accumulation loop,\n'
            "reported without a fix). A reset followed by the step and then a backward is GL203's."
        ),
    ),
    RuleInfo(
        code='GL203',
        name='step-before-backward',
        summary="optimizer step before the iteration's backward",
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('backward',),
        also_required=('step',),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl203_step_before_backward',
        class_name='StepBeforeBackward',
        doc=(
            '## What it does\n'
            "Flags an optimizer `step()` that runs before the iteration's `backward()` (for example\n"
            '`zero_grad(); loss = ...; optimizer.step(); loss.backward()`).\n'
            '\n'
            '## Why is this bad?\n'
            'The step uses no gradients or stale ones. In torch 2.13, with\n'
            '`zero_grad(); loss; step(); backward()` the parameters never move (they stayed at their\n'
            'initial `[0.364346, -0.312102]` for every step while correct training went\n'
            '0.478 -> 0.584 -> 0.680); with `step(); zero_grad(); backward()` every step applies the previous\n'
            "iteration's gradient, one step late. torch gives no warning. `scaler.step(opt)` before\n"
            '`scaler.scale(loss).backward()` never trains when the scaler is disabled (AMP switched off)\n'
            'and raises `_scale is None` on the first step when it is enabled.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    loss = criterion(model(x), y)\n'
            '    optimizer.step()\n'
            '    loss.backward()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'No fix: which order was meant cannot be known for sure.\n'
            '\n'
            '## Known limits\n'
            'Learning-rate schedulers (`scheduler.step()`), environments (`env.step(action)`) and other\n'
            'objects with a `step()` method are not optimizers and are never reported, nor is a step given\n'
            "a loss (`self.policy_optim.step(actor_loss)`): torch's `Optimizer.step` takes only a closure,\n"
            "so that is a framework's wrapper that backpropagates the loss itself (tianshou's). A backward done\n"
            'in another file is not seen. A conditional step (`if (i + 1) % k == 0: optimizer.step()` at the\n'
            'top of an accumulation loop) is not reported, nor is a loop primed by a backward just before it\n'
            '(`loss.backward()` then `for ...: optimizer.step(); optimizer.zero_grad(); ...; loss.backward()`),\n'
            'which steps on fresh gradients.'
        ),
    ),
    RuleInfo(
        code='GL301',
        name='data-inplace-update',
        summary='in-place update through `.data`',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('.data',),
        also_required=(),
        migration='data',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl301_data_inplace_update',
        class_name='DataInplaceUpdate',
        doc=(
            '## What it does\n'
            "Flags in-place updates made through a tensor's `.data`: augmented assignments\n"
            '(`p.data -= lr * p.grad.data`), in-place methods (`w.data.clamp_(-c, c)`, `.zero_()`,\n'
            '`.copy_(...)`, `.normal_()`, chains such as `ema.data.mul_(d).add_(p.data)`...), writes\n'
            'through an index (`w.data[w.data < 0] = 0`), in-place methods on a view of `.data` by\n'
            'slices and literal indices (`x.data[:, 0].sub_(mean)`) and `torch.nn.init.*_(m.weight.data, ...)`.\n'
            '\n'
            '## Why is this bad?\n'
            "`.data` hides the change from autograd's version counter. In torch 2.13, `y = x.sigmoid();\n"
            'y.data.mul_(2)` then backward gives `x.grad = [-0.3049, 0.2486, -1.3416]` instead of the\n'
            'analytic `[0.2350, 0.1966, 0.1050]`, and `torch.autograd.gradcheck` rejects it; clamping a\n'
            'weight through `.data` between forward and backward silently corrupts the input gradient.\n'
            'The same update under `torch.no_grad()` raises `RuntimeError: one of the variables needed for\n'
            'gradient computation has been modified by an inplace operation`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for p in model.parameters():\n'
            '    p.data -= lr * p.grad.data\n'
            'nn.init.normal_(m.weight.data, 0.0, 0.02)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'with torch.no_grad():\n'
            '    for p in model.parameters():\n'
            '        p -= lr * p.grad\n'
            'nn.init.normal_(m.weight, 0.0, 0.02)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the statement is wrapped in `with torch.no_grad():` with `.data` removed (consecutive\n'
            'statements share one `with`; inside an existing no-grad block `.data` is just dropped;\n'
            '`p.grad.data` becomes `p.grad`). The results are bitwise equal (five SGD forms checked); the\n'
            'only difference is that an update of a tensor a live graph still needs now raises instead of\n'
            'silently corrupting gradients. `nn.init` functions already run without grad, so only `.data`\n'
            'is dropped there. Unsafe where a receiver is a tensor only by its name in a file that never\n'
            'imports torch: on a numpy masked array, `a.data[mask] = 0` writes the data under the mask and\n'
            '`a[mask] = 0` the masked array.\n'
            '\n'
            '## Known limits\n'
            'An update that shares its line with another statement (`loss = f(x); w.data.zero_()`) is\n'
            'reported without a fix, as is a one-line `elif`/`try` body; other one-line bodies\n'
            '(`for p in ps: p.data -= x`) are split into an indented `with` block. Metadata-only in-place\n'
            'methods (`set_`, `resize_`, `unsqueeze_`, `t_`, `detach_`...) are not updates: on `x.data`\n'
            'they leave `x` unchanged, so GL303 rewrites them to `x.detach()`, which behaves the same.\n'
            'Only tensors the analysis can see are flagged: parameters from `.parameters()` loops and\n'
            'from an optimizer\'s `group["params"]`, `nn.Parameter`s, registered buffers, `.weight`, `.bias`,\n'
            '`.grad`, names bound to torch results, `self.buffer` just assigned a tensor in the same method\n'
            'with nothing between that may rebind it (a method of `self`, a call given `self`). `self.data` of a plain class,\n'
            '`dataset.data` and module paths such as `torch.utils.data` are never touched.'
        ),
    ),
    RuleInfo(
        code='GL302',
        name='data-assignment',
        summary='assignment to `.data`',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('.data',),
        also_required=(),
        migration='data',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl302_data_assignment.rule',
        class_name='DataAssignment',
        doc=(
            '## What it does\n'
            'Flags `x.data = expr` on a tensor.\n'
            '\n'
            '## Why is this bad?\n'
            "It rebinds the tensor's storage outside autograd. In torch 2.13 the Parameter object stays\n"
            'the same (an optimizer still holds it), but the new storage leaves every alias made earlier\n'
            '(`p.detach()`, EMA copies, tied weights) pointing at the old values, and a shape change such as\n'
            '`(3,)` -> `(5,)` is accepted silently.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for p in model.parameters():\n'
            '    p.data = p.data - lr * p.grad\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'with torch.no_grad():\n'
            '    for p in model.parameters():\n'
            '        p.copy_(p - lr * p.grad)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: `with torch.no_grad(): x.copy_(expr)` (consecutive assignments share one `with`)\n'
            'keeps aliases in sync, which the original did not: that is the intended change. It is offered\n'
            "only where it changes nothing else, that is where `expr` evidently has x's shape, dtype,\n"
            'device and layout: `expr` is computed from `x` itself or `x.grad` by element-wise steps with\n'
            'plain numbers (`x * 0.5`, `x - lr * x.grad` with `lr = 0.1` in the file, `x.clamp(-1, 1)`,\n'
            '`x.clone()`, `torch.zeros_like(x)`). Elsewhere `copy_` would cast (`.to(...)`, `.half()`),\n'
            'keep the old strides (`.contiguous()`), broadcast or raise (`.t()`, a factory of another size,\n'
            "a resized vocabulary, another module's weight of unknown shape), so the finding comes without\n"
            'a fix. A module or tensor built in the same function (re-parameterisation, frozen\n'
            'BatchNorm) is meant to receive the new tensor and gets no fix either, nor does a buffer from\n'
            '`.buffers()`, which may be an integer tensor that arithmetic with a float promotes.\n'
            '\n'
            '## Known limits\n'
            'Only evident tensors are flagged (`.weight`, `.bias`, `.grad`, parameters from\n'
            '`.parameters()` loops, names bound to torch results). `self.data = ...` in a plain class is\n'
            'never flagged. Arithmetic with a number assumes a floating-point tensor (`.weight`, `.bias`,\n'
            '`.grad`, a parameter). A chained assignment (`a.data = b.data = w`), a one-line body and a line shared\n'
            'with other statements are reported without a fix.\n'
            'Not reported: the idioms that give a tensor other storage on purpose, which `copy_` cannot do\n'
            "(`storage_swaps.py` beside the rule): an in-place initialiser's result, which is the tensor\n"
            'itself (`w.data = nn.init.xavier_uniform_(w.data)`), converting a tensor in place of itself\n'
            '(`p.data = p.data.to(torch.float32)`, `.half()`, `.contiguous()`), putting back storage saved\n'
            'earlier in the function (`saved = w.data` ... `w.data = saved`), every `.data =` of a function\n'
            'that moves storage between devices that way (offloading), a module built in the same\n'
            'function adopting another tensor (`res = FrozenBatchNorm2d(n)`, also `Net(n).to(device)` or a\n'
            'class passed in, `cls(n)`; `res.weight.data = module.weight.data.clone()`) unless a torch\n'
            "factory creates the value, a tensor adopting a new module's parameter\n"
            '(`w.data = nn.Linear(a, b).to(dtype).weight.data`), a tensor re-laid out from its own storage\n'
            '(`p.data = p.data.view(n, -1)`, `p.data.chunk(world)[rank]`) or handed to a function that is\n'
            "not torch's (`p.data = shard(p.data)`, `p.data = to_half(p.data)`: a helper that only updates\n"
            "the values goes unreported too, one of the file returning a torch factory's tensor is reported), a view of part of a flat buffer\n"
            '(`p.data = flat[i : i + n].view_as(p)`), storage swapped between collections walked side by side\n'
            '(`for p, b in zip(model.parameters(), backup): p.data = b`, the EMA swap), and storage\n'
            'released (`p.data = torch.empty(0)`). A reshape after an optimizer holds state for the tensor\n'
            'raises at its next step; a transpose (`.t()`, `.permute(...)`) stays reported.'
        ),
    ),
    RuleInfo(
        code='GL303',
        name='data-read',
        summary='read of `.data` instead of `.detach()`',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('.data', 'resize_'),
        also_required=(),
        migration='data',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl303_data_read',
        class_name='DataRead',
        doc=(
            '## What it does\n'
            "Flags reads of a tensor's `.data`: `y = x.data`, `x.data.cpu().numpy()`, `out.data.max(1)`,\n"
            '`p.grad.data`.\n'
            '\n'
            '## Why is this bad?\n'
            '`x.data` and `x.detach()` share storage, but only `.detach()` shares the version counter. In\n'
            'torch 2.13, with `out = (x ** 2).sum()`, mutating `x.data.mul_(10)` and then calling backward\n'
            'gives a silent `x.grad = [20, 40, 60]` where the truth is `[2, 4, 6]`; through `x.detach()`\n'
            'the same mutation raises `RuntimeError: ... modified by an inplace operation`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'pred = output.data.max(1)[1]\n'
            'grad_norm = p.grad.data.norm()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'pred = output.detach().max(1)[1]\n'
            'grad_norm = p.grad.norm()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: `.data` becomes `.detach()` (`x.grad.data` becomes `x.grad`, which needs neither). The\n'
            'values, storage, dtype and `requires_grad=False` are the same; the only change is that an\n'
            'illegal in-place mutation now raises instead of silently corrupting gradients. Where the\n'
            'receiver is a tensor only by its name (`output_node.data`) in a file that never imports torch,\n'
            'or is a Python number, every fix below is unsafe: other objects have a `.data` too (a template\n'
            "node's string, a numpy masked array), and `.detach()` raises on them.\n"
            '\n'
            '`.data` is simply dropped where `.detach()` would add nothing: a metadata read of any tensor\n'
            '(`x.data.size()`, `.shape`, `.dim()`, `.numel()`, `.dtype`, `.device`, `.is_cuda`), and a value\n'
            "that provably carries no history (a factory's tensor, a loader's batch, the indices of\n"
            '`torch.max(out, 1)[1]`: see the history fact of GL101) consumed by something that makes a\n'
            'new value (`.numpy()`, `.tolist()`, `.item()`, reductions, views, arithmetic, also after\n'
            "`.cpu()`/`.to()`/`.float()`), and the operand of a tensor's comparison method\n"
            '(`pred.eq(label.data)`) whatever it carries: a comparison reads values only and gives no history. There `x` and `x.detach()` give the same values, flags and\n'
            'version counter, and no code sees the object itself. So does a call handed the last read of\n'
            'a local bound to a new object without history (`comparison = torch.cat(...)` under no_grad,\n'
            'then `save_image(comparison.data.cpu())`): no other code can reach `comparison` to tell it\n'
            'from an alias. A conversion whose result is kept\n'
            '(`y = x.data.cpu()`, which may be `x` itself) and in-place methods keep `.detach()`, as does\n'
            'a value that may carry history (a model output, a parameter), except in one case: `y =\n'
            'x.data` under `torch.no_grad()` where every later read of `y` is in the same block and takes\n'
            'only its values (arithmetic, reductions, comparisons, `.item()`, `.tolist()`, indexing). A\n'
            "module's output may be a parameter it holds, which requires grad even there, but whatever is\n"
            'computed from it with autograd off has the same values and no grad. Printing or formatting\n'
            '`y`, `.numpy()`, returning or storing it, its flags, in-place changes or a read after the\n'
            'block keep `.detach()`. `x = x.data` that becomes `x = x` is removed (`pass` where the block\n'
            'would be left empty, or the whole `if isinstance(x, ...):` with no `else` that guarded it).\n'
            '\n'
            'A resize of `x.detach()` whose result the statement does not keep,\n'
            '`x.detach().resize_(n).fill_(v)` (also `resize_as_`), is a bug of its own with its own message:\n'
            "written for torch 0.3's `x.data.resize_(n)`, which resized and filled `x`, it resizes a\n"
            'temporary in torch 2.13, and `x` keeps its old size (a (2,) tensor stays (2,) and shows only\n'
            'the first two values written). The fix is unsafe: `with torch.no_grad(): x.resize_(n).fill_(v)`\n'
            'restores the old meaning and is otherwise the same statement (no graph is recorded), but where\n'
            '`x` requires grad (a parameter) `resize_` raises `cannot resize variables that require grad`\n'
            'instead of silently doing nothing.\n'
            '\n'
            'No fix is offered for an index of ints into a value of unknown dims (`output.data[0]`,\n'
            '`out.data.cpu().numpy()[i]`, `x.data[0, 0]`): if the value is one number, 0-dim since PyTorch\n'
            '0.4 (a loss the rule cannot tell), the read raises IndexError and `x.detach()[0]` raises the\n'
            'same, while the finding would be gone; the number is `x.item()`, a row is `x.detach()[0]`, and\n'
            "only the reader knows which. With a literal shape of enough dims, or one int into a layer's\n"
            '`.weight` or `.bias` (0.3 had no 0-dim tensors), the fix is offered; the number reads of\n'
            "evident one-number values are GL103's.\n"
            '\n'
            '## Known limits\n'
            'Writes through `.data` are GL301/GL302, in-place changes of shape or storage through it\n'
            "(`x.data.t_()`, `x.data.resize_(n).copy_(src)`) GL304's, and the number reads of GL103 (`loss.data[0]`,\n"
            '`loss.data.cpu().numpy()[0]`, and `total_loss += loss.data` where `total_loss` is read as\n'
            '`total_loss[0]`) become `.item()` there; `model.bias.data[0]` is a read like any other. Only evident tensors\n'
            'are flagged: `dataset.data`, `self.data`, `args.data`, numpy arrays and module paths such as\n'
            "`torch.utils.data` are not, nor a name whose binding the read sees is another library's\n"
            '(`x = sp.load_npz(p).tocsr()`, then `x.data`), whatever the name is bound to later. Evidence includes the code on the way to the read: the branch of\n'
            '`isinstance(p, nn.Parameter)`, and a name an earlier `F.nll_loss(output, label)` of the same\n'
            'function was given (such losses raise unless given tensors).'
        ),
    ),
    RuleInfo(
        code='GL304',
        name='data-inplace-metadata',
        summary='In-place change of shape or storage through .data',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('.data.',),
        also_required=('_(',),
        migration='data',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl304_data_inplace_metadata',
        class_name='DataInplaceMetadata',
        doc=(
            '## What it does\n'
            'Flags an in-place change of shape or storage made through `.data`: `feature.data.t_()`,\n'
            '`.transpose_(0, 1)`, `.squeeze_()`, `.unsqueeze_(0)`, `.resize_(n)` (the DCGAN idiom\n'
            '`x.data.resize_(y.size()).copy_(y)`), `.resize_as_(y)`, `.set_(y)`, `.as_strided_(...)`.\n'
            '\n'
            '## Why is this bad?\n'
            "In PyTorch 0.3 `x.data` was `x`'s own tensor, so `x.data.t_()` transposed `x`. Since 0.4\n"
            "`x.data` is a new tensor object sharing `x`'s storage: the change reaches that temporary and\n"
            '`x` keeps its shape. In torch 2.13 a (2, 3) `feature` stays (2, 3) after\n'
            '`feature.data.t_()`, and after `x.data.resize_(y.size()).copy_(y)` a (2,) `x` stays (2,),\n'
            'holding only the first two values of `y`: a silent no-op, or a shape error later.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'feature = torch.zeros(2, 3)\n'
            'feature.data.t_()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'feature = torch.zeros(2, 3)\n'
            'feature.t_()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Always unsafe: the fix changes what torch 2.x runs, from a no-op on a temporary to a change\n'
            'of the tensor. Where the value model proves the receiver a tensor without autograd history\n'
            "that does not require grad, `.data` is dropped and the tensor itself changes, 0.3's meaning\n"
            "exactly (a history-free tensor's `x.t_()` is an ordinary in-place op, no graph records it);\n"
            'code written since 0.4 may rely on the tensor keeping its shape.\n'
            '\n'
            'A parameter or another leaf that requires grad: there `x.t_()` raises ("a leaf\n'
            'Variable that requires grad is being used in an in-place operation"), so the call goes under\n'
            '`torch.no_grad()`; measured in torch 2.13, the parameter is then transposed, stays a leaf\n'
            'that requires grad and gets gradients of its new shape, as in 0.3. The\n'
            "change now also counts on the parameter's version counter: a backward still pending over a graph\n"
            'that saved it raises "modified by an inplace operation" where the `.data` form ran on.\n'
            'A resize of a tensor that requires grad gets no fix (torch raises "cannot resize variables\n'
            'that require grad" even under `torch.no_grad()`), nor does a receiver that may carry history\n'
            '(`x.t_()` would be recorded in the graph, a `TBackward` node).\n'
            '\n'
            '## Known limits\n'
            'Only a method called directly on `x.data` is reported, not one reached through a name bound\n'
            'to it (`d = x.data; d.t_()`). The no-grad fix wraps a statement alone on its line.\n'
            "`x.detach().resize_(n)` is GL303's."
        ),
    ),
    RuleInfo(
        code='GL401',
        name='loss-accumulation-graph',
        summary='graph-carrying loss accumulated across iterations',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('+=', 'append', '= '),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl401_loss_accumulation_graph',
        class_name='LossAccumulationGraph',
        doc=(
            '## What it does\n'
            'Flags a graph-carrying tensor (a loss, a model output) accumulated into something that outlives\n'
            'an optimisation step: `total += loss`, `total = total + loss`, `losses.append(loss)`,\n'
            '`self.history["loss"].append(loss)`, `stats["loss"] += loss`, `ema = 0.9 * ema + 0.1 * loss`,\n'
            'inside a loop that backpropagates or steps an optimizer, or that runs once per batch or epoch.\n'
            '\n'
            '## Why is this bad?\n'
            "The total keeps a reference to each iteration's graph (its `grad_fn` chain grows by one node\n"
            'per step), so the activations of every batch stay in memory: in torch 2.13, collecting the\n'
            'outputs of 20 batches kept 20 of 20 input batches alive, against 0 with `.detach()`. Training\n'
            'slows down and eventually runs out of memory, with correct-looking numbers.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'total_loss = 0\n'
            'for x, y in loader:\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '    total_loss += loss\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            '    total_loss += loss.detach()   # or loss.item() for a Python float\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe where the added value is evidently a tensor in torch code: `.detach()` gives the same\n'
            'value, dtype and device, and a tensor stays a tensor; only the graph is dropped. (`.item()`\n'
            'would change the type to a Python float.) Unsafe where only the evidence of a graph says so (a\n'
            'method of another file named like a loss, `self.compute_loss(x, y)`, a function of the file\n'
            'named like a loss whose returns show no tensor, or a file that never imports torch):\n'
            '`.detach()` raises AttributeError on anything but a tensor.\n'
            '\n'
            '## Known limits\n'
            "Not reported: Python numbers and other libraries' values, which keep no graph (a helper of the\n"
            'file that returns `float(...)`, `loss.item() * x.size(0)`, a sum of `.item()`s or a total of\n'
            'them, a name last set to `loss.item()`, or `np.mean(...)`, also when the caller names its\n'
            'result `loss`), accumulation under `torch.no_grad()` (or a decorator named like it, such as\n'
            '`@smart_inference_mode()`), values already `.item()`/`.detach()`/`float(...)`, totals reset\n'
            'unconditionally in every iteration (a reset under `if` is still reported, except the\n'
            'gradient-accumulation case below), totals (or lists)\n'
            'that are backpropagated after the loop, which is an intended multi-term loss, and loops that\n'
            'neither backpropagate, step an optimizer nor iterate batches or epochs: terms summed over layers\n'
            'or scales and returned, tiles or chunks concatenated in the same call, U-Net skips, residual\n'
            'updates. A loop over batches that combines what it gathers with `cat`/`stack`/`sum` in the same\n'
            'function (chunked inference) is not reported either. Without a loop, only an attribute of\n'
            '`self` filled by a method that itself backpropagates or steps is reported. A value is known to\n'
            'carry a graph by its source (a model or loss call, a function of the file returning one) or\n'
            'because the code backpropagates that very binding (`logits, loss = model(x, y)` ...\n'
            "`loss.backward()`); a loss read only as an attribute of a model's output and never\n"
            'backpropagated in the same function (`total += model(**batch).loss`) is not reported. Whether a\n'
            "helper's total is a graph-free loss builder is decided by where its result is backpropagated,\n"
            'never by the name a caller gives it.\n'
            '\n'
            'Gradient accumulation is not reported when the total is reset in the branch that steps the\n'
            'optimizer and the term added is backpropagated in the same iteration, without\n'
            '`retain_graph=True` (`running_loss += loss` next to `loss.backward()`, or a term of the loss\n'
            "that is backpropagated): the backward frees the graph's saved tensors, and what the total\n"
            'keeps until the reset is a few autograd nodes per micro-batch of one window (measured in\n'
            'torch 2.13: 0 of 20 inputs kept alive). A total reset only where it is logged, or never, is\n'
            'still reported: its chain of nodes grows with every iteration in between. Test modules\n'
            "(`test_*.py`, `*_test.py`, as pytest collects them) are not checked: a test keeps a few steps'\n"
            'losses to assert on them, and frees them when it ends.'
        ),
    ),
    RuleInfo(
        code='GL402',
        name='backward-without-graph',
        summary='backward on a value without autograd history',
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('backward',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl402_backward_without_graph',
        class_name='BackwardWithoutGraph',
        doc=(
            '## What it does\n'
            'Flags `.backward()` on a value that cannot have a graph: `x.detach().backward()`, a `.data`-\n'
            'derived value, or a loss computed entirely inside `torch.no_grad()` / `inference_mode()` (or\n'
            'in a function decorated with them, also when that function returns the loss to its caller, or\n'
            'returns a loss it computed inside such a block). Also flags the silent variant: a loss whose\n'
            'graph was cut (`criterion(out.detach(), y)`, a no-grad block) and then turned back on with\n'
            '`loss.requires_grad_()` or `loss.requires_grad = True`.\n'
            '\n'
            '## Why is this bad?\n'
            'In torch 2.13 each of these raises `RuntimeError: element 0 of tensors does not require grad\n'
            'and does not have a grad_fn`: the training step dies at runtime, often only in the code path\n'
            'that was not tested (evaluation helpers reused for training, a refactor that moved the loss\n'
            'into a no-grad block). Re-enabling `requires_grad` on such a loss silences the error but only\n'
            'makes the loss a new leaf: backward runs, no gradient reaches the model, and the optimizer\n'
            'steps with no gradient at all, so the model never trains.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'with torch.no_grad():\n'
            '    loss = criterion(model(x), y)\n'
            'loss.backward()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'loss = criterion(model(x), y)\n'
            'loss.backward()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'No fix: whether the graph or the backward call is the mistake needs a human decision.\n'
            '\n'
            '## Known limits\n'
            '`loss.backward()` called inside `no_grad` on a loss built outside it works in torch and is not\n'
            'reported, nor is a loss built under `torch.enable_grad()` (which turns autograd back on inside a\n'
            'no-grad block or function). A name assigned both inside and outside a no-grad block is not\n'
            'reported. A re-enabled loss is reported only when every input of its computation is detached\n'
            'or brings no graph of its own (not a model call, a model, or a value with evident history).\n'
            'A tensor rebuilt by a constructor from a cut value (`torch.tensor(loss.item(),\n'
            'requires_grad=True)`, `torch.tensor(loss)`) is reported by GL609 instead, unless it is built\n'
            'under no-grad or turned back on with `requires_grad_()`: each backward is reported by one rule.'
        ),
    ),
    RuleInfo(
        code='GL403',
        name='leaf-rebind-update',
        summary='manual update rebinds the parameter',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('.grad',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl403_leaf_rebind_update',
        class_name='LeafRebindUpdate',
        doc=(
            '## What it does\n'
            'Flags a manual gradient step that rebinds the parameter instead of updating it in place:\n'
            '`w = w - lr * w.grad`, `w = w.sub(lr * w.grad)`, with or without `torch.no_grad()`; also for\n'
            'parameters kept as attributes (`self.w = self.w - lr * self.w.grad`), dict entries\n'
            '(`params["w"]`) or rebound together (`w, b = w - lr * w.grad, b - lr * b.grad`).\n'
            '\n'
            '## Why is this bad?\n'
            'The new `w` is a different tensor. Outside no_grad it is a non-leaf: in torch 2.13 reading\n'
            '`w.grad` at the next step warns "The .grad attribute of a Tensor that is not a leaf Tensor is\n'
            'being accessed" and the update fails with `TypeError: unsupported operand type(s) for *:\n'
            "'float' and 'NoneType'`. Inside no_grad it no longer requires grad, and the next `backward()`\n"
            'raises "element 0 of tensors does not require grad". Modules and optimizers also keep pointing\n'
            'at the old tensor.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'w = w - lr * w.grad\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'with torch.no_grad():\n'
            '    w -= lr * w.grad\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the in-place form keeps `w` the same leaf object, which changes behaviour (that is\n'
            'the point). Remember to reset `w.grad` each step (see GL201).\n'
            '\n'
            '## Known limits\n'
            'Only the direct form `name = name -/+ ...name.grad...` and `name.sub/add(...)` are recognised.\n'
            'Attributes, entries and tuple rebinds are checked only in files that import torch; a tuple\n'
            'rebind gets no fix.'
        ),
    ),
    RuleInfo(
        code='GL404',
        name='numpy-on-grad-tensor',
        summary='`.numpy()` on a tensor that requires grad',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('numpy', 'np.'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl404_numpy_on_grad_tensor',
        class_name='NumpyOnGradTensor',
        doc=(
            '## What it does\n'
            'Flags `.numpy()`, `np.array(t)` and `np.asarray(t)` on a tensor that carries autograd history\n'
            '(a model output, a loss, a result of operations on parameters) when no `.detach()` or `.data`\n'
            'comes earlier in the chain and the code does not run under `torch.no_grad()`.\n'
            '\n'
            '## Why is this bad?\n'
            "In torch 2.13 each form raises `RuntimeError: Can't call numpy() on Tensor that requires grad.\n"
            'Use tensor.detach().numpy() instead.` (`np.array(t)` also emits a numpy DeprecationWarning\n'
            'first). The crash typically hides in logging or metric code that only runs every N steps.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'out = model(x)\n'
            'preds = out.cpu().numpy()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'out = model(x)\n'
            'preds = out.detach().cpu().numpy()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: `.detach()` is inserted before `.cpu()` / `.numpy()` (or around the argument of\n'
            '`np.array`). `.detach().cpu().numpy()` gives exactly the values the original would return under\n'
            '`no_grad`, and shares memory with a CPU tensor just like `.numpy()`. Unsafe in a file that\n'
            "never imports torch, where a model's output is one only by its names and may be another\n"
            "library's array, without `.detach()`.\n"
            '\n'
            '## Known limits\n'
            'Only values evidently built with grad in the same function are checked (entries of a dict\n'
            'literal and members of a tuple or list literal bound there included). A function whose name\n'
            'is called inside a `no_grad` block in the same file is assumed to run without grad. Files that\n'
            'import TensorFlow, Keras or JAX are skipped, since their tensors have `.numpy()` too.'
        ),
    ),
    RuleInfo(
        code='GL405',
        name='requires-grad-typo',
        summary='misspelt or ineffective `requires_grad`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('requ', 'ires_', 'grad'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl405_requires_grad_typo.rule',
        class_name='RequiresGradTypo',
        doc=(
            '## What it does\n'
            'Flags assignments and keywords that look like `requires_grad` but do nothing, or raise:\n'
            '- an attribute near-miss: `p.require_grad = False`, `x.requires_grads = True` (edit distance\n'
            '  at most 2 from `requires_grad`);\n'
            '- a keyword near-miss in a torch call: `torch.randn(3, require_grad=True)`;\n'
            '- `model.requires_grad = False` on an `nn.Module`, also one reached through a container:\n'
            '  `model.layers[0]`, `for m in model.features[:10]` (a `ModuleList`, `Sequential` or\n'
            "  `ModuleDict` built in the file, or a torchvision model's attribute).\n"
            '\n'
            '## Why is this bad?\n'
            'In torch 2.13 `x.require_grad = True` silently sets a plain Python attribute and leaves\n'
            '`x.requires_grad` False: the gradient is never computed (or backward raises "element 0 of\n'
            'tensors does not require grad"). `model.requires_grad = False` on a Module is also a silent\n'
            'no-op: every parameter still has `requires_grad=True`, still receives gradients and still\n'
            'changes; only `model.requires_grad_(False)` freezes it. A keyword typo raises `TypeError`\n'
            '(`randn() received an invalid combination of arguments`).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for p in model.encoder.parameters():\n'
            '    p.require_grad = False\n'
            'model.requires_grad = False\n'
            'w = torch.randn(3, require_grad=True)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for p in model.encoder.parameters():\n'
            '    p.requires_grad_(False)\n'
            'model.requires_grad_(False)\n'
            'w = torch.randn(3, requires_grad=True)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'The keyword fix (`require_grad=` -> `requires_grad=`) is safe: the original raises. The\n'
            'attribute and module fixes (`x.requires_grad_(value)`) are unsafe: they change behaviour,\n'
            'which is the point (parameters get frozen, inputs get gradients). No fix when the assignment\n'
            'shares its line with another statement, or when the call also passes `requires_grad=`.\n'
            '\n'
            '## Known limits\n'
            "An attribute near-miss that the file also reads (a config object's own `require_grad` field)\n"
            'is not reported; neither are objects rooted in `self`, `args` or `config` unless `self` is an\n'
            '`nn.Module`, nor private names (`self._requires_grad`). A module class that reads its\n'
            '`self.requires_grad` back (`requires_grad=self.requires_grad`) keeps its own flag and is not\n'
            'reported, nor is a constructor argument stored on the module in `__init__`\n'
            '(`self.requires_grad = requires_grad`, kept as configuration and acted on elsewhere: by\n'
            '`requires_grad_(requires_grad)`, a loop over `self.parameters()`, or code of another file that\n'
            'reads it). That also leaves unreported a class whose only use of such an argument is this\n'
            'assignment, meant as the freeze. Keywords of private torch APIs are not checked\n'
            '(`torch.Tensor._make_subclass` really takes `require_grad=`). `model.requires_grad = ...` is reported only when `model` is evidently a module:\n'
            'an instance of an `nn.Module` subclass, `self` inside one, or a name such as `model`, `net`,\n'
            '`encoder` or `backbone`.\n'
            '\n'
            'On current code (bench/PRECISION.md) one finding set `requiresGrad = True` on a fresh\n'
            '`nn.Parameter`, which already requires grad: true, and harmless today; it stays reported,\n'
            'since the same typo with `False` silently trains what was meant to be frozen.'
        ),
    ),
    RuleInfo(
        code='GL406',
        name='gan-discriminator-no-detach',
        summary='discriminator update backpropagates into the generator',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('unsafe',),
        triggers=('step',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl406_gan_discriminator_no_detach',
        class_name='GanDiscriminatorNoDetach',
        doc=(
            '## What it does\n'
            "In a discriminator update (its loss is backpropagated and the discriminator's optimizer\n"
            'steps), flags generator output that reaches the discriminator without `.detach()`: `D(G(z))`,\n'
            'or `fake = G(z)` followed by `D(fake)`, also when the fake is concatenated first\n'
            "(`torch.cat((cond, fake), 1)`) or reaches it through the file's bindings: a helper or method\n"
            'of the file that returns `G(z)` (whole or as a tuple member), an attribute, a loop variable, a\n'
            'dict entry, a list, a lambda. Networks and optimizers are recognised by their names\n'
            '(`D`, `netD`, `discriminator`, `critic`; `G`, `netG`, `generator`; `optD`, `optimizer_d`...).\n'
            '\n'
            '## Why is this bad?\n'
            "Measured in torch 2.13: after `d_loss.backward()` the generator's weights hold a non-zero\n"
            'gradient from the discriminator loss (they should hold none). If the generator step then\n'
            'reuses `fake`, backward raises "Trying to backward through the graph a second time"; with\n'
            '`retain_graph=True` and no `optG.zero_grad()` the generator is silently updated with the sum of\n'
            "both losses' gradients. At best, the backward pass through the generator is wasted compute.\n"
            '\n'
            '## Example\n'
            '```python\n'
            'fake = G(z)\n'
            'd_loss = bce(D(real), ones) + bce(D(fake), zeros)\n'
            'd_loss.backward()\n'
            'opt_d.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'fake = G(z)\n'
            'd_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)\n'
            'd_loss.backward()\n'
            'opt_d.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "Unsafe: `D(fake.detach())` leaves the discriminator's update bitwise unchanged and stops the\n"
            "gradient into the generator, which changes the generator's training when the code relied on the\n"
            'accumulated gradient.\n'
            '\n'
            '## Known limits\n'
            'Networks and optimizers are matched by name only. Nothing is reported when the generator is\n'
            'frozen anywhere in the file (`requires_grad_(False)`, `requires_grad = False` on its\n'
            'parameters), when the fake is built under `no_grad`, or when the update is spread over\n'
            'several functions. Statements joined on one line with `;` count as one statement. Image pools\n'
            '(`self.fake_pool.query(fake)`) are not followed: common pools store `image.data` and hand back\n'
            'detached tensors. A forward bound to a name counts only when the backward before the step is\n'
            'of that name or of a value built from it.'
        ),
    ),
    RuleInfo(
        code='GL501',
        name='async-keyword-argument',
        summary='`async=` keyword argument (a syntax error since Python 3.7) instead of `non_blocking=`',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('non_blocking',),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl501_async_keyword_argument',
        class_name='AsyncKeywordArgument',
        doc=(
            '## What it does\n'
            'Flags calls with an `async=` keyword argument: `x.cuda(async=True)`,\n'
            '`x.to(device, async=True)`, `x.type(torch.cuda.FloatTensor, async=True)`,\n'
            '`dst.copy_(src, async=True)`, or any other call.\n'
            '\n'
            '## Why is this bad?\n'
            'Since Python 3.7 `async` is a reserved keyword, so the whole file is a `SyntaxError`: it cannot\n'
            'be imported, and not one line of it runs. torch 0.4 renamed the argument `non_blocking=` (same\n'
            'meaning: a copy from pinned memory may overlap with computation).\n'
            '\n'
            'gradlint finds these calls in the tokens before parsing, reports each one here instead of\n'
            'GL001 `invalid-syntax`, and analyses the rest of the file as if they were written\n'
            '`non_blocking=`. A file that still does not parse after that renaming is reported as GL001.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'images = images.cuda(async=True)\n'
            'labels = labels.to(device, async=True)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'images = images.cuda(non_blocking=True)\n'
            'labels = labels.to(device, non_blocking=True)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe for the transfer methods `.cuda()`, `.to()`, `.type()` and `.copy_()`: the original does\n'
            'not even compile, and `non_blocking=` is the exact modern spelling of the same argument.\n'
            "Unsafe for any other call, where `non_blocking=` is torch's name but maybe not the callee's\n"
            '(a library of your own may have renamed its `async` argument differently, e.g. `async_=`).\n'
            "`gradlint fix` writes the renamed keyword together with the other rules' fixes, which are\n"
            'computed on the renamed text and placed at the right columns of the text as written.\n'
            '\n'
            '## Known limits\n'
            'Only `async=` keyword arguments of calls are renamed. Other uses of the name `async` (a\n'
            'parameter `def f(x, async=False)`, a variable, `self.async`) stay syntax errors and the file\n'
            'stays GL001. `**{"async": True}` parses, and raises `TypeError` at run time (not reported).\n'
            "Selecting GL001 without GL501 does not report the file: its only problem is GL501's.\n"
            "Under flake8 the file is flake8's own E999 (flake8 parses it before running any plugin).\n"
            'A fix of another rule that rewrites a whole call containing `async=` writes it `non_blocking=`,\n'
            'also when GL501 is not selected.'
        ),
    ),
    RuleInfo(
        code='GL502',
        name='removed-api',
        summary='`retain_variables=`, `saved_variables`, `torch._six`, `torch.gesv`, uint8 masks, `m._backend` and other removed APIs',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('retain_variables', 'saved_variables', '_six', 'data_tensor', 'target_tensor', 'gesv', 'potrf', 'potrs', 'trtrs', 'btrifact', 'btrisolve', 'gels', 'fft', 'legacy', 'trainer', 'ffi', 'load_lua', 'stft', 'byte', 'uint8', 'ByteTensor', '_backend'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl502_removed_api.rule',
        class_name='RemovedApi',
        doc=(
            '## What it does\n'
            'Flags PyTorch APIs removed since 0.3 that raise under torch 2.x: `backward(retain_variables=...)`\n'
            '(also `torch.autograd.backward`), `ctx.saved_variables` in a `torch.autograd.Function`,\n'
            'imports from `torch._six`, `TensorDataset(data_tensor=..., target_tensor=...)`, the removed\n'
            'linear algebra functions `torch.gesv` / `potrf` / `potrs` / `gels` / `trtrs` / `btrifact` /\n'
            '`btrisolve`, `torch.fft` / `ifft` / `rfft` / `irfft` called as functions, the `torch.legacy`,\n'
            '`torch.utils.trainer` and `torch.utils.ffi` packages and `torch.utils.serialization.load_lua`,\n'
            '`stft` without `return_complex=`, uint8 (byte) masks given to `masked_fill` /\n'
            '`masked_select` / `masked_scatter` or used as an index, and the THNN backend of 0.3 modules\n'
            '(`embed._backend.Embedding.apply(...)`).\n'
            '\n'
            '## Why is this bad?\n'
            'Measured in torch 2.13: `retain_variables=` and `TensorDataset(data_tensor=...)` raise\n'
            '`TypeError`; `import torch._six`, `torch.legacy`, `torch.utils.trainer` and `torch.utils.ffi`\n'
            'raise `ModuleNotFoundError`, `load_lua` and the removed functions `ImportError` /\n'
            '`AttributeError` (`torch.fft(x, 1)` a `TypeError`: `torch.fft` is a module now); `stft` of a\n'
            'real signal without `return_complex=` raises `RuntimeError`; a uint8 mask makes\n'
            '`masked_fill` / `masked_select` / `masked_scatter` and `x[mask] = v` raise `RuntimeError`, and\n'
            '`x[mask]` warns. `ctx.saved_variables` still works but warns that it is deprecated.\n'
            '`m._backend` raises `AttributeError` (removed in torch 1.3): the awd-lstm-lm\n'
            '`embedded_dropout`, copied into many language models, calls\n'
            '`embed._backend.Embedding.apply(words, weight, padding_idx, ...)`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'from torch._six import string_classes\n'
            '\n'
            'loss.backward(retain_variables=True)\n'
            'scores = scores.masked_fill((lengths == 0).byte(), -1e9)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'string_classes = (str, bytes)\n'
            '\n'
            'loss.backward(retain_graph=True)\n'
            'scores = scores.masked_fill((lengths == 0).bool(), -1e9)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe where the rewrite computes exactly what the legacy call meant and the legacy call raises\n'
            'under torch 2.13 (or only warns): `retain_variables=` becomes `retain_graph=`,\n'
            '`saved_variables` `saved_tensors` (the same tensors, without the warning), the\n'
            '`data_tensor=` / `target_tensor=` values become positional in that order, and a `torch._six`\n'
            'import becomes the standard-library binding torch 1.x made under Python 3\n'
            '(`string_classes = (str, bytes)`, `int_classes = int`, `from math import inf`,\n'
            '`import collections.abc as container_abcs`, ...), which keeps every use of the name as it was;\n'
            '`torch._six.X` spelled in full becomes its value, and `import torch._six` `import torch`.\n'
            'A uint8 mask gets `.bool()` (`(a > b).byte()` becomes `(a > b).bool()`): torch treats a\n'
            'uint8 index as the mask of its non-zero entries, which is what the bool mask selects.\n'
            '`stft` becomes `torch.view_as_real(stft(..., return_complex=True))`, bitwise the old layout for\n'
            'a real signal; the fix is unsafe because a complex signal does not raise today and would\n'
            'change layout. `m._backend.Embedding.apply(indices, weight, padding_idx, max_norm, norm_type,\n'
            'scale_grad_by_freq, sparse)` becomes `F.embedding(...)` with the same arguments, safe: the\n'
            'backend read a padding index of -1 as "no padding" (the 0.3 `nn.Embedding` passed -1 for None,\n'
            'and THNN compared each index with it), which `F.embedding` reads as the last row, whose\n'
            'gradient it would then zero. So -1 becomes None, and the 0.3 idiom `p = m.padding_idx;\n'
            'if p is None: p = -1` right before the call becomes `m.padding_idx`; the outputs and gradients\n'
            'are bitwise those of the 0.3 lookup. Any other padding argument, and the other backend\n'
            'functions, are reported without a fix. The removed linear algebra, FFT and packages have no exact replacement (argument\n'
            'order, defaults, normalisation or return types differ): the message names what to use.\n'
            'Newer torch needed (`target-torch`): `.bool()` 1.2, `stft(..., return_complex=True)` 1.7.\n'
            '\n'
            '## Known limits\n'
            'A mask is known to be uint8 only from its own expression (`.byte()`, `.to(torch.uint8)`,\n'
            '`dtype=torch.uint8`, `torch.ByteTensor`) or from a local name every assignment of which is one;\n'
            'masks from parameters or attributes are not reported. `saved_variables` is reported on the\n'
            'context parameter of a static method of a `torch.autograd.Function` subclass (old-style\n'
            "Functions are GL107's). `x.stft(...)` is reported only when `x` is known to be a tensor, and the\n"
            'removed tensor methods (`x.rfft(1)`, `b.gesv(A)`) are not reported. Code under `try:` or under\n'
            'an `if` that tests the torch version or `hasattr` is a compatibility layer and is not reported.\n'
            'Names of `torch._six` without a standard-library equivalent (`with_metaclass`, `raise_from`,\n'
            '...) are reported without a fix. `x._backend` is reported only as the receiver of an attribute\n'
            '(`x._backend.Embedding`), not on an imported module (`torch.distributed._backend`), and not in\n'
            'a file that assigns a `_backend` attribute of its own.'
        ),
    ),
    RuleInfo(
        code='GL503',
        name='renamed-api',
        summary='`nn.init.normal` / `clip_grad_norm` / `torch.ger` / `F.upsample` and other renamed APIs',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('NLLLoss2d', 'UpsamplingBilinear2d', 'UpsamplingNearest2d', 'clip_grad_norm', 'constant', 'dirac', 'eye', 'functional_call', 'functionalize', 'functorch', 'ger', 'grad', 'grad_and_value', 'hessian', 'jacfwd', 'jacrev', 'jvp', 'kaiming_normal', 'kaiming_uniform', 'max_memory_cached', 'memory_cached', 'normal', 'orthogonal', 'range', 'sparse', 'unbiased', 'uniform', 'upsample', 'upsample_bilinear', 'upsample_nearest', 'vjp', 'vmap', 'xavier_normal', 'xavier_uniform'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl503_renamed_api',
        class_name='RenamedApi',
        doc=(
            '## What it does\n'
            'Flags PyTorch functions and classes renamed since 0.3 whose new name is an exact equivalent:\n'
            'the `torch.nn.init` initialisers without the trailing underscore (`xavier_uniform`, `normal`,\n'
            '`kaiming_normal`, `constant`, `orthogonal`, `sparse`, `eye`, `dirac`, ...),\n'
            '`nn.utils.clip_grad_norm`, `nn.NLLLoss2d`,\n'
            '`torch.cuda.memory_cached` / `max_memory_cached` and `torch.ger`, under any import spelling;\n'
            'the `unbiased=` flag of `torch.std` / `torch.var` (also `std_mean`, `var_mean`, and the\n'
            '`.std()` / `.var()` methods of an evident tensor), replaced by `correction=`;\n'
            '`F.upsample` / `upsample_bilinear` / `upsample_nearest` and `nn.UpsamplingBilinear2d` /\n'
            '`UpsamplingNearest2d`, replaced by `F.interpolate` / `nn.Upsample` with the mode (and\n'
            '`align_corners=True` for bilinear) they used; the `functorch` transforms (`vmap`, `grad`,\n'
            '`grad_and_value`, `vjp`, `jvp`, `jacrev`, `jacfwd`, `hessian`, `functionalize`) and\n'
            '`nn.utils.stateless.functional_call`, now in `torch.func`; and `torch.range`, whose end is\n'
            'inclusive, replaced by `torch.arange`.\n'
            '\n'
            '## Why is this bad?\n'
            'Measured in torch 2.13: the legacy initialisers, `clip_grad_norm`, `NLLLoss2d` and\n'
            '`memory_cached` emit a `FutureWarning` on every call and only forward to the new name;\n'
            '`torch.ger` is deprecated in the documentation (no warning) and computes exactly what\n'
            '`torch.outer` computes; `unbiased=` is\n'
            'documented as deprecated since 2.0 in favour of `correction=`. `F.upsample*` and\n'
            '`torch.range` emit a `UserWarning`, the `functorch` transforms and `stateless.functional_call`\n'
            'a `FutureWarning`; `nn.UpsamplingBilinear2d` / `UpsamplingNearest2d` are deprecated in the\n'
            'documentation only. Deprecated names may be removed in a later release.\n'
            '\n'
            '`torch.range(a, b, s)` has floor((b - a) / s) + 1 elements, `torch.arange(a, e, s)`\n'
            'ceil((e - a) / s), and `range` always returns the default dtype where `arange` returns int64\n'
            'for integer bounds: the common rewrite `torch.arange(a, b + 1)` changes the dtype, and\n'
            '`arange(a, b + s, s)` has one element more whenever `s` does not divide `b - a`, or for many\n'
            'float bounds and steps (0.1 steps included).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn as nn\n'
            'import torch.nn.functional as F\n'
            '\n'
            'nn.init.xavier_uniform(layer.weight)\n'
            'outer = torch.ger(a, b)\n'
            'nn.utils.clip_grad_norm(model.parameters(), 0.5)\n'
            'y = F.upsample_bilinear(x, scale_factor=2)\n'
            'steps = torch.range(1, 10, 2)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'import torch.nn.functional as F\n'
            '\n'
            'nn.init.xavier_uniform_(layer.weight)\n'
            'outer = torch.outer(a, b)\n'
            'nn.utils.clip_grad_norm_(model.parameters(), 0.5)\n'
            'y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)\n'
            'steps = torch.arange(1, 11, 2, dtype=torch.get_default_dtype())\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: only the final name changes, so the module alias the code uses stays\n'
            '(`init.normal(w)` becomes `init.normal_(w)`), and the new name computes bitwise the same values,\n'
            'dtype, shape and `requires_grad` (the legacy initialisers, `clip_grad_norm` and\n'
            '`memory_cached` call the new function; `NLLLoss2d` is a subclass of `NLLLoss` with the same\n'
            'constructor and forward; the rest were measured on random inputs). The only difference is that\n'
            'no deprecation warning is emitted. A name imported by itself (`from torch.nn.init import normal`) is renamed\n'
            'together with its import only when the file uses it once, without `as`; otherwise the finding\n'
            'has no fix. `unbiased=True` becomes `correction=1` and `unbiased=False` `correction=0`\n'
            '(measured bitwise for every reduction shape); a flag that is not a literal is reported without\n'
            'a fix.\n'
            '\n'
            '`F.upsample` is renamed `F.interpolate` (it forwards its five parameters in the same order);\n'
            '`upsample_bilinear(x, size, scale_factor)` and the module classes gain the keywords their\n'
            'legacy body passes (`mode="bilinear", align_corners=True` or `mode="nearest"`), measured\n'
            'bitwise with `size=` and `scale_factor=`, positional and keyword, gradients included (no fix\n'
            'for `*args`, `**kwargs` or more positional arguments than the legacy signature takes: those\n'
            'raise). The `functorch` transforms call `torch.func.X` with the same signature (measured);\n'
            '`from functorch import vmap` becomes `from torch.func import vmap` when every imported name\n'
            'has a `torch.func` twin (`make_functional` and `combine_state_for_ensemble` have none: no fix).\n'
            '`stateless.functional_call` becomes `torch.func.functional_call` (its second parameter\n'
            'renamed `parameter_and_buffer_dicts` when passed by keyword): safe when that argument is a\n'
            'dict display, comprehension or `dict(...)`, unsafe otherwise (torch.func rejects a mapping\n'
            'that is not a dict, which the legacy function used).\n'
            '\n'
            '`torch.range(a, b, s)` with integer literals becomes\n'
            '`torch.arange(a, e, s, dtype=torch.get_default_dtype())` with `e = a + count * s` (safe:\n'
            'measured bitwise for every start and end in [-12, 12] and steps 1, 2, 3, 5, -1, -2, -3, the\n'
            'fixture cases also under a float64 default and past 2**24); an explicit `dtype=` is kept. With other\n'
            'bounds and a step of 1 or -1 (or none), the fix writes `b + 1` (`b - 1`; `n - 1` becomes `n`):\n'
            'unsafe, exact only when the bounds are integers. Float literals or other steps get no fix.\n'
            'Bounds passed by keyword (`start=`, `end=`, `step=`) stay where they are. With `out=` the out\n'
            "tensor's dtype is the result's for both functions, so no `dtype=` is added: safe for integer\n"
            'literals within 256 (measured bitwise for every out dtype, bfloat16 and int8 included, over\n'
            '[-256, 256]; beyond, bfloat16 counts the elements differently), unsafe past it. `arange` warns\n'
            'when it resizes an out tensor that held another number of elements, which `range` did silently.\n'
            'Newer torch needed (`target-torch`): `torch.cuda.memory_reserved` 1.4, `torch.outer` 1.7,\n'
            '`torch.func` 2.0, `correction=` 2.0 (and 0.4 / 0.4.1 for the initialisers and `interpolate`).\n'
            '\n'
            '## Known limits\n'
            'A legacy name in the fallback an older torch takes (an `except ImportError:` /\n'
            '`AttributeError:` / `TypeError:` handler, a branch of an `if` on the torch version) is not\n'
            'reported.\n'
            'Only calls are reported: a legacy name used as an object (`isinstance(m, nn.NLLLoss2d)`,\n'
            'a table keyed by `torch.ger`) is a different object from its replacement\n'
            '(`torch.ger is torch.outer` is False), so renaming it could change the program. Names that reach the legacy API through another object (`self.init.normal(w)`) are not\n'
            'reported, nor `.std(unbiased=...)` on a receiver not known to be a tensor, nor the positional\n'
            '`torch.std(x, 1, False)`. `import functorch` stays after its transforms move to `torch.func`\n'
            '(the import is harmless). `nn.Upsample` is not the legacy class: `isinstance` checks against\n'
            "`nn.UpsamplingBilinear2d` and the module's printed name change."
        ),
    ),
    RuleInfo(
        code='GL504',
        name='legacy-loss-reduction',
        summary='`size_average=` / `reduce=` on a loss instead of `reduction=`',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('loss', 'Loss', 'cross_entropy', 'kl_div'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl504_legacy_loss_reduction',
        class_name='LegacyLossReduction',
        doc=(
            '## What it does\n'
            "Flags the legacy `size_average=` / `reduce=` flags of torch's losses, on every loss module\n"
            '(`nn.MSELoss(size_average=False)`, `nn.CrossEntropyLoss(reduce=False)`, ...) and every\n'
            'functional loss (`F.binary_cross_entropy(x, y, size_average=False)`,\n'
            '`F.nll_loss(x, t, reduce=False)`, ...), passed by keyword or in their old positional slots\n'
            '(`F.mse_loss(x, y, False)`).\n'
            '\n'
            '## Why is this bad?\n'
            'Since torch 0.4.1 a loss takes one `reduction=` string. torch 2.13 still accepts the two flags\n'
            'and turns them into `reduction` through `torch.nn._reduction.legacy_get_string`, with a\n'
            '`UserWarning` on every construction or call ("size_average and reduce args will be\n'
            'deprecated, please use reduction=\'sum\' instead."). In that table None means the default\n'
            "(True), `reduce=False` wins over `size_average` (`'none'`), `size_average=False` gives\n"
            "`'sum'` and the rest `'mean'`; when either flag is set it overrides a `reduction=` passed\n"
            'alongside.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn as nn\n'
            'import torch.nn.functional as F\n'
            '\n'
            'criterion = nn.MSELoss(size_average=False)\n'
            'bce = F.binary_cross_entropy(recon, x, size_average=False)\n'
            'per_item = F.nll_loss(logp, target, reduce=False)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn as nn\n'
            'import torch.nn.functional as F\n'
            '\n'
            'criterion = nn.MSELoss(reduction="sum")\n'
            'bce = F.binary_cross_entropy(recon, x, reduction="sum")\n'
            'per_item = F.nll_loss(logp, target, reduction="none")\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe when every flag is a literal `True`, `False` or `None`: the flags are replaced by the\n'
            "`reduction=` that torch's own table computes from them, so the loss runs the same reduction\n"
            '(measured bitwise equal in value and gradient under torch 2.13 for every combination, module\n'
            'and functional), without the warning. Flags given positionally are replaced the same way and\n'
            'the positional arguments after them are passed by keyword. Flags that are both None select no\n'
            'legacy path and are simply dropped (positional None placeholders are not reported). No fix when a flag is not a literal (the message says which\n'
            '`reduction=` each value means), when `reduction=` is passed as well (the flags override it:\n'
            'the message says which one they select), or when `*args` / `**kwargs` are passed.\n'
            'Newer torch needed (`target-torch`): `reduction=` 0.4.1.\n'
            '\n'
            '## Known limits\n'
            "Only torch's loss classes and functions are recognised (`torch.nn`, `torch.nn.modules.loss`,\n"
            '`torch.nn.functional`, under any import form); a class of your own, `sklearn`, `keras` or\n'
            '`tf.keras.losses` are left alone, and so are subclasses of the torch losses that forward the\n'
            "flags through `super().__init__(...)`. A call that forwards a function's own `size_average` /\n"
            "`reduce` parameters under the same names (`size_average=size_average`, as torch's\n"
            "compatibility layers do) is not reported: the legacy use belongs to that function's callers."
        ),
    ),
    RuleInfo(
        code='GL505',
        name='legacy-positional-overload',
        summary='`x.add_(number, tensor)` / `x.addcmul_(value, t1, t2)` / `x.addmm(beta, m1, m2)`: legacy number-first overloads',
        severity='warning',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('add', 'sub'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl505_legacy_positional_overload',
        class_name='LegacyPositionalOverload',
        doc=(
            '## What it does\n'
            'Flags the legacy overloads that take the scaling number first, positionally:\n'
            '`p.data.add_(-lr, p.grad.data)` (also `sub_`, `add`, `sub`), `p.addcmul_(value, t1, t2)`\n'
            '(also `addcdiv_`, `addcmul`, `addcdiv`), `torch.add(x, number, y)` (also `torch.sub`,\n'
            '`torch.addcmul(t, value, t1, t2)`, `torch.addcdiv`), and the matrix products with beta, and\n'
            'alpha, first: `x.addmm(beta, m1, m2)`, `x.addmm(beta, alpha, m1, m2)`,\n'
            '`torch.addmm(beta, x, m1, m2)`, `torch.addmm(beta, x, alpha, m1, m2)` (also `addmv`, `addr`,\n'
            '`baddbmm`, `addbmm`, `sspaddmm`, the in-place methods and `torch.addmv_`). In custom\n'
            "optimizers this covers the state's tensors too: `exp_avg.mul_(beta1).add_(1 - beta1, grad)` and\n"
            '`exp_avg_sq.mul_(beta2).addcmul_(1 - beta2, grad, grad)` where `exp_avg` is read from\n'
            '`self.state[p]` of an `Optimizer` subclass whose methods store tensors under that entry.\n'
            '\n'
            '## Why is this bad?\n'
            'Since torch 1.5 the scale is a keyword (`add_(other, *, alpha=1)`,\n'
            '`addcmul_(t1, t2, *, value=1)`, `addmm(mat1, mat2, *, beta=1, alpha=1)`); the number-first\n'
            'forms survive as deprecated overloads. In torch 2.13 the first of them a process calls warns\n'
            '("This overload of add_ is deprecated"), the later ones are silent but still deprecated, and\n'
            'the number-first order reads as if the number were added.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for p in model.parameters():\n'
            '    p.data.add_(-lr, p.grad.data)\n'
            '    p.data.addcmul_(0.5, p.grad.data, p.grad.data)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for p in model.parameters():\n'
            '    p.data.add_(p.grad.data, alpha=-lr)\n'
            '    p.data.addcmul_(p.grad.data, p.grad.data, value=0.5)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the numbers move to `alpha=` / `value=` / `beta=` after the tensors. Measured under torch\n'
            '2.13 for `add_/sub_/add/sub`, `addcmul_/addcdiv_/addcmul/addcdiv`,\n'
            '`torch.add/sub/addcmul/addcdiv`, and both forms (beta alone, beta and alpha) of the methods\n'
            '`addmm/addmv/addr/baddbmm/addbmm/sspaddmm`, their in-place twins and the functions\n'
            '`torch.addmm/addmv/addmv_/addr/baddbmm/addbmm/sspaddmm` (with `out=`), in float32 and float64,\n'
            'with a float, an int, a NumPy scalar and a 0-dim tensor as the number: the results are bitwise\n'
            'equal (values, dtype, shape, `requires_grad`), and where the legacy form raises (a tensor with\n'
            'more than one element or with a gradient as the number, a boolean `alpha`, a float `alpha` on\n'
            'an integer tensor) the rewrite raises the same exception type. The method forms are unsafe\n'
            'where the receiver is a tensor only by its name in a file that never imports torch: other\n'
            "libraries have an `add(scale, other)` of their own (sympy's quaternions), and a matrix class\n"
            'may have an `addmm(beta, a, b)`.\n'
            '\n'
            '## Known limits\n'
            'With the keyword-only scales of the current signatures, a call with more positional arguments\n'
            'than they take can only select a legacy overload, so the rewrite holds whatever the tensors are\n'
            '(measured: numbers there make both forms compute or both raise). What gradlint needs evidence\n'
            'for is the receiver: the method forms are reported only when it is evidently a tensor (a\n'
            'parameter of `model.parameters()`, `.data`, `.grad`, a tensor-valued name), and only when\n'
            'the leading arguments are evidently numbers: a numeric literal, an arithmetic expression of\n'
            'literals and names, a name, attribute or subscript (`lr`, `self.lr`, `group["lr"]`) that is\n'
            'not evidently a tensor, or what the value model knows to be a Python number (`float(beta)`,\n'
            "`loss.item()`); `x.addmm(w.mean(), a, b)` is left alone. An entry of an optimizer's state counts as a tensor only when the\n"
            "class's own methods store it (through `state = self.state[p]`) and every value they store\n"
            'there is a tensor: an entry stored only by a base class (`Adagrad`\'s `"sum"`), or stored as\n'
            '`self.state[p]["k"] = v`, is not known. A scale computed from such a tensor (a step counter\n'
            'stored as `torch.zeros(1)`, `step_size = lr / (1 - beta1 ** state["step"][0])`) is a tensor,\n'
            'not evidently a number, so that call is left alone. `counter.add(1, name)` on an object of\n'
            'unknown type is left alone, as are an `addmm` method of a class of the file, a function of the\n'
            'file named `addmm`, and calls with `*args`.'
        ),
    ),
    RuleInfo(
        code='GL506',
        name='implicit-softmax-dim',
        summary='`F.softmax(x)` / `nn.Softmax()` without `dim`: the legacy rule picks dim 0 for 3-D input',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('softmax', 'softmin', 'Softmax', 'Softmin'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl506_implicit_softmax_dim',
        class_name='ImplicitSoftmaxDim',
        doc=(
            '## What it does\n'
            'Flags `F.softmax`, `F.log_softmax` and `F.softmin` called without `dim` (or with `dim=None`),\n'
            'and the modules `nn.Softmax()`, `nn.LogSoftmax()` and `nn.Softmin()` constructed without it,\n'
            'under any import spelling.\n'
            '\n'
            '## Why is this bad?\n'
            'Without `dim`, torch still applies the rule of 0.2: dim 0 for 0-, 1- and 3-D input, dim 1\n'
            'otherwise (measured under torch 2.13 for ranks 0 to 4, with a `UserWarning` "Implicit dimension\n'
            'choice for softmax has been deprecated" on every call). For a batch of vectors (2-D) that is\n'
            'the last dimension, as meant; for a batch of sequences (3-D) it normalises across the batch\n'
            '(dim 0), which is almost never meant, and writing `dim=-1` there changes the result.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'import torch.nn.functional as F\n'
            '\n'
            'scores = torch.randn(8, 10)\n'
            'probabilities = F.softmax(scores)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn.functional as F\n'
            '\n'
            'scores = torch.randn(8, 10)\n'
            'probabilities = F.softmax(scores, dim=1)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "Safe when the input's rank is evident in the code (a `torch.randn/rand/zeros/ones/empty`\n"
            'call with its sizes, a `torch.tensor` of a nested list literal, a view to literal sizes, an\n'
            "`nn.Linear` layer's output or a shape-keeping call (`F.relu`, `F.dropout`) of one of those, or\n"
            'a name every binding of which in the function is one, or whose read sees one such assignment,\n'
            '`x = self.fc2(x)` after `x = x.view(-1, 320)`, and that nothing reshapes in place): the fix writes the\n'
            'dimension the legacy rule picks for that rank, which computes bitwise the same values and\n'
            'gradients without the warning. Otherwise the finding spells out the rule and has no fix: the\n'
            'right `dim` is the one the code means, which for 3-D input is likely not the legacy one.\n'
            '\n'
            '## Known limits\n'
            'The modules are never fixed (the rank of their input is known only when they are called).\n'
            "Calls that pass `_stacklevel=` (torch's own forwarding) or `*args` / `**kwargs` are not\n"
            'reported. `torch.softmax(x)` and `x.softmax()` are not reported: they require `dim` and raise.'
        ),
    ),
    RuleInfo(
        code='GL507',
        name='legacy-tensor-constructor',
        summary='`torch.FloatTensor([..])` / `torch.Tensor(2, 3)` / `x.type(torch.DoubleTensor)`: legacy tensor types',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('Tensor', 'tensor_type'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl507_legacy_tensor_constructor.rule',
        class_name='LegacyTensorConstructor',
        doc=(
            '## What it does\n'
            'Flags the legacy tensor type classes used to make or convert tensors:\n'
            '`torch.FloatTensor([1, 2])`, `torch.LongTensor(ids)`, `torch.Tensor([0.5])` (from data),\n'
            '`torch.FloatTensor(2, 3)`, `torch.Tensor(out, in)` (sized, uninitialised),\n'
            '`torch.cuda.FloatTensor(...)`, `x.type(torch.DoubleTensor)` (also through a module-level\n'
            'alias, `dtype = torch.FloatTensor` ... `x.type(dtype)`) and\n'
            '`torch.set_default_tensor_type(torch.DoubleTensor)`.\n'
            '\n'
            '## Why is this bad?\n'
            'Since torch 0.4 these classes are legacy names: `torch.tensor(data, dtype=...)`,\n'
            '`torch.empty(*sizes, dtype=...)`, `x.to(dtype)` and `torch.set_default_dtype` say the same\n'
            'without overloading one call for sizes and data: `torch.LongTensor(n)` is `n` uninitialised\n'
            'numbers when `n` is an int but a one-element tensor when it is `[n]`, and the same tensor,\n'
            'aliased, when it is a 0-dim tensor. `torch.set_default_tensor_type` warns since torch 2.1.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'target = torch.LongTensor([1, 0, 2])\n'
            'weight = torch.Tensor(10, 5)\n'
            'x = torch.randn(4).type(torch.DoubleTensor)\n'
            'torch.set_default_tensor_type(torch.DoubleTensor)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'target = torch.tensor([1, 0, 2], dtype=torch.int64)\n'
            'weight = torch.empty(10, 5)\n'
            'x = torch.randn(4).to(torch.float64)\n'
            'torch.set_default_dtype(torch.float64)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "Measured under torch 2.13. From data, `torch.tensor(data, dtype=<the type's dtype>)` builds\n"
            'bitwise the same tensor (values, dtype, shape, `requires_grad`, also for ints read as floats,\n'
            'floats truncated to ints, bools, nested and empty lists, tuples, NumPy scalars, 0-dim tensor\n'
            'elements) and raises the same exception for ragged lists and out-of-range values;\n'
            '`torch.Tensor(data)` keeps the default dtype (`dtype=torch.get_default_dtype()`, left out when\n'
            'a float literal makes `torch.tensor` infer it). Sized, `torch.empty(*sizes, dtype=...)` has the\n'
            'same dtype, shape, device and `requires_grad`, and both leave the memory uninitialised (both\n'
            'fill it with NaN / the largest integer under `torch.use_deterministic_algorithms`); no\n'
            'arguments become `torch.empty(0)`. A list or tuple display builds the same tensor both ways\n'
            'for every kind of element measured (Python numbers, bools, strings, None, NumPy scalars and\n'
            'arrays, tensors with or without history, nested and ragged lists: the same values, the same\n'
            'exception, and for an element requiring grad the same warning, which torch gives once per\n'
            'process whichever form converts first; tensors on another device, which cannot be run here,\n'
            'are read by the same code of torch, which stores each element into a new CPU tensor in both\n'
            'forms; both hand a list or tuple to the same conversion of torch, which stores each element\n'
            "into a new tensor of the type's dtype, so no kind of element tells them apart). These fixes are\n"
            'safe when the argument is a list or tuple display or a list comprehension, whatever its\n'
            'elements, such a display repeated by an int (`[c] * x.size(0)`), a name every binding of which\n'
            'that can reach the call is one (`rewards = []` filled by `rewards.insert(0, R)`),\n'
            'a float64 NumPy array that `np.zeros/ones/empty(shape)` or\n'
            '`np.random.normal/uniform(..., size)` / `np.random.rand/randn(n)` makes (the legacy\n'
            'constructor converts it to float32 or an integer type, which copies it like `torch.tensor`\n'
            'does; a fresh array no other name sees is safe whatever the type), an int64 array\n'
            '`np.random.randint(..., size=n)` makes with `n` evidently an int (`torch.LongTensor` shares its\n'
            'memory where `torch.tensor` copies it, which no one can tell apart when no other name sees the\n'
            'array, but for `resize_` to more elements, which raises on the shared tensor and grows the copy), also when read once as `idx` from `z, idx = self.sample(n)` (the binding the read sees),\n'
            'where `sample`, every call of which is known in a run of the whole project, returns such an array\n'
            'it keeps no reference to (a local read there only as an index of a fresh array), or sizes: two or more arguments, an int literal, `len(...)`, `x.size(i)`,\n'
            '`x.shape[i]`, a command-line option declared `type=int` (`opt.batchSize`; in a run of the\n'
            'whole project also when the namespace is handed to project code that never writes that\n'
            "option, `model = RN(args)`), an attribute of a class's instances that only the class's own\n"
            'methods assign, only ints (`self.batch_size = 100`; in a run of the whole project, where no\n'
            "file the class's module is connected to by imports stores a `.batch_size` or writes\n"
            'attributes by name), or a name bound only to those. They are unsafe when a size is a parameter that defaults to an int or is\n'
            'passed to `range()` (a caller may pass a list, or a 0-dim tensor, which the legacy\n'
            'constructor returns itself), and in a file that changes the default device\n'
            '(`torch.set_default_device`, `set_default_tensor_type`, `with torch.device(...)`): the legacy\n'
            'classes build on the CPU whatever the default device, `torch.empty`/`torch.tensor` follow it.\n'
            '`x.type(torch.DoubleTensor)` becomes `x.to(torch.float64)`: the same tensor (itself when the\n'
            'dtype already matches) with the same history; safe when `x` is made by a torch factory\n'
            'without `device=`, unsafe otherwise, since the legacy call also copies a CUDA tensor to the CPU\n'
            '(`x.to("cpu", torch.float64)` is the exact form). `set_default_tensor_type` of a CPU type is\n'
            'exactly `set_default_dtype` (it leaves the default device alone; the only difference is its\n'
            'deprecation warning). The CUDA forms become `device="cuda"` calls and\n'
            '`set_default_device("cuda")`, unsafe: they could not be run here, the legacy CUDA classes\n'
            'keep a CUDA tensor\'s device index where `"cuda"` means the current device, and\n'
            '`set_default_device` does not move what the legacy classes build.\n'
            'Newer torch needed (`target-torch`): `set_default_device` 2.0.\n'
            '\n'
            '## Known limits\n'
            'A default device set by a caller in another file (`with torch.device("meta"):` around a model\'s\n'
            'construction, as meta-device initialisation does) is not seen: there the fixed call builds on\n'
            'that device where the legacy class built on the CPU, which is what such a caller asks for.\n'
            'Likewise a default dtype of float64 set in another file makes `torch.Tensor(codes)` share a\n'
            "named float64 array's memory, which the fixed call copies. A sealed attribute assumes that\n"
            'code outside the run does not store attributes on objects of a class it does not define, and\n'
            'that no object of the class is unpickled by code not connected to its module by imports.\n'
            'A single argument that is not evidently a size or data (`torch.LongTensor(x)`: `x` may be a\n'
            'list, an int, a NumPy array of another dtype, whose memory the legacy constructor shares when the dtypes match, or a tensor,\n'
            'which it aliases) is reported without a fix, as are calls with keywords or `*args`; an\n'
            'argument that is evidently a tensor (`torch.Tensor(t.detach())`, a cast to the base class\n'
            'that returns `t` itself) is not reported. `x.type(T)` is reported only when `x` is evidently a\n'
            'tensor: `model.type(torch.DoubleTensor)` is the module method, which also casts integer\n'
            "buffers where `model.to(torch.float64)` does not. Type tests against the classes are GL106's. A class chosen at run time\n"
            '(`T = torch.cuda.FloatTensor if cuda else torch.FloatTensor`) is not followed.'
        ),
    ),
    RuleInfo(
        code='GL508',
        name='legacy-linalg',
        summary='`torch.solve` / `symeig` / `qr` / `cholesky` / `svd` / `norm` ...: linear algebra replaced by `torch.linalg`',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('chain_matmul', 'cholesky', 'eig', 'lstsq', 'lu', 'lu_solve', 'matrix_rank', 'norm', 'qr', 'solve', 'svd', 'symeig', 'triangular_solve'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl508_legacy_linalg.rule',
        class_name='LegacyLinalgApi',
        doc=(
            '## What it does\n'
            'Flags the linear-algebra functions that `torch.linalg` replaced: the removed `torch.solve`,\n'
            '`torch.symeig`, `torch.eig`, `torch.lstsq` and `torch.matrix_rank`, and the deprecated\n'
            '`torch.qr`, `torch.cholesky`, `torch.chain_matmul`, `torch.triangular_solve`, `torch.lu`,\n'
            '`torch.lu_solve`, `torch.svd` and `torch.norm`, under any import spelling; and the methods of\n'
            'an evident tensor with the same meaning (`A.symeig(...)`, `B.solve(A)`, `A.qr()`,\n'
            '`S.cholesky()`, `B.triangular_solve(A)`, `A.lu()`, `B.lu_solve(LU, piv)`).\n'
            '\n'
            '## Why is this bad?\n'
            'Measured in torch 2.13: the five removed functions raise `RuntimeError` ("deprecated since\n'
            'version 1.9 and is now removed"); `qr`, `cholesky`, `chain_matmul`, `triangular_solve`, `lu`\n'
            'and `lu_solve` warn (`UserWarning`, "will be removed in a future PyTorch release"); `svd` and\n'
            '`norm` are deprecated in the documentation. The replacements are not drop-in: `linalg.solve`,\n'
            '`lstsq`, `solve_triangular` and `lu_solve` take their arguments in the reverse order,\n'
            '`linalg.eigh` reads the lower triangle by default where `symeig` read the upper one,\n'
            '`linalg.svd` returns `Vh` instead of `V`, `linalg.eig` returns complex tensors,\n'
            '`linalg.multi_dot` raises for a single matrix, and `linalg.norm(A, 1)` is the induced matrix\n'
            'norm where `torch.norm(A, 1)` summed the absolute values.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'Q, R = torch.qr(A, some=False)\n'
            'L = torch.cholesky(S, True)\n'
            'X = torch.triangular_solve(B, L, upper=False).solution\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'Q, R = torch.linalg.qr(A, mode="complete")\n'
            'L = torch.linalg.cholesky(S, upper=True)\n'
            'X = torch.linalg.solve_triangular(L, B, upper=False)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe where the rewrite was measured bitwise equal under torch 2.13 (values, dtype, shape,\n'
            'strides, `requires_grad`; square, wide, tall and batched inputs; only the deprecation warning\n'
            'goes): `qr` (`some` becomes `mode=`; a flag known at run time only becomes\n'
            '`mode="reduced" if some else "complete"`, exact for a `bool`, the only type `torch.qr`\n'
            'accepts), `cholesky` (`upper` becomes `upper=`, also for a flag known at run time only;\n'
            '`.mH` gives the same values as a transposed view, a different layout, so it is not used),\n'
            '`chain_matmul` of two or more matrices (`multi_dot([...])`, also with `out=`: chain_matmul\n'
            "then calls multi_dot's out variant, which resizes, type-checks and returns the same tensor)\n"
            'and of one (`m.clone()`, which is what it returns; `multi_dot([m])` raises), `triangular_solve(...).solution` / `[0]`\n'
            '(`transpose=True` becomes `A.mT` with the other triangle), `lu` (`lu_factor_ex(A)[:2]`, a\n'
            'plain pair as before, and `lu_factor_ex(A)` for `get_infos=True`; not `lu_factor`, which\n'
            'raises for a singular matrix where `torch.lu` returned its factors), `lu_solve`, and `svd`\n'
            'read as `U, S, V = ...`, `[i]` or `.U` / `.S` / `.V`. For the removed functions the legacy\n'
            'call raises, so the fix restores the 1.x meaning: safe for `solve(...).solution` / `[0]` and\n'
            "`matrix_rank` (torch's documented one-to-one replacements); unsafe for `symeig` (eigenvectors\n"
            'are defined up to sign, and the 1.x result cannot be reproduced to compare) and `lstsq` (the\n'
            'solution has n rows where 1.x returned max(m, n); the LAPACK driver differs, and\n'
            '`linalg.lstsq` on CPU is not even bitwise reproducible between two identical calls).\n'
            '`norm` is unsafe: `torch.norm` calls `linalg.vector_norm` for dense tensors on CPU, CUDA\n'
            'and XPU, but keeps its legacy kernel for sparse and MPS tensors (a sparse tensor makes\n'
            '`vector_norm` raise), which gradlint cannot see. Arguments that change places are moved only\n'
            'when their evaluation has no effects (names, attributes, subscripts, literals).\n'
            'Newer torch needed (`target-torch`): `torch.linalg` 1.8 (`multi_dot`, `lstsq`, `vector_norm`\n'
            '1.9), `cholesky(upper=)` 1.10, `solve_triangular`, `lu_factor_ex`, `.mT` / `.mH` 1.11,\n'
            '`lu_solve` 1.13.\n'
            '\n'
            '## Known limits\n'
            'No fix where the mapping is not exact: `eig` (complex results); a result whose arity changes\n'
            'unpacked into two names (`X, LU = torch.solve(B, A)`; the copy of `A` that\n'
            '`triangular_solve` returned is column-major, which `A.clone()` does not reproduce), while\n'
            '`X, _ = ...` becomes `X = ...` when nothing in the module reads `_`; `symeig` without\n'
            "eigenvectors unpacked into two names; `chain_matmul(*matrices)`; `norm` with `'nuc'` or a\n"
            '`p` that is not a literal; `svd(compute_uv=False)`; `matrix_rank(tol=)`; `out=` (except for `chain_matmul` of two or more\n'
            'matrices; `chain_matmul(m, out=o)` copies `m` into `o`, where `multi_dot([m], out=o)` raises). `A.svd()`\n'
            'and `A.norm()` (methods, very common, deprecated in the documentation only) are not\n'
            'reported; the other methods only on an evident tensor. A method that passes `self` to the\n'
            'legacy function of its own name (`def norm(self, ...): return torch.norm(self, ...)`,\n'
            "torch's own `Tensor.norm`) defines the legacy method rather than using it, and is not\n"
            'reported.'
        ),
    ),
    RuleInfo(
        code='GL509',
        name='legacy-amp-api',
        summary='`torch.cuda.amp.autocast` / `GradScaler` / `custom_fwd`, `torch.backends.cuda.sdp_kernel`: legacy AMP and attention APIs',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('amp', 'autocast', 'GradScaler', 'custom_fwd', 'custom_bwd', 'sdp_kernel'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl509_legacy_amp_api',
        class_name='LegacyAmpApi',
        doc=(
            '## What it does\n'
            'Flags the device-specific mixed-precision entry points: `torch.cuda.amp.autocast`,\n'
            '`torch.cuda.amp.GradScaler`, `torch.cuda.amp.custom_fwd` / `custom_bwd`,\n'
            '`torch.cpu.amp.autocast` and `torch.cpu.amp.GradScaler`, under any import spelling\n'
            '(`from torch.cuda.amp import autocast`, `from torch.cuda import amp`), called, used as context\n'
            'managers or as decorators; and `torch.backends.cuda.sdp_kernel(...)`, the old context manager\n'
            'that selects the attention backends with boolean flags.\n'
            '\n'
            '## Why is this bad?\n'
            'Measured in torch 2.13: each emits a `FutureWarning` and forwards to `torch.amp.autocast`,\n'
            '`torch.amp.GradScaler`, `torch.amp.custom_fwd` / `custom_bwd` with the device, and\n'
            '`sdp_kernel` forwards to `torch.nn.attention.sdpa_kernel` with a list of backends. The\n'
            'positional orders differ: the legacy `autocast(enabled, dtype, cache_enabled)` against\n'
            '`torch.amp.autocast(device_type, dtype, enabled, cache_enabled)`, so moving the arguments over\n'
            'as they are breaks the call (`torch.amp.autocast("cuda", False)` sets the dtype to `False` and\n'
            'raises `TypeError` when entered, measured).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'from torch.cuda.amp import GradScaler, autocast\n'
            '\n'
            'scaler = GradScaler(enabled=use_amp)\n'
            'with autocast(use_amp):\n'
            '    loss = model(x).sum()\n'
            'with torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False):\n'
            '    out = attention(q, k, v)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'scaler = torch.amp.GradScaler("cuda", enabled=use_amp)\n'
            'with torch.amp.autocast("cuda", enabled=use_amp, dtype=torch.float16, cache_enabled=True):\n'
            '    loss = model(x).sum()\n'
            'with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH, torch.nn.attention.SDPBackend.CUDNN_ATTENTION]):\n'
            '    out = attention(q, k, v)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe. The device comes first (`"cuda"` / `"cpu"`; `device_type="cuda"` for `custom_fwd` and\n'
            '`custom_bwd`) and every other argument is passed by keyword, positional ones named after the\n'
            'legacy signature. The legacy autocast classes pass `dtype` (`float16` for CUDA, `bfloat16` for\n'
            'the CPU) and `cache_enabled=True` to `torch.amp.autocast` themselves, whereas `torch.amp.autocast`\n'
            'given neither reads them from the autocast state, which an enclosing autocast region changes\n'
            '(measured: inside `torch.amp.autocast("cpu", dtype=torch.float16, cache_enabled=False)`,\n'
            '`torch.cpu.amp.autocast()` computes in `bfloat16` with the cache on, `torch.amp.autocast("cpu")`\n'
            'in `float16` with it off). The fix therefore writes the two values the legacy call fixed;\n'
            'drop them where no autocast region encloses the code. What was proven under torch 2.13 (CPU):\n'
            '`torch.cpu.amp.autocast` and its rewrite compute bitwise equal results (forward and gradients)\n'
            'and construct equal state; for the CUDA forms, which cannot run here, the constructed objects\n'
            "were compared (the autocast's device, `fast_dtype`, enabled flag and cache flag, the\n"
            "`GradScaler`'s attributes, and for `custom_fwd` / `custom_bwd` the legacy function calls the\n"
            'modern one with `device_type="cuda"`). `sdp_kernel` builds the list\n'
            '`[FLASH_ATTENTION, EFFICIENT_ATTENTION, MATH, CUDNN_ATTENTION]` from the flags that are true\n'
            'and enters `sdpa_kernel` with it, so the rewrite writes that list (the backend flags inside\n'
            'the region were compared). The only difference is the `FutureWarning` no longer emitted.\n'
            'Newer torch needed (`target-torch`): `torch.amp.autocast` 1.12, `sdpa_kernel` 2.2\n'
            '(`CUDNN_ATTENTION` 2.3), `torch.amp.GradScaler` 2.3, `torch.amp.custom_fwd` / `custom_bwd` 2.4.\n'
            '\n'
            '## Known limits\n'
            'A call in the fallback an older torch takes (an `except AttributeError:` / `TypeError:` /\n'
            '`ImportError:` handler, a branch of an `if` on the torch version or `hasattr`) is not reported:\n'
            'the modern API already runs on a current torch.\n'
            'Only calls and decorators are rewritten: a legacy class used as an object\n'
            '(`isinstance(s, torch.cuda.amp.GradScaler)`, `functools.partial(autocast, ...)`) is a different\n'
            'class from its replacement and is left alone, as are calls with `*args` or too many arguments.\n'
            '`sdp_kernel` with a flag that is not a literal `True` / `False` is reported without a fix:\n'
            'write the backend list by hand.'
        ),
    ),
    RuleInfo(
        code='GL510',
        name='legacy-serialization',
        summary='`torch.load` of a whole module without `weights_only=False`, `torch.save(model)`, `torch.save(model.state_dict)`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('load', 'save'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl510_legacy_serialization',
        class_name='LegacySerialization',
        doc=(
            '## What it does\n'
            'Flags serialisation that the `weights_only=True` default of `torch.load` (torch 2.6) breaks:\n'
            'a `torch.load(...)` without `weights_only=` whose result is evidently a whole module (the code\n'
            'calls `.eval()`, `.parameters()`, `.state_dict()`, `.forward()`... on it, or calls it), or a\n'
            'checkpoint holding one (the same use of `checkpoint["model"]`, directly or through a name bound\n'
            'to it), or a pickled NumPy array (the loaded value, or a slice of it, is given to\n'
            '`torch.from_numpy`, which takes nothing else);\n'
            '`torch.save(model, path)` of an evident module; and `torch.save(model.state_dict, path)`,\n'
            'the method saved instead of its result.\n'
            '\n'
            '## Why is this bad?\n'
            'Measured in torch 2.13: `torch.load(path)` loads state dicts, tensors, and checkpoint dicts\n'
            'of tensors, numbers, strings and optimizer states as before, but a pickled module (or a bound\n'
            '`state_dict` method, which pickles its module) raises `_pickle.UnpicklingError: Weights only\n'
            'load failed` unless `weights_only=False` is passed; so does a NumPy array saved with\n'
            "`torch.save` (2017's time-series example saved its training data so). Code written before 2.6 that saves and\n"
            "loads whole models stops working, and `weights_only=False` executes whatever the file's\n"
            'pickle says, so it is for trusted files only.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'torch.save(model.state_dict, "weights.pt")\n'
            'net = torch.load("model.pt")\n'
            'net.eval()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'torch.save(model.state_dict(), "weights.pt")\n'
            'net = torch.load("model.pt", weights_only=False)  # a file you trust\n'
            'net.eval()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe, both fixes. `weights_only=False` makes the load work again exactly as before torch\n'
            "2.6 (measured: the object loads, no warning), but it runs the file's pickle: apply it only to\n"
            'files you trust. `model.state_dict()` saves the state dict where the legacy call pickled the\n'
            'whole module, so the file and what loading it returns change (the loader then needs\n'
            '`load_state_dict`). `torch.save(model, ...)` has no fix: switching to a state dict changes the\n'
            'file format and every place that loads it.\n'
            'Newer torch needed (`target-torch`): `weights_only=` 1.13.\n'
            '\n'
            '## Known limits\n'
            'A `torch.load` without `weights_only=` is not reported when nothing shows that it loads a\n'
            'whole object: a state dict, tensor or checkpoint dict of tensors and numbers loads exactly as\n'
            'before (measured), and which other objects a checkpoint holds (an `argparse.Namespace`, a\n'
            'NumPy scalar: both now raise) cannot be seen in the code. Loads with `pickle_module=` keep\n'
            'the old default and are not reported. The module evidence is the name bound to the load in\n'
            'the same function (or `self.<name>` in the same class), or an entry of it read with a\n'
            'written-out key, used as a module there. Other pickled objects in a checkpoint (an\n'
            '`argparse.Namespace` read as `checkpoint["settings"].d_model`) are not recognised; a NumPy\n'
            'array is recognised only through `torch.from_numpy` of the name bound once to the load (or of\n'
            'a slice of it) in the same function.\n'
            '`torch.save` of a whole module is not reported in a file that loads with\n'
            "`weights_only=False` somewhere: such a file saves whole objects on purpose (torch's own\n"
            'distributed tests and `GraphModule.to_folder` do).'
        ),
    ),
    RuleInfo(
        code='GL511',
        name='unpinned-default',
        summary='a torch call relies on a default torch warns about (`indexing`, `align_corners`, `use_reentrant`, `dim`, `.T`, `kl_div`)',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('meshgrid', 'grid_sample', 'affine_grid', 'checkpoint', 'cross', 'kl_div', 'KLDivLoss', '.T'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl511_unpinned_default',
        class_name='UnpinnedDefault',
        doc=(
            '## What it does\n'
            'Flags torch calls that rely on a default torch warns about, because it changed or will change:\n'
            '`torch.meshgrid` without `indexing=`, `F.grid_sample` / `F.affine_grid` without\n'
            '`align_corners=`, `torch.utils.checkpoint.checkpoint` / `checkpoint_sequential` without\n'
            '`use_reentrant=`, `torch.cross` without `dim=`, `x.T` on a tensor that is not 2-D, and\n'
            '`F.kl_div` / `nn.KLDivLoss` with the default `reduction="mean"`.\n'
            '\n'
            '## Why is this bad?\n'
            'Each call emits a `UserWarning` under torch 2.13, and each default is a trap:\n'
            "`meshgrid`'s will become required (deprecated in torch 1.10); `grid_sample` and `affine_grid`\n"
            'changed meaning in torch 1.3 (0.4-era code meant `align_corners=True`); `checkpoint` will\n'
            'require `use_reentrant` (deprecated in torch 2.1); `torch.cross` picks the first dimension of\n'
            'size 3, which is the batch dimension of a batch of three vectors, and will change to\n'
            "`linalg.cross`'s `dim=-1` (deprecated in torch 2.2); `x.T` on a tensor that is not 2-D\n"
            'reverses all its dimensions and will raise (deprecated in torch 1.11); `kl_div`\'s `"mean"`\n'
            'divides by the number of elements, not by the batch size as the KL divergence does\n'
            '(deprecated in torch 0.4.1).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'import torch.nn.functional as F\n'
            'from torch.utils.checkpoint import checkpoint\n'
            '\n'
            'xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4))\n'
            'warped = F.grid_sample(image, grid)\n'
            'hidden = checkpoint(block, hidden)\n'
            'normal = torch.cross(torch.randn(4, 3), torch.randn(4, 3))\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn.functional as F\n'
            'from torch.utils.checkpoint import checkpoint\n'
            '\n'
            'xs, ys = torch.meshgrid(torch.arange(3), torch.arange(4), indexing="ij")\n'
            'warped = F.grid_sample(image, grid, align_corners=False)\n'
            'hidden = checkpoint(block, hidden, use_reentrant=True)\n'
            'normal = torch.cross(torch.randn(4, 3), torch.randn(4, 3), dim=1)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: each fix writes what torch 2.13 does without the argument, measured bitwise equal and\n'
            'without the warning: `indexing="ij"`, `align_corners=False`, `use_reentrant=True`;\n'
            '`dim=` the first dimension of size 3 when both shapes of `torch.cross` are stated in the code\n'
            'and equal; `x.permute(k - 1, ..., 0)` for `x.T` when the rank k of `x` is stated in the\n'
            'code and is 1 or at least 3 (`.permute(0)` on a vector: still a view, as `.T` was); unsafe\n'
            "where `x` is not evidently a tensor (a numpy array's `.T` has the same shape, and no\n"
            '`.permute`). The message names the other choice where it may be what the code means\n'
            '(`align_corners=True` for code written before torch 1.3, `use_reentrant=False`), which the\n'
            'fix does not write. No fix for `kl_div`\'s reduction: `reduction="batchmean"` computes a\n'
            'different value (the mathematically correct one).\n'
            'Newer torch needed (`target-torch`): `align_corners=` 1.3, `indexing=` 1.10,\n'
            '`checkpoint(use_reentrant=)` 1.11, `checkpoint_sequential(use_reentrant=)` 2.0.\n'
            '\n'
            '## Known limits\n'
            'A call in the fallback an older torch takes (an `except TypeError:` / `AttributeError:` /\n'
            '`ImportError:` handler, a branch of an `if` on the torch version) is not reported.\n'
            "Only torch's functions under their imports are recognised; the rank or shape comes from a\n"
            'factory with literal sizes or a list literal in the same function, so `x.T` is reported only\n'
            'there. A call that passes `**kwargs` is not reported (they may hold the argument).'
        ),
    ),
    RuleInfo(
        code='GL512',
        name='legacy-scheduler-hook-api',
        summary='`scheduler.step(epoch)` / `scheduler.get_lr()` / `register_backward_hook`: legacy scheduler and hook APIs',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('step', 'get_lr', 'register_backward_hook'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl512_legacy_scheduler_hook_api',
        class_name='LegacySchedulerHookApi',
        doc=(
            '## What it does\n'
            'Flags `scheduler.step(epoch)` and `scheduler.get_lr()` on a scheduler evidently built from\n'
            '`torch.optim.lr_scheduler` (`StepLR`, `CosineAnnealingLR`, `ReduceLROnPlateau` with an\n'
            'epoch after the metric, ...), and `register_backward_hook` on an evident `nn.Module`.\n'
            '\n'
            '## Why is this bad?\n'
            'Measured in torch 2.13: `step(epoch)` emits a `UserWarning` ("The epoch parameter in\n'
            '`scheduler.step()` was not necessary and is being deprecated") and jumps to the given epoch\n'
            'with the closed form where there is one, so its learning rates are not those of the chained\n'
            '`step()` (`ExponentialLR`: 0.0729 against 0.07290000000000002 at epoch 3). `get_lr()` called\n'
            'outside `step()` warns and returns the value of the chainable formula applied once more: it\n'
            'differs from the learning rate in use after every step for `ExponentialLR`, `LinearLR`,\n'
            '`CosineAnnealingLR` and `PolynomialLR`, and at each milestone for `StepLR` / `MultiStepLR`\n'
            '(equal for `LambdaLR`, `OneCycleLR`, `CyclicLR`). `register_backward_hook` warns with a\n'
            "`FutureWarning` at backward time and passes the gradients of the module's last autograd node\n"
            "(for `nn.Linear`: three tensors, bias, input and weight), not of the module's inputs.\n"
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.optim.lr_scheduler import StepLR\n'
            '\n'
            'scheduler = StepLR(optimizer, step_size=30)\n'
            'for epoch in range(epochs):\n'
            '    scheduler.step(epoch)\n'
            '    train(epoch)\n'
            '    print(scheduler.get_lr())\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'from torch.optim.lr_scheduler import StepLR\n'
            '\n'
            'scheduler = StepLR(optimizer, step_size=30)\n'
            'for epoch in range(epochs):\n'
            '    train(epoch)\n'
            '    scheduler.step()\n'
            '    print(scheduler.get_last_lr())\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            '`get_lr()` becomes `get_last_lr()`, an unsafe fix: it returns the learning rate in use, which\n'
            'is what the legacy call meant (before torch 1.4 `get_lr()` was the closed form for the current\n'
            'epoch), but not what `get_lr()` returns under torch 2.13 (see above; `get_last_lr()` also\n'
            "returns the scheduler's own list, not a new one). `step(epoch)` has no fix: the modern call\n"
            "takes no epoch and belongs after the optimizer's steps of the epoch, which moves the call\n"
            '(the legacy pattern called it at the start of the epoch). `register_backward_hook` has no\n'
            "fix: a hook written for the last operation's gradients must be reviewed for\n"
            "`register_full_backward_hook`, which also refuses in-place changes of the module's inputs and\n"
            'outputs. Newer torch needed (`target-torch`): `get_last_lr()` 1.4.\n'
            '\n'
            '## Known limits\n'
            'The scheduler is recognised by its construction from `torch.optim.lr_scheduler` (or `SWALR`)\n'
            'in the same function, at module level, or as `self.<name>` in the same class; one passed in\n'
            "as a parameter or built by a factory is not reported, nor schedulers of other libraries (timm's\n"
            "and fairseq's take the epoch by design), `optimizer.step(closure)` or `env.step(action)`.\n"
            '`register_backward_hook` is reported on `self` in an `nn.Module` subclass, on a name bound to\n'
            'a module (or named like one: `model`, `net`, `module`...) and on the submodules a loop takes\n'
            'from `modules()` / `children()`.'
        ),
    ),
    RuleInfo(
        code='GL513',
        name='loss-target-shape-mismatch',
        summary='A loss given an `(N, 1)` input and an `(N,)` target: 0.3 paired them element by element, today it raises or broadcasts to `(N, N)`',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('Loss', '_loss', 'binary_cross_entropy'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl513_loss_target_shape_mismatch',
        class_name='LossTargetShapeMismatch',
        doc=(
            '## What it does\n'
            'Flags `BCELoss`, `BCEWithLogitsLoss`, `MSELoss`, `L1Loss`, `SmoothL1Loss` and `HuberLoss`\n'
            '(the modules and their `F.*` functions) given an input of shape `(N, 1)` and a target of shape\n'
            "`(N,)`, or the reverse, where the code states both shapes: a factory's sizes, `.view(-1, 1)`,\n"
            '`.unsqueeze(1)`, the output of an `nn.Linear(k, 1)` (or an `nn.Sequential` ending in one and\n'
            'shape-keeping layers) called on a known shape, arithmetic on those, a name resized in place\n'
            'just before (`label.data.resize_(bs)`), and the output of a module class of the project: its\n'
            '`forward` evaluated statement by statement, with the sizes its constructor is given (literals,\n'
            'or module constants: `Discriminator(output_size=d_output_size)`), or one ending in\n'
            '`.view(-1, 1)` whatever its input, also when the instance is a constructor argument kept on\n'
            '`self` and built in another file of the run (`Trainer(d, ...)` in `main.py`, `self.D(x)` in\n'
            "`trainer.py`). The input may come through the file's own lambdas and functions\n"
            '(`D(preprocess(x))` with `preprocess = lambda data: decorate(data, 2.0)`), `torch.cat`, `.t()`\n'
            'and NumPy draws of a literal size (`torch.Tensor(np.random.normal(mu, sigma, (1, n)))`).\n'
            '\n'
            '## Why is this bad?\n'
            'PyTorch 0.3 paired such an input and target element by element. Today the BCE losses raise\n'
            '`ValueError: Using a target size (torch.Size([N])) that is different to the input size\n'
            '(torch.Size([N, 1]))`, and MSE, L1, smooth L1 and Huber broadcast the pair to `(N, N)`: every\n'
            'prediction is compared with every target, with nothing but a `UserWarning`. Measured under\n'
            'torch 2.13 on `y = 2x` at 8 points `x = k / 8` with `nn.Linear(1, 1, bias=False)`: the\n'
            'element-wise loss trains the weight to 2.0000, the broadcast one to 1.5882 (27/17, the minimum\n'
            'of the mean over all 64 pairings), where it stops with a loss of 0.5887 instead of 0.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'from torch import nn\n'
            '\n'
            'model = nn.Linear(3, 1)\n'
            'x, y = torch.randn(16, 3), torch.randn(16)\n'
            'loss = nn.MSELoss()(model(x), y)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'from torch import nn\n'
            '\n'
            'model = nn.Linear(3, 1)\n'
            'x, y = torch.randn(16, 3), torch.randn(16)\n'
            'loss = nn.MSELoss()(model(x), y.view(-1, 1))\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "The fix views the target as the input's shape (`y.view(-1, 1)`, or `y.view(-1)` for the\n"
            "reverse), which restores 0.3's element-wise pairing bitwise. Safe for the BCE losses, which\n"
            'raise on every such pair today; unsafe for MSE, L1, smooth L1 and Huber, where it changes\n'
            "today's (broadcast) loss and its gradients.\n"
            '\n'
            '## Known limits\n'
            "Only shapes the code states are compared: a dataset's batches, a model class whose layer sizes\n"
            "are run-time values (or whose input's rank is unknown and whose `forward` does not end in a\n"
            'view to literal sizes), and a name bound differently in two places are unknown, and the rule\n'
            'stays silent. What another file passes to a constructor is known only in a run that holds\n'
            'every file that may build the class (a folder run, not `check trainer.py`). Sizes known to\n'
            'differ (a batch of 8 against 10 targets) are not reported. A size of 1 is reported only for the\n'
            'BCE losses and only when both sizes are 1 (`torch.ones(1)` against a `(1, 1)` output, which\n'
            'raises): MSE and its kin broadcast that pair to the element-wise value, and a `(1,)` target\n'
            'against an unknown number of rows may not be one target per row. Sizes not spelled are taken\n'
            'to be the same `N`.'
        ),
    ),
    RuleInfo(
        code='GL514',
        name='view-of-strided-result',
        summary='`.view(...)` of an element-wise result of a transposed tensor: today it keeps the transposed strides and `.view` raises',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('.view(',),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl514_view_of_strided_result',
        class_name='ViewOfStridedResult',
        doc=(
            '## What it does\n'
            'Flags `.view(-1)` (and `.view(n, -1)` when the first dimension stayed in place) of the result\n'
            'of an element-wise operation (`*`, `+`, `x.mul(2)`, `sigmoid`, `exp`, `clone`...) whose first\n'
            'tensor operand is a transposed or permuted tensor (`x.t()`, `x.T`, `x.transpose(1, 2)`,\n'
            '`x.permute(0, 2, 1)`).\n'
            '\n'
            '## Why is this bad?\n'
            "PyTorch 0.3's element-wise results were new contiguous tensors, so `.view` of them always\n"
            'worked. Today an element-wise result is laid out like its first tensor operand: measured under\n'
            'torch 2.13, `(x.t() * 2)` of a `(3, 4)` tensor has strides `(1, 4)`, and `.view(-1)` raises\n'
            "`RuntimeError: view size is not compatible with input tensor's size and stride (at least one\n"
            'dimension spans across two contiguous subspaces). Use .reshape(...) instead.` The same holds\n'
            'for `x.t().sigmoid()`, `torch.exp(x.t())`, `x.t().clone()` and `x.permute(0, 2, 1) + 1`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'x = torch.randn(3, 4)\n'
            'flat = (x.t() * 2).view(-1)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'x = torch.randn(3, 4)\n'
            'flat = (x.t() * 2).reshape(-1)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'The fix writes `.reshape(...)`. Where `.view` succeeds, `reshape` returns the same view\n'
            '(measured: same storage, same values); where `.view` raises, `reshape` copies the values in\n'
            "their logical order, which is what 0.3's `.view` of its contiguous result gave. Safe when the\n"
            'viewed result is written in place (a temporary nothing else refers to); unsafe through a name\n'
            "bound to the result, because the copy no longer shares memory with that name, as 0.3's view did.\n"
            '\n'
            '## Known limits\n'
            'Only literal transpositions are followed (a permutation held in a variable is not), only the\n'
            'first tensor operand of a binary operation is considered, and where the code states that a\n'
            'moved dimension has size 1 (then the tensor is contiguous) the rule stays silent.\n'
            '`.view(n, -1)` is reported only for a transposition that leaves dimension 0 in place\n'
            '(`transpose(1, 2)`, `permute(0, 2, 1)`); other views (`view(b, a)`) may succeed and are not.'
        ),
    ),
    RuleInfo(
        code='GL515',
        name='cat-of-zero-dim',
        summary='`torch.cat` of 0-dim losses or reductions: 0.3 concatenated one-element tensors, torch 2.x raises',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe',),
        triggers=('cat',),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl515_cat_of_zero_dim',
        class_name='CatOfZeroDim',
        doc=(
            '## What it does\n'
            'Flags `torch.cat(losses)` where every element of `losses` is provably a 0-dim tensor: a list\n'
            "written out, or a list started empty and filled by `losses.append(...)` with a loss function's\n"
            'result or a full reduction (`F.smooth_l1_loss(value, target)`, `torch.mean(x)`), the\n'
            'REINFORCE / actor-critic pattern of 2017-18 (`torch.cat(value_losses).sum()`).\n'
            '\n'
            '## Why is this bad?\n'
            'In PyTorch 0.3 a loss or a full reduction was a one-element 1-D tensor, so `torch.cat` of\n'
            'such results gave a tensor of shape (n,). Since 0.4 they are 0-dim, and torch 2.13 raises\n'
            '`RuntimeError: zero-dimensional tensor (at position 0) cannot be concatenated`: the script\n'
            'stops at its first update.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'import torch.nn.functional as F\n'
            '\n'
            'value_losses = []\n'
            'for value, r in zip(values, returns):\n'
            '    value_losses.append(F.smooth_l1_loss(value, r))\n'
            'loss = torch.cat(value_losses).sum()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn.functional as F\n'
            '\n'
            'value_losses = []\n'
            'for value, r in zip(values, returns):\n'
            '    value_losses.append(F.smooth_l1_loss(value, r))\n'
            'loss = torch.stack(value_losses).sum()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            '`torch.cat(xs)` becomes `torch.stack(xs)`, a safe fix: the original raises for every list\n'
            'of 0-dim tensors that reaches it, and `torch.stack` of 0-dim tensors gives the tensor of\n'
            "shape (n,) that 0.3's `torch.cat` gave, with the same values bitwise and the same gradients.\n"
            'An empty list raises in both.\n'
            '\n'
            '## Known limits\n'
            'Reported only when every element is evidently 0-dim where it is made (a `torch.nn.functional`\n'
            'loss keeping its reduction, a full reduction by a torch function), directly or through a name\n'
            'bound only to such values, and the list is used for nothing but `append`, `len` and torch\n'
            'calls. Elements of shape (1,) (`-log_prob * reward` of a sampled action) concatenate fine and\n'
            'are left alone; a loss computed by a criterion object or a helper, a `dim=` argument, or a\n'
            'list handed elsewhere or extended keeps the rule silent.'
        ),
    ),
    RuleInfo(
        code='GL516',
        name='iterator-next-method',
        summary="`iter(x).next()`: the Python 2 iterator method torch 0.3's DataLoader still had raises AttributeError",
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('.next()',),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl516_iterator_next_method',
        class_name='IteratorNextMethod',
        doc=(
            '## What it does\n'
            'Flags `it.next()` called on an iterator made by `iter(...)`: written inline\n'
            '(`iter(loader).next()`), or a name (or `self` attribute) bound only to `iter(...)`, the\n'
            '2017-18 idiom for drawing one batch (`data_iter = iter(loader)` ... `images, labels = data_iter.next()`).\n'
            '\n'
            '## Why is this bad?\n'
            "`.next()` is Python 2's iterator method. PyTorch 0.3's DataLoader iterator still defined it;\n"
            "torch 2.x's DataLoader iterators do not, nor does any builtin iterator of Python 3 (of a list,\n"
            'tuple, dict, range, string or tensor), so the call raises\n'
            "`AttributeError: '_SingleProcessDataLoaderIter' object has no attribute 'next'`.\n"
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'data_iter = iter(torch.utils.data.DataLoader(dataset, batch_size=2))\n'
            'images, labels = data_iter.next()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'data_iter = iter(torch.utils.data.DataLoader(dataset, batch_size=2))\n'
            'images, labels = next(data_iter)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            '`it.next()` becomes `next(it)`. The fix is safe when what `iter()` is given is known: a\n'
            '`DataLoader(...)`, a list, tuple, dict, set or string written out, `range(...)` and the other\n'
            "builtin containers' constructors, or a tensor; also `self.loader` kept from a constructor\n"
            'parameter when, in a run over the whole project, every construction of the class passes a\n'
            '`DataLoader` (`Solver(config, svhn_loader, mnist_loader)` in `main.py`, the loaders returned by\n'
            '`get_loader` of `data_loader.py`). Their iterators have no `.next`, so the original raises on\n'
            "every value, and `next(it)` draws the item 0.3's `.next()` drew. Otherwise (a loader passed\n"
            'as a parameter, `self.loader` checked without the files that build the class) the fix is\n'
            'unsafe: an object of an unknown class may define `__iter__` returning an iterator of its own\n'
            'with a `.next` method that `next()` would not call.\n'
            '\n'
            '## Known limits\n'
            'Only iterators made by `iter(...)` in the same function (or assigned only so to a `self`\n'
            'attribute in the class) are followed; `it = loader.__iter__()` and iterators handed around\n'
            'are not. A file that defines or binds a name `next` of its own (a class with `def next(self)`)\n'
            'is left alone.'
        ),
    ),
    RuleInfo(
        code='GL517',
        name='deprecated-api',
        summary='A public torch API that torch deprecates or removed (`assert_allclose`, `weight_norm`, ...)',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('BoolStorage', 'ByteStorage', 'Container', 'DataLoaderIter', 'DistributedDataParallelCPU', 'DoubleStorage', 'FloatStorage', 'FloatTensor', 'HalfStorage', 'IntStorage', 'LeafSpec', 'LongStorage', 'QConfigDynamic', 'Sampler', 'SpawnContext', 'TypedStorage', '__torch_function__', '_all_gather_base', '_get_global_rank', '_is_leaf', '_is_namedtuple_instance', '_reduce_scatter_base', '_register_pytree_node', '_sharded_tensor', '_sharding_spec', 'all_gather', 'all_gather_coalesced', 'all_gather_into_tensor', 'all_gather_into_tensor_coalesced', 'all_gather_tensor', 'all_gather_tensor_autograd', 'all_reduce', 'all_reduce_coalesced', 'all_to_all_single', 'apply_shuffle_seed', 'assert_allclose', 'broadcast', 'btriunpack', 'checkpoint', 'children_specs', 'combine_state_for_ensemble', 'constants', 'cuda_time_total', 'cummulative_sizes', 'dedup_replicated_tensors', 'disable_apex_o2_state_dict_hook', 'dynamo_export', 'enable_onnx_checker', 'eps', 'example_outputs', 'explain', 'export_memory_timeline', 'exporter_context', 'fn', 'ger', 'get_analytical_jacobian', 'get_autocast_cpu_dtype', 'get_autocast_gpu_dtype', 'get_autocast_ipu_dtype', 'get_autocast_xla_dtype', 'get_default_qat_qconfig_dict', 'get_default_qconfig_dict', 'get_numerical_jacobian', 'get_trace_graph', 'grad_variables', 'guard_size_oblivious', 'has_cuda', 'has_cudnn', 'has_mkldnn', 'has_mps', 'impl_abstract', 'inline_inbuilt_nn_modules', 'is_autocast_cpu_enabled', 'is_autocast_ipu_enabled', 'is_autocast_xla_enabled', 'is_deterministic', 'is_pytorch_file', 'launch', 'load_state_dict', 'make_functional', 'make_functional_with_buffers', 'mark_shared_storage', 'max_value', 'min_value', 'numpy_type_map', 'only_inputs', 'operator_export_type', 'optimize', 'pin_memory_device', 'potri', 'profile', 'pstrf', 'publish_metric', 'push', 'pytree_to_str', 'reduce_op', 'reduce_range', 'reduce_scatter', 'reduce_scatter_tensor', 'reduce_scatter_tensor_autograd', 'reduce_scatter_tensor_coalesced', 'reduction', 'reset_max_memory_allocated', 'reset_max_memory_cached', 'resize', 'resize_as', 'return_complex', 'sample_n', 'save', 'save_state_dict', 'scatter', 'select_model_mode_for_export', 'self_cuda_memory_usage', 'self_cuda_time_total', 'set_autocast_cpu_dtype', 'set_autocast_cpu_enabled', 'set_autocast_gpu_dtype', 'set_autocast_ipu_dtype', 'set_autocast_ipu_enabled', 'set_autocast_xla_dtype', 'set_autocast_xla_enabled', 'set_deterministic', 'set_vital', 'setup_onnx_logging', 'skip_code_recursive_on_cache_limit_hit', 'start_method', 'state_dict', 'storage', 'storage_type', 'str_to_pytree', 'strip_doc_string', 'submodules', 'training', 'traverse', 'unconvertible_ops', 'upsample', 'upsample_bilinear', 'upsample_nearest', 'use_cuda', 'use_external_data_format', 'verbose', 'volatile', 'weight_norm', 'worker_init_fn'),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl517_deprecated_api',
        class_name='DeprecatedApi',
        doc=(
            '## What it does\n'
            'Flags the public torch APIs that torch 2.13 deprecates, or that torch removed and old code still\n'
            'calls, beyond those the other GL5xx rules cover: a function, class or module under any import\n'
            'spelling (`torch.testing.assert_allclose`, `from torch.nn.utils import weight_norm`), a\n'
            'deprecated keyword argument of a call (`nn.Hardtanh(min_value=...)`) or one of its values\n'
            '(`reduction="elementwise_mean"`), a deprecated form of a call (`explain(f, *args)`,\n'
            '`model.state_dict(None, "net.")`), a deprecated setting\n'
            'assigned (`torch._dynamo.config.inline_inbuilt_nn_modules = True`), a deprecated method or\n'
            'attribute of a value known to be a tensor (`x.resize_as(y)`, `x.volatile`), and a member\n'
            "that only torch's objects have (`dataset.cummulative_sizes`, `event.cuda_time_total`). Every API of the table was called under\n"
            'torch 2.13 and seen to warn (or raise, once removed); rules/deprecations.md lists them all with\n'
            'the rule that reports each.\n'
            '\n'
            '## Why is this bad?\n'
            'A deprecated API warns on every call (a `FutureWarning` or `UserWarning` in a training log,\n'
            'or an error under `-W error`) and is removed in a later release: the code stops running on\n'
            'the torch a project upgrades to. Some replacements also compute something else, which is\n'
            'better known before the removal forces the change.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'torch.testing.assert_allclose(actual, expected)\n'
            'torch.utils._pytree._register_pytree_node(Point, flatten, unflatten)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'torch.testing.assert_close(actual, expected)\n'
            'torch.utils._pytree.register_pytree_node(Point, flatten, unflatten)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe where the replacement is the same function under a new name, or computes the same for\n'
            'every input (the table records why, and bench/deprecations/probe.py compares both calls\n'
            'bitwise under torch 2.13): the name is replaced, the arguments the replacement needs first\n'
            '(a device type) are added, arguments whose order changed are passed by name, a keyword the\n'
            'API ignores is removed, and a call that passes what only the legacy API takes gets no fix.\n'
            'A replacement that computes something else (`assert_close` also compares dtypes and treats\n'
            'NaN as unequal; the parametrized `weight_norm` stores different state-dict keys) is named in\n'
            'the message without a fix. A fix whose replacement needs a newer torch than `target-torch`\n'
            'is offered as unsafe.\n'
            '\n'
            '## Known limits\n'
            'A deprecated API in the fallback an older torch takes (an `except ImportError:` handler, a\n'
            'branch of an `if` on the torch version) is not reported. A method is reported only on a value\n'
            'the analysis knows is a tensor; a keyword only in a call of the callable itself (not through\n'
            '`functools.partial` or `**kwargs`). An API used as an object without a call is rewritten only\n'
            "where its value is a call's (`torch.has_cuda`) or one of its members is read\n"
            '(`dist.reduce_op.SUM`); one assigned to (a monkey-patch) is not reported. A keyword without\n'
            'effect is removed only when its value has none either (a literal, a name) and no comment\n'
            'sits in it. A member of another torch object (a profiler event, a dataset, a distribution)\n'
            'is reported by its name, in a file that imports torch and whose own classes define no member\n'
            'of that name; its rename is safe only on a value built by the class in place\n'
            "(`ConcatDataset(parts).cummulative_sizes`) or read from a profiler's `function_events`, else\n"
            'unsafe. Members whose names other objects\n'
            'commonly have (`FunctionEvent.cuda_time`, `metadata_json`) are not reported.'
        ),
    ),
    RuleInfo(
        code='GL518',
        name='deprecated-subsystem',
        summary='TorchScript (`torch.jit.script`, ...) or eager quantization, which torch deprecates as a whole',
        severity='warning',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('annotate', 'convert', 'convert_fx', 'enable_onednn_fusion', 'fork', 'freeze', 'interface', 'isinstance', 'load', 'onednn_fusion_enabled', 'optimize_for_inference', 'prepare', 'prepare_fx', 'prepare_qat', 'prepare_qat_fx', 'quantize', 'quantize_dynamic', 'quantize_qat', 'save', 'script', 'script_if_tracing', 'script_method', 'set_fusion_strategy', 'strict_fusion', 'trace', 'trace_module', 'wait'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=True,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl518_deprecated_subsystem',
        class_name='DeprecatedSubsystem',
        doc=(
            '## What it does\n'
            'Flags the entry points of the torch subsystems that torch 2.13 deprecates as a whole for a\n'
            'successor that is no drop-in replacement: TorchScript (`torch.jit.script`, `torch.jit.trace`,\n'
            '`torch.jit.save` / `load`, `torch.jit.annotate`, ...; deprecated in 2.5 for `torch.compile`\n'
            'and `torch.export`) and eager / FX quantization (`torch.ao.quantization.prepare` / `convert`\n'
            '/ `quantize_dynamic`, `prepare_fx`, ...; deprecated in 2.8 for the torchao package). The rule\n'
            'is opt-in (`--extend-select GL518`): a project that keeps TorchScript or eager quantization on\n'
            'purpose would otherwise see every use reported.\n'
            '\n'
            '## Why is this bad?\n'
            'torch 2.13 emits a `DeprecationWarning` for each of them and plans their removal: code that\n'
            'exports models with TorchScript or quantizes with `torch.ao.quantization` needs a migration\n'
            'before that release, which takes planning because the successors trace Python differently\n'
            '(TorchScript) or live in another package (torchao).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'scripted = torch.jit.script(model)\n'
            'torch.jit.save(scripted, "model.pt")\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'exported = torch.export.export(model, (example,))\n'
            'torch.export.save(exported, "model.pt2")\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'No fix: the successors are not equivalent (they accept other programs and produce other\n'
            'artifacts).\n'
            '\n'
            '## Known limits\n'
            'As GL517: uses in the fallback of an older torch are not reported; a method is reported only on\n'
            'a value known to be a tensor.'
        ),
    ),
    RuleInfo(
        code='GL601',
        name='activation-before-logits-loss',
        summary='softmax / sigmoid before a loss that applies it itself, or logits into `BCELoss`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('cross_entropy', 'CrossEntropyLoss', 'nll_loss', 'NLLLoss', 'BCELoss', 'BCEWithLogitsLoss'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl601_activation_before_logits_loss.rule',
        class_name='ActivationBeforeLogitsLoss',
        doc=(
            '## What it does\n'
            'Flags a loss fed the wrong kind of value: probabilities from `softmax` given to\n'
            '`nn.CrossEntropyLoss` / `F.cross_entropy` (which expect logits) or to `nn.NLLLoss` /\n'
            '`F.nll_loss` (which expect log-probabilities), probabilities from `sigmoid` given to\n'
            '`nn.BCEWithLogitsLoss` / `F.binary_cross_entropy_with_logits`, and raw logits (the output of a\n'
            'model whose last layer is `nn.Linear`) given to `nn.BCELoss` / `F.binary_cross_entropy`. The\n'
            'activation may be written inline (`F.softmax(out, dim=1)`, `out.sigmoid()`), bound to a name\n'
            'in the same function (the assignment the read sees: `logits = F.softmax(logits, dim=-1)`\n'
            'just before `return logits`, or else every binding of the name), or be the last layer of the\n'
            'model whose output is fed to the loss (the last item of an `nn.Sequential`, or what every\n'
            "`return` of a module class's `forward` returns).\n"
            '\n'
            '## Why is this bad?\n'
            'Nothing fails: the loss is computed on the wrong quantity and training is silently slower\n'
            'and worse. Measured under torch 2.13 (a linear classifier on 64 points, SGD with lr 0.5,\n'
            '50 steps): softmax into cross-entropy shrinks the first gradient from 0.564 to 0.163 and ends\n'
            'at a true cross-entropy of 0.560 instead of 0.475 (accuracy 0.766 instead of 0.828), and the\n'
            'loss cannot go below log(1 + (C - 1) / e) even for a perfect prediction (0.551 for 3 classes).\n'
            'Softmax into NLL minimises -p instead of -log p: the training loss goes negative (-0.639) and\n'
            'the true cross-entropy ends at 0.587. Sigmoid into BCE-with-logits shrinks the first gradient\n'
            'from 0.302 to 0.082 and ends at a true loss of 0.362 instead of 0.213 (accuracy 0.844 instead\n'
            'of 0.938). Logits into `BCELoss` raise `RuntimeError: all elements of input should be between\n'
            '0 and 1` as soon as one output leaves [0, 1].\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn.functional as F\n'
            '\n'
            'loss = F.cross_entropy(F.softmax(model(x), dim=1), y)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn.functional as F\n'
            '\n'
            'loss = F.cross_entropy(model(x), y)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe, and only for an activation written inline in the loss call (so the loss is its only\n'
            'use): the fix drops the `softmax` / `sigmoid` before a loss that applies it itself, and turns\n'
            '`softmax` into `log_softmax` before an NLL loss. That changes the loss on purpose; the fixed\n'
            'code trains bitwise like the correct form. An activation bound to a name or ending a model\n'
            'is reported without a fix (the probabilities may be used elsewhere too).\n'
            '\n'
            '## Known limits\n'
            '`log_softmax` into cross-entropy is not reported: log-softmax is idempotent, and under torch\n'
            '2.13 the loss is bitwise the same and the gradients agree to 2e-9. Only what the file shows is\n'
            'followed: a loss passed in as a parameter, a model built in another file, a model given more\n'
            'layers after it is built (`model.append(nn.Sigmoid())`), or a class whose `forward` returns\n'
            'different things on different paths is not. Softmax into `BCELoss`, and\n'
            'logits into `NLLLoss`, are not reported.\n'
            '\n'
            'A softmax before `cross_entropy` in a one-step smoke test is reported like any other\n'
            '(one such finding on current code, in a test that checks the step runs, not the loss).'
        ),
    ),
    RuleInfo(
        code='GL602',
        name='evaluation-in-training-mode',
        summary='a model with dropout or batch norm is evaluated, or trained, in the wrong mode',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('Dropout', 'dropout', 'BatchNorm', 'torchvision', 'timm'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl602_evaluation_in_training_mode',
        class_name='EvaluationInTrainingMode',
        doc=(
            '## What it does\n'
            'Flags two ways of running a model that has dropout or batch norm in the wrong mode:\n'
            '\n'
            '* an evaluation loop (over a validation or test set, or over batches in a function named\n'
            '  `evaluate`, `validate` or `test`; no backward pass; under `torch.no_grad()`) that runs a\n'
            '  model while nothing in the file ever calls `.eval()` (or `.train(False)`);\n'
            '* a training loop that calls `model.eval()` (for a validation pass) but never `model.train()`,\n'
            '  neither itself nor through the functions of the file it calls, so every later training\n'
            '  step runs in evaluation mode;\n'
            '* inference right after `model.load_state_dict(...)` (the output turned into a prediction, or\n'
            '  computed under `torch.no_grad()`), with no backward pass or optimizer step after the load in\n'
            '  that function, while nothing in the file ever calls `.eval()`.\n'
            '\n'
            'It reports only in files that build dropout or batch-norm layers (`nn.Dropout`,\n'
            '`nn.BatchNorm2d`, `F.dropout`, a `torchvision.models` or `timm` model): without them the two\n'
            'modes compute the same thing.\n'
            '\n'
            '## Why is this bad?\n'
            '`no_grad` does not change the mode. Measured in torch 2.13: evaluating a model with dropout\n'
            'twice without `eval()` gives two different outputs (and accuracies) for the same inputs, and\n'
            "a pass over shifted validation data moves batch norm's `running_mean` (from 0 to about 0.5\n"
            'per feature after one pass under `no_grad`), silently changing the trained model. Training\n'
            'after an `eval()` that is never undone runs without dropout and with frozen batch-norm\n'
            'statistics: the weights reached differ from those of training in training mode.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'from torch import nn\n'
            '\n'
            'model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))\n'
            '\n'
            'def evaluate(model, val_loader):\n'
            '    with torch.no_grad():\n'
            '        for x, y in val_loader:\n'
            '            print((model(x).argmax(1) == y).float().mean())\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'from torch import nn\n'
            '\n'
            'model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5), nn.Linear(8, 2))\n'
            '\n'
            'def evaluate(model, val_loader):\n'
            '    model.eval()\n'
            '    with torch.no_grad():\n'
            '        for x, y in val_loader:\n'
            '            print((model(x).argmax(1) == y).float().mean())\n'
            '    model.train()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe (the numbers change, which is the point). After `load_state_dict(...)` the fix calls\n'
            '`model.eval()` on the line after the load. For an evaluation loop the fix puts\n'
            '`model.eval()` before the loop and `model.train()` after it, which restores the mode the model\n'
            'had, as nothing in the file switched it; offered when the loop runs one model and does not\n'
            '`return` or `yield` from inside. For an `eval()` never undone, the fix inserts `model.train()`\n'
            'before the statement of the loop that trains, when `eval()` is called in the loop itself.\n'
            '\n'
            '## Known limits\n'
            'Precision first: a file that calls `.eval()` anywhere is trusted for its evaluation loops\n'
            '(the call may be on another path); the model is not traced to its class, so a file that builds\n'
            'dropout or batch norm for one model and evaluates another without them is reported. Mode\n'
            'switches made in other files (a trainer, a callback) are not seen; the training loop must\n'
            'train in the file (its backward or optimizer step visible, directly or through its functions).\n'
            'Methods of Lightning modules and Hugging Face trainers (whose frameworks switch the mode),\n'
            'models kept in evaluation mode on purpose (`ema`, `teacher`, `target`, `frozen` in the name)\n'
            'and test files are not reported. After `load_state_dict(...)`, only the first forward pass of\n'
            'the loaded model is considered, and only when the model is not handed to another function in\n'
            'between (which may switch the mode).'
        ),
    ),
    RuleInfo(
        code='GL603',
        name='functional-dropout-without-training',
        summary='`F.dropout(...)` in an `nn.Module` method without `training=`: it ignores `model.eval()`',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('unsafe',),
        triggers=('dropout',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl603_functional_dropout_without_training',
        class_name='FunctionalDropoutWithoutTraining',
        doc=(
            '## What it does\n'
            'Flags `F.dropout`, `F.dropout1d/2d/3d`, `F.alpha_dropout` and `F.feature_alpha_dropout` called\n'
            'in a method of an `nn.Module` subclass without a `training` argument (by keyword or as the\n'
            'third positional argument).\n'
            '\n'
            '## Why is this bad?\n'
            "A functional dropout does not see the module's mode: it does what its `training` argument\n"
            'says, and the argument defaults to a constant. For `F.dropout` and `F.dropout1d/2d/3d` the\n'
            'default is `training=True`, so dropout keeps dropping after `model.eval()`: measured under\n'
            'torch 2.13 with `p=0.5` on a 16-unit hidden layer, two evaluation passes over the same batch\n'
            'of 32 differ (max difference 1.08), and in evaluation 52% of the live hidden units are zeroed\n'
            'and the others doubled.\n'
            'For `F.alpha_dropout` and `F.feature_alpha_dropout` the default is `training=False`, the\n'
            'opposite mistake: they never drop, not even in training (the output equals the input exactly).\n'
            '`nn.Dropout` modules follow `train()` / `eval()`; functional calls need `training=self.training`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn as nn\n'
            'import torch.nn.functional as F\n'
            '\n'
            'class Net(nn.Module):\n'
            '    def forward(self, x):\n'
            '        return F.dropout(self.hidden(x), p=0.5)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn as nn\n'
            'import torch.nn.functional as F\n'
            '\n'
            'class Net(nn.Module):\n'
            '    def forward(self, x):\n'
            '        return F.dropout(self.hidden(x), p=0.5, training=self.training)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix adds `training=self.training`, which changes what the module does on purpose\n'
            'in one mode. For `F.dropout` and `F.dropout1d/2d/3d`, training-mode outputs stay bitwise the\n'
            'same (same random draws) and evaluation becomes deterministic; for the alpha dropouts,\n'
            'evaluation stays the same and training starts dropping.\n'
            '\n'
            '## Known limits\n'
            'A method that tests `self.training` itself (`if self.dropout and self.training:` around the\n'
            'call, or an early return in evaluation) is trusted to pick the mode, and so is a call whose\n'
            'line comment says the dropout always applies. Only classes that this file shows to be `nn.Module` subclasses (directly or through each\n'
            'other) are considered: a class deriving from a base imported from elsewhere (a\n'
            "`LightningModule`, a project's own base class) is not. Calls outside a class, in static or\n"
            'class methods, and calls that pass `*args` / `**kwargs` are not reported. A module meant to\n'
            'drop in evaluation too (Monte Carlo dropout, the Tacotron 2 prenet) should say so with\n'
            '`training=True`.'
        ),
    ),
    RuleInfo(
        code='GL604',
        name='amp-step-order',
        summary='mixed-precision step out of order: clip before `unscale_`, `optimizer.step()` on scaled gradients, no `scaler.update()`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('scale(',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl604_amp_step_order.rule',
        class_name='AmpStepOrder',
        doc=(
            '## What it does\n'
            'Flags three slips in a mixed-precision (`GradScaler`) training iteration that scales its\n'
            'loss with `scaler.scale(loss).backward()`:\n'
            'gradients clipped (`clip_grad_norm_` / `clip_grad_value_`) with no `scaler.unscale_(optimizer)`\n'
            'before; a plain `optimizer.step()` where `scaler.step(optimizer)` is needed; and\n'
            '`scaler.step(optimizer)` in a loop that never calls `scaler.update()`.\n'
            '\n'
            '## Why is this bad?\n'
            'The gradients are still multiplied by the scale (65,536 by default). In torch 2.13 (CPU\n'
            '`GradScaler`, SGD on a linear model, gradient norm 0.285): done right, three steps move the\n'
            'weights by 0.0807, as in full precision; clipping to 1 before `unscale_` sees a norm of\n'
            '18,690, and the step then divides the clipped gradients by the scale: the weights move by\n'
            '0.0000045 (training halts silently). `optimizer.step()` instead of `scaler.step()` applies the\n'
            'scaled gradients: one step moves the weights by 1,847.4 instead of 0.0282 (65,536 times too\n'
            'far), with no error (`scaler.update()` afterwards raises "No inf checks were recorded prior\n'
            'to update"). Without `scaler.update()` the second iteration raises ("step() has already been\n'
            'called since the last update()"), and the scale never adapts.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    with torch.autocast("cuda"):\n'
            '        loss = criterion(model(x), y)\n'
            '    scaler.scale(loss).backward()\n'
            '    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n'
            '    scaler.step(optimizer)\n'
            '    scaler.update()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    with torch.autocast("cuda"):\n'
            '        loss = criterion(model(x), y)\n'
            '    scaler.scale(loss).backward()\n'
            '    scaler.unscale_(optimizer)\n'
            '    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n'
            '    scaler.step(optimizer)\n'
            '    scaler.update()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: inserting `scaler.unscale_(optimizer)` before the clip (offered when the clip is a\n'
            'statement of its own line and one optimizer is stepped through the scaler after it) and\n'
            'replacing `optimizer.step()` by `scaler.step(optimizer)` change what the step does, on\n'
            'purpose. A missing `scaler.update()` has no fix.\n'
            '\n'
            '## Known limits\n'
            'Only loops that call `scaler.scale(loss).backward()` themselves (or through a function of\n'
            'the same file) are checked. Scalers built with `enabled=False`, scalers of other classes\n'
            "(DeepSpeed, Apex, custom ones), Accelerate's and Lightning's `clip_grad_norm_` (which unscale\n"
            'first), loops that also call `scaler.step` on some path, and iterations that hand the scaler\n'
            'to code of another file are not reported.'
        ),
    ),
    RuleInfo(
        code='GL605',
        name='distributed-sampler-without-set-epoch',
        summary='`DistributedSampler` loader iterated every epoch without `set_epoch(epoch)`: the same order each epoch',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('DistributedSampler',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl605_distributed_sampler_without_set_epoch.rule',
        class_name='DistributedSamplerWithoutSetEpoch',
        doc=(
            '## What it does\n'
            'Flags a training loop over a data loader that shuffles through a `DistributedSampler`, run\n'
            'once per epoch inside an epoch loop that never calls `sampler.set_epoch(epoch)` (or\n'
            '`loader.sampler.set_epoch(epoch)`).\n'
            '\n'
            '## Why is this bad?\n'
            'A `DistributedSampler` shuffles with the seed plus the epoch it was last given, so without\n'
            '`set_epoch` every epoch serves the same order. In torch 2.13, a sampler over 8 samples\n'
            '(`num_replicas=2`, `rank=0`) gave the batches `[[4, 7], [2, 1]]` in each of three epochs;\n'
            'with `set_epoch(epoch)`: `[[4, 7], [2, 1]]`, `[[5, 2], [7, 1]]`, `[[0, 7], [6, 1]]`. No\n'
            'warning: the model just sees the data in one fixed order, which hurts generalisation.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.utils.data import DataLoader, DistributedSampler\n'
            'sampler = DistributedSampler(dataset)\n'
            'loader = DataLoader(dataset, batch_size=32, sampler=sampler)\n'
            'for epoch in range(epochs):\n'
            '    for x, y in loader:\n'
            '        optimizer.zero_grad()\n'
            '        criterion(model(x), y).backward()\n'
            '        optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'from torch.utils.data import DataLoader, DistributedSampler\n'
            'sampler = DistributedSampler(dataset)\n'
            'loader = DataLoader(dataset, batch_size=32, sampler=sampler)\n'
            'for epoch in range(epochs):\n'
            '    sampler.set_epoch(epoch)\n'
            '    for x, y in loader:\n'
            '        optimizer.zero_grad()\n'
            '        criterion(model(x), y).backward()\n'
            '        optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: inserting `sampler.set_epoch(epoch)` at the top of the epoch loop changes the order\n'
            "the data is served in, on purpose. Offered when the epoch loop's variable is named like an\n"
            'epoch (`epoch`, `ep`, `cur_epoch`).\n'
            '\n'
            '## Known limits\n'
            'Only loaders built in the file with `DataLoader(..., sampler=...)` and a\n'
            '`torch.utils.data.DistributedSampler` are known (not samplers of other libraries, nor\n'
            '`shuffle=False` ones), and only loops over them that backpropagate or step an optimizer,\n'
            'nested in another loop of the same function. An epoch loop that hands the loader or the\n'
            'sampler to a function of another file, or builds them in each epoch, is not reported.'
        ),
    ),
    RuleInfo(
        code='GL606',
        name='method-not-called',
        summary='a training method is named but not called',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe',),
        triggers=('zero_grad', 'backward', 'step', 'update', 'eval', 'train', 'state_dict', 'parameters'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl606_method_not_called',
        class_name='MethodNotCalled',
        doc=(
            '## What it does\n'
            'Flags a training method named but not called, as a statement of its own: `optimizer.zero_grad`,\n'
            '`loss.backward`, `optimizer.step`, `scheduler.step`, `scaler.update`, `model.eval`,\n'
            '`model.train`; and a bound method passed where its result is meant:\n'
            '`torch.save({"model": model.state_dict}, path)`, `torch.optim.SGD(model.parameters, lr=0.1)`\n'
            '(`torch.save(model.state_dict, path)` itself is reported by GL510).\n'
            '\n'
            '## Why is this bad?\n'
            'An attribute read as a statement does nothing. Measured in torch 2.13 (a linear model, SGD with\n'
            'lr 0.1, three steps): without `zero_grad()` the weights end at `[-0.1019, -0.0706, -0.3219]`\n'
            'instead of `[-0.0490, 0.1269, -0.3985]` (gradients summed); without `backward()` or `step()`\n'
            'they never leave their initial `[-0.0043, 0.3097, -0.4752]`; a `StepLR(gamma=0.5)` whose\n'
            '`step` is not called keeps the rate at 0.1 instead of 0.05, 0.025, 0.0125; without\n'
            '`scaler.update()` the second `scaler.step(optimizer)` raises `RuntimeError: step() has already\n'
            'been called since the last update()`. `model.eval` leaves dropout on (two evaluations of the\n'
            "same input differ) and `model.train` after `eval()` leaves batch norm's running mean at 0.\n"
            '`torch.save({"model": model.state_dict}, f)` pickles the bound method, hence the whole module:\n'
            'the default `torch.load(f)` raises `UnpicklingError` (weights-only loading, torch 2.6 and\n'
            'later), and `load_state_dict` of the method that `weights_only=False` returns raises TypeError.\n'
            "`torch.optim.SGD(model.parameters, ...)` raises `TypeError: 'method' object is not iterable`.\n"
            'No error, no warning in the other cases.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'optimizer = torch.optim.SGD(model.parameters, lr=0.1)\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            'model.eval\n'
            'torch.save({"model": model.state_dict, "epoch": epoch}, "model.pt")\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            'model.eval()\n'
            'torch.save({"model": model.state_dict(), "epoch": epoch}, "model.pt")\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the fix adds `()`. The statement as written does nothing (or the call raises), and the\n'
            'call is the only reading of it; the training then does what the code says.\n'
            '\n'
            '## Known limits\n'
            '`zero_grad` and `backward` are reported on any object. `step`, `update`, `eval` and `train` are\n'
            'reported only on an object the file shows to be an optimizer, a learning-rate scheduler, a\n'
            'gradient scaler or a model (by its construction, or by a name playing that role: `optimizer`,\n'
            '`scheduler`, `scaler`, `model`, `self` in an `nn.Module`): `env.step` or `trainer.train` as a\n'
            'statement is a no-op too, but what it fails to do is not known. A `state_dict` or `parameters`\n'
            'attribute the file assigns (data, not a method) is left alone. Methods named in other\n'
            'expressions (`callbacks = [opt.step]`, `step = opt.step`) are not reported: they may be called later.'
        ),
    ),
    RuleInfo(
        code='GL607',
        name='context-manager-not-called',
        summary='a grad-mode or autocast context manager is never entered',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('no_grad', 'enable_grad', 'inference_mode', 'set_grad_enabled', 'autocast'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl607_context_manager_not_called.rule',
        class_name='ContextManagerNotCalled',
        doc=(
            '## What it does\n'
            "Flags torch's grad-mode and autocast context managers (`torch.no_grad`, `torch.enable_grad`,\n"
            '`torch.inference_mode`, `torch.set_grad_enabled`, `torch.autocast`, `torch.amp.autocast`,\n'
            '`torch.cuda.amp.autocast`, `torch.cpu.amp.autocast`, under any import form) that never take\n'
            'effect: named in a `with` without the call (`with torch.no_grad:`), used as a decorator\n'
            'without the call where torch does not accept that (`@torch.autocast`), or created by a\n'
            'statement of their own and dropped (`torch.no_grad()` on its own line).\n'
            '\n'
            '## Why is this bad?\n'
            'Measured under torch 2.13 (Python 3.11): `with torch.no_grad:` and the same `with` over every\n'
            "class above raise `TypeError: 'type' object does not support the context manager protocol`\n"
            '(Python 3.10 and earlier: `AttributeError: __enter__`), so the block never runs. As bare\n'
            'decorators, `@torch.autocast` and `@torch.amp.autocast` raise `ValueError` ("Expected\n'
            '`device_type` of type `str`") when the function is defined, `@torch.set_grad_enabled` raises\n'
            '`TypeError`, and `@torch.cuda.amp.autocast` / `@torch.cpu.amp.autocast` define the function\n'
            'without error but make every call of it raise `TypeError` ("autocast()(func) requires a\n'
            'callable"). A statement `torch.no_grad()` (or `torch.inference_mode()`, `torch.autocast("cpu")`)\n'
            'creates a context manager and drops it: silently nothing happens, `torch.is_grad_enabled()`\n'
            'stays `True` and the code after it keeps building graphs.\n'
            '`@torch.no_grad`, `@torch.enable_grad` and `@torch.inference_mode` without a call work (torch\n'
            '2.1 and later) and are not reported.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'with torch.no_grad:\n'
            '    prediction = model(x)\n'
            '\n'
            '@torch.cuda.amp.autocast\n'
            'def forward(x):\n'
            '    return model(x)\n'
            '\n'
            'torch.no_grad()\n'
            'evaluation = model(x)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'with torch.no_grad():\n'
            '    prediction = model(x)\n'
            '\n'
            '@torch.cuda.amp.autocast()\n'
            'def forward(x):\n'
            '    return model(x)\n'
            '\n'
            'with torch.no_grad():\n'
            '    evaluation = model(x)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe where the call needs no argument (`no_grad`, `enable_grad`, `inference_mode`,\n'
            '`torch.cuda.amp.autocast`, `torch.cpu.amp.autocast`): the fix adds `()`, which is the only\n'
            'reading of the code, and code that raised before now runs as written. `torch.autocast` needs\n'
            'its `device_type` and `set_grad_enabled` its mode, which gradlint cannot choose: no fix. A\n'
            'context manager created alone on a line gets no fix either: which statements it was meant to\n'
            'cover is not written anywhere.\n'
            '\n'
            '## Known limits\n'
            'A context manager class passed around under another name (`ctx = torch.no_grad`, then `with\n'
            "ctx:`) is not followed. A project's own wrappers (`@smart_inference_mode`) are not checked."
        ),
    ),
    RuleInfo(
        code='GL608',
        name='accumulation-without-loss-scaling',
        summary='gradients accumulated over k batches without dividing the loss by k: k times the learning rate',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('backward',),
        also_required=('step',),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl608_accumulation_without_loss_scaling',
        class_name='AccumulationWithoutLossScaling',
        doc=(
            '## What it does\n'
            'Flags gradient accumulation whose loss is not divided by the number of accumulated batches:\n'
            '`loss.backward()` runs every iteration, while the optimizer steps (and the gradients are\n'
            'reset) only every `k` iterations, under a guard such as `if (i + 1) % k == 0:`, and the loss\n'
            'is a mean that is never divided by `k` on its way to `backward()`.\n'
            '\n'
            '## Why is this bad?\n'
            'Gradients add up over the `k` backward calls, so each step applies the sum of `k` mean\n'
            'gradients: `k` times the gradient of the large batch it stands for, as if the learning rate\n'
            'were `k` times larger. In torch 2.13 (SGD, lr 0.1, `k = 4` batches of 8), one step without\n'
            'dividing moved the weights 1.2764, exactly 4 times as far as the step with the loss divided\n'
            'and as one SGD step over the same 32 samples (0.3191 both); with `k = 8` at lr 0.3 the loss\n'
            'reached 7.9e10 after 8 steps where the divided loss fell to 0.0113. No error or warning.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'for i, (x, y) in enumerate(loader):\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    if (i + 1) % accumulation_steps == 0:\n'
            '        optimizer.step()\n'
            '        optimizer.zero_grad()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'for i, (x, y) in enumerate(loader):\n'
            '    loss = criterion(model(x), y) / accumulation_steps\n'
            '    loss.backward()\n'
            '    if (i + 1) % accumulation_steps == 0:\n'
            '        optimizer.step()\n'
            '        optimizer.zero_grad()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: `loss.backward()` becomes `(loss / accumulation_steps).backward()` (the divisor taken\n'
            'from the `%` guard), which changes the size of every step on purpose. Offered when the\n'
            "backward's receiver (or the tensor passed to `scaler.scale`) is a plain name.\n"
            '\n'
            '## Known limits\n'
            'Silent when the loss is divided or multiplied anywhere on its way (`loss = loss / k`,\n'
            '`loss /= k`, `(loss / k).backward()`, a helper of the file that returns a divided loss), when\n'
            'its origin is not a plain mean loss (a criterion call, `F.*` loss, `outputs.loss`, `.mean()`),\n'
            'for losses reduced with `reduction="sum"` or `.sum()` (their sum over the `k` batches is the\n'
            "large batch's loss), when the stepping branch also backpropagates (a GAN's `n_critic`\n"
            'schedule), rescales or clips the gradients, when the gradients are reset every iteration,\n'
            "and under Accelerate's `accelerator.accumulate`.\n"
            '\n'
            'With an Adam-family optimizer a k-times larger gradient barely changes the update (the\n'
            "moment estimates normalise it, up to `eps`), so the effect is the loss's scale rather than k\n"
            'times the learning rate; it stays reported, since the optimizer or the accumulation may change.'
        ),
    ),
    RuleInfo(
        code='GL609',
        name='graph-severed-before-backward',
        summary='loss rebuilt from a value whose graph was cut, then backpropagated',
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('backward',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl609_graph_severed_before_backward.rule',
        class_name='GraphSeveredBeforeBackward',
        doc=(
            '## What it does\n'
            'Flags a backward pass on a tensor rebuilt from a loss whose graph was cut:\n'
            '`torch.tensor(loss.item(), requires_grad=True)`, a loss computed in numpy from\n'
            '`out.detach().numpy()` (or `.tolist()`, `float(loss)`) and wrapped with `torch.tensor`,\n'
            '`torch.from_numpy` or `Variable`, or `torch.tensor(loss)` copying a loss that has a graph;\n'
            'also when the rebuilt tensor is moved, reduced or scaled by plain numbers before `backward()`.\n'
            '\n'
            '## Why is this bad?\n'
            'The new tensor is a leaf with no path back to the model. Measured in torch 2.13 with a\n'
            "`Linear(4, 1)` and SGD (lr 0.1): with `requires_grad=True`, `backward()` runs, the model's `.grad`\n"
            'stays None and after 5 optimizer steps the weights are bitwise unchanged and the loss stays at\n'
            '2.2443 (the correct loop moves the weights by 0.51 and lowers the loss to 1.7992). Without `requires_grad=True`, `backward()` raises\n'
            '`RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn`\n'
            '(`torch.tensor(loss)` also warns "To copy construct from a tensor...").\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'loss = criterion(model(x), y)\n'
            'loss = torch.tensor(loss.item(), requires_grad=True)\n'
            'loss.backward()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'loss = criterion(model(x), y)\n'
            'loss.backward()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'No fix: the loss has to be rewritten with torch operations (numpy code has no gradient).\n'
            '\n'
            '## Known limits\n'
            'The cut must be applied to a value with evident history (a model or criterion call, a value\n'
            'computed from one) and the rebuilt tensor must reach `backward()` through names of the same\n'
            'function (the assignment each read sees) or through plain arithmetic with numbers: a loss\n'
            'rebuilt in a helper and returned, or added to a loss that still has a graph, is not reported.\n'
            'The forms GL402 reports are left to it: a loss detached or built under `no_grad` and\n'
            'backpropagated as it is, and a cut loss turned back on with `requires_grad_()` or\n'
            '`requires_grad = True` (GL402 reports the latter when it can prove the cut); this rule only\n'
            'reports tensors made by a constructor (`torch.tensor`, `torch.as_tensor`, `torch.from_numpy`,\n'
            'the typed `torch.FloatTensor`-style constructors, `Variable`) outside no-grad code.'
        ),
    ),
    RuleInfo(
        code='GL610',
        name='discarded-tensor-result',
        summary='the result of a non-in-place tensor method is thrown away',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('.abs(', '.add(', '.addbmm(', '.addcdiv(', '.addcmul(', '.addmm(', '.addmv(', '.addr(', '.as_strided(', '.baddbmm(', '.ceil(', '.clamp(', '.clamp_max(', '.clamp_min(', '.clip(', '.clone(', '.cos(', '.cumsum(', '.detach(', '.div(', '.exp(', '.expm1(', '.floor(', '.fmod(', '.index_add(', '.index_copy(', '.index_fill(', '.lerp(', '.log(', '.log1p(', '.log_softmax(', '.masked_fill(', '.mul(', '.nan_to_num(', '.neg(', '.pow(', '.reciprocal(', '.relu(', '.remainder(', '.round(', '.rsqrt(', '.scatter(', '.scatter_add(', '.sigmoid(', '.sign(', '.sin(', '.softmax(', '.sqrt(', '.square(', '.squeeze(', '.sub(', '.swapaxes(', '.swapdims(', '.t(', '.tanh(', '.transpose(', '.tril(', '.triu(', '.trunc(', '.unsqueeze(', '.cpu(', '.cuda(', '.to(', '.type(', '.bfloat16(', '.bool(', '.byte(', '.char(', '.double(', '.float(', '.half(', '.int(', '.long(', '.short(', '.type_as(', '.adjoint(', '.diagonal(', '.expand(', '.expand_as(', '.flatten(', '.moveaxis(', '.movedim(', '.narrow(', '.permute(', '.reshape(', '.select(', '.unflatten(', '.unfold(', '.view(', '.view_as(', '.contiguous('),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl610_discarded_tensor_result',
        class_name='DiscardedTensorResult',
        doc=(
            '## What it does\n'
            'Flags a statement that calls a tensor method returning a new tensor and drops the result:\n'
            'moves and casts (`x.to(device)`, `x.cuda()`, `x.cpu()`, `x.float()`, `x.half()`,\n'
            '`x.long()`, `x.type(torch.float32)`...), `x.clone()`, `x.detach()`, views (`x.view(n, -1)`,\n'
            '`x.reshape(...)`, `x.contiguous()`), activations (`x.softmax(dim)`) and the out-of-place twin\n'
            "of every in-place method of torch's API table (`x.abs()` of `abs_`, `x.exp()`,\n"
            '`x.sigmoid()`, `x.clamp(0, 1)`, `x.masked_fill(mask, v)`, `x.index_fill(...)`, `x.add(y)`...),\n'
            'where `x` is a tensor by the evidence of the file: every binding of the name is a tensor (a\n'
            "torch factory, a tensor method's result, a model's output, a part of a loader's batch, also\n"
            "in `for i, (x, y) in enumerate(loader)`, a model's parameter), or an attribute every method\n"
            'of the class binds to one.\n'
            '\n'
            '## Why is this bad?\n'
            'Unlike `Module.to()` (and `.cuda()`, `.float()`... of a module), which move and convert the\n'
            'module in place, tensor methods leave their receiver as it is. Measured in torch 2.13:\n'
            'after `x = torch.ones(2, dtype=torch.float64)`, the statements `x.float()` and\n'
            '`x.to(torch.float32)` leave `x.dtype` at `torch.float64`; `x.clamp(0, 1)` leaves values of 3.0;\n'
            '`h.detach()` leaves `h.requires_grad` True and its graph attached; `x.abs()`, `x.sigmoid()`,\n'
            '`x.masked_fill(mask, 0)` leave every value as it was (each twin of the table is measured so:\n'
            "a new tensor, the receiver's values, dtype, shape, strides and version unchanged). Nothing is\n"
            'reported at run time; the mistake surfaces later as a dtype or device mismatch error, a graph\n'
            'kept alive, or silently wrong numbers.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'for x, y in loader:\n'
            '    x.to(device)\n'
            '    y.long()\n'
            '    loss = criterion(model(x), y)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'for x, y in loader:\n'
            '    x = x.to(device)\n'
            '    y = y.long()\n'
            '    loss = criterion(model(x), y)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix rebinds the name to the result (`x = x.to(device)`), which changes what the\n'
            'code computes from there on (that is the point), and other holders of the old tensor (a list,\n'
            'a caller) still see the old one. It is offered only for a plain name that a later statement of\n'
            'the same block reads; elsewhere (an attribute, a value read by nobody after it) there is no fix:\n'
            'the in-place form (`x.clamp_(0, 1)`) or an assignment to the attribute may be what was meant.\n'
            '\n'
            '## Known limits\n'
            "A receiver with no evidence (a function's parameter, a name bound to the result of an unknown\n"
            "call or of `torch.load`, a module's `.requires_grad_(False)`, an attribute chain such as\n"
            '`self.linear.weight`, which may hold a quantized parameter whose `.cuda()` works in place) is\n'
            'not reported: it may be a module, a `BatchEncoding` or a PyG `Data`, whose `.to()` works in\n'
            'place. Receivers that evidently are modules (`model`, `net`, `self` in an\n'
            '`nn.Module`, a construction of a module class) are never reported. Results dropped inside\n'
            'larger expressions are not reported, nor the last statement of a notebook cell, whose value\n'
            'the notebook shows, nor a call in a `with pytest.raises(...)` block, which is there to raise.'
        ),
    ),
    RuleInfo(
        code='GL611',
        name='evaluation-without-no-grad',
        summary='an evaluation loop runs the model with autograd on',
        severity='warning',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('for',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl611_evaluation_without_no_grad',
        class_name='EvaluationWithoutNoGrad',
        doc=(
            '## What it does\n'
            'Flags a loop that evaluates a model (it iterates a validation or test set such as\n'
            '`val_loader` or `test_dataloader`, or iterates batches inside a function named `evaluate`,\n'
            '`validate` or `test`; calls the model; computes a metric or gathers predictions) with\n'
            'autograd on: no backward pass or optimizer step in it, and no `torch.no_grad()` or\n'
            '`torch.inference_mode()` around it, on its function, or around every call of that function\n'
            'in the file.\n'
            '\n'
            '## Why is this bad?\n'
            'With autograd on, every forward pass records a graph that holds the activations saved for a\n'
            'backward pass that never comes. Measured in torch 2.13: an evaluation over 20 batches that\n'
            'gathers the outputs kept all 20 input batches alive (and every output has a `grad_fn`); the\n'
            'same loop under `torch.no_grad()` kept none, with identical predictions and accuracy. When\n'
            'only numbers are kept, each batch still builds and frees a graph: slower, and the peak memory\n'
            'of a training step rather than of inference.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'def evaluate(model, val_loader):\n'
            '    correct = 0\n'
            '    for x, y in val_loader:\n'
            '        correct += (model(x).argmax(1) == y).sum().item()\n'
            '    return correct\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'def evaluate(model, val_loader):\n'
            '    correct = 0\n'
            '    with torch.no_grad():\n'
            '        for x, y in val_loader:\n'
            '            correct += (model(x).argmax(1) == y).sum().item()\n'
            '    return correct\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix wraps the loop in `with torch.no_grad():` (adding `import torch` when needed).\n'
            'The numbers computed are the same, but what the loop produces no longer requires grad nor\n'
            'holds a graph, which is the point; code that backpropagates through it would now fail. No fix\n'
            'for an `async for` loop or one that yields (no_grad would stay on in the caller).\n'
            '\n'
            '## Known limits\n'
            'Evaluation is recognised by names (data named as a validation or test split, or a function\n'
            'named like an evaluation), so a loop over `loader` in `predict(...)` is not reported. Not\n'
            'reported: loops that call `.backward()` or `.step()` (test-time adaptation, training), code\n'
            'that asks for gradients (`requires_grad_()`, `.grad`, `torch.autograd.grad`,\n'
            '`enable_grad`: adversarial evaluation, saliency), loops whose results a later backward reads,\n'
            "code under any grad-mode context (including a project's own `smart_inference_mode()` or a\n"
            'context kept in a variable), methods of Lightning modules and Hugging Face trainers (their\n'
            'evaluation hooks run without grad), module-level functions another file of the run calls\n'
            '(their callers may turn grad off), and test files. Models whose parameters are all frozen\n'
            'build no graph; that is not seen.\n'
            '\n'
            'A loop that keeps only `.item()` of each batch frees each graph at once: it costs the\n'
            'time to build the graphs, not memory that grows (one such finding on current code); it stays\n'
            'reported.'
        ),
    ),
    RuleInfo(
        code='GL612',
        name='scheduler-step-before-optimizer-step',
        summary='`scheduler.step()` runs before `optimizer.step()`: the first learning rate is skipped',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('lr_scheduler', 'SWALR'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl612_scheduler_step_before_optimizer_step',
        class_name='SchedulerStepBeforeOptimizerStep',
        doc=(
            '## What it does\n'
            'Flags `scheduler.step()` of a `torch.optim.lr_scheduler` scheduler that runs before the\n'
            "optimizer's `step()` in the same iteration: per batch (`scheduler.step(); optimizer.step()`)\n"
            'or per epoch, at the top of an epoch loop whose inner loop steps the optimizer.\n'
            '\n'
            '## Why is this bad?\n'
            "Since torch 1.1 the scheduler is stepped after the optimizer. Stepped first, the schedule's\n"
            'first value is never used and every change comes one step early. In torch 2.13 a `StepLR`\n'
            '(lr 0.1, `step_size=2`, `gamma=0.1`) stepped at the top of each of 5 epochs trained with\n'
            '`[0.1, 0.01, 0.01, 0.001, 0.001]` instead of `[0.1, 0.1, 0.01, 0.01, 0.001]`: the decay came an\n'
            'epoch early. torch warns once ("Detected call of `lr_scheduler.step()` before\n'
            '`optimizer.step()`"), and the warning is easily lost in a log.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'from torch.optim.lr_scheduler import StepLR\n'
            'scheduler = StepLR(optimizer, step_size=30)\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    criterion(model(x), y).backward()\n'
            '    scheduler.step()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'from torch.optim.lr_scheduler import StepLR\n'
            'scheduler = StepLR(optimizer, step_size=30)\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    criterion(model(x), y).backward()\n'
            '    optimizer.step()\n'
            '    scheduler.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the fix moves `scheduler.step()` to just after the optimizer step, the order torch\n'
            'documents. Offered when both are statements of their own line in the same block and nothing\n'
            'between them reads the learning rate or leaves the iteration.\n'
            '\n'
            '## Known limits\n'
            'Only schedulers built from `torch.optim.lr_scheduler` in the file are known; those of other\n'
            'libraries (timm, fairseq) take `step(epoch)` by design and are not reported, nor\n'
            '`ReduceLROnPlateau`, `step(epoch)` calls, conditional scheduler steps, schedulers built with\n'
            '`last_epoch=` (a resumed schedule), or loops entered after an optimizer has already stepped\n'
            '(a warm-up loop before them). An optimizer step in a function of\n'
            'another file is not seen.'
        ),
    ),
    RuleInfo(
        code='GL613',
        name='carried-state-not-detached',
        summary='recurrent state carried across backpropagating iterations without detach',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('backward',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl613_carried_state_not_detached.rule',
        class_name='CarriedStateNotDetached',
        doc=(
            '## What it does\n'
            "Flags a recurrent state (an RNN's hidden state, an LSTM's `(h, c)`) that a loop passes to a\n"
            'model and binds back from its result (`out, h = rnn(x, h)`), when the loop backpropagates every\n'
            'iteration and nothing in it detaches the state (`h = h.detach()`, `repackage_hidden(h)`,\n'
            '`h.detach_()`) or starts it afresh.\n'
            '\n'
            '## Why is this bad?\n'
            "The next iteration's graph hangs off the previous one. Measured in torch 2.13 with an `nn.RNN`\n"
            'fed 6 chunks: the second `loss.backward()` raises `RuntimeError: Trying to backward through\n'
            'the graph a second time`. The usual "fix", `backward(retain_graph=True)`, raises `one of the\n'
            'variables needed for gradient computation has been modified by an inplace operation` at the\n'
            'same point when `optimizer.step()` runs in between, and without a step the graph reachable from\n'
            '`h` grows by 26 nodes every iteration (29, 55, 81, ... 159 after 6 chunks), each backward\n'
            'walking all of it. With `h = h.detach()` at the top of the iteration the graph stays at 29 nodes\n'
            'and the model trains (truncated backpropagation through time).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'h = torch.zeros(1, batch, hidden)\n'
            'for x, y in chunks:\n'
            '    out, h = rnn(x, h)\n'
            '    loss = criterion(head(out), y)\n'
            '    optimizer.zero_grad()\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'h = torch.zeros(1, batch, hidden)\n'
            'for x, y in chunks:\n'
            '    h = h.detach()\n'
            '    out, h = rnn(x, h)\n'
            '    loss = criterion(head(out), y)\n'
            '    optimizer.zero_grad()\n'
            '    loss.backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: `h = h.detach()` at the top of the iteration stops gradients at the chunk boundary,\n'
            'which is what the loop can run with, but it changes what is learned when the code meant to\n'
            'backpropagate through the whole sequence (then the backward belongs after the loop). Offered only\n'
            'when one state is carried and it starts as a tensor before the loop (not `None` or a tuple,\n'
            "whose `.detach()` would fail; for an LSTM's state write `h = tuple(s.detach() for s in h)`).\n"
            '\n'
            '## Known limits\n'
            'The model is recognised by its name (`model`, `rnn`, `lstm`, `gru`, `cell`, `encoder`...) or\n'
            'a `torch.nn` module built in the function, and the backward must run in every iteration (not\n'
            'under an `if`). Nothing is reported when the state is bound or detached anywhere else in the\n'
            'loop (a conditional reset or a truncation every k steps included), when the call runs under\n'
            'no-grad, or when a `forward` of the file returns detached values. State kept on an object\n'
            '(`self.h`) is not followed.'
        ),
    ),
    RuleInfo(
        code='GL614',
        name='step-before-pending-backward',
        summary='optimizer step changes parameters a pending backward needs',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('step',),
        also_required=('backward',),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl614_step_before_pending_backward.rule',
        class_name='StepBeforePendingBackward',
        doc=(
            '## What it does\n'
            'Flags a `backward()` on a loss computed through a network whose optimizer has stepped since:\n'
            'in a GAN, `g_loss = bce(D(fake), ones)` computed first, then `d_loss.backward(); opt_d.step()`,\n'
            "then `g_loss.backward()`; in an actor-critic update, the actor's loss computed through the\n"
            "critic before the critic's step.\n"
            '\n'
            '## Why is this bad?\n'
            '`optimizer.step()` changes the parameters in place, and the pending graph saved them to compute\n'
            'its gradients. Measured in torch 2.13 with two small MLPs: `g_loss.backward()` raises\n'
            '`RuntimeError: one of the variables needed for gradient computation has been modified by an\n'
            'inplace operation: [torch.FloatTensor [8, 1]], which is output 0 of AsStrided, is at version 2;\n'
            'expected version 1 instead`, and the generator never takes its step (the same happens to the\n'
            'actor). Recomputing the loss after the step trains the generator (its weights move by 0.044 in\n'
            'one step). torch 0.3 ran the backward silently with the updated weights, a gradient of no\n'
            'loss that was ever computed.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'opt_d = torch.optim.Adam(D.parameters())\n'
            'fake = G(z)\n'
            'd_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)\n'
            'g_loss = bce(D(fake), ones)\n'
            'd_loss.backward()\n'
            'opt_d.step()\n'
            'g_loss.backward()\n'
            'opt_g.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'opt_d = torch.optim.Adam(D.parameters())\n'
            'fake = G(z)\n'
            'd_loss = bce(D(real), ones) + bce(D(fake.detach()), zeros)\n'
            'd_loss.backward()\n'
            'opt_d.step()\n'
            'g_loss = bce(D(fake), ones)\n'
            'g_loss.backward()\n'
            'opt_g.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe, and offered only for a plain move: the loss is bound by one statement alone on its\n'
            'line, in the same block as the step, that calls the stepped network itself; the fix moves it\n'
            'to just after the step, so the loss is computed through the updated network (as\n'
            "pytorch/examples' DCGAN does). That changes numbers relative to torch < 0.4, whose backward\n"
            'combined the activations saved with the old weights and the new weights: measured on the\n'
            "fixture's GAN step (two small MLPs, SGD with lr 0.1), the generator's loss goes from 0.6783 to\n"
            '0.6836 and its gradient changes by at most 0.00055, its largest entry being 0.0995; random\n'
            'operations in the network (dropout) draw again. Moving the backward before the step instead\n'
            'would keep the old weights, change that gradient by up to 0.0023, and would have to go before\n'
            "the discriminator's `zero_grad()`. No fix when the move is not plain: the loss is used in\n"
            'between, an input is rebound or changed in place in between, or an input with history is used\n'
            "elsewhere without `.detach()` (`D(fake)` in the discriminator's loss shares G's graph with it,\n"
            'and the moved statement would raise "Trying to backward through the graph a second time").\n'
            '\n'
            '## Known limits\n'
            'Reported only when the optimizer is built in the file over `network.parameters()`, the loss is\n'
            'computed from a call of that network (directly or through names bound before the step, not\n'
            'detached, not under no-grad) whose input is the output of another network (`D(G(z))`,\n'
            "`critic(s, actor(s))`: the network's weights are then saved for the backward), in the same body\n"
            'as the step and the backward, the step is not under an `if`, and a backward runs between the\n'
            "optimizer's reset and its step (a step before any backward, or right after its own reset, is\n"
            "GL203's mistake: GL203 reports the step, this rule the backward, never both for one step).\n"
            'A loss through the stepped network fed plain data (`model(x)` with `x` from a loader) is not\n'
            'reported: there the weights are often not saved and the backward silently gives the\n'
            'pre-step gradient. Losses built in helpers, unpacked from tuples or kept in containers are\n'
            'not followed.'
        ),
    ),
    RuleInfo(
        code='GL701',
        name='module-container-not-registered',
        summary='sub-modules in a Python list/dict attribute, or a `requires_grad` tensor attribute, are not registered',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('__init__',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl701_module_container_not_registered',
        class_name='ModuleContainerNotRegistered',
        doc=(
            '## What it does\n'
            'Flags, in the `__init__` of an `nn.Module` subclass, sub-modules built there and held in a\n'
            'Python `list`, `tuple` or `dict` attribute (a display, a comprehension, or `self.xs = []` filled\n'
            'with `self.xs.append(nn.Linear(...))`) that is never wrapped later, and tensors created with\n'
            '`requires_grad=True` assigned as attributes instead of `nn.Parameter`.\n'
            '\n'
            '## Why is this bad?\n'
            '`nn.Module` registers only modules, parameters and buffers assigned directly as attributes, or\n'
            'held in `nn.ModuleList` / `nn.ModuleDict` / `nn.ParameterList`. Measured in torch 2.13 on a model\n'
            'with a head `nn.Linear(3, 1)`, two `nn.Linear(3, 3)` in a list and a `torch.ones(3,\n'
            'requires_grad=True)` attribute: `parameters()` yields 2 tensors (4 values) instead of 7 (31\n'
            'values), `state_dict()` has only `head.weight` and `head.bias` (a checkpoint silently drops\n'
            'the blocks), `model.double()` leaves the blocks and the tensor in float32 (and `.cuda()` leaves\n'
            'them on the CPU), and an SGD step over `model.parameters()` leaves them unchanged: they are\n'
            'never trained. `model.eval()` does not reach a `Dropout` or `BatchNorm` in the list either.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.blocks = [nn.Linear(3, 3) for _ in range(2)]\n'
            '        self.scale = torch.ones(3, requires_grad=True)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.blocks = nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])\n'
            '        self.scale = nn.Parameter(torch.ones(3))\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix wraps the container in `nn.ModuleList(...)` (a list, a tuple, a comprehension\n'
            'whose items are all modules built there, or `[]` filled by `append`) or `nn.ModuleDict({...})`\n'
            '(string keys that can name a sub-module: not empty, without a dot), and a tensor in `nn.Parameter(...)` (without its `requires_grad=True`, the\n'
            'default of a parameter). The modules and the tensor are then registered: `state_dict()` gains\n'
            'keys (`blocks.0.weight`, `scale`), so checkpoints saved before do not load with `strict=True`,\n'
            'an optimizer built from `parameters()` now trains them, and `.to()` moves them. That is the\n'
            'intent, but it changes what the model saves and trains.\n'
            '\n'
            '## Known limits\n'
            'Only modules built in the container are reported (`nn.X(...)`, a module class of this file, a\n'
            'torchvision or timm model), never modules passed in: `self._frozen = [teacher]` is a way to hide\n'
            'a module from `parameters()` and `state_dict()` on purpose. A container of parameter-free\n'
            "layers is not reported: `nn.ReLU()`, pooling, torchaudio's transforms without parameters, and\n"
            'module classes of this file that build only such layers and store only plain values (numbers,\n'
            "arguments with a number as default). torchaudio's `Resample`, `Spectrogram` or\n"
            '`MelSpectrogram` keep buffers computed from their arguments (a kernel, a window, a\n'
            'filterbank), so a checkpoint loses nothing, but `.to()` does not move those buffers: the first\n'
            "call on another device raises, unless the module moves itself (speechbrain's `Resample` does).\n"
            'Which torchaudio transforms hold no parameter was measured with torchaudio 2.11; a later\n'
            'release that gives one of them parameters is not known here. The rule is silent when the attribute is\n'
            'assigned again anywhere in the class (`self.layers = nn.ModuleList(self.layers)`), when it is\n'
            'passed to a module (`nn.Sequential(*self.layers)`), or when the class registers modules by hand\n'
            '(`add_module`, `register_module`, `setattr`). A tensor attribute is not reported when the file\n'
            'puts it in a list or passes it to an optimizer (`Adam([self.log_alpha])`: trained on its own on\n'
            'purpose), or registers parameters by hand.'
        ),
    ),
    RuleInfo(
        code='GL702',
        name='submodule-replaced-after-optimizer',
        summary="sub-module replaced after the optimizer was built from the model's parameters",
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('parameters(',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl702_submodule_replaced_after_optimizer',
        class_name='SubmoduleReplacedAfterOptimizer',
        doc=(
            '## What it does\n'
            'Flags a sub-module put into a model (`model.fc = nn.Linear(...)`, `model.add_module(...)`,\n'
            "`setattr(model, name, module)`) after an optimizer was built from that model's parameters in\n"
            'the same function, when the optimizer is used afterwards (stepped, or handed to a call) and\n'
            'neither rebuilt nor given the new parameters with `add_param_group` in between.\n'
            '\n'
            '## Why is this bad?\n'
            'The optimizer holds the parameter tensors it was given when it was built. Measured in torch\n'
            '2.13: with `SGD(model.parameters(), lr=0.1)` built before `model.fc = nn.Linear(4, 2)`, the new\n'
            "head's weights get gradients but after 3 steps they are bitwise unchanged (largest change 0.0);\n"
            "none of the new head's tensors is among the optimizer's parameters, which still hold the old\n"
            "head's 10 numbers, detached from the model. Fine-tuning trains nothing of the new head, and no\n"
            'error or warning says so.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'import torchvision\n'
            '\n'
            'model = torchvision.models.resnet18()\n'
            'optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n'
            'model.fc = nn.Linear(512, 10)\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    criterion(model(x), y).backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'import torchvision\n'
            '\n'
            'model = torchvision.models.resnet18()\n'
            'model.fc = nn.Linear(512, 10)\n'
            'optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n'
            'for x, y in loader:\n'
            '    optimizer.zero_grad()\n'
            '    criterion(model(x), y).backward()\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "No fix: the optimizer's construction has to move after the replacement (or its parameter\n"
            'groups be extended), which may reorder code with side effects in between.\n'
            '\n'
            '## Known limits\n'
            "The optimizer's construction, the replacement and the later use must be in one function (or\n"
            'the module body), each running after the other on one path: a replacement inside an `if` the\n'
            'use is not in is reported only when the use is in the same branch. The new value must\n'
            'evidently be a module with parameters (a `torch.nn` layer, a module class of the file, a\n'
            'torchvision model); `nn.Identity()`, activations, pooling and dropout hold none and are not\n'
            "reported. The optimizer must be built from the model's `parameters()` or `named_parameters()`\n"
            '(directly, through a filter or a parameter group, or through a name bound to them just before).\n'
            'A rebinding of the model or of the optimizer, or any use of `add_param_group`,\n'
            '`param_groups` or `load_state_dict` on the optimizer after the replacement, silences the rule.'
        ),
    ),
    RuleInfo(
        code='GL703',
        name='parameters-generator-reused',
        summary='a `model.parameters()` generator consumed twice: the second consumer gets nothing',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('parameters(', 'buffers(', 'children(', 'modules('),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl703_parameters_generator_reused',
        class_name='ParametersGeneratorReused',
        doc=(
            '## What it does\n'
            'Flags a name bound to `model.parameters()` (or `named_parameters()`, `buffers()`,\n'
            '`children()`, `modules()` and their `named_` forms), which return one-shot generators, that is\n'
            'consumed a second time: by two optimizers, by an optimizer and `clip_grad_norm_`, by `list()`\n'
            'and then an optimizer, by two `for` loops, or by one consumer inside a loop that the binding is\n'
            'outside of.\n'
            '\n'
            '## Why is this bad?\n'
            'The first consumer exhausts the generator; the second iterates nothing. Measured in torch\n'
            '2.13 with an `nn.Linear(4, 2)`: after `optimizer = SGD(params)`, `clip_grad_norm_(params, 1e-3)`\n'
            'returns `tensor(0.)`, clips nothing (the gradient norm stays 0.77) and only warns\n'
            '"`parameters` is an empty generator, no gradient clipping will occur"; a second optimizer\n'
            'raises `ValueError: optimizer got an empty parameter list`; `list(params)` gives 2 tensors the\n'
            'first time and 0 the second; `dict(named_parameters)` a second time is empty. A\n'
            '`clip_grad_norm_(params, 1.0)` inside the training loop clips in the first step only.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'params = model.parameters()\n'
            'optimizer = torch.optim.SGD(params, lr=0.1)\n'
            'for x, y in loader:\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    torch.nn.utils.clip_grad_norm_(params, 1.0)\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'params = list(model.parameters())\n'
            'optimizer = torch.optim.SGD(params, lr=0.1)\n'
            'for x, y in loader:\n'
            '    loss = criterion(model(x), y)\n'
            '    loss.backward()\n'
            '    torch.nn.utils.clip_grad_norm_(params, 1.0)\n'
            '    optimizer.step()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: `list(model.parameters())` at the binding holds the same tensors in the same order, and\n'
            'every consumer now sees all of them, which is what the code asks for. The fix is offered only\n'
            'when every read of the name iterates it (loops, comprehensions, `list()`, `sum()`, optimizers,\n'
            '`clip_grad_norm_`, through `filter`/`map`/`zip`/`enumerate`); where the name is also stored,\n'
            'returned or handed to another function, the finding has no fix.\n'
            '\n'
            '## Known limits\n'
            'Only plain names bound in the same function (or module body) and read there are followed; an\n'
            'attribute (`self.params`), a generator handed to a helper, or reads inside nested functions\n'
            'and lambdas are not. Both consumers must run on one path: the second in a later statement of\n'
            "the first's block (in different branches of an `if` nothing is reported). A loop with a\n"
            '`break` or `return` (it may run once) does not count as repeating. Any `next(params)` makes\n'
            'the name silent: the code relies on the generator. Files that import another tensor\n'
            "framework (Paddle's `parameters()` returns a list) are skipped."
        ),
    ),
    RuleInfo(
        code='GL704',
        name='parameter-moved-after-wrapping',
        summary='`nn.Parameter(t).cuda()`: a conversion after wrapping gives a plain tensor',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('safe',),
        triggers=('Parameter',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl704_parameter_moved_after_wrapping',
        class_name='ParameterMovedAfterWrapping',
        doc=(
            '## What it does\n'
            'Flags `self.w = nn.Parameter(t).cuda()` (or `.to(...)`, `.cpu()`, `.double()`, `.float()`,\n'
            '`.half()`, `.bfloat16()`) in a method of an `nn.Module` subclass: the conversion is applied to\n'
            'the parameter after it is made.\n'
            '\n'
            '## Why is this bad?\n'
            'A conversion that copies returns a new tensor computed from the parameter: a plain\n'
            '`torch.Tensor`, not a leaf, with a `grad_fn`. `nn.Module.__setattr__` registers only\n'
            '`Parameter` values, so the attribute is an ordinary tensor. Measured in torch 2.13 with\n'
            '`self.weight = nn.Parameter(torch.randn(3)).double()`: `named_parameters()` and\n'
            '`state_dict()` do not contain `weight`, an SGD step over `model.parameters()` leaves it\n'
            'unchanged, its `.grad` stays None (with a UserWarning on reading it), and\n'
            "`torch.optim.SGD([model.weight])` raises `ValueError: can't optimize a non-leaf Tensor`.\n"
            'With `requires_grad=False` the result is a plain tensor missing from `state_dict()`. When the\n'
            'conversion changes nothing (`.to("cpu")` of a CPU tensor, `.float()` of a float32 one) it\n'
            'returns the parameter itself, registered: the code works on one machine and not on another.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.weight = nn.Parameter(torch.randn(3)).double()\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.weight = nn.Parameter(torch.randn(3).double())\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the conversion moves inside the call, onto the data (`nn.Parameter(t.double())`), and\n'
            'the other arguments (`requires_grad=False`) stay. When the conversion copies, the result is a\n'
            'registered parameter holding the same values, on the device and with the dtype the code asked\n'
            'for (as a parameter, it is then saved, moved and trained: what the code meant). When it does\n'
            'not copy, `t.to(d)` is `t` and both forms give the same registered `Parameter(t)`.\n'
            '\n'
            '## Known limits\n'
            'Only an assignment to an attribute of the instance in a method of an `nn.Module` subclass of the\n'
            'file is reported; a parameter converted elsewhere (a local variable, a function) is not.'
        ),
    ),
    RuleInfo(
        code='GL705',
        name='tensor-from-tensor',
        summary='`torch.tensor(t)` on a tensor: a warning and a copy; use `t.detach().clone()`',
        severity='warning',
        fix_availability='always',
        fix_applicabilities=('safe', 'unsafe'),
        triggers=('tensor(',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl705_tensor_from_tensor',
        class_name='TensorFromTensor',
        doc=(
            '## What it does\n'
            'Flags `torch.tensor(t)` where `t` is evidently a tensor (the result of a public torch function\n'
            "such as `torch.zeros` or `torch.nn.functional.*`, a tensor method's result on one, a name every\n"
            'binding of which in the function is one) that carries no autograd history.\n'
            '\n'
            '## Why is this bad?\n'
            '`torch.tensor` is meant for Python data and numpy arrays. Given a tensor, torch 2.13 copies it\n'
            'and warns on every call: "UserWarning: To copy construct from a tensor, it is recommended to\n'
            'use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True),\n'
            'rather than torch.tensor(sourceTensor)." The copy has no history. Measured in torch 2.13,\n'
            '`t.detach().clone()` gives the same result as `torch.tensor(t)` for float, integer, bool and\n'
            'half tensors and 0-d tensors: same values, dtype (a float32 source stays float32 even with a\n'
            'float64 default dtype), device, strides (a transposed `(3, 4)` source keeps strides `(1, 4)`\n'
            'in both, a channels-last source keeps its layout in both), new storage, a leaf without\n'
            '`requires_grad`; `dtype=`/`device=` equal `.to(dtype=..., device=...)` after the copy and\n'
            '`requires_grad=True` equals `.requires_grad_(True)` (a leaf that requires grad). The one\n'
            'difference: under `torch.set_default_device(...)` or a `with torch.device(...)` block,\n'
            '`torch.tensor(t)` builds on that device (a CPU source under `"meta"` gives a meta tensor) while\n'
            "`t.detach().clone()` stays on `t`'s device.\n"
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'mean = torch.zeros(3)\n'
            'running = torch.tensor(mean, dtype=torch.float64)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'mean = torch.zeros(3)\n'
            'running = mean.detach().clone().to(dtype=torch.float64)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: the rewrite keeps values, dtype, device, layout and `requires_grad` as measured above,\n'
            'and drops the warning. Unsafe where a default device may be in effect: in files that call\n'
            '`torch.set_default_device` or enter `with torch.device(...)`, and in methods of `nn.Module`\n'
            'classes, which are often built under a caller\'s `with torch.device("meta")`: there the copy\n'
            "would stay on the source's device.\n"
            '\n'
            '## Known limits\n'
            "A source with autograd history (a model's output, a parameter, a loss) is not reported: the\n"
            'copy severs the graph, and whether that is wanted is not known here (GL609 reports such a copy\n'
            "that reaches `backward()`). Sources whose type is not evident (a function's parameter, a\n"
            'numpy array, a list of tensors, the result of a private or helper function, even inside the\n'
            '`torch` package, an attribute) are not reported. Calls with other arguments\n'
            '(`pin_memory=`, a `*args`) are not reported.\n'
            '\n'
            '`torch.tensor(t)` of a 0-dim tensor copies one number and warns once: true, cheap, and\n'
            'reported all the same.'
        ),
    ),
    RuleInfo(
        code='GL706',
        name='direct-forward-call',
        summary="`module.forward(x)` is called directly, bypassing the module's hooks",
        severity='error',
        fix_availability='always',
        fix_applicabilities=('unsafe',),
        triggers=('.forward(',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl706_direct_forward_call',
        class_name='DirectForwardCall',
        doc=(
            '## What it does\n'
            'Flags `module.forward(x)`, the `forward` method of an `nn.Module` called directly, on a module\n'
            'the file builds (`model = Net()`, `self.encoder = nn.LSTM(...)`), instead of calling the\n'
            'module itself: `module(x)`, in a file that attaches code only the call runs (a hook, a\n'
            "hook-based utility such as `weight_norm` or pruning, FSDP's `fully_shard`, `m.compile()`).\n"
            '\n'
            '## Why is this bad?\n'
            '`nn.Module.__call__` runs the forward pre-hooks, then `forward`, then the forward hooks;\n'
            '`module.forward(x)` runs `forward` alone. Measured in torch 2.13 on an `nn.Linear(3, 2)` with\n'
            'a forward hook and a forward pre-hook that count their calls: after `m.forward(x)` both counts\n'
            'are 0, after `m(x)` both are 1; with a hook that returns `output * 0`, `m(x)` gives\n'
            '`[0, 0]` and `m.forward(x)` the unhooked `[-0.3109, -1.0260]`. What is built on hooks is\n'
            'silently skipped: feature extractors, pruning and weight-normalisation pre-hooks\n'
            "(`torch.nn.utils.weight_norm`), the parameter gathering of FSDP's `fully_shard`; and a model\n"
            'compiled in place (`model.compile()`) runs uncompiled: 0 frames compiled after\n'
            '`model.forward(x)`, 1 after `model(x)`.\n'
            '\n'
            'Measured in torch 2.13, each of these attaches what `m.forward(x)` skips: the backward\n'
            'hooks (`register_full_backward_hook`, `register_full_backward_pre_hook`,\n'
            "`register_backward_hook`: 1 call after `m(x)`'s backward, 0 after `m.forward(x)`'s) and their\n"
            'global twins of `torch.nn.modules.module`; `torch.nn.utils.weight_norm` and `spectral_norm`\n'
            '(a pre-hook recomputes the weight: after an update of `weight_g`, `m.forward(x)` uses the\n'
            'stale weight, and a second training step through it raises `RuntimeError: Trying to\n'
            'backward through the graph a second time`); `torch.nn.utils.prune` (a pre-hook applies the\n'
            'mask to the updated weight); `fully_shard` and `parallelize_module` (`m.forward(x)` raises\n'
            "`RuntimeError: aten.addmm.default got mixed torch.Tensor and DTensor`); quantization's\n"
            '`prepare` and `prepare_qat` (the observers never see the input; the fake-quantised output\n'
            'differs).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torchvision\n'
            '\n'
            'model = torchvision.models.resnet18()\n'
            'model.layer4.register_forward_hook(keep_features)\n'
            'logits = model.forward(images)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torchvision\n'
            '\n'
            'model = torchvision.models.resnet18()\n'
            'model.layer4.register_forward_hook(keep_features)\n'
            'logits = model(images)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: calling the module runs its hooks and its in-place compilation, which is the point,\n'
            'but it changes what the call does when hooks are registered (with none, the result is the same).\n'
            '\n'
            '## Known limits\n'
            'Reported only in a file that attaches such code to a module: it registers a hook (or a global\n'
            'module hook), compiles a module in place (`m.compile()` on a name or attribute the file\n'
            "knows as a module: not `re.compile`, nor a CUDA program's `compile()`), or calls `weight_norm`,\n"
            '`spectral_norm`, a `torch.nn.utils.prune` function, `fully_shard`, `parallelize_module`,\n'
            '`prepare` or `prepare_qat`. Elsewhere `m.forward(x)` computes what `m(x)` does as far as the\n'
            "file shows, and on current code such calls (a test's verbatim copy of a reference model, a\n"
            "tutorial's `model.forward(x)`, `self.layers.forward(h)` on an `nn.Sequential`, whose\n"
            "children's hooks still run) were style, not bugs: not reported. Machinery attached in\n"
            'another file (a trainer registering hooks on the model it is given, a script sharding the\n'
            "layers of a model built here, DeepSpeed's ZeRO-3) is not seen. Parametrizations\n"
            '(`torch.nn.utils.parametrize`, `parametrizations.weight_norm`) work through attribute\n'
            'access and `torch.compile(m)` returns a new module leaving `m` as it was: `m.forward(x)`\n'
            'and `m(x)` agree under them (measured), so they are no evidence.\n'
            '\n'
            'Reported only on a module the file builds: a name bound in the same function only to module\n'
            'constructions (`nn.X(...)`, a module class of the file, a torchvision model, also through\n'
            "`.to(device)` or `.eval()`), or an attribute that the class's methods bind only to those\n"
            '(`self.encoder = Encoder()`). A model passed in as a parameter, loaded, or built by a factory\n'
            '(`timm.create_model`, `from_pretrained`) is not reported, nor `self.forward(...)`,\n'
            '`super().forward(...)`, `Base.forward(self, ...)` (a class delegating to its parent), nor a\n'
            "wrapper's `self.module.forward(...)` on a module it was given: such calls bypass hooks on\n"
            'purpose as often as not. Nor a `DistributedDataParallel` or `DataParallel` wrapper, whose\n'
            'own `forward` does its work. `torch.compile(model).forward(x)` is compiled (measured: 1 frame)\n'
            'and is not reported either.'
        ),
    ),
    RuleInfo(
        code='GL707',
        name='training-flag-assigned',
        summary='`model.training` is assigned, so the sub-modules keep their mode',
        severity='error',
        fix_availability='always',
        fix_applicabilities=('unsafe',),
        triggers=('.training',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl707_training_flag_assigned',
        class_name='TrainingFlagAssigned',
        doc=(
            '## What it does\n'
            'Flags `model.training = True` / `model.training = False` on an `nn.Module`: the mode is set by\n'
            'assigning the flag instead of calling `model.train(...)` / `model.eval()`.\n'
            '\n'
            '## Why is this bad?\n'
            '`training` is a plain attribute of each module; `model.train(mode)` sets it on the model and\n'
            "every sub-module. The assignment sets the model's own flag only, and its layers keep their\n"
            'mode. Measured in torch 2.13 with `nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5),\n'
            'nn.BatchNorm1d(4))`: after `net.training = False` the model reports `False` but its three\n'
            'children report `True`, two passes over the same batch differ (dropout still drops) and batch\n'
            "norm's running mean moves (to `[0.0299, 0.0408, -0.0555, -0.1386]` after two passes). After\n"
            '`net.train(False)` every child is `False` and the two passes are equal.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torchvision\n'
            '\n'
            'model = torchvision.models.resnet18()\n'
            'model.training = False\n'
            'predictions = model(images)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torchvision\n'
            '\n'
            'model = torchvision.models.resnet18()\n'
            'model.train(False)  # or model.eval()\n'
            'predictions = model(images)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: `model.train(<bool>)` changes the mode of every sub-module too, which is the intent,\n'
            "and also runs any `train` override of the model's classes.\n"
            '\n'
            '## Known limits\n'
            'Reported for `True` and `False` literals on an object the file shows to be a module: `self` in\n'
            'a method of a module class of the file, a name or attribute bound to a module construction, or\n'
            "a name that plays the model's role (`model`, `net`, `encoder`...) and is not bound to anything\n"
            'else. Never inside a `train(self, mode)` override, where `self.training = mode` is how the mode\n'
            'is set, nor in `__init__` (a flag set while the module is built; its caller sets the mode of\n'
            'the whole model afterwards), nor on objects of other classes (trainers, configs, tasks with a `training` flag). A\n'
            'flag restored from a variable (`module.training = was_training`) is not reported: code that\n'
            'saves and restores modes one module at a time does it on purpose, and neither is a function\n'
            'that sets modes of sub-modules itself (`child.train(False)`, `m.training = False`), nor a\n'
            'layer the file builds without sub-modules (`self.bn = nn.BatchNorm1d(n)`; `self.bn.training =\n'
            'False` is then its whole mode, as `train(False)` would set it).'
        ),
    ),
    RuleInfo(
        code='GL708',
        name='layer-built-in-forward',
        summary='a layer with parameters is constructed inside `forward`, so it is re-initialised at every call',
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('forward',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl708_layer_built_in_forward',
        class_name='LayerBuiltInForward',
        doc=(
            '## What it does\n'
            'Flags a `torch.nn` layer with parameters (`nn.Linear`, `nn.Conv2d`, `nn.BatchNorm2d`,\n'
            '`nn.LayerNorm`, `nn.Embedding`, `nn.LSTM`..., or an `nn.Sequential` holding one) constructed\n'
            'inside the `forward` of an\n'
            '`nn.Module` subclass and called there, directly (`nn.Linear(4, 2)(x)`) or through a local name\n'
            '(`fc = nn.Linear(4, 2)` then `fc(x)`); and a dropout layer built the same way\n'
            '(`nn.Dropout(0.5)(x)`).\n'
            '\n'
            '## Why is this bad?\n'
            'The layer is a new module at every call: new random parameters each time, never registered on\n'
            'the model. Measured in torch 2.13 with `nn.Linear(4, 2)(x)` in `forward`: the model has 0\n'
            'parameters and an empty `state_dict()`, `torch.optim.SGD(model.parameters(), lr=0.1)` raises\n'
            '`ValueError: optimizer got an empty parameter list`, and two calls on the same input give\n'
            'different outputs (`[0.0336, 0.4624]`, then `[0.1108, -0.7591]`). Next to a trained layer the\n'
            'optimizer runs, but the rebuilt layer is never trained: its output for a fixed seed is the same\n'
            'before and after a step. A new module is also always in training mode: `nn.Dropout(0.5)(x)` in\n'
            '`forward` keeps dropping after `model.eval()` (two evaluation passes over a tensor of ones give\n'
            '`[2, 0, 0, 0, 2, 0, 0, 0]` and `[0, 2, 0, 2, 0, 2, 0, 2]`).\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn as nn\n'
            '\n'
            'class Head(nn.Module):\n'
            '    def forward(self, x):\n'
            '        return nn.Linear(16, 4)(x)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn as nn\n'
            '\n'
            'class Head(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.fc = nn.Linear(16, 4)\n'
            '\n'
            '    def forward(self, x):\n'
            '        return self.fc(x)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "No fix: the layer's place in `__init__`, its attribute name and its input sizes are choices\n"
            'the code does not state (and the state-dict keys change).\n'
            '\n'
            '## Known limits\n'
            'Reported only in `forward` itself of a module class of the file, for layers of `torch.nn`\n'
            '(module classes of the file or of other libraries built in `forward` are not reported, as their\n'
            'parameters are not known). Layers whose parameters are switched off\n'
            '(`nn.LayerNorm(d, elementwise_affine=False)`, `nn.BatchNorm1d(n, affine=False)`,\n'
            '`nn.InstanceNorm2d(c)`) and parameterless layers (`nn.ReLU()`, `nn.Flatten()`, pooling,\n'
            '`nn.Upsample`) are not reported: built per call they compute what their functional form\n'
            'computes. Dropout is the exception, as its mode matters; it is not reported when `forward`\n'
            'tests `self.training` (a layer used only in training mode). GL603 reports the functional\n'
            '`F.dropout` without `training=`; `nn.Dropout(p)(x)` is reported here only. A layer bound to a\n'
            'local name is reported only when the name is just called (not stored on `self`, returned or\n'
            'passed on), and lazy initialisation (`if self.fc is None: self.fc = nn.Linear(...)`) assigns\n'
            'an attribute, which is not this pattern.'
        ),
    ),
    RuleInfo(
        code='GL709',
        name='module-init-without-super',
        summary='an `nn.Module` subclass whose `__init__` never calls `super().__init__()`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('safe',),
        triggers=('__init__',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl709_module_init_without_super',
        class_name='ModuleInitWithoutSuper',
        doc=(
            '## What it does\n'
            'Flags an `nn.Module` subclass whose `__init__` never calls the base initialiser: no\n'
            '`super().__init__()`, `super(Net, self).__init__()`, `nn.Module.__init__(self)` or\n'
            '`Base.__init__(self, ...)` anywhere in the class, when that breaks something: `__init__`\n'
            'assigns a sub-module, parameter or buffer to `self` (or registers one, or calls a method\n'
            "such as `self.apply(...)` that needs the module's state), which raises while the instance is\n"
            'built, or the file uses an instance as a module (calls it, moves it, asks for its\n'
            'parameters or state, registers it in another module), which raises there.\n'
            '\n'
            '## Why is this bad?\n'
            '`nn.Module.__init__` creates the dictionaries that hold parameters, buffers, sub-modules and\n'
            'hooks. Without it, measured in torch 2.13: `self.fc = nn.Linear(2, 2)` raises\n'
            '`AttributeError: cannot assign module before Module.__init__() call`, `self.w = nn.Parameter(...)`\n'
            'raises `AttributeError: cannot assign parameters before Module.__init__() call`, and\n'
            '`register_buffer` raises `... cannot assign buffer before Module.__init__() call`. A class\n'
            'that only stores plain values is constructed, then breaks at first use: calling it raises\n'
            "`AttributeError: 'Net' object has no attribute '_backward_hooks'`, and `.parameters()`,\n"
            "`.to()`, `.train()` and `repr()` raise `AttributeError: 'Net' object has no attribute\n"
            "'_parameters'` (or `'_modules'`), and so do `.parameters()` and `.to()` of a module it was\n"
            'registered in. What needs none of that state works: its own methods (`sampler.sample(t)`),\n'
            'plain attributes, `m.forward(x)`, `isinstance`, pickling.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        self.fc = nn.Linear(2, 2)\n'
            '    def forward(self, x):\n'
            '        return self.fc(x)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.fc = nn.Linear(2, 2)\n'
            '    def forward(self, x):\n'
            '        return self.fc(x)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            "Safe, offered when the class's only base is `nn.Module`: `super().__init__()` is inserted as\n"
            'the first statement of `__init__` (after its docstring). `nn.Module.__init__` takes no\n'
            'argument the class could have meant, and runs before anything it sets up, as any module does;\n'
            'the code that raised then runs. With another base (a torch layer, a class of this file) the\n'
            'arguments it needs are not known: no fix.\n'
            '\n'
            '## Known limits\n'
            'A class whose `__init__` stores only plain values is reported only when the file uses an\n'
            'instance as a module (`Net()(x)`, `net = Net(); net.to(device)`, `net.parameters()`,\n'
            '`self.block = Net()` in a module class, `nn.Sequential(Net())`): on current code such classes\n'
            "were used only through a helper method or a plain attribute (a sampler's `.sample()`, a test\n"
            'mock read for its `.config`) or never built, and worked. An instance used as a module by\n'
            'another file, or after being handed to a function, is not seen. Sub-modules, parameters\n'
            'and buffers count when `__init__` builds them where it assigns them (`nn.Linear(...)`, a\n'
            'module class of the file, `nn.Parameter(...)`, `nn.Buffer(...)`); a module made by a\n'
            'helper (`self.fc = make_layer()`) is not known to be one.\n'
            '\n'
            'Reported when every base is `nn.Module`, a torch.nn module class, or a class of this file that\n'
            'is provably a module; or when such bases come first and other classes after them\n'
            "(`class Net(nn.Module, Mixin)`: `nn.Module`'s methods come first in its method resolution\n"
            'order, and `Mixin.__init__` never runs either) and `__init__` is undecorated, and no method\n'
            'of the class calls a method of `self` the file does not show or passes `self` to a call (code\n'
            'the file does not show could initialise the module there). A base from another file listed first may initialise it:\n'
            'not reported. A class written twice is checked once per definition (the later one is the\n'
            "class its name means). Any `X.__init__(...)` call in the class's methods silences the rule,\n"
            'also in a nested function that is called (not in a class nested in them, which initialises\n'
            'its own instances, nor a bare `super().__init__()` in a nested function without parameters,\n'
            'which raises `RuntimeError: super(): no arguments`), as do a decorated class, a metaclass,\n'
            '`__new__`, and an `__init__` that raises.'
        ),
    ),
    RuleInfo(
        code='GL710',
        name='misspelt-forward',
        summary='an `nn.Module` subclass with a misspelt `forward` and no `forward`',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('Module',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl710_misspelt_forward',
        class_name='MisspeltForward',
        doc=(
            '## What it does\n'
            'Flags an `nn.Module` subclass that defines no `forward` (itself or in the classes of the file\n'
            'it derives from) but a method whose name is a misspelling of it: `foward`, `forwad`,\n'
            '`fowrard`, `forwrd`, `Forward` (two edits at most, case ignored).\n'
            '\n'
            '## Why is this bad?\n'
            "`nn.Module.__call__` runs `self.forward`, and `nn.Module`'s own `forward` only raises. Measured\n"
            'in torch 2.13: `Net()(x)` raises `NotImplementedError: Module [Net] is missing the required\n'
            '"forward" function`. The class builds, its parameters are registered and an optimizer accepts\n'
            'them; the error comes at the first call.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.fc = nn.Linear(2, 1)\n'
            '    def foward(self, x):\n'
            '        return self.fc(x)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn as nn\n'
            'class Net(nn.Module):\n'
            '    def __init__(self):\n'
            '        super().__init__()\n'
            '        self.fc = nn.Linear(2, 1)\n'
            '    def forward(self, x):\n'
            '        return self.fc(x)\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Unsafe: the fix renames the method to `forward`, offered only when nothing else in the file\n'
            'names it (no `self.foward(x)`, no `"foward"` string). Calling the module then runs the method\n'
            'instead of raising; code in other files that calls `net.foward(x)` by name would break.\n'
            '\n'
            '## Known limits\n'
            'Reported only when every base outside the file is `nn.Module` itself (a torch layer has its own\n'
            '`forward`), the class and its ancestors of the file define neither `forward` nor `__call__`\n'
            'nor assign `self.forward`, and no subclass in the file defines `forward` (an abstract base).\n'
            'Names with an underscore (`forward_features`, `_forward`, `forward_train`) and real words\n'
            '(`toward`, `onward`, `forwards`; `backward` and `reward` are three edits away) are not\n'
            'misspellings.'
        ),
    ),
    RuleInfo(
        code='GL711',
        name='load-state-dict-result-ignored',
        summary='`load_state_dict(..., strict=False)` whose missing and unexpected keys are ignored',
        severity='error',
        fix_availability='none',
        fix_applicabilities=(),
        triggers=('load_state_dict',),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=True,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl711_load_state_dict_result_ignored.rule',
        class_name='LoadStateDictResultIgnored',
        doc=(
            '## What it does\n'
            'Flags `model.load_state_dict(state_dict, strict=False)` written as a statement of its own, so\n'
            'that the `_IncompatibleKeys(missing_keys, unexpected_keys)` it returns is thrown away, when the\n'
            'state dict is a checkpoint file\'s content as read (`torch.load(path)`, `ckpt["model"]` of\n'
            'one, `safetensors.torch.load_file`, `torch.hub.load_state_dict_from_url`) and nothing in the\n'
            'function adapts its keys or looks at the keys the load reports.\n'
            '\n'
            '## Why is this bad?\n'
            'With `strict=False` a key that does not match is skipped without an error. Measured in torch\n'
            '2.13: loading the state dict of `nn.Sequential(nn.Linear(4, 2))` (keys `0.weight`, `0.bias`)\n'
            'into an `nn.Linear(4, 2)` with `strict=False` loads nothing; the weights stay bitwise as they\n'
            'were, nothing is printed, and the only trace is the return value\n'
            "`_IncompatibleKeys(missing_keys=['weight', 'bias'], unexpected_keys=['0.weight', '0.bias'])`.\n"
            'With the default `strict=True` the same call raises `RuntimeError: Error(s) in loading\n'
            'state_dict for Linear: Missing key(s) in state_dict: "weight", "bias". Unexpected key(s) ...`.\n'
            'A checkpoint saved from a `DataParallel` model (keys prefixed `module.`) or from a wrapped\n'
            'model is the usual case: training or evaluation then runs from random weights.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch\n'
            '\n'
            'model.load_state_dict(torch.load(path), strict=False)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch\n'
            '\n'
            'result = model.load_state_dict(torch.load(path), strict=False)\n'
            'if result.missing_keys or result.unexpected_keys:\n'
            '    print(f"missing: {result.missing_keys}, unexpected: {result.unexpected_keys}")\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'No fix: what to do with keys that do not match (fail, log, or accept a known list) is the\n'
            "code's decision.\n"
            '\n'
            '## Known limits\n'
            'Partial loading on purpose is common, so only the clearest case is reported: the literal\n'
            '`strict=False` in a call written as a statement of its own, given a checkpoint as read from a\n'
            'file. Not reported: a result that is assigned, returned, logged or asserted; a function that\n'
            'reads `missing_keys` / `unexpected_keys` anywhere; a state dict built to match the model\n'
            '(filtered by a comprehension, `intersect_dicts(...)`, keys renamed, popped or deleted in the\n'
            "function, another module's `state_dict()`, as when a ControlNet is initialised from a UNet);\n"
            "a state dict handed in by the caller (an EMA copy, a hook's argument); files that import\n"
            'another tensor framework. Nor the partial loads made on purpose: in a file that builds adapter,\n'
            'LoRA or PEFT layers (any identifier naming them: `lora_r`, `LoraConfig`, `get_peft_model`,\n'
            '`add_adapter`), whose base checkpoint lacks those weights; into a model whose layers the\n'
            'function replaced or deleted before the load (`model.fc = nn.Identity()`); and a load followed\n'
            'in the same function by an assertion about the model or a value taken from it\n'
            '(`assert torch.allclose(model(x), reference)`, `self.assertEqual(...)`).\n'
            '\n'
            'What is still reported is a checkpoint read from a file into a model the function did not\n'
            'change, with neither check nor log. On current code most of those restore a model from its own\n'
            'training run (a VQGAN, a StyleGAN generator, a language model for decoding), where\n'
            '`strict=False` hides nothing today but would hide a renamed key tomorrow; a partial load set up\n'
            'another way is reported too: a model built from a config the function edited (fewer layers),\n'
            "or a checkpoint holding only some layers by design (LPIPS's linear heads over a backbone loaded\n"
            'elsewhere). A submodule given its part of a checkpoint\n'
            '(`self.encoder.load_state_dict(ckpt["encoder"], strict=False)`) is reported like a whole model.\n'
            'A check made in another function or file (a test comparing outputs elsewhere) is not seen.\n'
            '\n'
            'So the rule is off by default: on 38 current repositories (bench/PRECISION.md) none of its\n'
            'findings hid a mismatch, and a maintainer would act on none. Turn it on\n'
            '(`--extend-select GL711`) where checkpoints come from elsewhere or keys get renamed.'
        ),
    ),
    RuleInfo(
        code='GL712',
        name='dropout-parameter-attribute',
        summary='A module attribute set to `F.dropout(param, ...)`: when it does not drop, it is the `Parameter` itself, which the module then registers',
        severity='error',
        fix_availability='sometimes',
        fix_applicabilities=('unsafe',),
        triggers=('dropout',),
        also_required=(),
        migration='api',
        fixes_first=False,
        opt_in=False,
        visits=True,
        failure=None,
        judges_noqa=False,
        module='gradlint.rules.gl712_dropout_parameter_attribute',
        class_name='DropoutParameterAttribute',
        doc=(
            '## What it does\n'
            'Flags a module attribute set to the result of `F.dropout` of what may be a parameter\n'
            '(`setattr(self.module, name_w, w)` after `w = F.dropout(raw_w, p=..., training=self.training)`),\n'
            'as the widely copied `WeightDrop` of awd-lstm-lm does, unless the call provably drops\n'
            '(`training=True` with a literal `p` above 0).\n'
            '\n'
            '## Why is this bad?\n'
            'When it does not drop (`training=False`, or `p=0`), `F.dropout` returns its argument itself: the\n'
            '`nn.Parameter`. Assigning a `Parameter` to a module attribute registers it as a parameter of\n'
            'that module, and from then on the module accepts nothing else under that name. Measured under\n'
            'torch 2.13 with `WeightDrop(nn.Linear(3, 2), ["weight"], dropout=0.5)`: a training pass, an\n'
            'evaluation pass, then the next training pass raises `TypeError: cannot assign\n'
            "'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)`; after an\n"
            "evaluation pass `state_dict()` also gains a `weight` entry beside `weight_raw`. PyTorch 0.3's\n"
            'dropout returned a new `Variable`, never the `Parameter`.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'import torch.nn.functional as F\n'
            'from torch import nn\n'
            '\n'
            'class WeightDrop(nn.Module):\n'
            '    def _setweights(self):\n'
            '        raw_w = getattr(self.module, "weight_raw")\n'
            '        w = F.dropout(raw_w, p=self.dropout, training=self.training)\n'
            '        setattr(self.module, "weight", w)\n'
            '```\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'import torch.nn.functional as F\n'
            'from torch import nn\n'
            '\n'
            'class WeightDrop(nn.Module):\n'
            '    def _setweights(self):\n'
            '        raw_w = getattr(self.module, "weight_raw")\n'
            '        w = F.dropout(raw_w, p=self.dropout, training=self.training)\n'
            '        setattr(self.module, "weight", w.view_as(w))\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'The fix assigns `w.view_as(w)`: a plain tensor viewing the same values (bitwise), with the\n'
            "same gradient, as 0.3's dropout gave. Unsafe: after an evaluation pass, `state_dict()` no longer\n"
            'holds the registered duplicate (`weight` beside `weight_raw`), which a checkpoint saved then\n'
            'would have had; training passes compute the same numbers.\n'
            '\n'
            '## Known limits\n'
            'The value must come from a dropout of what may be a parameter: a `Parameter`, a `.weight` or\n'
            '`.bias`, an attribute the class sets to an `nn.Parameter`, or `getattr` of a module. A\n'
            'dropout result assigned inline (`setattr(m, n, F.dropout(...))`) is reported without a fix.\n'
            "Writing into `module._parameters[name]` directly (fastai's `WeightDropout`) registers nothing\n"
            'and is not reported.'
        ),
    ),
    RuleInfo(
        code='GL900',
        name='unused-noqa',
        summary='`# noqa` codes that suppress nothing',
        severity='warning',
        fix_availability='always',
        fix_applicabilities=('safe',),
        triggers=('noqa', 'NOQA'),
        also_required=(),
        migration=None,
        fixes_first=False,
        opt_in=True,
        visits=False,
        failure=None,
        judges_noqa=True,
        module='gradlint.rules.gl900_unused_noqa',
        class_name='UnusedNoqa',
        doc=(
            '## What it does\n'
            'Reports `# noqa: GLxxx` codes that suppress nothing on their line, codes that name no\n'
            "gradlint rule (`GL999`), and codes written twice. It is ruff's `RUF100` for gradlint's codes.\n"
            '\n'
            '## Why is this bad?\n'
            'A stale `# noqa` outlives the code it was written for. After a migration has removed the\n'
            '`Variable(...)` call that `# noqa: GL101` excused, the comment stays behind and silently hides\n'
            'the next `Variable(...)` anyone writes on that line, and a misspelt code (`GL1O1`, `GL999`)\n'
            'suppresses nothing while it looks as if it did.\n'
            '\n'
            '## Example\n'
            '```python\n'
            'x = batch.detach()  # noqa: GL101, GL999\n'
            '```\n'
            '\n'
            'With GL101 selected and `batch` no longer wrapped in `Variable(...)`, both codes are reported:\n'
            'GL101 as unused, GL999 as unknown.\n'
            '\n'
            '## Use instead\n'
            '```python\n'
            'x = batch.detach()\n'
            '```\n'
            '\n'
            '## Fix safety\n'
            'Safe: only the comment changes. The unused, unknown and duplicated codes are removed; the\n'
            'other codes and the rest of the comment are kept (`# noqa: GL101 see #12` becomes\n'
            '`# see #12`), and a `# noqa` left with no code is removed.\n'
            '\n'
            '## Known limits\n'
            'Off unless selected, as `RUF100` is in ruff: `--extend-select GL900` (or a `select` that\n'
            'names `GL900`, `GL9`, `GL` or `ALL`). Only `GL` codes are judged: codes of other tools\n'
            '(`# noqa: E501`) and a bare `# noqa` are left alone. A code of a rule that is not selected\n'
            'for the file (by `--select`, `ignore`, `per-file-ignores` or `# gradlint: noqa: GL101`)\n'
            'cannot be judged and is left alone too (ruff reports such codes as non-enabled). A line\n'
            'whose `# noqa` names `GL900` itself is not judged. Under `--ignore-noqa` and in the flake8\n'
            'plugin (where flake8 handles `# noqa`) it reports nothing.'
        ),
    ),
)
