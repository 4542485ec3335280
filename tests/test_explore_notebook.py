"""notebooks/explore.ipynb runs from top to bottom on the demo graph, so it cannot rot."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "explore.ipynb"


def test_explore_notebook_runs_on_the_demo_graph_and_leaves_no_folder_in_the_temp_dir(demo_store_path, monkeypatch,
                                                                                       tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("CODEWALK_STORE", str(demo_store_path))  # the kernel inherits it
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))  # the kernel's tempfile.gettempdir()
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) == 3  # the three figures were drawn
    text = "\n".join(o.get("data", {}).get("text/plain", "") for o in outputs)
    assert "reference" in text and "unchanged" in text  # both pretend models were graded
    # its working folder (export, predictions) is made with tempfile; its last cell removes it
    assert [p.name for p in temp.iterdir() if p.name.startswith("codewalk-notebook-")] == []
