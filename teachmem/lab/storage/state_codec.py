"""A memory's state as ``MemoryDB`` stores it: which class, and its bytes.

* **A registry, never an import path.** Each strategy class is saved under
  the stable name it declares as ``kind`` (``"buffer"``, ``"semantic"`` …)
  and looked up in an explicit table when loaded, so a file can never make
  teachmem import code. Files saved before strategies had a ``kind`` hold the
  class name; a small table maps those names.
* **JSON with vectors cut out.** ``to_state()`` is checked to be JSON-ready
  and valid Unicode (naming the path of a bad value); every ``"vector"`` /
  ``"embedding"`` list becomes float32 bytes (float64 when float32 would not
  give back exactly the same numbers): 1 kB instead of ~5 kB of JSON text.

* **A composite is saved part by part.** ``state_of`` adds
  each part's state (under its attribute name) to what the composite's own
  ``to_state()`` holds; ``restore`` rebuilds the composite, then each part by
  its own class, sharing one clock (see ``Composite`` in the protocol).

``MemoryDB`` (notebook 09) is built on these.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, TypeVar

import numpy as np

from teachmem.core.validate import require_text
from teachmem.memory.protocol import (Clocked, Composite, Stateful, declared_kind, is_saveable_class,
                                      strategies_by_kind)

__all__ = ["canonical_name", "decode_state", "encode_state", "raw_count", "register_strategy", "restore",
           "state_of", "strategy_class", "strategy_name"]

_VECTOR_KEYS = ("vector", "embedding")
_JSON_WHITESPACE = re.compile(r"\\[nrt]")
_PLACEHOLDER = "$vector"

# Strategies the database may rebuild, by the stable name each declares as ``kind``: every strategy
# teachmem ships (``strategy_classes``), then whatever ``register_strategy`` adds. A name read from
# the file is looked up here, so a file can never make teachmem import code.
_STRATEGIES: dict[str, type] = strategies_by_kind()
# Files saved before strategies had a ``kind`` hold the class name instead.
_LEGACY_NAMES = {"ConversationBuffer": "buffer", "SlidingWindowMemory": "window",
                 "TokenBudgetWindow": "token_window", "SummaryMemory": "summary", "EntityMemory": "entity",
                 "SemanticMemoryStore": "semantic", "HybridMemoryManager": "hybrid"}

T = TypeVar("T", bound=type)


def register_strategy(cls: T, name: str | None = None) -> T:
    """Let ``MemoryDB`` save and load your own strategy class (usable as a decorator).

    The class needs ``to_state()`` and a ``from_state`` classmethod; it is
    registered under ``name``, or else under its class attribute ``kind``.
    """
    if not is_saveable_class(cls):
        raise TypeError(f"cls must be a class with to_state() and from_state(), got {cls!r}")
    kind = declared_kind(cls)
    if name is None and kind is None:
        raise TypeError(f"cls {cls.__qualname__} must declare a class attribute kind (a str), or pass name=")
    name = require_text("name", kind if name is None else name)
    known = _STRATEGIES.get(name)
    if name in _LEGACY_NAMES or (known is not None and known is not cls):
        taken = known.__qualname__ if known else "files saved by earlier versions"
        raise ValueError(f"name {name!r} is already taken (by {taken}); give {cls.__qualname__} another name")
    if _name_of(cls) not in (None, name):
        raise ValueError(f"cls {cls.__qualname__} is already registered as {_name_of(cls)!r}")
    _STRATEGIES[name] = cls
    return cls


def strategy_class(name: str) -> Any:
    """The class registered as ``name`` (class names saved by earlier versions work too)."""
    target = _STRATEGIES.get(_LEGACY_NAMES.get(name, name))
    if target is None:
        raise ValueError(f"unknown strategy {name!r}; known: {sorted(_STRATEGIES)} "
                         "(register your own with teachmem.lab.storage.memory_db.register_strategy)")
    return target


def _name_of(cls: type) -> str | None:
    return next((name for name, known in _STRATEGIES.items() if known is cls), None)


def strategy_name(memory) -> str:
    """The registry name of ``memory``'s own class: a subclass or look-alike is not its parent."""
    if not isinstance(memory, Stateful):
        raise TypeError(f"memory must have a to_state() method, got {type(memory).__name__}")
    name = _name_of(type(memory))
    if name is None:
        raise TypeError(f"memory's class {type(memory).__module__}.{type(memory).__qualname__} is not a registered "
                        "strategy; register it with teachmem.lab.storage.memory_db.register_strategy")
    return name


def state_of(memory) -> dict:
    """Everything ``memory`` holds, as JSON-ready data: its ``to_state()``, and for a composite
    each part's state under the part's name."""
    if not isinstance(memory, Stateful):
        raise TypeError(f"memory must have a to_state() method, got {type(memory).__name__}")
    state = memory.to_state()
    if isinstance(memory, Composite):
        state = state | {name: state_of(getattr(memory, name)) for name in memory.parts}
    return state


def restore(cls, state: dict, **options):
    """Rebuild what ``state_of`` returned: ``cls.from_state(state, **options)``, then, for a
    composite, each part by its own class, in the order of ``parts``. Parts that keep a clock
    share one: ``options["clock"]`` if given, else the one the first of them resumes with."""
    memory = cls.from_state(state, **options)
    if not isinstance(memory, Composite):
        return memory
    clock = options.get("clock")
    for name in memory.parts:
        blank = getattr(memory, name)          # made by the composite, to be replaced
        if isinstance(blank, Clocked):
            part = restore(type(blank), state[name], clock=clock)
            clock = part.clock
        else:
            part = restore(type(blank), state[name])
        setattr(memory, name, part)
    if isinstance(memory, Clocked) and clock is not None:
        memory.clock = clock
    return memory


def encode_state(state) -> tuple[str, list[np.ndarray]]:
    """JSON text of ``state`` with every vector cut out, and the vectors.

    Also checks that the state is JSON-ready and encodable, naming the path of a bad value.
    """
    vectors: list[np.ndarray] = []

    def walk(value, path: str):
        if isinstance(value, dict):
            if _PLACEHOLDER in value:
                raise ValueError(f"state{path} uses the reserved key {_PLACEHOLDER!r}")
            out = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise TypeError(f"state{path} has a {type(key).__name__} key {key!r}; JSON keys are str")
                _scalar(key, f"{path} key {key!r}")
                if key in _VECTOR_KEYS and _is_vector(item):
                    out[key] = {_PLACEHOLDER: len(vectors)}
                    vectors.append(_pack(item))
                else:
                    out[key] = walk(item, f"{path}[{key!r}]")
            return out
        if isinstance(value, list):
            return [walk(item, f"{path}[{i}]") for i, item in enumerate(value)]
        return _scalar(value, path)

    skeleton = walk(state, "")
    if not isinstance(skeleton, dict):
        raise TypeError(f"to_state() must return a dict, got {type(state).__name__}")
    return json.dumps(skeleton, ensure_ascii=False, separators=(",", ":"), sort_keys=True), vectors


def _scalar(value, path: str):
    """A JSON scalar as it is, or a clear error naming where in the state it sits."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"state{path} is {value!r}; JSON has no NaN or infinity")
    if isinstance(value, str):
        return require_text(f"state{path}", value, allow_empty=True)     # no lone surrogates
    if value is None or isinstance(value, (int, float, bool)):
        return value
    raise TypeError(f"state{path} is a {type(value).__name__}; to_state() must return "
                    "only dict, list, str, int, float, bool and None")


def _is_vector(value) -> bool:
    return (isinstance(value, list) and len(value) > 0
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in value))


def _pack(numbers: list) -> np.ndarray:
    """float32 when that gives back exactly the same numbers, else float64."""
    exact = np.asarray(numbers, dtype="<f8")
    small = exact.astype("<f4")
    return small if np.array_equal(small.astype("<f8"), exact) else exact


def _restore_vectors(value, vectors: list[list[float]]):
    if isinstance(value, dict):
        if set(value) == {_PLACEHOLDER}:
            return vectors[value[_PLACEHOLDER]]
        return {k: _restore_vectors(v, vectors) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_vectors(v, vectors) for v in value]
    return value


def canonical_name(stored: str) -> str:
    """The registry name for a name read from a file (earlier versions stored the class name)."""
    return _LEGACY_NAMES.get(stored, stored)


def decode_state(text: str, vectors: Iterable[tuple[str, bytes]]) -> dict:
    """The state saved as ``text``, with its ``(dtype, bytes)`` vectors put back as lists of floats.

    Raises ``ValueError`` when the text is not a JSON object or a vector is missing or cut short.
    """
    try:
        state = json.loads(text)
    except ValueError as err:
        raise ValueError(f"its state is not valid JSON ({err})") from None
    try:
        state = _restore_vectors(state, [np.frombuffer(data, dtype=dtype).tolist() for dtype, data in vectors])
    except (ValueError, TypeError, IndexError, KeyError) as err:
        raise ValueError(f"its vectors do not fit its state ({type(err).__name__}: {err})") from None
    if not isinstance(state, dict):
        raise ValueError(f"its state is a {type(state).__name__}, not an object")
    return state


def raw_count(pattern: re.Pattern, data: bytes) -> int:
    """How often ``pattern`` occurs in stored bytes, read as text. States are stored as JSON, where a newline or
    tab is written ``\\n`` / ``\\t``: those count as whitespace here too."""
    return len(pattern.findall(_JSON_WHITESPACE.sub(" ", data.decode("utf-8", errors="replace"))))
