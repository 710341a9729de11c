"""Legacy notebooks, migrated by `gradlint fix --migrate`, run headless in a real Jupyter kernel
under torch 2.13 and compute what the original (or its modern form) computes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
torch = pytest.importorskip("torch")

DATA = Path(__file__).parent / "data" / "notebooks"


def run_in_one_kernel(paths: list[Path], directory: Path) -> list[object]:
    """Each notebook executed cell by cell in one `python3` kernel (started once: a kernel and
    torch take seconds to start), its namespace reset in between. For each notebook, what its
    cells printed, or the error that stopped it."""
    notebooks = [nbformat.read(path, as_version=4) for path in paths]
    client = nbclient.NotebookClient(notebooks[0], kernel_name="python3", timeout=120, resources={"metadata": {"path": str(directory)}})
    reset = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("%reset -f")])
    results: list[object] = []
    with client.setup_kernel():
        for notebook in notebooks:
            client.nb = reset  # the client stores each executed cell into its notebook
            client.execute_cell(reset.cells[0], 0)
            client.nb = notebook
            try:
                for index, cell in enumerate(notebook.cells):
                    if cell.cell_type == "code":
                        client.execute_cell(cell, index)
            except nbclient.exceptions.CellExecutionError as error:
                results.append(error)
                continue
            results.append([_printed(cell) for cell in notebook.cells if cell.cell_type == "code"])
    return results


def _printed(cell) -> str:
    return "".join(output.get("text", "") for output in cell.get("outputs", []) if output.get("name") == "stdout")


def migrate(tmp_path: Path) -> tuple[Path, Path]:
    """Copies of the legacy notebooks (`originals/`) and of them migrated (`migrated/`)."""
    originals, migrated = tmp_path / "originals", tmp_path / "migrated"
    shutil.copytree(DATA, originals)
    shutil.copytree(DATA, migrated)
    done = subprocess.run(
        [sys.executable, "-m", "gradlint", "fix", "--no-cache", "--migrate", "--unsafe-fixes", "."],
        cwd=migrated,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Fixed 7 errors, 0 remaining." in done.stdout
    return originals, migrated


def modern_regression() -> list[str]:
    """What the regression notebook prints, written for torch 2 by hand."""
    torch.manual_seed(0)
    x = torch.randn(64, 3)
    y = x.mm(torch.tensor([[1.5], [-2.0], [0.5]]))
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(50):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    prediction = model(torch.randn(8, 3))
    with torch.no_grad():
        score = model(torch.randn(4, 3))
    return [
        f"final loss {losses[-1]:.10f}",
        f"prediction sum {prediction.sum().item():.10f}",
        f"score requires grad: {score.requires_grad}",
    ]


def test_migrated_legacy_notebooks_run_in_a_kernel_and_compute_the_same_numbers(tmp_path):
    originals, migrated = migrate(tmp_path)
    regression, data_updates = "legacy_regression.ipynb", "legacy_data_updates.ipynb"
    old_regression, old_updates, new_regression, new_updates = run_in_one_kernel(
        [originals / regression, originals / data_updates, migrated / regression, migrated / data_updates], tmp_path
    )

    # `loss.data[0]` stops the original under torch 2; the migrated notebook runs as its modern form does.
    assert isinstance(old_regression, Exception) and "IndexError" in str(old_regression)
    printed = "".join(new_regression)
    assert new_regression[0].strip() == "preparing data"  # the shell escape ran
    for line in modern_regression():
        assert line in printed, printed

    # The original of the `.data` notebook runs under torch 2: the migrated one prints the same.
    assert not isinstance(old_updates, Exception), old_updates
    assert new_updates == old_updates
    weights = json.loads(new_updates[1].splitlines()[0])
    assert weights == pytest.approx([2.0, -1.0, 0.25], abs=1e-2)  # it trained
    assert new_updates[-1] == "done\n"  # the `%%bash` cell ran
