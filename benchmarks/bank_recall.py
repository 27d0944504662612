"""Recall of the store on the bundled long conversations: each half of them and all, early and late evidence.

Each conversation is fed turn by turn with its real session dates (``teachmem.lab.evaluation.recall_over_time.fed_recall``);
strict and tolerant recall@10 and recall within 500 / 1,000 / 2,000 tokens are printed for each half
of the conversations and for all of them, under each of the store's scorings (and, for the product and
the time-aware score, with no dates at all), for every question, then for the questions whose evidence lies in
the first four sessions ("early") and for those with evidence in sessions five to eight ("late": recent
events, values that changed). Then the default store per conversation and per kind of question (the kinds
are kept in ``benchmarks/long_conversations.py``; the file keeps LoCoMo's categories only), and a sweep of
the time-aware scoring's near-copy cosine and half-life (the store's defaults are 0.6 and 30 days). The
two levers that find a turn through its neighbours, shared relevance and neighbour words, are measured
alone and together, and the default without the latest word (a question about now). For the questions
about a value that changed (``teachmem.lab.evaluation.changed_values``), it counts how often the turn with
the new value ranks above the turn that stated the old one: the recent value must win.
Run: ``.venv/bin/python benchmarks/bank_recall.py`` (about twenty seconds).
"""
from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from long_conversations import kinds  # noqa: E402

from teachmem.lab.evaluation.changed_values import ranks  # noqa: E402
from teachmem.lab.evaluation.locomo import LONG_CONVERSATIONS, load_locomo  # noqa: E402
from teachmem.lab.evaluation.recall_over_time import fed_recall, halves  # noqa: E402
from teachmem.memory.semantic import SCORINGS, SemanticMemoryStore, time_aware_score  # noqa: E402

MEASURES = ("strict@10", "tolerant@10", "budget 500", "budget 1000", "budget 2000")
LATE = 5                      # the first late session
SAMES, HALF_LIVES = (0.6, 0.7, 0.8, 0.9), (15, 30, 60)
LEVERS = {"both (the default)": {}, "shared relevance alone": {"neighbour_words": False},
          "neighbour words alone": {"reply_weight": 0.0},
          "neither": {"reply_weight": 0.0, "neighbour_words": False},
          "both, without the latest word": {"latest_word": False}}


def store(scoring: str | None = None):
    options = {} if scoring is None else {"scoring": scoring}
    return lambda clock: SemanticMemoryStore(clock=clock, **options)


def levered(options: dict, clock) -> SemanticMemoryStore:
    return SemanticMemoryStore(clock=clock, **options)


def rows(conversations, make_store, dated: bool = True) -> list[dict]:
    """One dict per question: its conversation, half, kind, whether its evidence is late, and its measures."""
    kind_of, first, _ = kinds(), *halves(conversations)
    out = []
    for conv in conversations:
        sessions = {t.dia_id: t.session for t in conv.turns}
        report = fed_recall([conv], make_store, dated=dated)
        for question, (_, _, values) in zip(conv.questions, report.per_question, strict=True):
            out.append({"conv": conv.sample_id, "half": "half 1" if conv in first else "half 2",
                        "kind": kind_of[conv.sample_id, question.question],
                        "evidence": "late" if max(sessions[e] for e in question.evidence) >= LATE else "early",
                        **values})
    return out


def line(label: str, chosen: list[dict], measures=MEASURES) -> str:
    means = [sum(r[m] for r in chosen) / len(chosen) if chosen else float("nan") for m in measures]
    return f"{label:48} {len(chosen):>3} " + " ".join(f"{v:>11.3f}" for v in means)


def header(label: str, measures=MEASURES) -> str:
    return f"{label:48} {'n':>3} " + " ".join(f"{m:>11}" for m in measures)


def report(label: str, table: list[dict]) -> None:
    for evidence in ("all", "early", "late"):
        for part in ("half 1", "half 2", "all"):
            chosen = [r for r in table if part in ("all", r["half"]) and evidence in ("all", r["evidence"])]
            print(line(f"{label}, {part}, {evidence} evidence", chosen))


def sweep(conversations) -> None:
    """Strict recall@10 of the time-aware scoring for each near-copy cosine and half-life (registered under a
    new name)."""
    print("\ntime_aware scoring: near-copy cosine × half-life (strict@10)")
    columns = [(h, e) for e in ("all", "early", "late") for h in ("half 1", "half 2", "all")]
    print(f"{'same, half-life':40} " + " ".join(f"{h[-6:] + ' ' + e:>13}" for h, e in columns) + "   new wins")
    for same in SAMES:
        for days in HALF_LIVES:
            name = f"time_aware same {same} half-life {days}"
            SCORINGS[name] = partial(time_aware_score, same=same, half_life_days=float(days))
            table, (wins, total) = rows(conversations, store(name)), newer_wins(conversations, store(name))
            del SCORINGS[name]
            parts = [[r for r in table if h in ("all", r["half"]) and e in ("all", r["evidence"])] for h, e in columns]
            print(f"{name[11:]:40} " + " ".join(f"{sum(r['strict@10'] for r in p) / len(p):>13.3f}" for p in parts)
                  + f"{wins:>6} of {total}")


def newer_wins(conversations, make_store) -> tuple[int, int]:
    """For the questions about a value that changed: how many rank the new value above the old."""
    ranked = ranks(conversations, make_store)
    return sum(new < old for _, new, old in ranked), len(ranked)


def main() -> None:
    conversations = load_locomo(LONG_CONVERSATIONS)
    print(header(f"{len(conversations)} conversations: part, evidence"))
    default = rows(conversations, store())
    report("default", default)
    for scoring in SCORINGS:
        report(scoring, rows(conversations, store(scoring)))
    for scoring in ("product", "time_aware"):
        report(f"{scoring}, no dates", rows(conversations, store(scoring), dated=False))
    print("\nshared relevance and neighbour words, alone and together, and the latest word (the default"
          " store otherwise)")
    for label, options in LEVERS.items():
        table = rows(conversations, partial(levered, options))
        for part in ("half 1", "half 2", "all"):
            print(line(f"{label}, {part}", [r for r in table if part in ("all", r["half"])]))
    print("\nthe default store, per conversation and per kind of question")
    for group in ("conv", "kind"):
        for value in dict.fromkeys(r[group] for r in default):
            for evidence in ("all", "early", "late"):
                chosen = [r for r in default if r[group] == value and evidence in ("all", r["evidence"])]
                print(line(f"{value}, {evidence} evidence", chosen))
    print("\nquestions about a value that changed: the turn with the new value ranked above the old one's")
    for scoring in (None, *SCORINGS):
        wins, total = newer_wins(conversations, store(scoring))
        print(f"{scoring or 'default':48} {wins} of {total}")
    wins, total = newer_wins(conversations, partial(levered, {"latest_word": False}))
    print(f"{'default, without the latest word':48} {wins} of {total}")
    sweep(conversations)


if __name__ == "__main__":
    main()
