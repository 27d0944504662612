"""Execute notebooks in place, top to bottom, each on a fresh kernel.

This is how the stored outputs are made: nbval later re-runs every notebook
and compares against them. Widget state is stripped from the metadata (it is
large and changes every run); cell outputs stay, with consecutive pieces of one
stream (a cell's prints arrive in as many pieces as the kernel flushed) merged
into one, so a re-run stores the same JSON for the same text. The repository's
own location is cut out of tracebacks and printed text ("teachmem/memory/x.py",
not the path on the machine that ran it).

    python tools/run_notebooks.py notebooks/*.ipynb
"""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = str(Path(__file__).resolve().parents[1]) + "/"


def merged_streams(outputs: list) -> list:
    """``outputs`` with each run of consecutive stdout (or stderr) pieces joined into one output."""
    merged: list = []
    for out in outputs:
        last = merged[-1] if merged else None
        if out.output_type == "stream" and last is not None and last.output_type == "stream" \
                and last.name == out.name:
            last.text += out.text
        else:
            merged.append(out)
    return merged


def without_root(outputs: list) -> list:
    """``outputs`` with the repository's absolute path removed from tracebacks and streams."""
    for out in outputs:
        if out.output_type == "error":
            out.traceback = [line.replace(ROOT, "") for line in out.traceback]
        elif out.output_type == "stream":
            out.text = out.text.replace(ROOT, "")
    return outputs


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = without_root(merged_streams(cell.outputs))
    nbformat.write(nb, path)
    print(f"executed {path}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for name in sys.argv[1:]:
        run(Path(name))
