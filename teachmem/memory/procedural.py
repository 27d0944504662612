"""Procedural memory: the assistant's own instructions, rewritten from feedback, versioned.

The instructions an assistant follows are memory too: how this user wants to be answered. Each
piece of feedback goes to the model with the current instructions, and the model rewrites them
(adds a line, changes the one corrected, drops the one withdrawn). Every rewrite is a new version
("v1", "v2", …); nothing is overwritten, so ``diff`` shows what a piece of feedback changed and
``rollback`` brings an earlier version back as the newest one when a rewrite went wrong.

Through the series' protocol every user message is feedback to learn from (one model call; a
message that asks nothing of the assistant leaves the instructions as they were: a NOOP).

Taught in notebooks/12_reflection_and_experience.ipynb.
"""
from __future__ import annotations

import difflib
import re
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.text import fenced, quote, redact
from teachmem.core.validate import (require_callable, require_int_at_least, require_message,
                                    require_text)
from teachmem.llm import LLM, OfflineLLM, rewrite_instructions

DEFAULT_INSTRUCTIONS = "Answer the user's questions about their project."


class ProceduralMemory:
    """Versioned instructions: ``learn(feedback)`` rewrites them, ``diff`` and ``rollback`` go
    back.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """

    kind = "procedural"

    def __init__(self, instructions: str = DEFAULT_INSTRUCTIONS, *,
                 llm: LLM | None = None):
        require_text("instructions", instructions)
        self.llm = require_callable("llm", llm, "complete") or OfflineLLM()
        self.versions: list[str] = [instructions.strip()]     # version n is versions[n - 1]
        self.reasons: list[str] = ["the first instructions"]  # why each version was made
        self.last_turn: int | None = None

    @property
    def instructions(self) -> str:
        """The newest version's text."""
        return self.versions[-1]

    @property
    def version(self) -> int:
        """The newest version's number (the first is 1)."""
        return len(self.versions)

    def _new_version(self, text: str, reason: str) -> list[Change]:
        if text == self.instructions:
            return [Change("NOOP", f"v{self.version}", text, reason=f"unchanged: {reason}")]
        previous = self.instructions
        self.versions.append(text)
        self.reasons.append(reason)
        return [Change("ADD", f"v{self.version}", text, previous=previous, reason=reason)]

    def learn(self, feedback: str) -> list[Change]:
        """Rewrite the instructions from ``feedback`` (one model call): the new version's ADD, or a
        NOOP."""
        require_text("feedback", feedback)
        rewritten = rewrite_instructions(self.llm, self.instructions, feedback)
        return self._new_version(rewritten, "rewritten from feedback")

    def _number(self, name: str, version: int) -> int:
        require_int_at_least(name, version, 1)
        if version > self.version:
            raise ValueError(f"{name} must be a version from 1 to {self.version}, got {version}")
        return version

    def diff(self, old: int | None = None, new: int | None = None) -> str:
        """A unified diff from version ``old`` to version ``new`` (by default: the one before the
        newest, and the newest).

        >>> memory = ProceduralMemory("Be brief.")
        >>> _ = memory.learn("Please never use emojis.")
        >>> print(memory.diff())
        --- v1
        +++ v2
        @@ -1 +1,2 @@
         Be brief.
        +Never use emojis.
        """
        new = self.version if new is None else self._number("new", new)
        old = max(new - 1, 1) if old is None else self._number("old", old)
        old_lines = self.versions[old - 1].splitlines()
        new_lines = self.versions[new - 1].splitlines()
        diff = difflib.unified_diff(old_lines, new_lines, f"v{old}", f"v{new}", lineterm="")
        return "\n".join(diff)

    def rollback(self, version: int) -> list[Change]:
        """Bring ``version`` back as a new, newest version (the versions in between stay in the
        history)."""
        version = self._number("version", version)
        return self._new_version(self.versions[version - 1], f"rolled back to v{version}")

    def history(self) -> list[tuple[str, str]]:
        """``(version id, why it was made)`` for every version, oldest first."""
        return [(f"v{n}", reason) for n, reason in enumerate(self.reasons, 1)]

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """A user message is feedback to learn from; other messages change nothing."""
        turn = require_message(role, content, turn, timestamp, self.last_turn)
        changes = self.learn(content) if role == "user" and content.strip() else []
        self.last_turn = turn
        return changes

    def context(self, query: str | None = None) -> list[dict]:
        """The newest instructions, one quoted line each, as one system message."""
        quoted = [quote(line) for line in self.instructions.splitlines()]
        return [{"role": "system", "content": fenced("How this user wants to be answered", quoted)}]

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Redact what ``pattern`` matches in every version (the history too); an UPDATE per
        version changed."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        changes = []
        for n, text in enumerate(self.versions, 1):
            if pattern.search(text):
                self.versions[n - 1] = redact(pattern, text)
                changes.append(Change("UPDATE", f"v{n}", self.versions[n - 1], reason="forgotten"))
        return changes

    def to_state(self) -> dict:
        """Every version and why it was made, as JSON-ready data."""
        return {"versions": list(self.versions), "reasons": list(self.reasons),
                "last_turn": self.last_turn}

    @classmethod
    def from_state(cls, state: dict, *,
                   llm: LLM | None = None) -> "ProceduralMemory":
        """Rebuild from ``to_state()``; the model is not state, so pass it again."""
        memory = cls(state["versions"][0], llm=llm)
        memory.versions = list(state["versions"])
        memory.reasons = list(state["reasons"])
        memory.last_turn = state["last_turn"]
        return memory
