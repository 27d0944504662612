"""Execute notebooks in place, top to bottom, each on a fresh kernel.

This is how the stored outputs are made: nbval later re-runs every notebook
and compares against them. Widget state is stripped from the metadata (it is
large and changes every run); cell outputs stay.

    python tools/run_notebooks.py notebooks/*.ipynb
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)
    print(f"executed {path}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in sys.argv[1:]:
        run(Path(name))
