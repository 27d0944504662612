"""Notebook 03's checkers, drift view and plot: folding old messages into a summary.

Taught in notebooks/03_summary_memory.ipynb.
"""
from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from typing import Any

from matplotlib.figure import Figure

from teachmem.lab.lesson_examples import FOLLOW_UP as FOLLOW_UP, first_day_facts, follow_up_rounds
from teachmem.lab.scenarios import Fact, fact_in_text
from teachmem.lab.unseen_conversations import summary_conversations
from teachmem.lessons.building import (class_checker, first_context_difference, own_code,
                                       show_source as show_source)
from teachmem.lessons.common import (OKABE_ITO, after_prediction as after_prediction, answer_checker,
                                     explore as explore, figure, mark)
from teachmem.llm import OfflineLLM
from teachmem.memory.summary import SummaryMemory

MAX_PINS, MAX_PIN_WORDS = 2, 12


def _replayed(memory: Any, llm: OfflineLLM, pins: list[str],
              messages: list[dict]) -> Iterator[tuple[Any, int]]:
    """After each message, what ``memory`` sends and how many calls ``llm`` has had so far."""
    for fact in pins:
        memory.pin(fact)
    for m in messages:
        memory.add(m["role"], m["content"])
        yield memory.context(), llm.usage.calls


@class_checker("summary memory")
def check_summary_class(cls: type) -> str | None:
    """Exercise 3.2: the learner's summary memory, replayed on conversations they have not seen
    beside ``SummaryMemory``: the same context after every message, and the same model calls."""
    for number, ((every, keep, words), pins, messages) in enumerate(summary_conversations(), 1):
        llm = OfflineLLM()
        library = SummaryMemory(every, keep_recent=keep, max_words=words, llm=llm)
        wanted = list(_replayed(library, llm, pins, messages))
        llm = OfflineLLM()
        with own_code():
            mine = cls(llm, summarize_every=every, keep_recent=keep, max_words=words)
            for count, ((sent, calls), (want, want_calls)) in enumerate(
                    zip(_replayed(mine, llm, pins, messages), wanted, strict=True), 1):
                case = (f"conversation {number} (summarize_every={every}, keep_recent={keep}), "
                        f"after message {count}")
                if calls != want_calls:
                    return (f"{case}, your class has made {calls} model call(s) so far, "
                            f"SummaryMemory {want_calls} (one a fold)")
                problem = first_context_difference(case, sent, want)
                if problem:
                    return problem
    return None


@answer_checker("drift prediction")
def check_drift_prediction(drift_prediction: Any) -> str | None:
    """Exercise 3.1 (predict, then run): ``(first_to_go, kept_at_the_end)``, which first-day fact the
    follow-up folds lose first and how many of them are left after the last fold (off by one counts)."""
    if not isinstance(drift_prediction, tuple) or len(drift_prediction) != 2:
        return f"expected (first_to_go, kept_at_the_end), got {type(drift_prediction).__name__}"
    first_to_go, kept_at_the_end = drift_prediction
    facts, rounds = first_day_facts(), follow_up_rounds()
    ids = [f.id for f in facts]
    if first_to_go not in ids:
        return f"first_to_go should be one of the fact ids printed above ({', '.join(ids)}), got {first_to_go!r}"
    if not isinstance(kept_at_the_end, int) or isinstance(kept_at_the_end, bool):
        return f"kept_at_the_end should be a whole number of facts (0 to {len(facts)}), got {kept_at_the_end!r}"
    lost_round = {f.id: next((r for r, text in enumerate(rounds) if not fact_in_text(f, text)), len(rounds))
                  for f in facts}
    first = [i for i in ids if lost_round[i] == min(lost_round.values())]
    kept = sum(fact_in_text(f, rounds[-1]) for f in facts)
    problems = []
    if first_to_go not in first:
        went = (f"which went at fold {lost_round[first_to_go]}" if lost_round[first_to_go] < len(rounds)
                else "which is still there after the last fold")
        problems.append(f"the first to go was {' and '.join(first)} (fold {min(lost_round.values())}), "
                        f"not {first_to_go}, {went}")
    if abs(kept_at_the_end - kept) > 1:
        problems.append(f"{kept} of {len(facts)} facts were left after the last fold, you predicted {kept_at_the_end}")
    return "; ".join(problems) or None


@answer_checker("pins")
def check_my_pins(pins: Any) -> str | None:
    """Exercise 3.3 (modify and observe): at most two pins of at most 12 words each that, beside the
    summary after the last follow-up fold, keep every first-day fact."""
    if not isinstance(pins, (list, tuple)) or not all(isinstance(p, str) for p in pins):
        raise TypeError(f"expected a list of strings, got {type(pins).__name__}")
    if len(pins) > MAX_PINS or any(len(p.split()) > MAX_PIN_WORDS for p in pins):
        return (f"at most {MAX_PINS} pins of at most {MAX_PIN_WORDS} words each "
                f"(yours: {[len(p.split()) for p in pins]} words); pins cost tokens on every request")
    kept_by = "\n".join([*pins, follow_up_rounds()[-1]])
    facts = first_day_facts()
    missing = [f for f in facts if not fact_in_text(f, kept_by)]
    if missing:
        return (f"after the last fold, {len(missing)} of the {len(facts)} first-day facts "
                f"{'is' if len(missing) == 1 else 'are'} in neither the summary nor your pins")
    return None


def drift_view(rounds: list[str], facts: list[Fact], round: int, pinned: Sequence[str] = (),
               width: int = 88) -> str:
    """Re-summary number ``round`` of a telephone game: which ``facts`` the summary still
    mentions on its own, and with the ``pinned`` lines kept beside it."""
    if not 0 <= round < len(rounds):
        raise ValueError(f"round must be between 0 and {len(rounds) - 1}, got {round}")
    summary = rounds[round]
    with_pins = "\n".join([*pinned, summary])
    alone = [fact_in_text(f, summary) for f in facts]
    kept = [fact_in_text(f, with_pins) for f in facts]
    lines = [f"round {round} of {len(rounds) - 1}: the summary has {len(summary.split())} words; facts kept: "
             f"{sum(alone)}/{len(facts)} alone, {sum(kept)}/{len(facts)} with {len(pinned)} pinned",
             "", " alone  pinned  fact"]
    lines += [f"   {mark(a)}      {mark(k)}    {f.label}" for f, a, k in zip(facts, alone, kept, strict=True)]
    return "\n".join([*lines, "", "summary:", *textwrap.wrap(summary, width)])


def plot_summary_drift(kept: dict[str, list[int]], total: int, words: list[int] | None = None) -> Figure:
    """Facts surviving each fold, one line per setting in ``kept``
    (e.g. ``{"summary alone": [...], "with pinned facts": [...]}``); ``words`` adds the
    summary's length in words as grey bars on a second axis."""
    fig, ax = figure(8, 3.8)
    for (label, counts), style, colour in zip(kept.items(), ("o-", "s--", "^:", "d-."), OKABE_ITO[4:] + OKABE_ITO,
                                              strict=False):
        ax.plot(range(len(counts)), counts, style, label=label, color=colour)
    ax.set(title="Summary drift: first-day facts left after each fold", xlabel="fold (0 = the first summary)",
           ylabel=f"facts kept (of {total})", ylim=(-0.3, total + 0.5))
    handles, labels = ax.get_legend_handles_labels()
    if words is not None:
        length = ax.twinx()
        length.bar(range(len(words)), words, color="grey", alpha=0.25, label="summary length (words)")
        length.set(ylabel="summary length (words)", ylim=(0, max(words) * 1.6))
        ax.set_zorder(length.get_zorder() + 1)
        ax.patch.set_visible(False)
        bar_handles, bar_labels = length.get_legend_handles_labels()
        handles, labels = [*handles, *bar_handles], [*labels, *bar_labels]
    ax.legend(handles, labels, loc="lower left", fontsize=9)
    return fig
