"""The scoreboard of the evaluation: the metrics on plain sets, one strategy's ``Evaluation``
on one scenario, and the ``Scoreboard`` of every strategy on every scenario, as plain-text tables.

The metrics are defined in ``teachmem.lab.evaluation.scenario_scores``'s docstring; ``evaluate`` fills the board.

Taught in notebooks/08_evaluate_memory.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from teachmem.lab.scenarios import Scenario

__all__ = ["METRICS", "REMEMBERS", "LEAKS_AND_COSTS", "ProbeResult", "Evaluation", "Scoreboard", "recall_coverage", "recall_precision",
           "mention_counts", "duplicate_fraction", "text_table"]

#: (name, column header, True when higher is better) in scoreboard order.
METRICS = (("probe_accuracy", "probes", True), ("end_accuracy", "end", True),
           ("recall_coverage", "coverage", True), ("recall_precision", "precision", True),
           ("freshness", "fresh", True), ("stale_leakage", "stale", False),
           ("deletion_leakage", "deleted", False), ("bloat", "bloat", False),
           ("tokens_per_turn", "tokens/turn", False), ("model_calls", "calls", False))


#: The scoreboard in two halves of six columns each, which fit a page: what a strategy remembers, then what
#: it leaks and costs (``Scoreboard.tables``).
REMEMBERS = ("probe_accuracy", "end_accuracy", "recall_coverage", "recall_precision", "freshness")
LEAKS_AND_COSTS = ("stale_leakage", "deletion_leakage", "bloat", "tokens_per_turn", "model_calls")
#: Where a metric that does not apply everywhere is measured, in words.
APPLIES_WHERE = {"stale_leakage": "where a fact is replaced", "deletion_leakage": "where the user asks to forget"}


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


def mention_counts(items: Iterable[Iterable[str]]) -> tuple[int, int]:
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
    total, duplicates = mention_counts(items)
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


def three_digits(value: float) -> str:
    """``value`` with at most three significant digits, and two decimals below 10 so a column of scores
    lines up: ``0.75``, ``1.00``, ``20.8``, ``502``."""
    if abs(round(value, 1)) >= 100:
        return f"{value:.0f}"
    return f"{value:.1f}" if abs(round(value, 2)) >= 10 else f"{value:.2f}"


def _decimals(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals, fewer where more would show over three significant digits."""
    whole_digits = len(str(int(abs(round(value, digits)))).lstrip("0"))
    return f"{value:.{max(0, min(digits, 3 - whole_digits))}f}"


def text_table(header: list[str], rows: list[list], digits: int = 2) -> str:
    """A plain-text table: the first column left-aligned, the rest right-aligned.

    Floats print with ``digits`` decimals but never more than three significant digits (``1.00``, not
    ``1.000``; ``12.3``), None as "–".
    """
    cells = [[c if isinstance(c, str) else "–" if c is None else _decimals(c, digits) if isinstance(c, float) else str(c)
              for c in row] for row in [header, *rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [" ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in cells]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def _figure(value: float | int | None, metric: str) -> str:
    """A score as ``Scoreboard.tables`` shows it: a share to two decimals, tokens whole, a mean of calls
    to one decimal (two or three significant digits, aligned in a column).

    >>> _figure(0.75, "bloat"), _figure(357.3, "tokens_per_turn"), _figure(14.83, "model_calls"), _figure(4, "model_calls")
    ('0.75', '357', '14.8', '4')
    """
    if value is None:
        return "–"
    if isinstance(value, int):
        return str(value)
    if metric == "tokens_per_turn":
        return f"{value:,.0f}"
    return f"{value:.1f}" if metric == "model_calls" else f"{value:.2f}"


@dataclass(frozen=True)
class Scoreboard:
    """Every strategy × scenario ``Evaluation``, with tables sorted best first: what ``evaluate`` returns.
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
        return {name: _mean(v for m in per if (v := m[name]) is not None) for name, _, _ in METRICS}

    def ranking(self, scenario: str | None = None) -> list[str]:
        """Strategies best first: probe accuracy, then end accuracy (higher first), then tokens per turn."""
        def key(name):
            m = self.metrics(name, scenario)
            return (-(m["probe_accuracy"] or 0), -(m["end_accuracy"] or 0), m["tokens_per_turn"], name)
        return sorted(self.strategies, key=key)

    def table(self, scenario: str | None = None, metrics: Sequence[str] | None = None) -> str:
        """Strategies × metrics as plain text, best first; without ``scenario``, means over all.

        ``metrics`` picks at most six of them (names of ``METRICS``, in the order given), so the table has
        at most seven columns, each number shown to three significant digits (``three_digits``).
        """
        by_name = {metric[0]: metric for metric in METRICS}
        if metrics is not None and (not 1 <= len(metrics) <= 6 or not set(metrics) <= set(by_name)):
            raise ValueError(f"metrics must name one to six of {list(by_name)}, got {list(metrics)}")
        chosen = list(METRICS) if metrics is None else [by_name[name] for name in metrics]
        header = ["strategy"] + [f"{label}{'↑' if up else '↓'}" for _, label, up in chosen]
        rows = []
        for name in self.ranking(scenario):
            values = self.metrics(name, scenario)
            m: dict[str, object] = dict(values)
            if metrics is not None:
                m = {k: None if v is None else three_digits(v) for k, v in values.items()}
            else:
                m["tokens_per_turn"] = f"{m['tokens_per_turn']:.1f}"
                m["model_calls"] = f"{m['model_calls']:.1f}" if scenario is None else str(m["model_calls"])
            rows.append([name] + [m[k] for k, _, _ in chosen])
        title = f"scenario {scenario}" if scenario else f"mean over {len(self.scenarios)} scenarios"
        return f"{title}  (↑ higher is better, ↓ lower is better, – not applicable)\n{text_table(header, rows)}"

    def tables(self, scenario: str | None = None) -> str:
        """``table`` in two halves of six columns that fit a page, best first: what each strategy remembers,
        then what it leaks and costs, each score to two or three significant digits.
        Without ``scenario`` the figures are means, and a line says where each metric that does not apply
        everywhere was measured (deletions happen in one scenario only)."""
        labels = {name: f"{label}{'↑' if up else '↓'}" for name, label, up in METRICS}
        order = self.ranking(scenario)
        scores = {name: self.metrics(name, scenario) for name in order}
        where = f"scenario {scenario}" if scenario else f"mean over the {len(self.scenarios)} scenarios"
        lines = [f"{where}, best first  (↑ higher is better, ↓ lower is better, – does not apply)"]
        for title, columns in (("what it remembers", REMEMBERS), ("what it leaks and what it costs", LEAKS_AND_COSTS)):
            rows = [[name] + [_figure(scores[name][metric], metric) for metric in columns]
                    for name in order]
            lines += ["", title, text_table(["strategy"] + [labels[metric] for metric in columns], rows)]
        notes = [] if scenario else [f"{labels[name]} is measured {APPLIES_WHERE.get(name, 'where it applies')}: "
                                     f"{self._measured_on(name)}." for name, _, _ in METRICS if self._measured_on(name)]
        return "\n".join(lines + ([""] + notes if notes else []))

    def _measured_on(self, metric: str) -> str:
        """The scenarios where ``metric`` applies, in words, when that is not all of them; else ""."""
        on = [s for s in self.scenarios if any(self.get(n, s).metrics()[metric] is not None for n in self.strategies)]
        off = [s for s in self.scenarios if s not in on]
        if not off or not on:
            return ""
        if len(on) == 1:
            return f"on {on[0]} alone"
        return f"on {len(on)} of the {len(self.scenarios)} scenarios, all but {', '.join(off)}"

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
