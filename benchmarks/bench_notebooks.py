"""How much do the notebooks cost under nbval, beyond starting kernels?

Runs, in one process and one after the other:
  1. every notebook in notebooks/ under strict nbval (as `make test` does);
  2. the same number of empty notebooks under nbval: the kernel-start floor.
and prints both times and their ratio. Goal: the series costs at most 2× the floor.

    .venv/bin/python benchmarks/bench_notebooks.py
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NBVAL = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval", "--nbval-current-env",
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg")]


def timed(paths: list[Path], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(NBVAL + [str(p) for p in paths], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"nbval failed:\n{result.stdout[-3000:]}")
    return elapsed


def main() -> None:
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    with tempfile.TemporaryDirectory() as tmp:
        empties = []
        for nb in notebooks:
            empty = nbformat.v4.new_notebook()
            empty.cells = [nbformat.v4.new_code_cell("pass", execution_count=1)]
            empty.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
            path = Path(tmp) / nb.name
            nbformat.write(empty, path)
            empties.append(path)
        shutil.copy(ROOT / "tests" / "nbval_sanitize.cfg", tmp)
        floor = timed(empties, Path(tmp))
    series = timed(notebooks, ROOT)
    print(f"{'what':<34}{'seconds':>9}")
    print(f"{len(notebooks)} notebooks of the series{'':<9}{series:>9.1f}")
    print(f"{len(notebooks)} empty notebooks (kernel floor){'':<3}{floor:>9.1f}")
    print(f"{'ratio series / floor':<34}{series / floor:>9.2f}   (goal ≤ 2.00)")


if __name__ == "__main__":
    main()
