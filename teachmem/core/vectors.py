"""A growable table of vectors and per-memory columns, in numpy arrays.

A memory is a row: its embedding a row of one float32 matrix, its numbers and filterable labels
(``user_id``, ``memory_type``, …) entries of one array per column, so a query is a matrix–vector
product and a few array operations. Capacity doubles when it runs out (amortised O(1) appends).

Taught in notebooks/05_semantic_memory.ipynb.
"""
from __future__ import annotations

import math

import numpy as np

from teachmem.core.validate import require_text

__all__ = ["MemoryTable", "decay_factor", "label_key", "min_max", "near_duplicate_groups",
           "require_items", "require_labels", "top_k_rows"]

_LABEL_TYPES = (str, int, float, bool, type(None))


def label_key(value):
    """A hashable key for a label value; ``True`` and ``1`` stay different labels.

    >>> label_key(True), label_key(1)
    (('bool', True), ('int', 1))
    """
    if not isinstance(value, _LABEL_TYPES):
        return None
    return (type(value).__name__, value)


def require_labels(metadata: dict, filters: bool = False) -> dict:
    """Metadata must be JSON-ready: scalars, or lists of scalars (lists are not filterable).

    Keys and texts must be valid Unicode (no lone surrogate) and numbers finite (JSON has no NaN
    or infinity): else such a label would be refused only at the next save, and at every one
    after it. A ``user_id`` is a str or None (1, True and 1.0 would be three users sharing
    facts); ``filters`` may list several (a list, tuple or set).

    >>> require_labels({"user_id": "maya", "tags": ["travel", "food"]})
    {'user_id': 'maya', 'tags': ['travel', 'food']}
    """
    lists = (list, tuple, set, frozenset) if filters else list     # a filter may list values
    for key, value in metadata.items():
        items = list(value) if isinstance(value, lists) else [value]
        if not all(isinstance(v, _LABEL_TYPES) for v in items):
            raise TypeError(f"metadata {key!r} must be a str, int, float, bool, None or a list "
                            f"of them, got {type(value).__name__}")
        for text in [key] + [v for v in items if isinstance(v, str)]:
            require_text(f"metadata {key!r}", text, allow_empty=True)
        if not all(math.isfinite(v) for v in items if isinstance(v, float)):
            raise ValueError(f"metadata {key!r} must be a finite number, got {value!r}")
        if key != "user_id":
            continue
        users = items if filters else [value]
        if not all(isinstance(v, (str, type(None))) for v in users):
            several = " or a list of them" if filters else ""
            raise TypeError(f"user_id must be a str{several}, got {value!r}")
    return metadata


def require_items(items, check) -> list:
    """``check(**item)`` for each dict of ``items`` (a list or tuple) before anything is written:
    what each call returns, or the first refusal, naming ``items[i]`` (a batch write is checked
    whole, so a refused batch writes nothing).

    >>> require_items([{"text": "a"}], lambda text: text.upper())
    ['A']
    """
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"items must be a list of dicts, got {type(items).__name__}")
    checked = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise TypeError(f"items[{i}] must be a dict of arguments, got {type(item).__name__}")
        try:
            checked.append(check(**item))
        except (TypeError, ValueError) as err:
            raise type(err)(f"items[{i}]: {err}") from err
    return checked


class MemoryTable:
    """Rows of (vector, numeric columns, labels) that grow by doubling.

    ``numeric`` names the columns and dtypes (``{"importance": np.float32}``);
    ``table["importance"]`` is a view of the filled rows. Labels (str, int, float, bool, None)
    are integer codes per key, so a filter is an array compare.
    """

    def __init__(self, dim: int, numeric: dict, capacity: int = 16):
        self.dim = dim
        self.size = 0
        self._matrix = np.zeros((capacity, dim), dtype=np.float32)
        self._numeric = {name: np.zeros(capacity, dtype=dtype) for name, dtype in numeric.items()}
        self._codes: dict[str, np.ndarray] = {}      # label key -> int32 code per row (-1 = absent)
        self._vocab: dict[str, dict] = {}            # label key -> {label_key(value): code}

    @property
    def capacity(self) -> int:
        return len(self._matrix)

    @property
    def matrix(self) -> np.ndarray:
        """The filled rows of the embedding matrix, shape ``(size, dim)`` (a view)."""
        return self._matrix[: self.size]

    def __getitem__(self, column: str) -> np.ndarray:
        return self._numeric[column][: self.size]

    def __len__(self) -> int:
        return self.size

    def _grow(self) -> None:
        new = max(16, 2 * self.capacity)

        def bigger(a: np.ndarray, fill=0) -> np.ndarray:
            out = np.full((new,) + a.shape[1:], fill, dtype=a.dtype)
            out[: self.size] = a[: self.size]
            return out

        self._matrix = bigger(self._matrix)
        self._numeric = {k: bigger(v) for k, v in self._numeric.items()}
        self._codes = {k: bigger(v, -1) for k, v in self._codes.items()}

    def append(self, vector: np.ndarray, labels: dict, **numbers) -> int:
        """Add one row; returns its index. Unknown label keys get a new column."""
        if self.size == self.capacity:
            self._grow()
        row = self.size
        self._matrix[row] = vector
        for name, value in numbers.items():
            self._numeric[name][row] = value
        for key, value in labels.items():
            if label_key(value) is None:
                continue
            if key not in self._codes:
                self._codes[key] = np.full(self.capacity, -1, dtype=np.int32)
                self._vocab[key] = {}
            vocab = self._vocab[key]
            self._codes[key][row] = vocab.setdefault(label_key(value), len(vocab))
        self.size += 1
        return row

    def set_vector(self, row: int, vector: np.ndarray) -> None:
        self._matrix[row] = vector

    def clear_labels(self, row: int) -> None:
        """Take ``row`` out of every label column; values no row holds any more leave the
        vocabulary."""
        for key, codes in self._codes.items():
            codes[row] = -1
            used = set(codes[: self.size].tolist())
            vocab = self._vocab[key]
            self._vocab[key] = {value: code for value, code in vocab.items() if code in used}

    def mask(self, filters: dict) -> np.ndarray:
        """Boolean row mask: every ``key=value`` must hold (a list/tuple/set means any of).

        A key no memory has, or a value never seen, selects nothing.
        """
        keep = np.ones(self.size, dtype=bool)
        for key, wanted in filters.items():
            options = wanted if isinstance(wanted, (list, tuple, set, frozenset)) else [wanted]
            vocab = self._vocab.get(key, {})
            codes = [vocab[k] for k in map(label_key, options) if k in vocab]
            if not codes:
                return np.zeros(self.size, dtype=bool)
            column = self._codes[key][: self.size]
            keep &= column == codes[0] if len(codes) == 1 else np.isin(column, codes)
        return keep

    def row_state(self, row: int) -> dict:
        """One row as JSON-ready data: its vector (a list of floats) and its numbers."""
        return {"vector": self._matrix[row].tolist(),
                "numbers": {k: v[row].item() for k, v in self._numeric.items()}}

    def nbytes(self) -> int:
        """Bytes held by the arrays (allocated capacity, not just filled rows)."""
        columns = [*self._numeric.values(), *self._codes.values()]
        return self._matrix.nbytes + sum(column.nbytes for column in columns)


def decay_factor(days, rate: float, per: float = 1.0) -> np.ndarray:
    """``rate ** (days / per)`` for every memory (rate > 0): with 0.95, 10 days leave 0.599,
    20 days 0.358.

    >>> decay_factor([0, 10, 20], 0.95).round(3).tolist()
    [1.0, 0.599, 0.358]
    """
    days = np.asarray(days)
    whole_days = days.dtype.kind in "iu"
    if whole_days and 0 <= days.min(initial=0) and days.max(initial=0) < days.size:
        # fewer distinct days than memories: each day's power once, then looked up
        return np.power(float(rate), np.arange(days.max() + 1.0) / per)[days]
    return np.power(float(rate), days.astype(np.float64) / per)


def min_max(values, mask: np.ndarray | None = None) -> np.ndarray:
    """Rescale ``values`` to [0, 1] over the entries ``mask`` selects (all equal -> all 0.5).

    >>> min_max([2.0, 4.0, 3.0]).tolist(), min_max([7, 7]).tolist()
    ([0.0, 1.0, 0.5], [0.5, 0.5])
    """
    values = np.asarray(values, dtype=np.float64)
    chosen = values if mask is None else values[mask]
    low, high = (chosen.min(), chosen.max()) if chosen.size else (0.0, 0.0)
    return np.full_like(values, 0.5) if high - low <= 1e-12 else (values - low) / (high - low)


def top_k_rows(scores: np.ndarray, mask: np.ndarray, k: int, sample: int = 512) -> np.ndarray:
    """Indices of the ``k`` best ``scores`` among rows ``mask`` selects, best first.

    Exact, and cheaper than ``argpartition`` over every row: the k-th best
    score of an evenly spaced sample of rows is a lower bound for the k-th
    best overall, so numpy's O(n) partition runs only on the rows above it.
    Ties are broken by row (older first), whatever numpy's partition does.

    >>> top_k_rows(np.array([0.2, 0.9, 0.5, 0.9]), np.array([True, True, True, False]), 2).tolist()
    [1, 2]
    """
    k = min(k, int(np.count_nonzero(mask)))
    if k == 0:
        return np.zeros(0, dtype=np.intp)
    ranked = np.where(mask, scores, -np.inf)
    candidates = None
    if len(ranked) > 4 * sample:
        probe = ranked[:: len(ranked) // sample]
        bound = np.partition(probe, len(probe) - k)[len(probe) - k] if len(probe) >= k else -np.inf
        if bound > -np.inf:
            candidates = np.flatnonzero(ranked >= bound)
    if candidates is None:
        candidates = np.flatnonzero(mask)
    values = ranked[candidates]
    kth = np.partition(values, len(values) - k)[len(values) - k]
    best = candidates[values >= kth]          # the k best, plus any rows tied with the k-th
    return best[np.lexsort((best, -ranked[best]))][:k]


def near_duplicate_groups(matrix: np.ndarray, rows: np.ndarray, groups: np.ndarray,
                          threshold: float, block: int = 1024) -> list[list[int]]:
    """Clusters of ``rows`` whose vectors have cosine >= ``threshold``.

    Only rows with the same ``groups`` value are compared (e.g. the same user
    and memory type), a ``block × n`` similarity matrix at a time (never
    ``n × n``); pairs join transitively: if A ~ B and B ~ C, all three are one cluster.

    >>> near_duplicate_groups(np.array([[1, 0], [1, 0], [0, 1]]), np.arange(3), np.zeros(3), 0.9)
    [[0, 1]]
    """
    rows = np.asarray(rows, dtype=np.intp)
    parent = {int(r): int(r) for r in rows}

    def root(r: int) -> int:
        while parent[r] != r:
            parent[r] = parent[parent[r]]
            r = parent[r]
        return r

    vectors, labels = matrix[rows], np.asarray(groups)[rows]
    for start in range(0, len(rows), block):
        sims = vectors[start:start + block] @ vectors.T
        same = labels[start:start + block, None] == labels[None, :]
        upper = np.arange(start, start + len(sims))[:, None] < np.arange(len(rows))[None, :]
        for i, j in zip(*np.nonzero((sims >= threshold) & same & upper), strict=True):
            a, b = root(int(rows[start + i])), root(int(rows[j]))
            parent[max(a, b)] = min(a, b)
    clusters: dict[int, list[int]] = {}
    for r in parent:
        clusters.setdefault(root(r), []).append(r)
    return sorted(sorted(c) for c in clusters.values() if len(c) > 1)
