"""Notebooks 05 and 05b: every exercise's checker passes the worked solution and fails a plausible wrong
answer, an answer that just calls teachmem's own implementation, and an untouched stub; predictions are
compared with the answer the notebook computes."""
import inspect
import json
import math
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from conftest import load_solutions, proves_checker, unwrapped
from teachmem.core.clock import ManualClock
from teachmem.core.words import stem
from teachmem.lab.lesson_examples import MERGED_LIVE, WIFI_MEMORIES, WIFI_NOW, WIFI_QUESTION, merged_store
from teachmem.llm.phrases import singular
from teachmem.lessons import semantic, semantic_upkeep
from teachmem.memory.semantic import (SemanticMemoryStore, decay_factor, fact_key, generative_agents_score,
                                      memorybank_score)

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
S05, S05B = load_solutions("05_semantic_memory"), load_solutions("05b_semantic_upkeep")


def _naive_plural(word):
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _verb_key(fact):
    """The notebook's starting rule: the part before " is ", else the verb alone."""
    words = fact.lower().split()
    return fact[:fact.index(" is ")] if " is " in fact else words[0]


def _synonyms_only(fact):
    """Maps "moved" to "lives" but still keys a preference by its verb alone."""
    key = _verb_key(fact)
    return {"moved": "lives"}.get(key, key)


def _last_word_unfolded(fact):
    """Keys a preference by its verb and last word, but never folds the plural: "seat" and "seats" part."""
    key = _synonyms_only(fact)
    return f"{key} {fact.split()[-1]}" if key in ("prefers", "likes") else key


def _memorybank_as_written(t, S):
    return math.exp(-t / 5*S)          # MemoryBank's public code: the precedence bug, kept on purpose


def _recency_by_rank(last_accessed, now, decay=0.995):
    """The Generative Agents public code: oldest first, decay ** rank."""
    order = sorted(range(len(last_accessed)), key=lambda i: last_accessed[i])
    out = [0.0] * len(last_accessed)
    for rank, i in enumerate(order, start=1):
        out[i] = decay ** rank
    return out


def _recency_by_rank_newest_first(last_accessed, now, decay=0.995):
    """Order fixed, but still by rank instead of hours: also wrong."""
    order = sorted(range(len(last_accessed)), key=lambda i: -last_accessed[i])
    out = [0.0] * len(last_accessed)
    for rank, i in enumerate(order):
        out[i] = decay ** rank
    return out


# Answers that just call teachmem's own implementation of the job.
def _teachmem_retention(t, S):
    return float(memorybank_score([1.0], [1.0], [t], [S])["retention"][0])


def _teachmem_recency(last_accessed, now, decay=0.995):
    n = len(last_accessed)
    hours = now - np.asarray(last_accessed, dtype=float)
    return list(generative_agents_score(np.zeros(n), np.zeros(n), hours, np.ones(n, bool), decay)["recency"])


def _teachmem_decay_factor(last_accessed, now, decay=0.995):
    return list(decay_factor(now - np.asarray(last_accessed, dtype=float), decay))


CASES = {
    "5.1 fold_plural": (semantic.check_fold_plural, S05.fold_plural, [_naive_plural, lambda w: w], [stem, singular]),
    "5.2 fact_key": (semantic.check_fact_key, S05.fact_key, [_verb_key, _synonyms_only, _last_word_unfolded], [fact_key]),
    "5.3 forgetting_curve": (semantic_upkeep.check_forgetting_curve, S05B.forgetting_curve,
                             [_memorybank_as_written, lambda t, S: math.exp(-t / S)], [_teachmem_retention]),
    "5.4 recency_scores": (semantic_upkeep.check_recency_scores, S05B.recency_scores,
                           [_recency_by_rank, _recency_by_rank_newest_first,
                            lambda la, now, decay=0.995: [decay ** (now - t) for t in la]],      # no clock skew
                           [_teachmem_recency, _teachmem_decay_factor]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_checker_passes_the_solution_and_fails_wrong_and_teachmem_answers(name, capsys):
    checker, solution, wrongs, teachmem_answers = CASES[name]
    proves_checker(checker, solution, wrongs + teachmem_answers, capsys)


def test_fold_plural_names_what_a_stemmer_does_too(capsys):
    assert not semantic.check_fold_plural(lambda w: "hik" if w == "hiking" else S05.fold_plural(w))
    assert "-ing, -ed and a final e stay" in unwrapped(capsys.readouterr().out)
    assert not semantic.check_fold_plural(lambda w: [w])
    assert "for word='seat' expected a str, got list" in capsys.readouterr().out


def test_fact_key_feedback_names_the_pair(capsys):
    semantic.check_fact_key(_verb_key)
    assert "'prefers tea' should not replace 'prefers window seats'" in capsys.readouterr().out
    semantic.check_fact_key(fact_key)
    assert "'moved to porto' should replace 'lives in lisbon'" in capsys.readouterr().out
    assert not semantic.check_fact_key(lambda fact: len(fact))
    assert "expected a str key" in capsys.readouterr().out


def test_forgetting_checker_names_the_precedence_bug(capsys):
    semantic_upkeep.check_forgetting_curve(_memorybank_as_written)
    assert "operator precedence" in capsys.readouterr().out


def test_recency_checker_names_the_reversed_order(capsys):
    semantic_upkeep.check_recency_scores(_recency_by_rank)
    assert "ordering is reversed" in capsys.readouterr().out


# ---------------------------------------------------------------- 5.5: a parameter, changed until it passes
def test_merge_threshold_passes_the_solution_and_fails_the_default_too_low_and_nonsense(capsys):
    default = inspect.signature(SemanticMemoryStore.consolidate).parameters["threshold"].default
    assert semantic_upkeep.check_merge_threshold(S05B.merge_threshold)
    assert "✓" in capsys.readouterr().out
    assert not semantic_upkeep.check_merge_threshold(default)          # teachmem's own choice
    assert "lower the threshold" in unwrapped(capsys.readouterr().out)
    assert not semantic_upkeep.check_merge_threshold(0.5)              # merges the coverage preference too
    assert "raise the threshold" in capsys.readouterr().out
    for nonsense in ("0.7", None, True, 1.5):
        assert not semantic_upkeep.check_merge_threshold(nonsense)
        assert "expected a number between 0 and 1" in capsys.readouterr().out


def test_merged_store_keeps_one_copy_of_the_preference():
    store, changes = merged_store(S05B.merge_threshold)
    assert [c.event for c in changes] == ["DELETE", "DELETE", "UPDATE"]
    assert [t for r, t in enumerate(store.texts) if r not in store.retired] == MERGED_LIVE


# ---------------------------------------------------------------- predictions
def test_predictions_are_compared_with_the_answer_the_run_gives(capsys):
    assert semantic.check_burial_prediction(35)                     # within 3 days of 37 counts
    assert "✓" in capsys.readouterr().out
    assert not semantic.check_burial_prediction(20)
    out = capsys.readouterr().out
    assert "✗" in out and "you predicted 20" in out and "day 37" in out
    assert not semantic.check_burial_prediction(None)
    out = capsys.readouterr().out
    assert "○" in out and "37" not in out                          # an unwritten prediction gets no answer
    assert not semantic.check_burial_prediction(True)               # a bool is no number of days
    assert not semantic.check_burial_prediction(37.0)               # nor a float: a whole number, by hand
    assert semantic_upkeep.check_first_prediction(" Appointment")
    assert not semantic_upkeep.check_first_prediction("floss")
    assert not semantic_upkeep.check_first_prediction(1)
    assert not semantic_upkeep.check_first_prediction("both")
    capsys.readouterr()


def test_the_known_answers_are_what_the_stores_do():
    assert semantic.burial_day(WIFI_MEMORIES, WIFI_QUESTION, WIFI_NOW) == 37
    clock = ManualClock(datetime(2026, 1, 15))
    bank = SemanticMemoryStore(scoring="memorybank", clock=clock)
    bank.store("the dentist appointment is on Friday")
    bank.store("the dentist said to floss daily")
    clock.advance(days=2)
    bank.retrieve("dentist appointment Friday", top_k=1)
    clock.advance(days=3)
    assert "appointment" in bank.explain("dentist", top_k=1)[0]["text"]


# ---------------------------------------------------------------- the notebooks' starting points
def _cell(notebook: str, cell_id: str) -> str:
    cells = json.loads((NOTEBOOKS / notebook).read_text())["cells"]
    return "".join(next(c for c in cells if c["id"] == cell_id)["source"])


def test_modify_and_observe_exercises_start_failing_and_the_prediction_starts_empty(capsys):
    """5.2 and 5.5 hand the learner something to change: as stored, it does not pass yet."""
    scope: dict = {"lesson": semantic}
    exec(_cell("05_semantic_memory.ipynb", "f5a2c002"), scope)
    assert not semantic.check_fact_key(scope["my_fact_key"])
    scope = {}
    exec(_cell("05b_semantic_upkeep.ipynb", "5b5e0012").split("\n")[0], scope)
    assert not semantic_upkeep.check_merge_threshold(scope["THRESHOLD"])
    for notebook, cell_id in (("05_semantic_memory.ipynb", "5c0a7e12"), ("05b_semantic_upkeep.ipynb", "18b5e006")):
        scope = {}
        exec(_cell(notebook, cell_id), scope)
        assert [v for k, v in scope.items() if k.endswith("_prediction")] == [None], notebook
    capsys.readouterr()


def test_every_checker_of_05b_passes_its_worked_solution(capsys):
    """As tests/house/test_checkers.py does for the other notebooks."""
    for name in [n for n in vars(semantic_upkeep) if n.startswith("check_")]:
        assert getattr(semantic_upkeep, name)(getattr(S05B, name.removeprefix("check_"))), name
        assert "✓" in capsys.readouterr().out


# ---------------------------------------------------------------- section 3: the learner's store
def _store_cell() -> str:
    return next(source for source in map(lambda c: "".join(c["source"]), json.loads(
        (NOTEBOOKS / "05_semantic_memory.ipynb").read_text())["cells"]) if "class MyStore" in source)


def _variant(**methods):
    """The worked solution with some methods replaced: a plausible wrong version."""
    return type("MyStore", (S05.MyStore,), methods)


def _product_retrieve(self, query, k=3, now=None):          # the textbook score, no floor
    scores = [match * m["importance"] * 0.95 ** (now - m["time"]).days
              for m, match in zip(self.memories, self.relevance(query), strict=True)]
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    return [self.memories[i]["text"] for i in ranked if self.memories[i]["live"]][:k]


def _ranked_by(self, query, k, recency):
    scores = [match * (0.5 + 0.5 * m["importance"]) * recency(m)
              for m, match in zip(self.memories, self.relevance(query), strict=True)]
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    return [self.memories[i]["text"] for i in ranked if self.memories[i]["live"]][:k]


def _recency_on_every_memory(self, query, k=3, now=None):   # age costs every memory, copy or not
    return _ranked_by(self, query, k, lambda m: 0.5 + 0.5 * 0.5 ** ((now - m["time"]).days / 30))


def _no_recency(self, query, k=3, now=None):                  # a value and its update tie on time
    return _ranked_by(self, query, k, lambda m: 1.0)


def _add_keeping_old_facts(self, role, content, importance=0.5, timestamp=None, fact=False):
    text = content if fact else f"{role}: {content}"
    self.memories.append({"text": text, "vector": self.embedder.embed([text])[0], "importance": importance,
                          "time": timestamp, "key": None, "live": True})
    self.index.add(S05.content_words(text))


def _cut_before_dropping_retired(self, query, k=3, now=None):
    texts = S05.MyStore.retrieve(self, query, len(self.memories), now)
    return texts[:k] if len(texts) < k else texts[:k - 1]       # one memory short


class _Wraps:
    def __init__(self):
        self.store = SemanticMemoryStore(reply_weight=0)

    def add(self, role, content, importance=0.5, timestamp=None, fact=False):
        self.store.store(content if fact else f"{role}: {content}", "fact" if fact else "message",
                         importance, timestamp)

    def retrieve(self, query, k=3, now=None):
        return [text for _, text, _ in self.store.retrieve(query, k, now)]

    def context(self, query=None):
        return self.store.context(query)


def test_the_store_checker_passes_the_worked_solution_and_says_what_the_skeleton_lacks(capsys):
    assert semantic.check_semantic_class(S05.MyStore)
    assert "✓ semantic store: passed" in capsys.readouterr().out
    scope: dict = {"lesson": semantic, "np": np, "SubwordEmbedder": S05.SubwordEmbedder,
                   "BM25Index": S05.BM25Index, "content_words": S05.content_words}   # earlier cells
    exec(_store_cell().replace("lesson.check_semantic_class(MyStore)", ""), scope)
    assert not semantic.check_semantic_class(scope["MyStore"])
    assert "○ semantic store: not implemented yet" in capsys.readouterr().out


def test_two_wrong_stores_fail_with_different_one_line_messages(capsys):
    assert not semantic.check_semantic_class(_variant(retrieve=_product_retrieve))
    product = unwrapped(capsys.readouterr().out).strip()
    # the memory that should rank, the learner's, and how the library scores each: the part that
    # differs (here recency, which the product lets fall to nothing) is there to see
    assert "should be" in product and "yours is" in product and product.count("recency") == 2
    assert not semantic.check_semantic_class(type("MyStore", (S05.MyStore,), {"add": _add_keeping_old_facts}))
    kept = unwrapped(capsys.readouterr().out).strip()
    assert "is returned, but" in kept and "replaced it" in kept and kept != product
    assert not semantic.check_semantic_class(_variant(retrieve=_cut_before_dropping_retired))
    short = unwrapped(capsys.readouterr().out).strip()
    assert "yours returns 2 memories, 3 wanted" in short
    for message in (product, kept, short):
        assert len(message.splitlines()) == 1 and message.count("✗") == 1, message


def test_recency_on_every_memory_or_on_none_fails_with_a_one_line_difference(capsys):
    """The near-copy recency is the learner's to write: a recency of age alone, or none, is caught."""
    messages = []
    for retrieve in (_recency_on_every_memory, _no_recency):
        assert not semantic.check_semantic_class(_variant(retrieve=retrieve))
        messages.append(unwrapped(capsys.readouterr().out).strip())
    for message in messages:
        assert len(message.splitlines()) == 1 and message.count("✗") == 1, message
        assert "should be" in message and "yours is" in message and "recency" in message
    assert "recency 0.63" in messages[1]          # the older near-copy the library lowers, yours not


def test_a_store_that_wraps_or_inherits_the_library_fails(capsys):
    assert not semantic.check_semantic_class(_Wraps)
    assert "already does this job" in capsys.readouterr().out
    assert not semantic.check_semantic_class(type("Mine", (SemanticMemoryStore,), {}))
    assert "inherits teachmem's SemanticMemoryStore" in capsys.readouterr().out
    assert not semantic.check_semantic_class(S05.MyStore())
    assert "expected a class" in capsys.readouterr().out
