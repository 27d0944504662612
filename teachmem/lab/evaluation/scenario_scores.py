"""Measure what each memory strategy remembers, forgets and costs.

A strategy is replayed over a scenario (``teachmem.lab.replay.replay``: after
every turn it is asked for the context it would send, the user's latest
message being the query) and the contexts are scored against the scenario's
ground truth. A text *mentions* a fact when ``fact_in_text`` finds one of its
keywords (whole words, any case). The metrics, for one strategy on one scenario:

``probe_accuracy``
    Share of the scenario's questions answered on their own turn: the context
    after the question turn mentions every fact the question ``needs`` and
    none it must ``avoid`` (a forgotten address, say).
``end_accuracy``
    Share of the facts still current after the last turn that the memory
    brings up when asked the fact's own ``question`` after the last turn.
``recall_coverage`` (are the relevant memories found?)
    Per question, needed facts mentioned / needed facts; mean over questions.
``recall_precision`` (is what is retrieved relevant?)
    Per question, needed facts mentioned / all facts the context mentions
    (every fact stated by then, current or not); 0 when it mentions none.
    Mean over questions.
``freshness`` (how quickly is new information stored?)
    Share of facts the memory brings up, asked the fact's own question, right
    after the turn that states it: stored at once, not at the next batch.
``stale_leakage``
    Over every turn and every fact replaced by then, the share of (turn,
    fact) pairs where the context presents the old fact as current
    (``teachmem.lab.replay.leaked_facts``: it mentions the old fact and none of
    its replacements). None without replaced facts. Deleted facts are not
    replaced, they are forgotten: they count in ``deletion_leakage``.
``deletion_leakage``
    Over every turn from a deletion request on and every fact deleted by
    then, the share of pairs where the context still mentions the fact at
    all. None when the scenario has no deletion request.
``bloat`` (memory bloat: the duplicate fraction)
    Cut each context into items (its non-empty lines). A fact mentioned by c
    items counts c mentions, c − 1 of them duplicates. Pooled over every
    turn: duplicates / mentions (0 with no mentions).
``tokens_per_turn``
    Mean over turns of the context's tokens (``estimate_tokens`` per message).
``model_calls``
    Model calls the strategy made over the whole replay (``llm.usage.calls``).

Questions asked only to measure (``end_accuracy``, ``freshness``) are asked
of a copy (``copy.deepcopy``), so measuring never changes the memory being
measured. A strategy that keeps a ``ManualClock`` in ``.clock`` has it moved
to each turn's time before the turn is added, so decay plays out over the
scenario's days.

Run ``python -m teachmem.evaluate --help`` for the command line.

Taught in notebooks/08_evaluate_memory.ipynb.
"""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Callable, Mapping

from tqdm import tqdm

from teachmem.lab.replay import Step, advance_clock, comparison_strategies, context_text, held_facts, replay
from teachmem.lab.scenarios import Fact, Scenario, fact_in_text, list_scenarios, load_scenario
from teachmem.lab.evaluation.scoreboard import (METRICS, Evaluation, ProbeResult, Scoreboard, duplicate_fraction,
                                     mention_counts, recall_coverage, recall_precision, text_table)
from teachmem.memory.protocol import Memory

__all__ = ["METRICS", "ProbeResult", "Evaluation", "Scoreboard", "evaluate", "default_strategies",
           "load_scenarios", "recall_coverage", "recall_precision", "duplicate_fraction", "text_table"]

# ------------------------------------------------------------------ running it
def load_scenarios(scenarios="all") -> list[Scenario]:
    """``"all"`` (every built-in scenario), a name, a path, a ``Scenario``, or a list of those.
    """
    if isinstance(scenarios, (str, Path, Scenario)):
        scenarios = list_scenarios() if scenarios == "all" else [scenarios]
    loaded = [s if isinstance(s, Scenario) else load_scenario(s) for s in scenarios]
    if not loaded:
        raise ValueError("scenarios must name at least one scenario, got none")
    return loaded


def default_strategies() -> dict[str, Callable[[], object]]:
    """The strategies the scoreboard compares: the ones notebook 07 replays.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    return comparison_strategies()


def _brings_up(memory, fact: Fact) -> bool:
    """Asked the fact's own question, does a copy of ``memory`` bring the fact up?"""
    try:
        probe = copy.deepcopy(memory)
    except Exception as err:
        raise TypeError(f"{type(memory).__name__} cannot be copied ({err}); the evaluation asks its "
                        "measuring questions of a copy so that asking changes nothing") from None
    return fact_in_text(fact, context_text(probe.context(fact.question)))


class _Observed:
    """A strategy inside the replay: moves its clock, and asks a copy about each newly stated fact."""

    def __init__(self, memory, scenario: Scenario):
        self.memory, self.scenario = memory, scenario
        self.fresh: dict[str, bool] = {}

    def add(self, role, content, *, turn=None, timestamp=None):
        if timestamp is not None:
            advance_clock(self.memory, timestamp)
        self.memory.add(role, content, turn=turn, timestamp=timestamp)
        for fact in self.scenario.facts:
            if fact.stated_turn == turn:
                self.fresh[fact.id] = _brings_up(self.memory, fact)

    def context(self, query=None):
        return self.memory.context(query)

    def __getattr__(self, name):          # llm, usage, … for the replay's model-call count
        return getattr(self.memory, name)


def _observing(name: str, factory: Callable[[], object], scenario: Scenario,
               observed: dict[str, _Observed]) -> Callable[[], _Observed]:
    """A factory for the replay: builds the strategy, checks it, and keeps its observer in ``observed``."""
    def build() -> _Observed:
        memory = factory()
        if not isinstance(memory, Memory):
            raise TypeError(f"strategies[{name!r}] built a {type(memory).__name__}, "
                            "which has no add(...) and context(query)")
        observed[name] = _Observed(memory, scenario)
        return observed[name]
    return build


def _pair_counts(scenario: Scenario, steps: tuple[Step, ...], deleted: bool) -> tuple[int, int]:
    """(hits, pairs) over (turn, fact) for the facts replaced (or, with ``deleted``, deleted) by that turn."""
    hits = pairs = 0
    for step in steps:
        for f in scenario.facts:
            if f.superseded_turn is not None and f.superseded_turn <= step.turn and f.deleted == deleted:
                pairs += 1
                hits += f.id in (step.holds if deleted else step.leaks)
    return hits, pairs


def _evaluation(name: str, scenario: Scenario, observed: _Observed, steps: tuple[Step, ...]) -> Evaluation:
    probes = tuple(ProbeResult(q.turn, q.text, q.needs, q.avoid, steps[q.turn - 1].holds)
                   for q in scenario.questions)
    last = len(scenario)
    end = {f.id: _brings_up(observed.memory, f) for f in scenario.facts if f.is_current(last)}
    total = duplicates = 0
    for step in steps:
        items = [line for m in step.context for line in m["content"].splitlines() if line.strip()]
        t, d = mention_counts(held_facts(scenario, line, step.turn) for line in items)
        total, duplicates = total + t, duplicates + d
    return Evaluation(name, scenario.name, probes, dict(observed.fresh), end,
                      _pair_counts(scenario, steps, deleted=False), _pair_counts(scenario, steps, deleted=True),
                      (total, duplicates), tuple(s.tokens for s in steps), steps[-1].model_calls if steps else 0)


def evaluate(strategies: Mapping[str, Callable[[], object]] | None = None, scenarios="all", *,
             progress: bool | None = None) -> Scoreboard:
    """Replay every strategy over every scenario and score it; returns a ``Scoreboard``.

    ``strategies`` maps a name to a factory building a fresh memory (a class
    or a lambda); any object with ``add(role, content, *, turn=None,
    timestamp=None)`` and ``context(query=None)`` works, so you can bring
    your own. Default: ``default_strategies()``. ``scenarios``: see
    ``load_scenarios``. ``progress``: a tqdm bar; None shows it only on a
    terminal. The metrics are defined in this module's docstring.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    strategies = default_strategies() if strategies is None else dict(strategies)
    if not strategies:
        raise ValueError("strategies must name at least one strategy factory, got none")
    for name, factory in strategies.items():
        if not callable(factory):
            raise TypeError(f"strategies[{name!r}] must be a factory that builds a memory, "
                            f"got {type(factory).__name__}")
    loaded = load_scenarios(scenarios)
    names = [s.name for s in loaded]
    if len(set(names)) < len(names):
        raise ValueError(f"scenarios must have distinct names, got {names}")
    results: list[Evaluation] = []
    bank: dict[str, Scenario] = {}
    for scenario in tqdm(loaded, desc="scenarios", unit="scenario",
                         disable=None if progress is None else not progress):
        observed: dict[str, _Observed] = {}
        record = replay(scenario, {name: _observing(name, f, scenario, observed) for name, f in strategies.items()})
        results += [_evaluation(name, scenario, observed[name], record.steps[name]) for name in strategies]
        bank[scenario.name] = scenario
    return Scoreboard(tuple(results), bank)
