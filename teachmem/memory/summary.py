"""Summary memory: fold old messages into a running summary, keep pinned facts verbatim.

A buffer resends every word; a window forgets whole messages. Summary memory
does neither: every ``summarize_every`` messages it asks a language model to
fold the oldest ones into a short running summary, and sends that summary
plus the messages not yet folded. The cost grows slowly, like the summary.

The price is *drift*: each fold rewrites the summary, and details such as
the reason behind a decision wear away, as in a game of telephone. Facts you
cannot afford to lose are *pinned*: kept word for word, outside the summary,
never rewritten.

Two settings cover the two shapes found in practice:

* ``keep_recent=0`` folds the whole buffer each time (progressive
  summarisation; the model briefly sees no raw messages at all);
* ``keep_recent=summarize_every // 2`` folds only the oldest half, so the
  latest exchange always stays word for word.

Taught in notebooks/03_summary_memory.ipynb.
"""
from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

from teachmem.llm import LLM, OfflineLLM, summarize
from teachmem.memory.message import Message, next_message
from teachmem.core.validate import require_int_at_least, require_positive_int, require_text


def _transcript(messages: list[Message]) -> str:
    return "\n".join(f"{m.role}: {m.content}" for m in messages)


class SummaryMemory:
    """Pinned facts + a running summary + the messages not yet summarised.

    ``llm`` does the summarising (the offline stand-in by default); its
    ``usage`` counts the calls and tokens that summarising costs.

    Taught in notebooks/03_summary_memory.ipynb.
    """

    def __init__(self, summarize_every: int = 6, *, keep_recent: int = 0,
                 max_words: int = 120, llm: LLM | None = None):
        self.summarize_every = require_positive_int("summarize_every", summarize_every)
        self.keep_recent = require_int_at_least("keep_recent", keep_recent, 0)
        if keep_recent >= summarize_every:
            # Otherwise the fold would summarise nothing and the buffer would grow forever.
            raise ValueError(f"keep_recent must be smaller than summarize_every ({summarize_every}), "
                             f"got {keep_recent}")
        self.max_words = require_positive_int("max_words", max_words)
        self.llm = OfflineLLM() if llm is None else llm
        self.buffer: list[Message] = []   # messages not yet summarised
        self.summary = ""                 # the running summary document
        self.pinned: list[str] = []       # facts kept verbatim, never summarised
        self.last_turn: int | None = None

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> None:
        """Remember a message; summarise once ``summarize_every`` are waiting."""
        message = next_message(role, content, turn, timestamp, after=self.last_turn)
        self.buffer.append(message)
        self.last_turn = message.turn
        if len(self.buffer) >= self.summarize_every:
            self._summarize()

    def pin(self, fact: str) -> None:
        """Keep ``fact`` word for word in every context, whatever the summary loses."""
        require_text("fact", fact)
        if fact not in self.pinned:
            self.pinned.append(fact)

    def _summarize(self) -> None:
        cut = len(self.buffer) - self.keep_recent
        oldest, recent = self.buffer[:cut], self.buffer[cut:]
        # Ask first, change after: if the model call fails, nothing is lost.
        new_summary = summarize(self.llm, _transcript(oldest),
                                previous_summary=self.summary, max_words=self.max_words)
        self.summary, self.buffer = new_summary, recent

    def _memory_parts(self) -> list[str]:
        parts = []
        if self.pinned:
            parts.append("PINNED FACTS:\n" + "\n".join(f"- {fact}" for fact in self.pinned))
        if self.summary:
            parts.append(f"CONVERSATION SUMMARY:\n{self.summary}")
        return parts

    def get_context(self) -> str:
        """Everything remembered, as one block of text: pinned, summary, recent."""
        parts = self._memory_parts()
        if self.buffer:
            parts.append(f"RECENT MESSAGES:\n{_transcript(self.buffer)}")
        return "\n\n".join(parts)

    def context(self, query: str | None = None) -> list[dict]:
        """Pinned facts and summary as one system message, then the recent messages.

        The query is ignored: a summary is what it is, whatever is asked next.
        """
        parts = self._memory_parts()
        head = [{"role": "system", "content": "\n\n".join(parts)}] if parts else []
        return head + [m.as_dict() for m in self.buffer]

    def to_state(self) -> dict:
        return {"summarize_every": self.summarize_every, "keep_recent": self.keep_recent,
                "max_words": self.max_words, "summary": self.summary, "pinned": list(self.pinned),
                "buffer": [m.to_state() for m in self.buffer], "last_turn": self.last_turn}

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None) -> "SummaryMemory":
        """Rebuild from ``to_state()``; the model is not state, so pass it again."""
        memory = cls(state["summarize_every"], keep_recent=state["keep_recent"],
                     max_words=state["max_words"], llm=llm)
        memory.summary = require_text("summary", state["summary"], allow_empty=True)
        memory.pinned = [require_text("pinned fact", f) for f in state["pinned"]]
        memory.buffer = [Message.from_state(m) for m in state["buffer"]]
        memory.last_turn = state["last_turn"]
        return memory

    def save(self, path: str | Path) -> None:
        """Write the memory to a JSON file, all or nothing.

        Written to a temporary file first and then renamed over the target,
        so a crash mid-write never leaves half a memory on disk.
        """
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_state(), indent=2, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path, *, llm: LLM | None = None) -> "SummaryMemory":
        """Read a memory written by ``save``.

        A missing file raises ``FileNotFoundError``: starting silently with an
        empty memory would make the assistant forget everything unnoticed.
        """
        return cls.from_state(json.loads(Path(path).read_text(encoding="utf-8")), llm=llm)
