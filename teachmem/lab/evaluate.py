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
``recall_coverage`` (seed 003: relevant memories are found)
    Per question, needed facts mentioned / needed facts; mean over questions.
``recall_precision`` (seed 003: what is retrieved is relevant)
    Per question, needed facts mentioned / all facts the context mentions
    (every fact stated by then, current or not); 0 when it mentions none.
    Mean over questions.
``freshness`` (seed 003: how quickly new information is stored)
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
``bloat`` (seed 003: memory bloat, the duplicate fraction)
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from teachmem.core.clock import ManualClock
from teachmem.lab.replay import Step, context_text, held_facts, replay
from teachmem.lab.scenarios import Fact, Scenario, fact_in_text, list_scenarios, load_scenario

__all__ = ["METRICS", "ProbeResult", "Evaluation", "Scoreboard", "evaluate", "default_strategies",
           "load_scenarios", "recall_coverage", "recall_precision", "duplicate_fraction", "text_table"]

#: (name, column header, True when higher is better) in scoreboard order.
METRICS = (("probe_accuracy", "probes", True), ("end_accuracy", "end", True),
           ("recall_coverage", "coverage", True), ("recall_precision", "precision", True),
           ("freshness", "fresh", True), ("stale_leakage", "stale", False),
           ("deletion_leakage", "deleted", False), ("bloat", "bloat", False),
           ("tokens_per_turn", "tokens/turn", False), ("model_calls", "calls", False))


# ------------------------------------------------------------------ the metrics on plain sets
def recall_coverage(needs: Iterable[str], mentioned: Iterable[str]) -> float:
    """Share of the needed facts that are mentioned: ``|needs ∩ mentioned| / |needs|``.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    needs = set(needs)
    if not needs:
        raise ValueError("needs must name at least one fact, got none")
    return len(needs & set(mentioned)) / len(needs)


def recall_precision(needs: Iterable[str], mentioned: Iterable[str]) -> float:
    """Share of the mentioned facts that are needed: ``|needs ∩ mentioned| / |mentioned|`` (0 if none).

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    mentioned = set(mentioned)
    return len(set(needs) & mentioned) / len(mentioned) if mentioned else 0.0


def _mentions(items: Iterable[Iterable[str]]) -> tuple[int, int]:
    """(mentions, duplicates): each item names the facts it mentions, each fact at most once."""
    seen, total = set(), 0
    for item in items:
        item = set(item)
        total += len(item)
        seen |= item
    return total, total - len(seen)


def duplicate_fraction(items: Iterable[Iterable[str]]) -> float:
    """Of all fact mentions across ``items``, the share repeating a fact another item already mentions.

    ``items`` holds, per item of a context, the ids of the facts it mentions.
    ``[{"a"}, {"a", "b"}, {"a"}]`` has 4 mentions of 2 facts: 2 duplicates, 0.5.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    total, duplicates = _mentions(items)
    return duplicates / total if total else 0.0


def _share(hits: int, pairs: int) -> float | None:
    return hits / pairs if pairs else None


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return sum(values) / len(values) if values else None


# ------------------------------------------------------------------ results
@dataclass(frozen=True)
class ProbeResult:
    """One question of a scenario, and what the context on its turn mentioned."""

    turn: int
    question: str
    needs: tuple[str, ...]
    avoid: tuple[str, ...]
    mentioned: frozenset[str]      # facts stated by then that the context mentions

    @property
    def answered(self) -> bool:
        return set(self.needs) <= self.mentioned and not set(self.avoid) & self.mentioned

    @property
    def coverage(self) -> float:
        return recall_coverage(self.needs, self.mentioned)

    @property
    def precision(self) -> float:
        return recall_precision(self.needs, self.mentioned)


@dataclass(frozen=True)
class Evaluation:
    """One strategy replayed over one scenario: the raw observations and every metric.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """

    strategy: str
    scenario: str
    probes: tuple[ProbeResult, ...]
    fresh: Mapping[str, bool]          # fact id -> brought up right after the turn stating it
    end: Mapping[str, bool]            # id of a fact current at the end -> brought up at the end
    stale: tuple[int, int]             # (leaked, pairs) over (turn, superseded fact)
    deleted: tuple[int, int]           # (still mentioned, pairs) over (turn, deleted fact)
    mentions: tuple[int, int]          # (mentions, duplicates) pooled over every turn's items
    tokens: tuple[int, ...]            # the context's tokens after each turn
    model_calls: int

    @property
    def probe_accuracy(self) -> float | None:
        return _mean(p.answered for p in self.probes)

    @property
    def end_accuracy(self) -> float | None:
        return _mean(self.end.values())

    @property
    def recall_coverage(self) -> float | None:
        return _mean(p.coverage for p in self.probes if p.needs)

    @property
    def recall_precision(self) -> float | None:
        return _mean(p.precision for p in self.probes if p.needs)

    @property
    def freshness(self) -> float | None:
        return _mean(self.fresh.values())

    @property
    def stale_leakage(self) -> float | None:
        return _share(*self.stale)

    @property
    def deletion_leakage(self) -> float | None:
        return _share(*self.deleted)

    @property
    def bloat(self) -> float:
        total, duplicates = self.mentions
        return duplicates / total if total else 0.0

    @property
    def tokens_per_turn(self) -> float:
        return sum(self.tokens) / len(self.tokens) if self.tokens else 0.0

    def metrics(self) -> dict[str, float | int | None]:
        """Every metric by name, in ``METRICS`` order."""
        return {name: getattr(self, name) for name, _, _ in METRICS}


def text_table(header: list[str], rows: list[list], digits: int = 2) -> str:
    """A plain-text table: the first column left-aligned, the rest right-aligned.

    Floats print with ``digits`` decimals, None as "–".
    """
    cells = [[c if isinstance(c, str) else "–" if c is None else f"{c:.{digits}f}" if isinstance(c, float) else str(c)
              for c in row] for row in [header, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [" ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in cells]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


@dataclass(frozen=True)
class Scoreboard:
    """Every strategy × scenario ``Evaluation``, with tables sorted best first.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """

    results: tuple[Evaluation, ...]
    bank: Mapping[str, Scenario] = field(default_factory=dict, repr=False)   # the scenarios, by name
    _index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "_index", {(r.strategy, r.scenario): r for r in self.results})

    @property
    def strategies(self) -> list[str]:
        return list(dict.fromkeys(r.strategy for r in self.results))

    @property
    def scenarios(self) -> list[str]:
        return list(dict.fromkeys(r.scenario for r in self.results))

    def get(self, strategy: str, scenario: str) -> Evaluation:
        if (strategy, scenario) not in self._index:
            raise KeyError(f"no result for strategy {strategy!r} on scenario {scenario!r}; "
                           f"strategies {self.strategies}, scenarios {self.scenarios}")
        return self._index[strategy, scenario]

    def metrics(self, strategy: str, scenario: str | None = None) -> dict[str, float | None]:
        """One strategy's metrics on ``scenario``, or their mean over the scenarios (None = undefined)."""
        if scenario is not None:
            return self.get(strategy, scenario).metrics()
        per = [self.get(strategy, s).metrics() for s in self.scenarios]
        return {name: _mean(m[name] for m in per if m[name] is not None) for name, _, _ in METRICS}

    def ranking(self, scenario: str | None = None) -> list[str]:
        """Strategies best first: probe accuracy, then end accuracy (higher first), then tokens per turn."""
        def key(name):
            m = self.metrics(name, scenario)
            return (-(m["probe_accuracy"] or 0), -(m["end_accuracy"] or 0), m["tokens_per_turn"], name)
        return sorted(self.strategies, key=key)

    def table(self, scenario: str | None = None) -> str:
        """Strategies × metrics as plain text, best first; without ``scenario``, means over all."""
        header = ["strategy"] + [f"{label}{'↑' if up else '↓'}" for _, label, up in METRICS]
        rows = []
        for name in self.ranking(scenario):
            m = self.metrics(name, scenario)
            m["tokens_per_turn"] = f"{m['tokens_per_turn']:.1f}"
            m["model_calls"] = f"{m['model_calls']:.1f}" if scenario is None else str(m["model_calls"])
            rows.append([name] + [m[k] for k, _, _ in METRICS])
        title = f"scenario {scenario}" if scenario else f"mean over {len(self.scenarios)} scenarios"
        return f"{title}  (↑ higher is better, ↓ lower is better, – not applicable)\n{text_table(header, rows)}"

    def __add__(self, other: "Scoreboard") -> "Scoreboard":
        """Both boards' results on one board, e.g. your own strategy beside the built-in ones."""
        clash = sorted(set(self._index) & set(other._index))
        if clash:
            raise ValueError(f"both scoreboards have results for {clash[0]} (strategy, scenario); rename one")
        return Scoreboard(self.results + other.results, {**self.bank, **other.bank})

    def __str__(self) -> str:
        """The mean table (when there is more than one scenario), then one table per scenario."""
        tables = [self.table(s) for s in self.scenarios]
        return "\n\n".join(tables if len(tables) == 1 else [self.table()] + tables)

    def as_dict(self) -> dict:
        """JSON-ready: per scenario and strategy, every metric (floats rounded to 4 places)."""
        def r(v):
            return round(v, 4) if isinstance(v, float) else v
        return {s: {name: {k: r(v) for k, v in self.metrics(name, s).items()} for name in self.strategies}
                for s in self.scenarios}


# ------------------------------------------------------------------ running it
def load_scenarios(scenarios="all") -> list[Scenario]:
    """``"all"`` (every built-in scenario), a name, a path, a ``Scenario``, or a list of those.

    Taught in notebooks/08_evaluate_memory.ipynb.
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
    from teachmem.lab.replay import comparison_strategies
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
        self.memory, self.scenario, self.fresh = memory, scenario, {}

    def add(self, role, content, *, turn=None, timestamp=None):
        clock = getattr(self.memory, "clock", None)
        if isinstance(clock, ManualClock) and timestamp is not None and timestamp > clock():
            clock.set(timestamp)
        self.memory.add(role, content, turn=turn, timestamp=timestamp)
        for fact in self.scenario.facts:
            if fact.stated_turn == turn:
                self.fresh[fact.id] = _brings_up(self.memory, fact)

    def context(self, query=None):
        return self.memory.context(query)

    def __getattr__(self, name):          # llm, usage, … for the replay's model-call count
        return getattr(self.memory, name)


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
        t, d = _mentions(held_facts(scenario, line, step.turn) for line in items)
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
    from tqdm import tqdm
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
    results, bank = [], {}
    for scenario in tqdm(loaded, desc="scenarios", unit="scenario",
                         disable=None if progress is None else not progress):
        observed = {}

        def observing(name, factory, scenario=scenario):
            def build():
                memory = factory()
                if not (callable(getattr(memory, "add", None)) and callable(getattr(memory, "context", None))):
                    raise TypeError(f"strategies[{name!r}] built a {type(memory).__name__}, "
                                    "which has no add(...) and context(query)")
                observed[name] = _Observed(memory, scenario)
                return observed[name]
            return build

        record = replay(scenario, {name: observing(name, f) for name, f in strategies.items()})
        results += [_evaluation(name, scenario, observed[name], record.steps[name]) for name in strategies]
        bank[scenario.name] = scenario
    return Scoreboard(tuple(results), bank)
