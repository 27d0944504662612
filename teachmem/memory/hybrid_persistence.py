"""Going further (09: forgetting, saving and loading) for the hybrid manager of notebook 06.

``HybridMemoryManager`` (in ``teachmem.memory.hybrid``, the core notebook 06 builds) inherits
these methods: each passes the work to its three parts, which notebook 09 teaches one by one.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from teachmem.core.change import Change
from teachmem.core.clock import Clock
from teachmem.core.text import forget_pattern, scrubbed
from teachmem.core.tokens import TokenCounter, estimate_tokens
from teachmem.llm import LLM
from teachmem.memory.entity import EntityMemory
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.window import SlidingWindowMemory

TIERS = ("window", "entity", "longterm")
SETTINGS = ("token_budget", "reserve_tokens", "fact_share", "memory_share", "memory_top_k",
            "min_importance", "system_prompt")


def tier_changes(tier: str, changes: list[Change] | None) -> list[Change]:
    """A part's Changes, each id prefixed with its name ("entity:e2")."""
    return [replace(c, id=f"{tier}:{c.id}") for c in changes or []]


class HybridPersistence:
    """Forgetting, saving and loading for ``HybridMemoryManager``."""

    # What HybridMemoryManager sets up and these methods use (declared for the type checker).
    window: SlidingWindowMemory
    entity: EntityMemory
    longterm: SemanticMemoryStore
    clock: Clock
    last_turn: int | None
    now: datetime | None

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every copy of what ``pattern`` matches from every part; their Changes."""
        changes = [tier_changes(name, getattr(self, name).erase(pattern)) for name in TIERS]
        return [c for part in changes for c in part]

    def forget(self, text_or_pattern: str | re.Pattern) -> list[Change]:
        """Forget a text (any spacing, any case) or a ``re`` pattern in every part; what was
        removed, without the forgotten text (the report must not be one more copy).
        ``teachmem.forget`` also cleans a database.

        Taught in notebooks/09_persistence_and_governance.ipynb.
        """
        pattern = forget_pattern(text_or_pattern)
        return scrubbed(self.erase(pattern), pattern)

    def to_state(self) -> dict:
        """Settings and the state of each part, as JSON-ready data."""
        state = {name: getattr(self, name) for name in (*SETTINGS, "last_turn")}
        state["now"] = self.now.isoformat() if self.now else None
        return state | {name: getattr(self, name).to_state() for name in TIERS}

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None, clock: Clock | None = None,
                   token_counter: TokenCounter = estimate_tokens) -> Any:
        """Rebuild from ``to_state()``; model and token counter are not state, so pass them again.
        Without a ``clock`` the parts share one that resumes at the saved time."""
        make: Any = cls                  # HybridMemoryManager, whose settings these are
        settings = {name: state[name] for name in SETTINGS}
        manager = make(**settings, llm=llm, clock=clock, token_counter=token_counter)
        manager.last_turn = state["last_turn"]
        manager.window = SlidingWindowMemory.from_state(state["window"])
        manager.longterm = SemanticMemoryStore.from_state(state["longterm"], clock=clock)
        manager.clock = manager.longterm.clock
        manager.entity = EntityMemory.from_state(state["entity"], clock=manager.clock)
        manager.now = datetime.fromisoformat(state["now"]) if state["now"] else None
        return manager
