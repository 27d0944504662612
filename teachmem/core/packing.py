"""Lab equipment for packing a prompt: quoting stored text, and the trace of a packing.

``HybridMemoryManager`` (teachmem/memory/hybrid.py) decides what goes into a
prompt; this module holds what it needs around that decision:

* :func:`quote` and :func:`fenced` put remembered text into the system message
  as *quoted data*. A memory is something a user once typed; if it said
  "ignore previous instructions", pasting it bare into the system message would
  hand the user's old words the authority of the instructions (memory
  poisoning). Quoted as a JSON string on one line, under a header that says it
  is data, it can never stand on a line of its own.
* :func:`overlap_words` and :func:`fact_table` serve ``EntityMemory``
  (teachmem/memory/entity.py): which facts share words with a query, and the
  ``{entity: {attribute: value}}`` view its prompt line is printed from.
* :func:`add_window` walks the conversation window newest first into what is
  left of the budget, recording each message in the trace.
* :class:`Candidate` and :class:`PromptTrace` record every candidate the manager
  considered: its score parts, its token cost, and whether it was kept or
  dropped, and why.

Taught in notebooks/06_hybrid_manager.ipynb.
"""
from __future__ import annotations


import re
from dataclasses import dataclass, field

from teachmem.core.text import fenced, quote
from teachmem.core.words import content_words

SOURCES = ("fact", "memory", "message")

# Words too common to show that a fact is relevant to a query.
_STOPWORDS = frozenset("a an the and or of to in on at for is are was were do does did we i you it "
                       "my our your what which who how why when where should would could can with".split())


def room_for_memory(token_budget: int, reserve_tokens: int, system_tokens: int, user_tokens: int) -> int:
    """What the budget leaves for memory once the reply's reserve, the system prompt and the user's
    message are counted; a ``ValueError`` naming the sizes when they do not fit at all.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """
    limit = token_budget - reserve_tokens
    if system_tokens + user_tokens > limit:
        plus = f" plus the user message ({user_tokens} tokens)" if user_tokens else ""
        raise ValueError(f"token_budget {token_budget} leaves {limit} tokens for the prompt after reserving "
                         f"{reserve_tokens} for the reply: less than the system prompt ({system_tokens} tokens){plus}")
    return limit - system_tokens - user_tokens


def add_fenced(system: str, header: str, candidates, trace: "PromptTrace", source: str, count) -> str:
    """Append a fenced block to ``system``, one candidate line at a time, while the block fits its cap.

    ``candidates`` are ``(turn, line, scores)`` in order of preference; each
    one is recorded in ``trace``, kept or dropped. Costs are counted on the
    whole text, never summed line by line, so a counter that rounds cannot
    push the total past what was checked.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """
    def with_block(lines):
        return f"{system}\n\n{fenced(header, lines)}" if lines else system

    cap, lines = trace.caps[source], []
    base = before = count(system)
    for turn, line, scores in candidates:
        after = count(with_block(lines + [line]))
        fits = after - base <= cap
        reason = "within the cap" if fits else f"would pass the {source} cap of {cap} tokens"
        trace.candidates.append(Candidate(source, line, turn, after - before, scores, fits, reason))
        if fits:
            lines.append(line)
            before = after
    return with_block(lines)


def add_window(window, left: int, trace: "PromptTrace", count) -> list:
    """The messages of ``window`` (a ``SlidingWindowMemory``) that fit in ``left`` tokens, oldest first.

    Walks newest first and stops at the first window message that does not
    fit; every message, in the window or not, is recorded in ``trace``.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """
    in_window, kept, full = set(window.window_indices()), [], False
    for i in reversed(range(len(window.all_messages))):
        m = window.all_messages[i]
        cost = count(m.content)
        full = full or (i in in_window and cost > left)
        fits = i in in_window and not full
        reason = ("outside the window: not recent, not important enough" if i not in in_window
                  else "in the window, fits" if fits else f"in the window, but the budget is full: {left} left")
        trace.candidates.append(Candidate("message", m.content, m.turn, cost, {"importance": window.importance[i]},
                                          fits, reason))
        if fits:
            kept.append(m)
            left -= cost
    return kept[::-1]


def shared_words(query: str | None, text: str) -> int:
    """How many distinct content words (stemmed, no stopwords) ``query`` and ``text`` share.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """
    return len(set(content_words(query or "")) & set(content_words(text))) if query else 0


def overlap_words(text: str) -> set[str]:
    """Content words, lower case, a plural "s" dropped, so "tests" meets "test_framework".
    Single letters go too: the "s" of "what's" would match the "s" of "sister's".

    Taught in notebooks/04_entity_memory.ipynb.
    """
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if len(w) > 1 and w not in _STOPWORDS}


def fact_table(facts) -> dict[str, dict[str, str]]:
    """Facts (anything with ``entity``, ``attribute`` and ``value``) as ``{entity: {attribute: value}}``:
    entities in order of appearance, attributes sorted, so the same facts print the same way whatever
    order they were said in.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    table: dict[str, dict[str, str]] = {}
    for f in facts:
        table.setdefault(f.entity, {})[f.attribute] = f.value
    return {entity: dict(sorted(attrs.items())) for entity, attrs in table.items()}


@dataclass(frozen=True)
class Candidate:
    """One thing that could go into the prompt, and what became of it. Taught in notebooks/06_hybrid_manager.ipynb."""

    source: str                 # "fact", "memory" or "message"
    text: str                   # what would be sent: the fenced line, or the message content
    turn: int | None            # where it came from
    tokens: int                 # what it costs (a fact or memory: what it adds to the system message)
    scores: dict                # the parts of its score, by name
    kept: bool
    reason: str                 # why it was kept or dropped


@dataclass
class PromptTrace:
    """The packing of one prompt: the budget, its split, and every candidate considered.

    Taught in notebooks/06_hybrid_manager.ipynb.
    """

    token_budget: int
    reserve_tokens: int
    fixed_tokens: int           # the system prompt, plus the user message when there is one
    caps: dict                  # the most facts and memories may use, in tokens
    messages: list[dict] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    prompt_tokens: int = 0      # what the assembled prompt costs, counted as a whole

    @property
    def limit(self) -> int:
        """The most the prompt may cost: the budget minus the room kept for the reply."""
        return self.token_budget - self.reserve_tokens

    def used(self, source: str) -> int:
        """Tokens spent on kept candidates of one source."""
        return sum(c.tokens for c in self.candidates if c.source == source and c.kept)

    def kept(self, source: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates if c.kept and source in (None, c.source)]

    def dropped(self, source: str | None = None) -> list[Candidate]:
        return [c for c in self.candidates if not c.kept and source in (None, c.source)]

    def split(self) -> dict[str, int]:
        """Where the budget went: fixed, facts, memories, window, reply reserve and what is left unused."""
        parts = {"fixed": self.fixed_tokens, **{s: self.used(s) for s in SOURCES}}
        parts["unused"] = max(self.limit - self.prompt_tokens, 0)
        parts["reply"] = self.reserve_tokens
        return parts

    def table(self, width: int = 58) -> str:
        """Every candidate on one line: kept ✓ or dropped ✗, source, turn, tokens, scores, why."""
        lines = [f"prompt {self.prompt_tokens:,} of {self.limit:,} tokens (budget {self.token_budget:,} "
                 f"− {self.reserve_tokens:,} for the reply); caps: facts {self.caps['fact']:,}, "
                 f"memories {self.caps['memory']:,}"]
        for c in self.candidates:
            text = c.text if len(c.text) <= width else c.text[:width - 1] + "…"
            scores = " ".join(f"{k}={v:g}" for k, v in c.scores.items())
            turn = "" if c.turn is None else c.turn
            lines.append(f"{'✓' if c.kept else '✗'} {c.source:<7} {turn:>3} {c.tokens:>4}  {text:<{width}}  "
                         f"{scores}  · {c.reason}")
        return "\n".join(lines)
