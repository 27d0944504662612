"""Summary memory: fold old messages into a running summary, keep pinned facts verbatim.

Every ``summarize_every`` messages a language model folds the oldest into a short running summary;
the summary and the messages not yet folded are sent. The cost grows slowly; the price is *drift*
(each fold rewrites the summary, details wear away), so facts you cannot lose are *pinned*: kept
word for word, never rewritten. ``keep_recent=0`` folds the whole buffer each time (progressive
summarisation); ``keep_recent=summarize_every // 2`` folds only the oldest half. A blank reply
from the model folds nothing (a NOOP says so, the next message tries again); a failed call raises
and also loses nothing.

Going further (13): ``max_tokens`` folds when the context nears a model's limit instead of every
``summarize_every`` messages (compaction at runtime, as long-running agents do), and
``compaction="append"`` adds each fold's summary as a block after the earlier ones, which stay word
for word, so a provider's prompt cache keeps serving the prompt's opening.

Taught in notebooks/03_summary_memory.ipynb: the learner builds ``add``, ``_summarize`` and
``context``; what follows them (pins, saving, forgetting) comes after.
"""
from __future__ import annotations

import json
import os
import re
from datetime import datetime
from pathlib import Path

from teachmem.core.change import Change
from teachmem.core.text import fenced, quote, redact
from teachmem.core.tokens import count_message_tokens
from teachmem.core.validate import (require_callable, require_choice, require_int_at_least,
                                    require_positive_int, require_text)
from teachmem.llm import LLM, OfflineLLM, summarize
from teachmem.memory.message import (Message, erase_messages, message_records, next_message,
                                     position, restore_messages)

# The one place a summary lives: its id in every Change.
SUMMARY_ID = "summary"
# How a fold changes the summary: rewrite it whole, or append a block after it (going further, 13).
COMPACTIONS = ("rewrite", "append")


def _transcript(messages: list[Message]) -> str:
    return "\n".join(f"{m.role}: {m.content}" for m in messages)


class SummaryMemory:
    """Pinned facts + a running summary + the messages not yet summarised.

    ``llm`` does the summarising (the offline stand-in by default); its
    ``usage`` counts the calls and tokens that summarising costs.

    Taught in notebooks/03_summary_memory.ipynb.
    """

    kind = "summary"

    def __init__(self, summarize_every: int = 6, *, keep_recent: int = 0,
                 max_words: int = 120, llm: LLM | None = None, compaction: str = "rewrite",
                 max_tokens: int | None = None):
        self.summarize_every = require_positive_int("summarize_every", summarize_every)
        self.keep_recent = require_int_at_least("keep_recent", keep_recent, 0)
        if max_tokens is not None:
            require_positive_int("max_tokens", max_tokens)
        self.max_tokens = max_tokens      # fold when the context passes this many tokens (13)
        if max_tokens is None and keep_recent >= summarize_every:
            # Otherwise the fold would summarise nothing and the buffer would grow forever.
            raise ValueError(f"keep_recent must be smaller than summarize_every "
                             f"({summarize_every}), got {keep_recent}")
        self.max_words = require_positive_int("max_words", max_words)
        self.compaction = require_choice("compaction", compaction, COMPACTIONS)
        require_callable("llm", llm, "complete")
        self.llm = OfflineLLM() if llm is None else llm
        self.buffer: list[Message] = []   # messages not yet summarised
        self.summary = ""                 # the running summary document
        self.pinned: list[str] = []       # facts kept verbatim, never summarised
        self.pin_ids: list[str] = []      # their ids, "p1", "p2", …
        self.last_turn: int | None = None
        self.arrived = 0                  # messages ever added: the next id is m{arrived + 1}
        self.pins_made = 0                # facts ever pinned: the next id is p{pins_made + 1}

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """Remember a message; summarise once ``summarize_every`` are waiting.

        Returns the message's ADD and, after a fold, the summary's rewrite
        (an UPDATE, or the ADD of the first summary) and a DELETE for every
        message folded into it. If the fold's model call fails, the message
        stays stored and the error is raised; if the model answers with
        nothing, a NOOP says the fold was skipped. Either way the next
        ``add`` tries the fold again.
        """
        number = self.arrived + 1
        message = next_message(role, content, turn, timestamp, after=self.last_turn, number=number)
        self.buffer.append(message)
        self.last_turn = message.turn
        self.arrived += 1
        changes = [Change("ADD", str(message.id), message.text, reason="new message")]
        if self._fold_due():
            changes += self._summarize() if self.compaction == "rewrite" else self._append_block()
        return changes

    def _summarize(self) -> list[Change]:
        """Fold all but the last ``keep_recent`` messages into the summary, with one model call."""
        cut = len(self.buffer) - self.keep_recent
        oldest = self.buffer[:cut]
        recent = self.buffer[cut:]
        # Ask first, change after: if the model call fails, nothing is lost.
        new_summary = summarize(self.llm, _transcript(oldest), previous_summary=self.summary,
                                max_words=self.max_words)
        # Blank is a fair summary only of nothing: no earlier summary, no word in the messages.
        folded_words = self.summary + "".join(m.content for m in oldest)
        if not new_summary.strip() and re.search(r"\w", folded_words):
            reason = (f"the model returned an empty summary: the {len(self.buffer)} waiting "
                      "messages and the previous summary are kept, and the next message tries "
                      "again")
            return [Change("NOOP", SUMMARY_ID, self.summary, reason=reason)]
        event = "UPDATE" if self.summary else "ADD"
        changes = [Change(event, SUMMARY_ID, new_summary, previous=self.summary or None,
                          reason=f"{len(oldest)} messages folded into the summary")]
        changes += [Change("DELETE", str(m.id), m.text, reason="folded into the summary")
                    for m in oldest]
        self.summary = new_summary
        self.buffer = recent
        return changes

    def context(self, query: str | None = None) -> list[dict]:
        """Pinned facts and summary as one system message, then the recent messages.

        The query is ignored: a summary is what it is, whatever is asked next.
        """
        parts = self._memory_parts()
        head = [{"role": "system", "content": "\n\n".join(parts)}] if parts else []
        return head + [m.as_dict() for m in self.buffer]

    def _memory_parts(self) -> list[str]:
        """The pinned facts (as quoted data) and the summary, each under its header."""
        parts = []
        if self.pinned:
            parts.append(fenced("PINNED FACTS", [quote(fact) for fact in self.pinned]))
        if self.summary:
            parts.append(f"CONVERSATION SUMMARY:\n{self.summary}")
        return parts

    def pin(self, fact: str) -> list[Change]:
        """Keep ``fact`` word for word in every context, whatever the summary loses.

        Returns an ADD under a new id ("p1", …), or a NOOP if it is already pinned.
        """
        require_text("fact", fact)
        if fact in self.pinned:
            known_id = self.pin_ids[self.pinned.index(fact)]
            return [Change("NOOP", known_id, fact, reason="already pinned")]
        self.pins_made += 1
        self.pinned.append(fact)
        self.pin_ids.append(f"p{self.pins_made}")
        return [Change("ADD", self.pin_ids[-1], fact, reason="pinned: kept word for word")]

    # ---- Going further (03: the text view, save and load) ----
    def get_context(self) -> str:
        """Everything remembered, as one block of text: pinned, summary, recent."""
        parts = self._memory_parts()
        if self.buffer:
            parts.append(f"RECENT MESSAGES:\n{_transcript(self.buffer)}")
        return "\n\n".join(parts)

    def to_state(self) -> dict:
        """Settings, summary, pins and waiting messages, as JSON-ready data (not the model)."""
        state = {"summarize_every": self.summarize_every, "keep_recent": self.keep_recent,
                 "max_words": self.max_words, "summary": self.summary, "pinned": list(self.pinned),
                 "pin_ids": list(self.pin_ids), "pins_made": self.pins_made,
                 "buffer": [m.to_state() for m in self.buffer], "last_turn": self.last_turn,
                 "arrived": self.arrived}
        # Going further (13): written when set, so a memory without them saves what it always did.
        if self.compaction != "rewrite":
            state["compaction"] = self.compaction
        if self.max_tokens is not None:
            state["max_tokens"] = self.max_tokens
        return state

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None) -> "SummaryMemory":
        """Rebuild from ``to_state()``; the model is not state, so pass it again."""
        memory = cls(state["summarize_every"], keep_recent=state["keep_recent"],
                     max_words=state["max_words"], llm=llm,
                     compaction=state.get("compaction", "rewrite"),
                     max_tokens=state.get("max_tokens"))
        memory.summary = require_text("summary", state["summary"], allow_empty=True)
        memory.pinned = [require_text("pinned fact", f) for f in state["pinned"]]
        default_ids = [f"p{i}" for i in range(1, len(memory.pinned) + 1)]
        memory.pin_ids = list(state.get("pin_ids", default_ids))
        memory.pins_made = state.get("pins_made", len(memory.pinned))
        memory.buffer = restore_messages(state["buffer"])
        memory.last_turn = state["last_turn"]
        memory.arrived = state.get("arrived", len(memory.buffer))
        return memory

    def save(self, path: str | Path) -> None:
        """Write the memory to a JSON file, all or nothing.

        Written to a temporary file first, flushed to disk and then renamed
        over the target, so a crash mid-write never leaves half a memory on
        disk, and a failed write leaves no temporary file behind.
        """
        path = Path(path)
        # Encoded before any file is opened: text that cannot be written (a lone
        # surrogate) fails here and leaves the disk untouched.
        data = json.dumps(self.to_state(), indent=2, ensure_ascii=False).encode("utf-8")
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)    # gone after a replace; removed after any failure

    @classmethod
    def load(cls, path: str | Path, *, llm: LLM | None = None) -> "SummaryMemory":
        """Read a memory written by ``save``.

        A missing file raises ``FileNotFoundError``: starting silently with an
        empty memory would make the assistant forget everything unnoticed.
        """
        return cls.from_state(json.loads(Path(path).read_text(encoding="utf-8")), llm=llm)

    # ---- Going further (09: forgetting, retention and provenance) ----
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove what ``pattern`` matches: redacted in the waiting messages, pinned facts
        that mention it unpinned, a summary that mentions it rewritten from its other
        sentences (one model call). ``teachmem.forget`` calls this.
        """
        self.buffer, changes = erase_messages(self.buffer, pattern)
        pins = zip(self.pin_ids, self.pinned, strict=True)
        for fact_id in [pin_id for pin_id, fact in pins if pattern.search(fact)]:
            changes += self.delete(fact_id, reason="forgotten: the pinned fact mentioned it")
        if pattern.search(self.summary):
            # Summarised afresh from the sentences that do not mention it: a redacted
            # sentence would still say *that* something was there, and read badly.
            sentences = re.split(r"(?<=[.!?])\s+", self.summary)
            kept = " ".join(s for s in sentences if not pattern.search(s))
            new = summarize(self.llm, kept, max_words=self.max_words).strip() or kept
            changes.append(Change("UPDATE", SUMMARY_ID, redact(pattern, new), previous=self.summary,
                                  reason="forgotten: the summary is rewritten without it"))
            self.summary = changes[-1].text
        return changes

    def delete(self, id: str, *, reason: str = "deleted") -> list[Change]:
        """Remove one item: the summary ("summary"), a pinned fact ("p1", …) or a waiting
        message ("m7", …).

        Retention calls this; an unknown id is a clear KeyError.
        """
        require_text("id", id)
        if id == SUMMARY_ID:
            change = Change("DELETE", id, self.summary, reason=reason)
            self.summary = ""
        elif id in self.pin_ids:
            i = self.pin_ids.index(id)
            change = Change("DELETE", id, self.pinned[i], reason=reason)
            del self.pinned[i], self.pin_ids[i]
        else:
            message = self.buffer.pop(position(self.buffer, id))
            change = Change("DELETE", id, message.text, reason=reason)
        return [change]

    def provenance(self) -> list[dict]:
        """Every stored item with where it came from (read by ``teachmem.lab.governance``).

        A pinned fact and the summary record no turn or time: nobody said them in one message.
        """
        pins = [{"id": pin_id, "memory_type": "pinned", "text": fact, "turn": None,
                 "timestamp": None, "confidence": 1.0}
                for pin_id, fact in zip(self.pin_ids, self.pinned, strict=True)]
        summary = [{"id": SUMMARY_ID, "memory_type": "summary", "text": self.summary, "turn": None,
                    "timestamp": None, "confidence": None}] if self.summary else []
        return pins + summary + message_records(self.buffer)

    # ---- Going further (13: compaction at runtime, and compaction a prompt cache can keep) ----
    def _fold_due(self) -> bool:
        """Every ``summarize_every`` messages; with ``max_tokens``, once the context nears the
        model's limit: it passes ``max_tokens`` and holds more than the ``keep_recent`` to keep."""
        if self.max_tokens is None:
            return len(self.buffer) >= self.summarize_every
        too_long = count_message_tokens(self.context()) > self.max_tokens
        return too_long and len(self.buffer) > self.keep_recent

    def _append_block(self) -> list[Change]:
        """Summarise all but the last ``keep_recent`` messages into a new block after the summary,
        which stays word for word: requests keep their opening, so a prompt cache still serves it.
        The price: the summary grows by a block (at most ``max_words`` words) every fold."""
        cut = len(self.buffer) - self.keep_recent
        oldest = self.buffer[:cut]
        block = summarize(self.llm, _transcript(oldest), max_words=self.max_words)
        if not block.strip() and re.search(r"\w", "".join(m.content for m in oldest)):
            reason = "the model returned an empty block: the waiting messages are kept"
            return [Change("NOOP", SUMMARY_ID, self.summary, reason=reason)]
        appended = "\n\n".join(part for part in (self.summary, block.strip()) if part)
        why = f"a block summarising {len(oldest)} messages appended"
        grown = Change("UPDATE" if self.summary else "ADD", SUMMARY_ID, appended,
                       previous=self.summary or None, reason=why)
        folded = [Change("DELETE", str(m.id), m.text, reason="folded into a summary block")
                  for m in oldest]
        self.summary = appended
        self.buffer = self.buffer[cut:]
        return [grown, *folded]
