"""Versions of real legacy training files as someone edits them: for the tests that compare what
is computed from a document's last version with what is computed from scratch."""

from __future__ import annotations

import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / "tests" / "data" / "legacy_scripts"
# Real training code of 2017-18: the 24 longest files of the vendored legacy projects.
REAL_FILES = sorted(sorted(LEGACY.rglob("*.py"), key=lambda path: -len(path.read_text(encoding="utf-8").splitlines()))[:24])

# What an edit inserts where a statement can go: legacy constructs, training steps, names the
# rules follow, and a new function.
STATEMENTS = [
    "x = Variable(x, volatile=True)",
    "loss.backward()",
    "optimizer.step()",
    "optimizer.zero_grad()",
    "model.eval()",
    "model.train()",
    "print(loss.data[0])",
    "total += loss",
    "inputs = inputs.cuda(async=True)",
    "with torch.no_grad():\n{indent}    out = model(x)",
    "for p in model.parameters():\n{indent}    p.requires_grad = False",
]
TYPED = ["x", "_", "1", " ", ".", "(", ")", ",", ":", "#", "'", '"""', "\\", "[", "]", "data", "backward"]


def edited(text: str, rng: random.Random) -> str:
    """`text` after one edit an editor could make: typing or deleting within a line, a line
    copied, deleted or moved, a statement inserted at a line's indentation, a name changed."""
    lines = text.splitlines(keepends=True) or ["\n"]
    row = rng.randrange(len(lines))
    line = lines[row]
    indent = line[: len(line) - len(line.lstrip())]
    choice = rng.random()
    if choice < 0.2:
        column = rng.randrange(len(line) + 1)
        lines[row] = line[:column] + rng.choice(TYPED) + line[column:]
    elif choice < 0.3:
        column = rng.randrange(len(line) + 1)
        lines[row] = line[:column] + line[column + rng.randrange(1, 4) :]
    elif choice < 0.45:
        lines.insert(row, lines[rng.randrange(len(lines))])
    elif choice < 0.55:
        del lines[row : row + rng.randrange(1, 3)]
    elif choice < 0.8:
        statement = rng.choice(STATEMENTS).format(indent=indent)
        lines.insert(row, f"{indent}{statement}\n")
    else:
        names = re.findall(r"[A-Za-z_]\w*", text)
        found = re.findall(r"[A-Za-z_]\w*", line)
        if found and names:
            old = rng.choice(found)
            lines[row] = re.sub(rf"\b{re.escape(old)}\b", rng.choice(names), line, count=1)
    return "".join(lines)


def compiles(text: str) -> bool:
    try:
        compile(text, "<edit>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def edits(text: str, rng: random.Random, count: int):
    """`count` versions after `text`, as someone types: most edits leave code that runs; now and
    then one breaks it, and the next version takes it back."""
    last_good = text
    for _ in range(count):
        if not compiles(text):
            text = last_good
        else:
            last_good = text
            for _ in range(20):
                text = edited(last_good, rng)
                if compiles(text) or rng.random() < 0.1:
                    break
        yield text
