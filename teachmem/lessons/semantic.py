"""Notebook 05's checkers, score views and plots: relevance, importance and forgetting.

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timedelta

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from teachmem.core.validate import require_int_at_least, require_text
from teachmem.lab.scenarios import Scenario
from teachmem.lessons.common import checker, close, differs, explore as explore, figure, first_problem, short
from teachmem.llm import importance_rules
from teachmem.memory.semantic import SemanticMemoryStore

# (t days, strength S) -> MemoryBank's retention exp(-t / (5·S)), the exponent t / (5·S) worked out by hand.
RETENTION = [((0, 1), 1.0), ((0, 10), 1.0), ((5, 1), math.exp(-1)), ((10, 1), math.exp(-2)),
             ((10, 2), math.exp(-1)), ((10, 10), math.exp(-0.2)), ((3, 1), math.exp(-0.6)),
             ((7, 2), math.exp(-0.7)), ((30, 3), math.exp(-2)), ((30, 10), math.exp(-0.6)),
             ((1, 10), math.exp(-0.02)), ((2.5, 1.5), math.exp(-1 / 3))]

# (last_accessed hours, now) -> Generative Agents recency 0.995 ** (hours since the last access), by hand.
RECENCY = [(([0.0, 5.0, 9.0], 10.0), [0.995 ** 10, 0.995 ** 5, 0.995 ** 1]),
           (([9.0, 0.0, 5.0], 10.0), [0.995 ** 1, 0.995 ** 10, 0.995 ** 5]),
           (([3.0], 3.0), [1.0]), (([], 1.0), []),
           (([2.0, 2.0, 1.0], 4.0), [0.995 ** 2, 0.995 ** 2, 0.995 ** 3]),
           (([0.0, 24.0, 48.0], 72.0), [0.995 ** 72, 0.995 ** 48, 0.995 ** 24]),
           (([100.5, 0.5, 150.0], 200.5), [0.995 ** 100, 0.995 ** 200, 0.995 ** 50.5])]

# word -> its folded form under the rule taught (short words stay; -ies -> -y; -sses -> -ss; -ss, -us, -is stay).
FOLDED = {"seat": "seat", "seats": "seat", "tests": "test", "parties": "party", "cities": "city", "glass": "glass",
          "glasses": "glass", "classes": "class", "bus": "bus", "gas": "gas", "status": "status",
          "analysis": "analysis", "is": "is", "was": "was", "yes": "yes", "pytest": "pytest",
          "news": "new",     # the rule's known slip: it cannot tell "news" from a plural
          "boss": "boss", "bosses": "boss", "cats": "cat", "ties": "tie"}


@checker("forgetting_curve")
def check_forgetting_curve(fn: Callable) -> str | None:
    """Exercise 5.1: MemoryBank's retention exp(-t / (5·S)), with the parentheses it needs."""
    problem = first_problem(close(f"t={t}, S={s}", fn(t, s), want) for (t, s), want in RETENTION)
    if problem and fn(10, 10) < fn(10, 1):
        problem += " (a stronger memory fades faster here: check the operator precedence)"
    return problem


def _reversed_hint(accessed: list[float], got: list) -> str:
    oldest, newest = accessed.index(min(accessed)), accessed.index(max(accessed))
    if len(accessed) > 1 and len(got) == len(accessed) and got[oldest] > got[newest]:
        return " (the oldest access got the highest recency: the ordering is reversed)"
    return ""


@checker("recency_scores")
def check_recency_scores(fn: Callable) -> str | None:
    """Exercise 5.2: Generative Agents recency, decay ** hours since each memory was last accessed."""
    for (accessed, now), want in RECENCY:
        got = list(fn(list(accessed), now))
        problem = close(f"last_accessed={accessed}, now={now}", got, want)
        if problem:
            return problem + (_reversed_hint(accessed, got) if accessed else "")
    return None


@checker("fold_plural")
def check_fold_plural(fn: Callable) -> str | None:
    """Exercise 5.3: fold English plurals so "seats" meets "seat" but "glass" stays whole."""
    return first_problem(differs(f"word={w!r}", fn(w), want) for w, want in FOLDED.items())


# ---------------------------------------------------------------- score views
_NOT_COLUMNS = ("row", "text", "memory_type", "match", "score")


def score_table(hits: list[dict], send_from: float | None = None, width: int = 62) -> str:
    """``SemanticMemoryStore.explain`` hits as a table, one column per part of the score; with
    ``send_from``, memories scoring below it are marked "(not sent)".

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    if not hits:
        return "(no memories)"
    columns = [k for k in hits[0] if k not in _NOT_COLUMNS]
    lines = [f" #{'score':>8}" + "".join(f"{c:>11}" for c in columns) + "  memory"]
    for i, h in enumerate(hits, start=1):
        note = "(not sent) " if send_from is not None and h["score"] < send_from else ""
        lines.append(f"{i:>2}{h['score']:>8.4f}" + "".join(f"{h[c]:>11.3f}" for c in columns)
                     + f"  {note}{short(h['text'], width)}")
    return "\n".join(lines)


# The demo's second session, three weeks after the scenario: the CI job works, the launch moves.
SECOND_SESSION = (
    ("user", "Back again. The CI job is green now: GitHub Actions starts a MySQL 8 instance on every commit."),
    ("assistant", "Great, well done! A green build on every commit will save you a lot of trouble later."),
    ("user", "My sister tried the booking page on her phone this week, and she loves it."),
    ("assistant", "Lovely. Ask her to book a class and cancel it again; that is the tricky path."),
    ("user", "Also, the studio moved the launch to mid-April."),
    ("assistant", "Noted: the first version launches in mid-April instead of the end of March."),
)


def semantic_demo_store(scenario: Scenario, days_between: int = 21) -> SemanticMemoryStore:
    """Every turn of ``scenario`` and, ``days_between`` days after its last turn, ``SECOND_SESSION``:
    each stored as "role: content" with the offline importance heuristic.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    store, last = SemanticMemoryStore(), scenario.timestamp(len(scenario))
    sessions = [[(t.role, t.content, scenario.timestamp(t.turn)) for t in scenario.turns],
                [(role, content, last + timedelta(days=days_between, minutes=i + 1))
                 for i, (role, content) in enumerate(SECOND_SESSION)]]
    turn = 0
    for session, said in enumerate(sessions, start=1):
        for role, content, when in said:    # the session label starts a new thread: no reply across sessions
            turn += 1
            store.store(f"{role}: {content}", "message", importance_rules(content), when,
                        role=role, turn=turn, session_id=session)
    return store


def semantic_view(store: SemanticMemoryStore, query: str, days_later: int, top_k: int = 5,
                  send_from: float = 0.02) -> str:
    """The ``top_k`` memories of ``store`` for ``query`` asked ``days_later`` days after its newest
    memory, with every part of their scores; those under ``send_from`` would not be sent. Records no recall.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    require_text("query", query, allow_empty=True)
    require_int_at_least("days_later", days_later, 0)
    if not query.strip():
        return "(type a question)"
    now = max(datetime.fromisoformat(m["timestamp"]) for m in store.metadata) + timedelta(days=days_later)
    hits = store.explain(query, top_k, now)
    sent = sum(h["score"] >= send_from for h in hits)
    return (f"{query!r} asked {days_later} days after the newest memory ({now:%Y-%m-%d}): "
            f"{sent} of {len(hits)} above {send_from} would be sent\n" + score_table(hits, send_from))


# ---------------------------------------------------------------- plots
def plot_decay_curves(rates: tuple[float, ...] = (0.99, 0.95, 0.9), days: int = 60,
                      marks: tuple[int, ...] = (10, 20)) -> Figure:
    """``rate ** days`` for a few decay rates, with the values at the ``marks`` (days) written on.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    fig, ax = figure(7, 3.4)
    x = np.arange(days + 1)
    for rate in rates:
        ax.plot(x, rate ** x, label=f"{rate} per day")
    for d in marks:
        ax.axvline(d, color="grey", lw=0.6, ls=":")
        for rate in rates:
            ax.annotate(f"{rate ** d:.2f}", (d, rate ** d), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set(title="How much of a score survives", xlabel="days since stored", ylabel="decay multiplier", ylim=(0, 1.05))
    ax.legend()
    return fig


def plot_similarity_heatmaps(matrices: dict, labels: list[str]) -> Figure:
    """One cosine-similarity heatmap per embedder, side by side (``matrices``: name -> n×n array).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    fig, axes = plt.subplots(1, len(matrices), figsize=(3.3 * len(matrices) + 1, 3.6), layout="constrained")
    plt.close(fig)
    axes = np.atleast_1d(axes)
    for ax, (name, sims) in zip(axes, matrices.items(), strict=True):
        image = ax.imshow(sims, vmin=-0.2, vmax=1, cmap="viridis")
        ax.set_title(name, fontsize=9)
        ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=7)
        ax.set_yticks(range(len(labels)), labels if ax is axes[0] else [], fontsize=7)
        for i in range(len(labels)):
            for j in range(len(labels)):
                ax.text(j, i, f"{sims[i, j]:.1f}", ha="center", va="center", fontsize=5.5,
                        color="white" if sims[i, j] < 0.5 else "black")
    fig.colorbar(image, ax=axes, shrink=0.8, label="cosine")
    return fig


def plot_forgetting_curves(strengths: tuple[float, ...] = (1, 2, 4), days: int = 14,
                           time_scale: float = 5.0) -> Figure:
    """MemoryBank's curve exp(-t / (5·S)) (solid) beside the same formula written without the
    parentheses, exp(-t / 5·S) (dashed), as MemoryBank's released code has it.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    fig, ax = figure(7, 3.4)
    t = np.linspace(0, days, 200)
    colours = plt.get_cmap("tab10")
    for i, s in enumerate(strengths):
        ax.plot(t, np.exp(-t / (time_scale * s)), color=colours(i), label=f"S={s}: exp(-t/(5·S))")
        ax.plot(t, np.exp(-t / time_scale * s), color=colours(i), ls="--", label=f"S={s}: exp(-t/5·S) as written")
    ax.set(title="Retention: stronger should mean slower forgetting", xlabel="days since last recall",
           ylabel="retention", ylim=(0, 1.05))
    ax.legend(fontsize=7, ncol=2)
    return fig
