"""How fast is the 30-turn comparison of notebook 07?

Measures, in one run:
  1. the slider step: looking up and rendering one turn for all six strategies
     (``comparison_view``), median over all 30 slider positions; goal ≤ 50 ms;
  2. the same for the extraction visualiser (``extraction_view``);
  3. the whole replay of the scenario with the six strategies, and the
     extractions, median of a few runs; goal ≤ 1 s;
and prints the slider step beside what it would cost to replay on every move.

    .venv/bin/python benchmarks/bench_replay.py
"""
from __future__ import annotations

import statistics
import time

from teachmem import load_scenario
from teachmem.lab.replay import comparison_strategies, extractions, replay
from teachmem.app.comparison import comparison_view, extraction_view


def timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def main() -> None:
    scenario = load_scenario("project_30")
    strategies = comparison_strategies()
    turns = range(1, len(scenario) + 1)
    replay_s = statistics.median(timed(replay, scenario, strategies) for _ in range(5))
    extract_s = statistics.median(timed(extractions, scenario) for _ in range(5))
    results, extracted = replay(scenario, strategies), extractions(scenario)
    for turn in turns:   # warm up
        comparison_view(results, turn)
    step_s = statistics.median(timed(comparison_view, results, t) for t in turns)
    step_max = max(timed(comparison_view, results, t) for t in turns)
    extraction_step_s = statistics.median(timed(extraction_view, extracted, t) for t in turns)

    print(f"{'what':<52}{'ms':>10}{'goal ms':>10}{'ratio':>8}")
    rows = [("slider step: comparison, median of 30 turns", step_s, 0.050),
            ("slider step: comparison, slowest of 30 turns", step_max, 0.050),
            ("slider step: extraction visualiser, median", extraction_step_s, 0.050),
            (f"whole replay, {len(strategies)} strategies × {len(scenario)} turns", replay_s, 1.0),
            ("extractions for the visualiser, all turns", extract_s, 1.0)]
    for name, seconds, goal in rows:
        print(f"{name:<52}{seconds * 1e3:>10.2f}{goal * 1e3:>10.0f}{seconds / goal:>8.3f}")
    print(f"\nreplaying on every slider move instead would cost {(replay_s + step_s) / step_s:,.0f}× the lookup")


if __name__ == "__main__":
    main()
