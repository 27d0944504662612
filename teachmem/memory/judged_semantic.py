"""The semantic store with each chat message's importance judged, not fixed.

``SemanticMemoryStore.add`` stores every message at importance 0.5: it has no way to tell "We
picked MySQL" from "ok thanks". This store asks the importance rules of ``teachmem.llm`` for
each message it stores, so a decision outranks small talk of the same relevance and age. It
differs from its parent in that one line, and saves under a kind of its own.

Taught in notebooks/07_compare_strategies.ipynb.
"""
from __future__ import annotations

from teachmem.llm import importance_rules
from teachmem.memory.semantic import SemanticMemoryStore


class JudgedSemanticStore(SemanticMemoryStore):
    """The semantic store, each chat message stored with the importance the rules give it.

    ``add`` alone stores every message at 0.5. Notebook 07 builds this class inline; the
    comparison it replays and the projected page (``make app``) use this one.

    Taught in notebooks/07_compare_strategies.ipynb.
    """

    kind = "judged_semantic"

    def store(self, text, memory_type="general", importance=None, timestamp=None, **metadata):
        if importance is None:
            # add() stores "role: content" and passes no importance: judge the content alone
            message = text.partition(": ")[2]
            importance = importance_rules(message)
        return super().store(text, memory_type, importance, timestamp, **metadata)
