"""Checkers for the notebook exercises.

Each checker takes *your* function, runs it on a few cases, compares with the
reference and prints one clear line: ✅ passed, ❌ what differs, or ⏳ not
implemented yet for an untouched stub (a stub raises ``NotImplementedError``;
the checker catches it, so the notebook still runs top to bottom). Every
checker also returns a ``CheckResult`` that is truthy only on a pass, so
tests can prove it passes a right answer and fails a wrong one.
"""
from __future__ import annotations

import functools
import random
from typing import Callable


class CheckResult:
    """True when the check passed. Shows nothing in a notebook: the line is already printed."""

    def __init__(self, passed: bool, message: str):
        self.passed, self.message = passed, message

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"CheckResult(passed={self.passed}, message={self.message!r})"

    def _ipython_display_(self) -> None:
        pass


def _report(passed: bool, message: str) -> CheckResult:
    print(message)
    return CheckResult(passed, message)


def checker(title: str):
    """Turn ``body(candidate) -> None | str`` into a printing checker.

    The body returns None when every case agrees, else a sentence saying what
    differs for which input.
    """
    def wrap(body: Callable[[Callable], str | None]):
        @functools.wraps(body)
        def run(candidate: Callable) -> CheckResult:
            if not callable(candidate):
                return _report(False, f"❌ {title}: expected a function, got {type(candidate).__name__}")
            try:
                problem = body(candidate)
            except NotImplementedError:
                return _report(False, f"⏳ {title}: not implemented yet "
                                      "(replace `raise NotImplementedError` with your code)")
            except Exception as err:  # a learner's bug: report it, do not crash the notebook
                return _report(False, f"❌ {title}: your function raised {type(err).__name__}: {err}")
            if problem:
                return _report(False, f"❌ {title}: {problem}")
            return _report(True, f"✅ {title}: passed")
        return run
    return wrap


def differs(case: str, got, want) -> str | None:
    """None if ``got == want``, else a sentence showing both."""
    return None if got == want else f"for {case} expected {want!r}, got {got!r}"


def first_problem(checks) -> str | None:
    """The first non-None message among ``checks`` (an iterable), or None."""
    return next((p for p in checks if p), None)


# ---------------------------------------------------------------- notebook 01
def _request_tokens(turn_tokens: list[int]) -> list[int]:
    total, out = 0, []
    for t in turn_tokens:
        total += t
        out.append(total)
    return out


@checker("request_tokens")
def check_request_tokens(fn):
    """Exercise 01.1: the tokens each request sends when the buffer resends everything."""
    rng = random.Random(1)
    cases = [[], [50], [50, 150], [10, 0, 7]] + [[rng.randint(1, 300) for _ in range(rng.randint(2, 40))]
                                              for _ in range(5)]
    return first_problem(differs(f"turn_tokens={c}", fn(list(c)), _request_tokens(c)) for c in cases)


def _exchanges_that_fit(tokens_per_exchange: int, max_tokens: int, system_tokens: int) -> int:
    return max(0, (max_tokens - system_tokens) // tokens_per_exchange)


@checker("exchanges_that_fit")
def check_exchanges_that_fit(fn):
    """Exercise 01.2: how many whole exchanges fit beside the system prompt."""
    cases = [(200, 4096, 0), (200, 4096, 500), (200, 128_000, 500), (300, 1000, 1200), (64, 64, 0), (65, 64, 0)]
    return first_problem(differs(f"{c}", fn(*c), _exchanges_that_fit(*c)) for c in cases)


# ---------------------------------------------------------------- notebook 02
def _window_positions(importance: list[float], recent_k: int, important_k: int) -> list[int]:
    from teachmem.memory.window import SlidingWindowMemory
    memory = SlidingWindowMemory(recent_k, important_k, scorer=lambda _: 0.0)
    for _ in importance:
        memory.add("user", "x")
    memory.importance = list(importance)
    return memory.window_indices()


@checker("window_positions")
def check_window_positions(fn):
    """Exercise 02.1: which positions a recent + important window keeps."""
    rng = random.Random(2)
    cases = [([0.1] * 4, 3, 2), ([0.5, 0.1, 0.1, 0.4, 0.1, 0.1, 0.1], 3, 2), ([0.9, 0.2, 0.9, 0.1, 0.3], 2, 1)]
    cases += [([rng.choice([0.1, 0.4, 0.5, 0.75]) for _ in range(rng.randint(5, 30))], rng.randint(1, 6),
               rng.randint(0, 4)) for _ in range(8)]
    return first_problem(differs(f"importance={imp}, recent_k={r}, important_k={k}",
                                 list(fn(list(imp), r, k)), _window_positions(imp, r, k)) for imp, r, k in cases)


def _kept_after_trim(token_counts: list[int], budget: int) -> list[int]:
    kept = list(range(len(token_counts)))
    while kept and sum(token_counts[i] for i in kept) > budget:
        kept.pop(0)
    return kept


@checker("kept_after_trim")
def check_kept_after_trim(fn):
    """Exercise 02.2: drop the oldest messages until the rest fit the budget."""
    rng = random.Random(3)
    cases = [([], 10), ([5, 5, 5], 15), ([5, 5, 5], 14), ([100], 50), ([30, 1, 1], 2)]
    cases += [([rng.randint(1, 120) for _ in range(rng.randint(1, 25))], rng.randint(50, 600)) for _ in range(8)]
    return first_problem(differs(f"token_counts={c}, budget={b}", list(fn(list(c), b)), _kept_after_trim(c, b))
                         for c, b in cases)


# ---------------------------------------------------------------- notebook 00
@checker("current_facts")
def check_current_facts(fn):
    """Exercise 0.1: the ids of the facts true at a turn, in scenario order."""
    from teachmem.scenarios import list_scenarios, load_scenario
    for name in list_scenarios():
        scenario = load_scenario(name)
        for turn in range(1, len(scenario) + 1):
            want = [f.id for f in scenario.facts if f.is_current(turn)]
            problem = differs(f"scenario {name!r}, turn {turn}", list(fn(scenario, turn)), want)
            if problem:
                return problem
    return None
