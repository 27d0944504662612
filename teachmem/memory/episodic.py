"""Episodic memory: whole past episodes, and the most similar success as a worked example.

An episode is one task carried out: the task, the steps taken, the outcome, the feedback, and
whether it succeeded. It is stored whole, not cut into facts, because its value is the order of its
steps. Given a new task, the model rates how useful each past *successful* episode would be as an
example; the best one (if it rates at least ``min_similarity``) is shown to the model as a worked
example. A failed episode is kept (it is part of the record) but never offered as an example.

Through the series' protocol, a user message opens an episode (its task) when none is open, and
every message after it is a step, until ``end_episode`` says how it went.

Taught in notebooks/12_reflection_and_experience.ipynb.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.text import fenced, quote
from teachmem.core.validate import (require_bool, require_callable, require_fraction,
                                    require_message, require_text)
from teachmem.llm import LLM, OfflineLLM, rate_episodes


@dataclass
class Episode:
    """One task carried out. ``success`` is None while the episode is still open."""

    id: str
    task: str
    steps: list[str] = field(default_factory=list)
    outcome: str = ""
    feedback: str = ""
    success: bool | None = None

    def lines(self) -> list[str]:
        """The episode as lines of text: task, numbered steps, outcome, feedback."""
        numbered = [f"step {number}: {step}" for number, step in enumerate(self.steps, 1)]
        feedback = [f"feedback: {self.feedback}"] if self.feedback else []
        return [f"task: {self.task}", *numbered, f"outcome: {self.outcome}", *feedback]


def _require_steps(steps: object) -> list[str]:
    if not isinstance(steps, list):
        raise TypeError(f"steps must be a list of str, got {type(steps).__name__}")
    return [require_text(f"steps[{i}]", step) for i, step in enumerate(steps)]


class EpisodicMemory:
    """Past episodes stored whole; ``recall(task)`` finds the most similar one that succeeded.

    ``llm`` rates similarity (the offline stand-in by default), one call per recall.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """

    kind = "episodic"

    def __init__(self, *, min_similarity: float = 0.2, llm: LLM | None = None):
        self.min_similarity = require_fraction("min_similarity", min_similarity)
        self.llm = require_callable("llm", llm, "complete") or OfflineLLM()
        self.episodes: list[Episode] = []
        self.open: str | None = None        # the id of the episode still under way
        self.made = 0                       # episodes ever made: the next id is e{made + 1}
        self.last_turn: int | None = None

    def __len__(self) -> int:
        return len(self.episodes)

    def get(self, id: str) -> Episode:
        """Episode ``id``; an unknown id is a KeyError naming it."""
        require_text("id", id)
        for episode in self.episodes:
            if episode.id == id:
                return episode
        raise KeyError(f"no episode with id {id!r}")

    def record(self, task: str, steps: list[str], outcome: str, *, success: bool,
               feedback: str = "") -> list[Change]:
        """Store a whole episode at once (every argument is checked before anything is stored)."""
        require_text("task", task)
        steps = _require_steps(steps)
        require_text("outcome", outcome)
        require_bool("success", success)
        require_text("feedback", feedback, allow_empty=True)
        self.made += 1
        episode = Episode(f"e{self.made}", task, steps, outcome, feedback, success)
        self.episodes.append(episode)
        return [Change("ADD", episode.id, task, reason="succeeded" if success else "failed")]

    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """A user message opens an episode when none is open (its task); any other message is a
        step."""
        turn = require_message(role, content, turn, timestamp, self.last_turn)
        self.last_turn = turn
        if not content.strip():
            return []
        if self.open is None:
            if role != "user":
                return [Change("NOOP", "", content,
                               reason="no episode under way: a user message opens one")]
            self.made += 1
            self.episodes.append(Episode(f"e{self.made}", content))
            self.open = f"e{self.made}"
            return [Change("ADD", self.open, content, reason="new episode")]
        self.get(self.open).steps.append(f"{role}: {content}")
        return [Change("UPDATE", self.open, f"{role}: {content}", reason="step added")]

    def end_episode(self, outcome: str, *, success: bool,
                    feedback: str = "") -> list[Change]:
        """Close the episode under way with its outcome: it may now serve as an example (if it
        succeeded)."""
        require_text("outcome", outcome)
        require_bool("success", success)
        require_text("feedback", feedback, allow_empty=True)
        if self.open is None:
            raise ValueError("no episode is under way: add a user message (its task) first")
        episode = self.get(self.open)
        episode.outcome = outcome
        episode.feedback = feedback
        episode.success = success
        self.open = None
        return [Change("UPDATE", episode.id, outcome, reason="succeeded" if success else "failed")]

    def similarities(self, task: str) -> dict[str, float]:
        """The model's rating of every successful episode as an example for ``task`` (one call)."""
        require_text("task", task)
        successes = [(e.id, e.task) for e in self.episodes if e.success is True]
        return rate_episodes(self.llm, task, successes)

    def recall(self, task: str) -> Episode | None:
        """The successful episode rated most similar to ``task`` (first stored wins a tie), if any
        rates at least ``min_similarity``; never a failed or unfinished one."""
        ratings = self.similarities(task)
        best = max(ratings, key=lambda id: ratings[id], default=None)
        if best is None or ratings[best] < self.min_similarity:
            return None
        return self.get(best)

    def context(self, query: str | None = None) -> list[dict]:
        """The most similar successful episode as a worked example: one system message of quoted
        data."""
        if query is None or not require_text("query", query, allow_empty=True).strip():
            return []
        episode = self.recall(query)
        if episode is None:
            return []
        return [{"role": "system", "content": fenced("A similar task that went well",
                                                     [quote(line) for line in episode.lines()])}]

    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Remove every episode any part of which ``pattern`` matches (the whole episode goes)."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        gone = [e for e in self.episodes if any(pattern.search(line) for line in e.lines())]
        self.episodes = [e for e in self.episodes if e not in gone]
        if self.open in {e.id for e in gone}:
            self.open = None
        return [Change("DELETE", e.id, e.task, reason="forgotten") for e in gone]

    def provenance(self) -> list[dict]:
        """Every episode held: id, text (its task), turn and timestamp unknown, no confidence."""
        return [{"id": e.id, "text": e.task, "memory_type": "episode", "turn": None,
                 "timestamp": None, "confidence": None} for e in self.episodes]

    def delete(self, id: str) -> list[Change]:
        """Remove episode ``id`` for good."""
        episode = self.get(id)
        self.episodes.remove(episode)
        self.open = None if self.open == id else self.open
        return [Change("DELETE", id, episode.task, reason="deleted")]

    def to_state(self) -> dict:
        """Every episode and the counters, as JSON-ready data."""
        return {"min_similarity": self.min_similarity,
                "episodes": [asdict(e) for e in self.episodes],
                "open": self.open, "made": self.made, "last_turn": self.last_turn}

    @classmethod
    def from_state(cls, state: dict, *, llm: LLM | None = None) -> "EpisodicMemory":
        """Rebuild from ``to_state()``; the model is not state, so pass it again."""
        memory = cls(min_similarity=state["min_similarity"], llm=llm)
        memory.episodes = [Episode(**{**e, "steps": list(e["steps"])}) for e in state["episodes"]]
        memory.open = state["open"]
        memory.made = state["made"]
        memory.last_turn = state["last_turn"]
        return memory
