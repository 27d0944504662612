"""Plots for the notebooks. Each function returns a matplotlib Figure (closed,
so Jupyter shows it once when the cell displays it) and never calls ``show``.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def _figure(width: float = 7, height: float = 3.6):
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
    plt.close(fig)   # the notebook displays the returned figure itself
    return fig, ax


# ---------------------------------------------------------------- notebook 01
def plot_buffer_cost(request_tokens: list[int], price_per_million: float = 3.0):
    """Tokens per request (linear) and cumulative tokens and dollars (quadratic).

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    turns = np.arange(1, len(request_tokens) + 1)
    cumulative = np.cumsum(request_tokens)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained")
    plt.close(fig)
    left.plot(turns, request_tokens, color="tab:blue")
    left.set(title="Tokens sent with each request", xlabel="turn", ylabel="tokens")
    right.plot(turns, cumulative, color="tab:red")
    right.set(title="Tokens paid so far", xlabel="turn", ylabel="cumulative tokens")
    dollars = right.secondary_yaxis("right", functions=(lambda t: t * price_per_million / 1e6,
                                                         lambda d: d * 1e6 / price_per_million))
    dollars.set_ylabel(f"dollars at ${price_per_million:g}/M")
    return fig


def plot_estimators(texts: list[str], counters: dict, labels: list[str] | None = None):
    """Bar chart: each estimator's token count for each text (``labels`` name the texts).

    Taught in notebooks/01_conversation_buffer.ipynb.
    """
    fig, ax = _figure(8, 3.4)
    width = 0.8 / len(counters)
    x = np.arange(len(texts))
    for i, (name, count) in enumerate(counters.items()):
        ax.bar(x + i * width, [count(t) for t in texts], width, label=name)
    labels = labels or [t if len(t) < 18 else t[:15] + "…" for t in texts]
    ax.set_xticks(x + width * (len(counters) - 1) / 2, labels)
    ax.set(ylabel="estimated tokens", title="Same text, different estimates")
    ax.legend()
    return fig


# ---------------------------------------------------------------- notebook 02
def plot_window_membership(membership: np.ndarray, title: str, mark_turns: dict | None = None):
    """Which earlier turns (y) are in the context at each turn (x).

    ``membership[i, j]`` is True when message j+1 is in the context after
    message i+1 arrived. A plain window draws a diagonal band; pinning adds
    horizontal lines for the messages that are kept. ``mark_turns`` labels
    rows, e.g. ``{3: "PostgreSQL"}``.

    Taught in notebooks/02_sliding_window.ipynb.
    """
    n = membership.shape[0]
    fig, ax = _figure(6.5, 5)
    ax.imshow(membership.T, origin="lower", cmap="Blues", aspect="auto",
              extent=(0.5, n + 0.5, 0.5, n + 0.5), vmin=0, vmax=1)
    for turn, label in (mark_turns or {}).items():
        ax.axhline(turn, color="tab:red", lw=0.8, ls="--")
        ax.text(n + 0.6, turn, label, color="tab:red", va="center", fontsize=8)
    ax.set(title=title, xlabel="conversation has reached turn", ylabel="message from turn")
    return fig


# ---------------------------------------------------------------- notebook 03
def plot_summary_drift(kept: dict[str, list[int]], total: int, words: list[int] | None = None):
    """Facts surviving each round of re-summarising, one line per setting in ``kept``
    (e.g. ``{"summary alone": [...], "with pinned facts": [...]}``); ``words`` adds the
    summary's length in words on a second axis.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    fig, ax = _figure()
    for (label, counts), style in zip(kept.items(), ("o-", "s--", "^:", "d-.")):
        ax.plot(range(len(counts)), counts, style, label=label)
    ax.set(title="Summary drift: facts that survive re-summarising", xlabel="round",
           ylabel=f"facts kept (of {total})", ylim=(-0.3, total + 0.5))
    if words is not None:
        length = ax.twinx()
        length.bar(range(len(words)), words, color="grey", alpha=0.2, label="summary words")
        length.set_ylabel("summary length (words)")
        ax.set_zorder(length.get_zorder() + 1)
        ax.patch.set_visible(False)
    ax.legend(loc="lower left")
    return fig


# ---------------------------------------------------------------- notebook 04
def plot_validity(memory, last_turn: int):
    """Each attribute of an ``EntityMemory`` as a row; each value as a bar from the turn it
    became true to the turn it was replaced (or ``last_turn``).

    Taught in notebooks/04_entity_memory.ipynb.
    """
    keys = list(dict.fromkeys((f.entity, f.attribute) for f in memory.history))
    fig, ax = _figure(8, 0.45 * len(keys) + 1.2)
    colours = plt.get_cmap("tab10")
    for row, key in enumerate(keys):
        values = [f for f in memory.history if (f.entity, f.attribute) == key]
        for i, f in enumerate(values):
            end = f.valid_to if f.valid_to is not None else last_turn + 1
            ax.barh(row, end - f.valid_from, left=f.valid_from, color=colours(i % 10), alpha=0.75)
            ax.text(f.valid_from + 0.2, row, f.value[:28], va="center", fontsize=8)
    ax.set_yticks(range(len(keys)), [f"{e}.{a}" for e, a in keys], fontsize=8)
    ax.invert_yaxis()
    ax.set(title="When each value was true", xlabel="turn", xlim=(0.5, last_turn + 1.5))
    return fig


# ---------------------------------------------------------------- notebook 05
def plot_decay_curves(rates=(0.99, 0.95, 0.9), days: int = 60, marks=(10, 20)):
    """``rate ** days`` for a few decay rates, with the seed's check points marked.

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    fig, ax = _figure(7, 3.4)
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


def plot_similarity_heatmaps(matrices: dict, labels: list[str]):
    """One cosine-similarity heatmap per embedder, side by side (``matrices``: name -> n×n array).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    fig, axes = plt.subplots(1, len(matrices), figsize=(3.3 * len(matrices) + 1, 3.6), layout="constrained")
    plt.close(fig)
    axes = np.atleast_1d(axes)
    for ax, (name, sims) in zip(axes, matrices.items()):
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


def plot_forgetting_curves(strengths=(1, 2, 4), days: int = 14, time_scale: float = 5.0):
    """MemoryBank's curve exp(-t / (5·S)) (solid) beside the reference code's exp(-t / 5·S) (dashed).

    Taught in notebooks/05_semantic_memory.ipynb.
    """
    fig, ax = _figure(7, 3.4)
    t = np.linspace(0, days, 200)
    colours = plt.get_cmap("tab10")
    for i, s in enumerate(strengths):
        ax.plot(t, np.exp(-t / (time_scale * s)), color=colours(i), label=f"S={s}: exp(-t/(5·S))")
        ax.plot(t, np.exp(-t / time_scale * s), color=colours(i), ls="--", label=f"S={s}: exp(-t/5·S) as written")
    ax.set(title="Retention: stronger should mean slower forgetting", xlabel="days since last recall",
           ylabel="retention", ylim=(0, 1.05))
    ax.legend(fontsize=7, ncol=2)
    return fig


# ---------------------------------------------------------------- notebook 08
def plot_scoreboard(board, metrics=("probe_accuracy", "end_accuracy", "recall_precision", "stale_leakage", "bloat")):
    """One panel per metric: a bar per strategy (best first), averaged over the board's scenarios.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    from teachmem.lab.evaluate import METRICS
    labels = {name: (label, up) for name, label, up in METRICS}
    order = board.ranking()
    fig, axes = plt.subplots(1, len(metrics), figsize=(2.6 * len(metrics) + 1, 0.35 * len(order) + 1.6),
                             sharey=True, layout="constrained")
    plt.close(fig)
    y = np.arange(len(order))[::-1]
    for ax, name in zip(np.atleast_1d(axes), metrics):
        values = [board.metrics(s)[name] for s in order]
        label, up = labels[name]
        ax.barh(y, [0 if v is None else v for v in values], color="tab:green" if up else "tab:red")
        ax.set(title=f"{label} ({'higher' if up else 'lower'} is better)", xlim=(0, 1))
        ax.title.set_fontsize(9)
    axes[0].set_yticks(y, order)
    return fig


def plot_cost_vs_quality(board, quality: str = "probe_accuracy"):
    """Tokens per turn (x, what it costs) against ``quality`` (y, what it remembers), one point per strategy.

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    fig, ax = _figure(6.5, 4)
    for name in board.strategies:
        m = board.metrics(name)
        ax.scatter(m["tokens_per_turn"], m[quality], s=40)
        ax.annotate(name, (m["tokens_per_turn"], m[quality]), textcoords="offset points", xytext=(5, 4),
                    fontsize=9)
    ax.set(xlabel="tokens per turn (mean over scenarios)", ylabel=quality.replace("_", " "),
           ylim=(-0.05, 1.1), title="What a strategy costs against what it remembers")
    return fig


def plot_recall_at_k(report):
    """Evidence recall@k against k: overall (thick) and per category (thin).

    Taught in notebooks/08_evaluate_memory.ipynb.
    """
    fig, ax = _figure(6.5, 3.8)
    for category in report.categories:
        values = report.recall(category)
        ax.plot(list(values), list(values.values()), marker="o", lw=1, alpha=0.7, label=f"category {category}")
    overall = report.recall()
    ax.plot(list(overall), list(overall.values()), marker="o", lw=3, color="black", label="all")
    ax.set(xlabel="k (turns retrieved)", ylabel="evidence recall@k", ylim=(0, 1.05), xticks=list(report.ks),
           title="Is the evidence among the top k turns?")
    ax.legend(fontsize=8)
    return fig


# ---------------------------------------------------------------- notebook 09
def plot_retention(records, policy, start, now):
    """Each stored item as a bar from when it was observed to when it expires.

    Red bars carry personal data, grey bars never expire (they run off the
    right edge); the dashed line is ``now``: bars ending left of it are gone.

    Taught in notebooks/09_persistence_and_governance.ipynb.
    """
    from datetime import timedelta

    day = timedelta(days=1)
    timed = [r for r in records if r.observed_at is not None]
    horizon = max(((now - start) / day) * 1.25, 1)
    fig, ax = _figure(8, max(2.5, 0.18 * len(timed) + 1))
    for i, r in enumerate(timed):
        begin = (r.observed_at - start) / day
        end = policy.expires_at(r)
        length = (horizon - begin) if end is None else (end - r.observed_at) / day
        colour = "tab:red" if r.pii else ("0.75" if end is None else "tab:blue")
        ax.barh(i, length, left=begin, height=0.7, color=colour)
    ax.axvline((now - start) / day, color="black", ls="--", lw=1)
    ax.set_yticks(range(len(timed)), [f"{r.tier} {r.source_turn or ''}" for r in timed], fontsize=6)
    ax.set_xlim(0, horizon)
    ax.invert_yaxis()
    ax.set(xlabel="days since the conversation started", title="Retention: observed → expires (red: personal data)")
    return fig


# ---------------------------------------------------------------- notebooks 06 and 07
_SPLIT_COLOURS = {"fixed": "0.45", "fact": "tab:green", "memory": "tab:purple", "message": "tab:blue",
                  "unused": "0.88", "reply": "tab:orange"}
_SPLIT_LABELS = {"fixed": "system prompt + question", "fact": "entity facts", "memory": "long-term memories",
                 "message": "conversation window", "unused": "unused", "reply": "reserved for the reply"}


def plot_budget_split(traces: list, labels: list[str], title: str = "Where the token budget goes"):
    """One stacked bar per packed prompt (``PromptTrace``): fixed parts, facts, memories, window, unused, reply.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """
    fig, ax = _figure(8, 0.45 * len(traces) + 1.6)
    for i, trace in enumerate(traces):
        left = 0
        for part, tokens in trace.split().items():
            ax.barh(i, tokens, left=left, color=_SPLIT_COLOURS[part], label=_SPLIT_LABELS[part] if i == 0 else None)
            left += tokens
    ax.set_yticks(range(len(traces)), labels)
    ax.invert_yaxis()
    ax.set(xlabel="tokens", title=title)
    fig.legend(loc="outside lower center", ncol=3, fontsize=7)
    return fig


def plot_tokens_per_turn(replay, mark_turn: int | None = None):
    """Tokens each strategy would send after every turn of the replay.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    fig, ax = _figure(8, 3.8)
    turns = np.arange(1, len(replay.scenario) + 1)
    for name in replay.strategies:
        ax.plot(turns, replay.tokens(name), marker=".", label=name)
    if mark_turn:
        ax.axvline(mark_turn, color="0.5", ls="--", lw=0.8)
    ax.set(xlabel="turn", ylabel="tokens in the context", title="What each strategy sends, turn by turn")
    ax.legend(fontsize=8)
    return fig


def plot_recall_heatmap(replay):
    """Strategy × fact: the share of the turns a fact was true on where the strategy's context held it.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    recall, facts = replay.recall(), replay.scenario.facts
    fig, ax = _figure(9, 0.45 * len(replay.strategies) + 2.2)
    ax.imshow(recall, cmap="Greens", vmin=0, vmax=1, aspect="auto")
    for (i, j), value in np.ndenumerate(recall):
        ax.text(j, i, f"{value:.0%}", ha="center", va="center", fontsize=7,
                color="white" if value > 0.6 else "black")
    ax.set_xticks(range(len(facts)), [f.value if len(f.value) < 14 else f.value[:12] + "…" for f in facts],
                  rotation=40, ha="right", fontsize=8)
    ax.set_yticks(range(len(replay.strategies)), replay.strategies)
    ax.set_title("Recall: share of the turns each fact was true on where the context held it")
    return fig


def plot_model_calls(replay):
    """Model calls each strategy has made so far, after every turn.

    Taught in notebooks/07_compare_strategies.ipynb.
    """
    fig, ax = _figure(8, 3.4)
    turns = np.arange(1, len(replay.scenario) + 1)
    for name in replay.strategies:
        ax.step(turns, replay.calls(name), where="post", label=name)
    ax.set(xlabel="turn", ylabel="model calls so far", title="What remembering costs in model calls")
    ax.legend(fontsize=8)
    return fig
