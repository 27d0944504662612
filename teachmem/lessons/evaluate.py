"""Notebook 08's checkers, probe view and plots: measuring what a memory remembers.

Taught in notebooks/08_evaluate_memory.ipynb.
"""
from __future__ import annotations

import random
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from teachmem.lab.evaluate import METRICS, Scoreboard, duplicate_fraction, recall_coverage, recall_precision
from teachmem.lab.locomo import RecallReport, recall_at_k
from teachmem.lessons.common import checker, close, explore as explore, figure, first_problem, mark, short


@checker("recall_scores")
def check_recall_scores(fn: Callable) -> str | None:
    """Exercise 8.1: (recall coverage, recall precision) of one probe, from fact-id sets.

    The known answers are the library's ``recall_coverage`` and ``recall_precision``.
    """
    rng = random.Random(81)
    cases = [({"a"}, {"a"}), ({"a", "b"}, {"a", "c"}), ({"a"}, set()), ({"a", "b"}, {"a", "b", "c", "d"}),
             ({"a", "b", "c"}, {"d"})]
    cases += [(set(rng.sample("abcdefgh", rng.randint(1, 4))), set(rng.sample("abcdefgh", rng.randint(0, 8))))
              for _ in range(10)]
    return first_problem(close(f"needs={sorted(n)}, mentioned={sorted(m)}", list(fn(set(n), set(m))),
                               [recall_coverage(n, m), recall_precision(n, m)]) for n, m in cases)


@checker("duplicate_fraction")
def check_duplicate_fraction(fn: Callable) -> str | None:
    """Exercise 8.2: the share of fact mentions that repeat a fact another item already mentions.

    The known answer is the library's ``duplicate_fraction``.
    """
    rng = random.Random(82)
    cases: list[list[set[str]]] = [[], [set()], [{"a"}], [{"a"}, {"a"}], [{"a"}, {"a", "b"}, {"a"}],
                                   [{"a", "b"}, {"c"}]]
    cases += [[set(rng.sample("abcde", rng.randint(0, 3))) for _ in range(rng.randint(1, 12))] for _ in range(10)]
    return first_problem(close(f"items={[sorted(i) for i in c]}", fn([set(i) for i in c]), duplicate_fraction(c))
                         for c in cases)


@checker("recall_at_k")
def check_recall_at_k(fn: Callable) -> str | None:
    """Exercise 8.3: the share of a question's (distinct) evidence turns among the top k retrieved.

    The known answer is the library's ``teachmem.lab.locomo.recall_at_k``.
    """
    rng = random.Random(83)
    ids = [f"D{s}:{t}" for s in (1, 2) for t in range(1, 9)]
    cases = [(["D1:1", "D1:2"], ["D1:1"], 1), (["D1:2", "D1:1"], ["D1:1"], 1), (["D1:2", "D1:1"], ["D1:1"], 2),
             (["D1:1"], ["D1:1", "D1:1", "D2:3"], 1), (["D1:1", "D1:2"], ["D2:5"], 20), ([], ["D1:1"], 5)]
    cases += [(rng.sample(ids, rng.randint(0, 16)), rng.choices(ids, k=rng.randint(1, 4)), rng.randint(1, 12))
              for _ in range(12)]
    return first_problem(close(f"ranked={r}, evidence={e}, k={k}", fn(list(r), list(e), k), recall_at_k(r, e, k))
                         for r, e, k in cases)


def _number(value: float | None) -> float:
    """A metric for a plot: None (nothing to measure) becomes NaN, which draws nothing."""
    return float("nan") if value is None else value


def _end_rows(marks: list[str], width: int = 90) -> list[str]:
    """The end-of-conversation marks on rows of at most ``width``, wrapped between facts, never inside one."""
    rows, row = [], ""
    for item in marks:
        if row and len(row) + len(item) > width:
            rows.append(row.rstrip())
            row = ""
        row += ("   " if not row else "") + item + "   "
    return rows + ([row.rstrip()] if row else [])


def probe_view(board: Scoreboard, scenario: str, strategy: str) -> str:
    """How ``strategy`` did on each probe of ``scenario``, and on every fact asked at the end.

    ``board`` is a ``teachmem.evaluate.Scoreboard``. ✓/✗ after "needs" say
    whether the context on the question's turn mentioned each needed fact;
    after "avoid", whether it kept clear of a fact it must not use.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    result, facts = board.get(strategy, scenario), board.bank[scenario]
    value = {f.id: f.value for f in facts.facts}
    answered = sum(p.answered for p in result.probes)
    lines = [f"{strategy} on {scenario}: {answered} of {len(result.probes)} probes answered, "
             f"{result.tokens_per_turn:.0f} tokens a turn, {result.model_calls} model calls"]
    for p in result.probes:
        lines.append(f"turn {p.turn:>2} {mark(p.answered)} {short(p.question, 66)}")
        lines.append("   needs  " + "   ".join(f"{mark(i in p.mentioned)} {value[i]}" for i in p.needs))
        if p.avoid:
            lines.append("   avoid  " + "   ".join(f"{mark(i not in p.mentioned)} {value[i]}" for i in p.avoid))
        others = len(p.mentioned - set(p.needs))
        lines.append(f"   the context mentions {len(p.mentioned)} fact{'' if len(p.mentioned) == 1 else 's'}, "
                     f"{others} not needed: "
                     f"coverage {p.coverage:.2f}, precision {p.precision:.2f}")
    lines.append(f"after the last turn, asked each current fact's own question: "
                 f"{sum(result.end.values())} of {len(result.end)} brought up")
    return "\n".join(lines + _end_rows([f"{mark(ok)} {value[i]}" for i, ok in result.end.items()]))


def plot_scoreboard(board: Scoreboard, metrics: tuple[str, ...] = ("probe_accuracy", "end_accuracy",
                                                                    "recall_precision", "stale_leakage",
                                                                    "bloat")) -> Figure:
    """One panel per metric: a bar per strategy (best first), averaged over the board's scenarios.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    labels = {name: (label, up) for name, label, up in METRICS}
    order = board.ranking()
    fig, axes = plt.subplots(1, len(metrics), figsize=(2.6 * len(metrics) + 1, 0.35 * len(order) + 1.6),
                             sharey=True, layout="constrained")
    plt.close(fig)
    y = np.arange(len(order))[::-1]
    for ax, name in zip(np.atleast_1d(axes), metrics, strict=True):
        values = [board.metrics(s)[name] for s in order]
        label, up = labels[name]
        ax.barh(y, [0 if v is None else v for v in values], color="tab:green" if up else "tab:red")
        ax.set(title=f"{label} ({'higher' if up else 'lower'} is better)", xlim=(0, 1))
        ax.title.set_fontsize(9)
    np.atleast_1d(axes)[0].set_yticks(y, order)
    return fig


def plot_cost_vs_quality(board: Scoreboard, quality: str = "probe_accuracy") -> Figure:
    """Tokens per turn (x, what it costs) against ``quality`` (y, what it remembers), one point per strategy.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    fig, ax = figure(6.5, 4)
    for name in board.strategies:
        m = board.metrics(name)
        x, y = _number(m["tokens_per_turn"]), _number(m[quality])
        ax.scatter(x, y, s=40)
        ax.annotate(name, (x, y), textcoords="offset points", xytext=(5, 4),
                    fontsize=9)
    ax.set(xlabel="tokens per turn (mean over scenarios)", ylabel=quality.replace("_", " "),
           ylim=(-0.05, 1.1), title="What a strategy costs against what it remembers")
    return fig


def plot_recall_at_k(report: RecallReport) -> Figure:
    """Evidence recall@k against k: overall (thick) and per category (thin).

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    fig, ax = figure(6.5, 3.8)
    for category in report.categories:
        values = report.recall(category)
        ax.plot(list(values), [_number(v) for v in values.values()], marker="o", lw=1, alpha=0.7,
                label=f"category {category}")
    overall = report.recall()
    ax.plot(list(overall), [_number(v) for v in overall.values()], marker="o", lw=3, color="black", label="all")
    ax.set(xlabel="k (turns retrieved)", ylabel="evidence recall@k", ylim=(0, 1.05), xticks=list(report.ks),
           title="Is the evidence among the top k turns?")
    ax.legend(fontsize=8)
    return fig
