"""Hand-built embeddings, the tokenizer, BM25 and the vector table."""
import json
import os
import subprocess
import sys
import types

import numpy as np
import pytest

from teachmem.core.embed import (BagOfWordsEmbedder, Embedder, RandomEmbedder, SentenceTransformerEmbedder,
                                 SubwordEmbedder, cosine_matrix, embedder_from_config, hash_stable)
from teachmem.core.words import content_words, stem, tokenize
from teachmem.core.bm25 import BM25Index
from teachmem.memory.semantic import (decay_factor, generative_agents_score, hybrid_relevance,
                                      memorybank_score, min_max, thread_relevance, time_signals)
from teachmem.core.vectors import MemoryTable, near_duplicate_groups, top_k_rows

EMBEDDERS = [RandomEmbedder(64), BagOfWordsEmbedder(256), SubwordEmbedder(256)]


def cos(embedder, a, b):
    return float(cosine_matrix(embedder, [a, b])[0, 1])


def test_fnv1a_matches_the_published_test_vectors():
    # FNV-1a 32-bit reference values: stable across runs and machines, unlike hash().
    assert hash_stable("") == 0x811C9DC5
    assert hash_stable("a") == 0xE40C292C
    assert hash_stable("foobar") == 0xBF9CF968


@pytest.mark.parametrize("word, want", [("seats", "seat"), ("tests", "test"), ("hiking", "hik"), ("hike", "hik"),
                                        ("planned", "plan"), ("parties", "party"), ("glass", "glass"),
                                        ("status", "status"), ("breed", "breed"), ("pytest", "pytest"), ("bus", "bus")])
def test_crude_stemming(word, want):
    assert stem(word) == want


def test_content_words_are_worked_out_once_but_each_caller_gets_its_own_list():
    words = content_words("Which seats did we book?")
    words += ["changed"]
    assert content_words("Which seats did we book?") == ["seat", "book"]


def test_tokenize_folds_case_and_accents_and_keeps_cjk_and_emoji():
    assert tokenize("Café CRÈME naïve") == ["cafe", "creme", "naive"]
    tokens = tokenize("東京タワー 🎉")
    assert {"東", "京", "東京", "🎉"} <= set(tokens)
    assert content_words("What is my favourite colour?") == ["favourit", "colour"]


@pytest.mark.parametrize("embedder", EMBEDDERS, ids=lambda e: e.name)
def test_every_embedder_returns_unit_float32_rows(embedder):
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed(["User prefers pytest", "Project uses PostgreSQL 16", "the a of"])
    assert vectors.shape == (3, embedder.dim) and vectors.dtype == np.float32
    norms = np.linalg.norm(vectors, axis=1)
    assert np.allclose(norms[:2], 1.0, atol=1e-5)
    assert norms[2] == pytest.approx(1.0 if embedder.name == "random" else 0.0, abs=1e-5)   # only stopwords
    again = type(embedder)(**{k: v for k, v in embedder.config().items() if k != "name"}).embed(["User prefers pytest"])
    assert np.array_equal(again[0], vectors[0])      # deterministic, also in a new instance


def test_random_embedder_is_no_embedding():
    e = RandomEmbedder(64)
    assert cos(e, "seat", "seat") == pytest.approx(1.0)
    assert abs(cos(e, "seat", "seats")) < 0.3          # one letter apart, unrelated vectors
    sims = cosine_matrix(e, [f"word{i}" for i in range(40)])
    off = sims[~np.eye(40, dtype=bool)]
    assert abs(off.mean()) < 0.05                        # noise around zero


def test_bag_of_words_matches_shared_words_only():
    e = BagOfWordsEmbedder(256)
    assert cos(e, "seat", "seats") == pytest.approx(1.0)
    assert cos(e, "Which seat do I prefer?", "prefers window seats") > 0.5
    assert cos(e, "pytest", "tests") == pytest.approx(0.0, abs=1e-6)      # different words never meet


def test_subword_lets_pytest_meet_tests():
    e = SubwordEmbedder(256)
    assert cos(e, "pytest", "tests") > 0.2
    assert cos(e, "pytest", "tests") > cos(e, "pytest", "postgres") + 0.15
    assert cos(e, "How should I set up tests?", "User prefers pytest with verbose output") > \
        cos(e, "How should I set up tests?", "Project uses PostgreSQL 16 with pgvector extension")


def test_embedders_reject_bad_input():
    with pytest.raises(TypeError, match="texts must be a list"):
        SubwordEmbedder().embed("one string")
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        SubwordEmbedder().embed(["ok", 3])
    with pytest.raises(ValueError, match="dim must be an int >= 2"):
        BagOfWordsEmbedder(1)
    with pytest.raises(ValueError, match="unknown embedder"):
        embedder_from_config({"name": "nope"})


@pytest.mark.parametrize("embedder", EMBEDDERS, ids=lambda e: e.name)
def test_config_round_trip(embedder):
    rebuilt = embedder_from_config(json.loads(json.dumps(embedder.config())))
    assert np.array_equal(rebuilt.embed(["window seats"]), embedder.embed(["window seats"]))


def test_sentence_transformer_adapter_with_a_fake_model(monkeypatch):
    """The adapter imports lazily; a stand-in module proves the wiring without any download."""
    class FakeModel:
        def __init__(self, name):
            self.name = name

        def encode(self, texts):
            return np.array([[len(t), 1.0, 0.0] for t in texts])

    monkeypatch.setitem(sys.modules, "sentence_transformers", types.SimpleNamespace(SentenceTransformer=FakeModel))
    e = SentenceTransformerEmbedder("tiny")
    assert e.dim == 3 and e.config() == {"name": "sentence-transformers", "model": "tiny"}
    out = e.embed(["ab", "abcd"])
    assert out.dtype == np.float32 and np.allclose(np.linalg.norm(out, axis=1), 1.0)
    assert embedder_from_config(e.config()).dim == 3


def test_bm25_prefers_rare_words_and_short_documents():
    index = BM25Index()
    for doc in (["user", "prefer", "pytest"], ["user", "like", "coffee"], ["user", "prefer", "window", "seat"],
                ["pytest"] + ["filler"] * 20):
        index.add(doc)
    s = index.scores(["user", "pytest"])
    assert s[0] > s[3] > 0        # same rare word, the shorter document wins
    assert index.idf("pytest") > index.idf("user")
    index.remove(0)
    assert index.idf("pytest") > 0 and index.scores(["nothing"]).sum() == 0


def test_bm25_removing_any_document_and_adding_it_again_equals_a_fresh_index():
    """remove() finds a recent document's postings among the last eight, any other's in one pass, and
    deletes them in place: the same index as one built fresh."""
    rng = np.random.default_rng(7)
    vocabulary = [f"w{i}" for i in range(12)]
    docs = [list(rng.choice(vocabulary, size=rng.integers(1, 8))) for _ in range(60)]
    index = BM25Index()
    for i, doc in enumerate(docs):
        index.add(doc)
        for victim in {i, int(rng.integers(0, i + 1))}:         # the newest, and one at random
            docs[victim] = list(rng.choice(vocabulary, size=rng.integers(1, 8)))
            index.remove(victim)
            index.add(docs[victim], victim)
    fresh = BM25Index()
    for doc in docs:
        fresh.add(doc)
    for term in vocabulary:
        assert index.scores([term]).tolist() == pytest.approx(fresh.scores([term]).tolist(), rel=1e-6)
        assert sorted(np.frombuffer(index.docs[term], np.int32)) == sorted(np.frombuffer(fresh.docs[term], np.int32))


def test_hybrid_and_thread_relevance():
    lexical, cosine = np.array([4.0, 2.0, 0.0]), np.array([0.1, -0.5, 0.8])
    assert hybrid_relevance(lexical, cosine, 0.5).tolist() == pytest.approx([0.55, 0.25, 0.4])
    assert hybrid_relevance(np.zeros(3), cosine, 0.5).tolist() == pytest.approx([0.1, 0.0, 0.8])
    rel = np.array([0.9, 0.0, 0.3])
    assert thread_relevance(rel, np.array([-1, 0, 1]), 0.5).tolist() == pytest.approx([0.6, 0.3, 0.2])


def shared_by_hand(relevance, previous, weight):
    """thread_relevance's rule, one row at a time: the better of the turn a row answers and the turns that
    answer it (the newest row lends nothing)."""
    out = []
    for row, own in enumerate(relevance):
        lent = [relevance[previous[row]]] if previous[row] >= 0 else []
        lent += [relevance[r] for r in range(len(relevance) - 1) if previous[r] == row]
        out.append((own + weight * max(lent, default=0.0)) / (1 + weight))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_thread_relevance_is_the_rule_row_by_row(seed):
    """Many replies to one turn, turns answering nothing, the newest answering: the vector form agrees."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    relevance = rng.random(n)
    previous = np.array([int(rng.integers(-1, row)) if row and rng.random() < 0.8 else -1 for row in range(n)])
    assert thread_relevance(relevance, previous, 0.4).tolist() == pytest.approx(
        shared_by_hand(relevance, previous, 0.4))
    assert thread_relevance(relevance, previous, 0.0) is relevance


def test_bm25_is_scaled_by_the_best_candidate_only_and_a_reply_keeps_its_dtype():
    lexical, cosine = np.array([4.0, 2.0, 0.0]), np.array([0.1, -0.5, 0.8])
    assert hybrid_relevance(lexical, cosine, 0.5, np.array([False, True, True])).tolist() == pytest.approx(
        [1.05, 0.5, 0.4])
    assert hybrid_relevance(lexical, cosine, 0.5, np.zeros(3, bool)).tolist() == pytest.approx([0.1, 0.0, 0.8])
    rel = np.array([0.9, 0.0, 0.3], np.float32)
    assert thread_relevance(rel, np.array([-1, 0, -1]), 0.5).dtype == np.float32


def test_decay_looked_up_per_whole_day_gives_the_very_numbers_of_the_formula():
    days = np.random.default_rng(3).integers(0, 400, 5000)
    direct = 0.5 ** (days.astype(np.float64) / 30.0)
    assert np.array_equal(decay_factor(days, 0.5, per=30.0), direct)
    assert np.array_equal(decay_factor(days, 0.95), np.power(0.95, days.astype(np.float64)))
    assert np.array_equal(decay_factor(days, 0.9, per=7.0), 0.9 ** (days / 7.0))
    assert decay_factor(np.array([0.5, 2.0]), 0.25).tolist() == [0.5, 0.0625]         # not whole days
    assert decay_factor(np.array([-1, 1]), 0.5).tolist() == [2.0, 0.5]                # a negative one
    assert decay_factor(np.array([7]), 0.5).tolist() == [0.5 ** 7]                    # older than there are rows
    assert decay_factor(np.array([], int), 0.5).size == 0 and decay_factor([2, 0, 2], 0.5).tolist() == [0.25, 1, 0.25]


def test_time_signals_computes_only_what_is_asked():
    day, hour = 86_400_000_000, 3_600_000_000
    created, accessed, recalls = np.array([0, day]), np.array([day, 2 * day]), np.array([0, 3])
    every = time_signals(created, accessed, recalls, 3 * day + hour)
    assert every["age_days"].tolist() == [3, 2] and every["hours_since_access"].tolist() == [49.0, 25.0]
    assert every["days_since_recall"].tolist() == [2, 1] and every["strength"].tolist() == [1.0, 4.0]
    some = time_signals(created, accessed, recalls, 3 * day + hour, ["days_since_recall", "relevance"])
    assert list(some) == ["days_since_recall"] and some["days_since_recall"].tolist() == [2, 1]


def test_decay_matches_the_worked_numbers():
    d = decay_factor(np.array([0, 10, 20]), 0.95)
    assert d.round(3).tolist() == [1.0, 0.599, 0.358]
    assert (0.9 * d).round(2).tolist() == [0.9, 0.54, 0.32]


def test_memorybank_strength_slows_forgetting():
    r = memorybank_score(np.ones(3), np.ones(3), np.array([3.0, 3.0, 3.0]), np.array([1.0, 2.0, 5.0]))["retention"]
    assert r[0] < r[1] < r[2] and r[0] == pytest.approx(np.exp(-3))


def test_generative_agents_score_normalises_each_part():
    mask = np.ones(3, dtype=bool)
    parts = generative_agents_score(np.array([0.2, 0.4, 0.6]), np.array([1.0, 1.0, 9.0]),
                                    np.array([0.0, 24.0, 240.0]), mask)
    assert parts["recency"].tolist() == pytest.approx([1.0, (0.995 ** 24 - 0.995 ** 240) / (1 - 0.995 ** 240), 0.0])
    assert parts["importance"].tolist() == [0.0, 0.0, 1.0]
    assert min_max(np.array([2.0, 2.0])).tolist() == [0.5, 0.5]


def test_memory_table_grows_by_doubling_and_filters():
    table = MemoryTable(4, {"importance": np.float64}, capacity=2)
    capacities = []
    for i in range(9):
        table.append(np.full(4, i, np.float32), {"user_id": "a" if i % 2 else "b", "n": i}, importance=i / 10)
        capacities.append(table.capacity)
    assert capacities == [2, 2, 16, 16, 16, 16, 16, 16, 16]
    assert table.matrix[:, 0].tolist() == list(range(9))
    assert table["importance"].tolist() == pytest.approx([i / 10 for i in range(9)])
    assert table.mask({"user_id": "a"}).tolist() == [i % 2 == 1 for i in range(9)]
    assert table.mask({"user_id": ["a", "b"], "n": 4}).tolist() == [i == 4 for i in range(9)]
    assert not table.mask({"user_id": "zzz"}).any() and not table.mask({"nokey": 1}).any()
    assert table.mask({"n": True}).sum() == 0      # True is not the label 1


def test_top_k_rows_is_exact_against_a_full_sort():
    rng = np.random.default_rng(0)
    for n in (1, 7, 5000, 20000):
        scores = rng.integers(0, 50, n).astype(float)       # many ties on purpose
        mask = rng.random(n) < 0.7
        for k in (1, 5, 10):
            want = sorted(np.flatnonzero(mask), key=lambda r: (-scores[r], r))[:k]
            assert top_k_rows(scores, mask, k).tolist() == want
    assert top_k_rows(np.ones(3), np.zeros(3, bool), 2).tolist() == []


def test_near_duplicate_groups_compares_within_groups_only():
    m = np.array([[1, 0], [0.99, 0.14], [0, 1], [1, 0]], dtype=np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    assert near_duplicate_groups(m, np.arange(4), np.zeros(4), 0.95) == [[0, 1, 3]]
    assert near_duplicate_groups(m, np.arange(4), np.array([0, 0, 0, 1]), 0.95) == [[0, 1]]
    assert near_duplicate_groups(m, np.arange(4), np.zeros(4), 0.95, block=1) == [[0, 1, 3]]


def test_bm25_scores_are_the_same_bits_whatever_the_hash_seed():
    """A query's terms are summed in one order: Python's set order changes with PYTHONHASHSEED from one process
    to the next, and float32 sums taken in another order can differ in the last bit, which flips exact ties."""
    script = ("from teachmem.core.bm25 import BM25Index\n"
              "from teachmem.core.words import content_words\n"
              "from teachmem import load_locomo\n"
              "index = BM25Index()\n"
              "turns = [t.text for c in load_locomo() for t in c.turns]\n"
              "for text in turns:\n"
              "    index.add(content_words(text))\n"
              "query = content_words(' '.join(turns[:40]))\n"
              "print(index.scores(query).tobytes().hex())\n")
    runs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout for seed in (0, 1, 2, 3)}
    assert len(runs) == 1
