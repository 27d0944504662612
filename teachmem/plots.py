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
