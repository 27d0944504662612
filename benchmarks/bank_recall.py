"""Recall of the store on the bundled long conversations: each half of them and all, early and late evidence.

Each conversation is fed turn by turn with its real session dates (``teachmem.lab.longterm.fed_recall``);
strict and tolerant recall@10 and recall within 500 / 1,000 / 2,000 tokens are printed for each half
of the conversations and for all of them, under each of the store's scorings (and, for the product and
the half-life, with no dates at all), for every question, then for the questions whose evidence lies in
the first four sessions ("early") and for those with evidence in sessions five to eight ("late": recent
events, values that changed). Then the default store per conversation and per kind of question (the kinds
are kept in ``benchmarks/long_conversations.py``; the file keeps LoCoMo's categories only), and a sweep of
the half-life scoring's floor and half-life (the store's defaults are floor 0.5, half-life 30 days).
Run: ``.venv/bin/python benchmarks/bank_recall.py`` (about a minute).
"""
from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from long_conversations import kinds  # noqa: E402

from teachmem.lab.locomo import LONG_CONVERSATIONS, load_locomo  # noqa: E402
from teachmem.lab.longterm import fed_recall, halves  # noqa: E402
from teachmem.memory.semantic import SCORINGS, SemanticMemoryStore, half_life_score  # noqa: E402

MEASURES = ("strict@10", "tolerant@10", "budget 500", "budget 1000", "budget 2000")
LATE = 5                      # the first late session
FLOORS, HALF_LIVES = (0.25, 0.5, 0.75, 0.9), (30, 90, 180)


def store(scoring: str | None = None):
    options = {} if scoring is None else {"scoring": scoring}
    return lambda clock: SemanticMemoryStore(clock=clock, **options)


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
    """Strict recall@10 of the half-life scoring for each floor and half-life (registered under a new name)."""
    print("\nhalf_life scoring: floor × half-life (strict@10)")
    columns = [(h, e) for e in ("all", "early", "late") for h in ("half 1", "half 2", "all")]
    print(f"{'floor, half-life':40} " + " ".join(f"{h[-6:] + ' ' + e:>13}" for h, e in columns))
    for floor in FLOORS:
        for days in HALF_LIVES:
            name = f"half_life floor {floor} half-life {days}"
            SCORINGS[name] = partial(half_life_score, floor=floor, half_life_days=float(days))
            table = rows(conversations, store(name))
            del SCORINGS[name]
            parts = [[r for r in table if h in ("all", r["half"]) and e in ("all", r["evidence"])] for h, e in columns]
            print(f"{name[10:]:40} " + " ".join(f"{sum(r['strict@10'] for r in p) / len(p):>13.3f}" for p in parts))


def main() -> None:
    conversations = load_locomo(LONG_CONVERSATIONS)
    print(header(f"{len(conversations)} conversations: part, evidence"))
    default = rows(conversations, store())
    report("default", default)
    for scoring in SCORINGS:
        report(scoring, rows(conversations, store(scoring)))
    for scoring in ("product", "half_life"):
        report(f"{scoring}, no dates", rows(conversations, store(scoring), dated=False))
    print("\nthe default store, per conversation and per kind of question")
    for group in ("conv", "kind"):
        for value in dict.fromkeys(r[group] for r in default):
            for evidence in ("all", "early", "late"):
                chosen = [r for r in default if r[group] == value and evidence in ("all", r["evidence"])]
                print(line(f"{value}, {evidence} evidence", chosen))
    sweep(conversations)


if __name__ == "__main__":
    main()
