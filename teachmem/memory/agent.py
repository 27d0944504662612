"""Memory as tools: the model decides what to remember (MemGPT, with Letta's tool names).

A model has one fixed context window. MemGPT (Packer et al. 2023) manages it the way an operating
system manages RAM. Always in the context: *core memory*, a few blocks with a label and a character
limit (``persona``: who the assistant is; ``human``: what it knows about the user), then the recent
messages. Outside it, two stores the model pages in with tools: *recall storage* (every message
that left the context) and *archival storage* (notes the model chose to keep). The model itself
calls the tools, named here as Letta names them:

    core_memory_append(label, content)       core_memory_replace(label, old, new)
    archival_memory_insert(content)           archival_memory_search(query, page=0)
    conversation_search(query, page=0)

A tool answers with a string, the one thing a model reads: a mistake (over the block's limit, old
text not found, unknown label, a malformed call) comes back as an error string and changes nothing.
What the model returns is input: checked before anything is kept, and a step whose model call
fails leaves the agent as it was. Remembered text enters the prompt quoted (SECURITY.md).

Memory pressure: past 70 % of ``context_tokens`` the model is warned; before the context would
pass the budget, the oldest messages are evicted into recall storage and folded into a recursive
summary, until it fills at most half the budget. No prompt, in any round, exceeds the budget.

Taught in notebooks/11_memory_as_tools.ipynb.
"""
from __future__ import annotations

import copy
import json
import re
from datetime import datetime

from teachmem.core.change import Change
from teachmem.core.text import quote
from teachmem.core.tokens import estimate_tokens
from teachmem.core.validate import (require_callable, require_datetime, require_int_at_least,
                                    require_positive_int, require_role, require_text, require_turn)
from teachmem.llm import OfflineLLM, ToolLLM, summarize, tool_reply
from teachmem.memory.agent_tools import INSTRUCTIONS, PERSONA, TOOLS, WARNING, tool_schemas
from teachmem.memory.semantic import SemanticMemoryStore
from teachmem.memory.token_window import truncate_to_tokens

WARN_AT = 0.7          # warn the model when the context passes this share of the budget
EVICT_TO = 0.5         # evict down to this share of the budget
MAX_ROUNDS = 3         # model calls per step: tools, then what their results call for, then stop
PAGE_SIZE = 5          # search results per page
SUMMARY_WORDS = 60     # the recursive summary of evicted messages stays this short
LONGEST_SUMMARY = "x " * SUMMARY_WORDS    # what a summary may cost (a word without spaces is cut)
MIN_ROOM = 32          # tokens a message can always have, whatever the blocks hold
MIN_CUT = 8            # a tool result cut shorter than this is left out: the marker alone is 5

def oldest_to_evict(sizes: list[int], room: int) -> int:
    """How many of the oldest messages must go (``sizes``: their tokens, oldest first) for the rest
    to add up to at most ``room`` tokens: none if they fit already, all if not even the newest alone
    fits."""
    cut = 0
    while cut < len(sizes) and sum(sizes[cut:]) > room:
        cut += 1
    return cut


class MemoryAgent:
    """Core memory blocks + a message queue in context; recall and archival storage outside it.

    ``add("user", …)`` runs one step of the tool loop (see ``step``); ``add("assistant", …)``
    records the reply. ``llm`` decides the tool calls (the offline stand-in by default: any
    model with ``complete_with_tools(messages, tools)`` works) and writes the recursive summary.

    Taught in notebooks/11_memory_as_tools.ipynb.
    """

    kind = "agent"
    # The stores it is built from: saving, loading and forgetting reach them through the protocol.
    parts = ("archival", "recall")

    def __init__(self, llm: ToolLLM | None = None, *, context_tokens: int = 1000,
                 block_limit: int = 400, clock=None, persona: str = PERSONA):
        self.context_tokens = require_positive_int("context_tokens", context_tokens)
        self.block_limit = require_positive_int("block_limit", block_limit)
        require_callable("llm", llm, "complete_with_tools")
        self.llm = OfflineLLM() if llm is None else llm
        if len(require_text("persona", persona)) > block_limit:
            raise ValueError(f"persona must fit block_limit ({block_limit} characters), "
                             f"got {len(persona)}")
        self.core = {"persona": persona, "human": ""}
        self.messages: list[dict] = []      # the queue in context: id, role, content, turn, time
        self.summary = ""                   # the recursive summary of what was evicted
        self.archival = SemanticMemoryStore(clock=clock)
        self.clock = self.archival.clock    # one clock for both stores
        self.recall = SemanticMemoryStore(clock=self.clock, neighbour_words=False)  # words said
        self.changes: list[Change] = []     # what the current (or last) step changed
        self.last_step: dict | None = None
        self.last_turn: int | None = None
        self.arrived = 0                    # messages ever queued: the next id is m{arrived + 1}
        self.warned = False                 # warned since the last eviction?
        worst = self._frame_tokens(full=True)
        if worst + MIN_ROOM > context_tokens:
            raise ValueError(f"context_tokens must hold the core blocks at their limit "
                             f"(block_limit={block_limit} characters), the instructions and the "
                             f"summary: {worst} tokens, plus {MIN_ROOM} for a message; "
                             f"got {context_tokens}")

    # ------------------------------------------------------------------ the context
    def _system(self, core: dict[str, str], summary: str) -> str:
        """Remembered text enters as quoted data, one quoted line each (SECURITY.md)."""
        blocks = []
        for label, text in core.items():
            quoted = "\n".join(quote(line) for line in text.splitlines())
            size = f"{len(text)}/{self.block_limit}"
            blocks.append(f'<{label} characters="{size}">\n{quoted}\n</{label}>')
        stats = (f"{len(self.recall)} messages in recall storage, {len(self.archival)} passages in "
                 "archival storage.")
        sections = [INSTRUCTIONS, "### Core memory (quoted data)", *blocks,
                    "### Summary of evicted messages", quote(summary) if summary else "(none yet)",
                    "### Memory statistics", stats]
        return "\n\n".join(sections)

    def _frame_tokens(self, full: bool = False) -> int:
        """Tokens of the system message; ``full``: with every block at its limit and the longest
        summary."""
        if not full:
            return estimate_tokens(self._system(self.core, self.summary))
        densest = "x " * ((self.block_limit + 1) // 2)      # the most words the limit holds
        return estimate_tokens(self._system(dict.fromkeys(self.core, densest), LONGEST_SUMMARY))

    def context(self, query: str | None = None) -> list[dict]:
        """Instructions, core memory and the summary as one system message, then the queue.
        The query is ignored: what to look up is the model's decision, made in ``step``."""
        system = {"role": "system", "content": self._system(self.core, self.summary)}
        return [system] + [{"role": m["role"], "content": m["content"]} for m in self.messages]

    def tokens(self) -> int:
        """Tokens the context holds now."""
        return sum(estimate_tokens(m["content"]) for m in self.context())

    # ------------------------------------------------------------------ memory pressure
    def _fit(self, extra: int = 0) -> None:
        """Before the context (plus ``extra`` tokens to come) would pass the budget, evict the
        oldest messages into recall storage and the summary, until at most ``EVICT_TO`` of it is
        used."""
        if self.tokens() + extra <= self.context_tokens:
            return
        # The summary may grow to SUMMARY_WORDS: count it at that size, so the result surely fits.
        frame = estimate_tokens(self._system(self.core, LONGEST_SUMMARY))
        room = int(EVICT_TO * self.context_tokens) - extra - frame
        cut = oldest_to_evict([estimate_tokens(m["content"]) for m in self.messages], room)
        gone = self.messages[:cut]
        said = [m for m in gone if not m.get("copy")]     # a search result is a copy: not kept
        transcript = "\n".join(f"{m['role']}: {m['content']}" for m in said)
        # Ask first, change after: if the model call fails, nothing has moved.
        new = self.summary
        if said:
            new = summarize(self.llm, transcript, previous_summary=self.summary,
                            max_words=SUMMARY_WORDS)
            new = truncate_to_tokens(new, estimate_tokens(LONGEST_SUMMARY))
        self.messages = self.messages[cut:]
        for m in said:
            when = datetime.fromisoformat(m["timestamp"]) if m["timestamp"] else None
            self.recall.store(f"{m['role']}: {m['content']}", "message", turn=m["turn"],
                              role=m["role"], timestamp=when)
        for m in gone:
            where = "a search result: dropped" if m.get("copy") else "evicted to recall storage"
            self.changes.append(Change("DELETE", m["id"], f"{m['role']}: {m['content']}",
                                       reason=where))
        if new and new != self.summary:
            event = "UPDATE" if self.summary else "ADD"
            self.changes.append(Change(event, "summary", new, previous=self.summary or None,
                                       reason=f"{len(said)} evicted messages folded in"))
            self.summary = new
        self.warned = False

    def _queue(self, role: str, content: str, turn: int | None = None,
               timestamp: datetime | None = None, is_copy: bool = False) -> None:
        """Put a message in the context, making room first; one too long for any room is cut."""
        room = self.context_tokens - self._frame_tokens(full=True)
        content = truncate_to_tokens(content, room)      # as it is, when it fits
        self._fit(estimate_tokens(content))
        turn = (self.last_turn or 0) if turn is None else turn
        self.arrived += 1
        stamp = timestamp.isoformat() if timestamp else None
        self.messages.append({"id": f"m{self.arrived}", "role": role, "content": content,
                              "turn": turn, "timestamp": stamp, "copy": is_copy})
        self.changes.append(Change("ADD", f"m{self.arrived}", f"{role}: {content}",
                                   reason="new message"))

    # ------------------------------------------------------------------ the protocol and the loop
    def add(self, role: str, content: str, *, turn: int | None = None,
            timestamp: datetime | None = None) -> list[Change]:
        """A user message runs one step of the tool loop; any other message is queued as said.

        Returns what changed: the message's ADD, the blocks' UPDATEs, archival ADDs, the DELETE of
        every evicted message, the summary's rewrite, and a NOOP for every refused tool call.
        """
        require_role("role", role)
        require_text("content", content, allow_empty=role != "user")
        if role == "user":
            return self.step(content, turn=turn, timestamp=timestamp)["changes"]
        turn = require_turn("turn", turn, self.last_turn)
        self.changes = []
        self._queue(role, content, turn, require_datetime("timestamp", timestamp))
        self.last_turn = turn
        return self.changes

    def step(self, user_message: str, *, turn: int | None = None,
             timestamp: datetime | None = None) -> dict:
        """Queue the user's message, then let the model call tools until it stops (``MAX_ROUNDS``
        calls). All or nothing: if a model call fails, the agent is as it was before the step.

        Returns the step's trace: ``tool_calls`` (each ``name``, ``args``, ``result``), ``warned``,
        ``evictions`` (the ids of the messages evicted), ``tokens`` (in context afterwards),
        ``reply`` (the model's text, if any) and ``changes``.
        """
        require_text("user_message", user_message)
        turn = require_turn("turn", turn, self.last_turn)
        when = require_datetime("timestamp", timestamp)
        shared = [self.llm, self.clock, self.archival.embedder, self.recall.embedder]
        before = copy.deepcopy(vars(self), memo={id(thing): thing for thing in shared})
        try:
            return self._step(user_message, turn, when)
        except Exception:
            vars(self).update(before)
            raise

    def _step(self, user_message: str, turn: int, when: datetime | None) -> dict:
        self.changes, calls = [], []
        self._queue("user", user_message, turn, when)
        self.last_turn = turn
        share = self.tokens() / self.context_tokens
        warned = share >= WARN_AT and not self.warned
        self.warned = self.warned or warned
        warning = [{"role": "system", "content": WARNING.format(share=share)}] if warned else []
        prompt = self.context() + warning
        reply = ""
        for _ in range(MAX_ROUNDS):
            reply, asked = tool_reply(self.llm, prompt, tool_schemas())
            if not asked:
                break
            done = [self._run(tool_call) for tool_call in asked]
            calls += done
            prompt = self._after_tools(warning, reply, asked, done)
            reply = ""
        evicted = [c.id for c in self.changes if c.event == "DELETE"]
        self.last_step = {"turn": turn, "tool_calls": calls, "warned": warned,
                          "tokens": self.tokens(), "evictions": evicted, "reply": reply,
                          "changes": list(self.changes)}
        return self.last_step

    def _after_tools(self, warning: list[dict], reply: str, asked: list,
                     done: list[dict]) -> list[dict]:
        """The next round's prompt: the context as it is now, the model's calls and their results,
        within ``context_tokens``. The results share the room left; one that does not fit is cut."""
        call = {"role": "assistant", "content": reply, "tool_calls": asked}
        prompt = self.context() + warning + [call]
        room = self.context_tokens - sum(estimate_tokens(m["content"]) for m in prompt)
        share = max(room, 0) // len(done)
        for tool_call, result in zip(asked, done, strict=True):
            text = result["result"]
            if estimate_tokens(text) > share:
                text = truncate_to_tokens(text, share) if share >= MIN_CUT else ""
            call_id = tool_call.get("id", "") if isinstance(tool_call, dict) else ""
            prompt.append({"role": "tool", "tool_call_id": call_id, "content": text})
        return prompt

    def _run(self, tool_call) -> dict:
        """Call one tool the model asked for; whatever goes wrong becomes the result it reads."""
        name, args = None, {}
        try:
            function = tool_call.get("function") if isinstance(tool_call, dict) else None
            if not isinstance(function, dict):
                raise TypeError("a tool call must be an object with a function, "
                                f"got {tool_call!r:.60}")
            name = function.get("name")
            args = json.loads(function.get("arguments") or "{}")
            if not isinstance(args, dict):
                args = {}
                raise TypeError("the arguments must be a JSON object, "
                                f"got {function.get('arguments')!r:.60}")
            if name not in TOOLS:
                raise ValueError(f"there is no tool {name!r:.60}; the tools are {', '.join(TOOLS)}")
            result = getattr(self, name)(**args)
        except (TypeError, ValueError, RecursionError) as err:   # bad JSON, a wrong argument
            result = self._refuse(str(name), str(err))
        if name in ("conversation_search", "archival_memory_search"):
            found = f"{name}({args.get('query', '')!r}) returned:\n{result}"
            self._queue("system", found, self.last_turn, is_copy=True)
        return {"name": name, "args": args, "result": result}

    # ------------------------------------------------------------------ the tools
    def _refuse(self, tool: str, why: str) -> str:
        self.changes.append(Change("NOOP", tool, why, reason=f"{tool} refused: nothing changed"))
        return f"Error: {why}. Nothing changed."

    def _write_block(self, tool: str, label: str, text: str) -> str:
        if label not in self.core:
            return self._refuse(tool, f"there is no block {label!r}; "
                                      f"the blocks are {', '.join(self.core)}")
        if len(text) > self.block_limit:
            return self._refuse(tool, f"the {label} block would hold {len(text)} characters, over "
                                      f"its limit of {self.block_limit}; replace or shorten lines, "
                                      "or use archival_memory_insert")
        self.changes.append(Change("UPDATE", label, text, previous=self.core[label], reason=tool))
        self.core[label] = text
        self._fit()
        return f"OK: the {label} block now holds {len(text)}/{self.block_limit} characters."

    def core_memory_append(self, label: str, content: str) -> str:
        """Append ``content`` as a new line of the block ``label``."""
        require_text("label", label)
        require_text("content", content)
        old = self.core.get(label, "")
        text = f"{old}\n{content}" if old else content
        return self._write_block("core_memory_append", label, text)

    def core_memory_replace(self, label: str, old: str, new: str) -> str:
        """Replace every ``old`` in the block ``label`` with ``new`` ("" deletes it)."""
        require_text("label", label)
        require_text("old", old)
        require_text("new", new, allow_empty=True)
        if label in self.core and old not in self.core[label]:
            return self._refuse("core_memory_replace",
                                f"the {label} block does not contain {old!r}")
        replaced = self.core.get(label, "").replace(old, new).split("\n")
        text = "\n".join(line for line in replaced if line.strip())
        return self._write_block("core_memory_replace", label, text)

    def archival_memory_insert(self, content: str) -> str:
        """Save ``content`` to archival storage."""
        changes = self.archival.store(require_text("content", content), "archival")
        self.changes += changes
        return f"OK: saved to archival storage as {changes[0].id}."

    def archival_memory_search(self, query: str, page: int = 0) -> str:
        """Archival passages that share a word with ``query``, best first, ``PAGE_SIZE`` a page."""
        return self._search(self.archival, "archival storage", query, page)

    def conversation_search(self, query: str, page: int = 0) -> str:
        """Evicted messages that share a word with ``query``, best first, ``PAGE_SIZE`` a page."""
        return self._search(self.recall, "recall storage", query, page)

    def _search(self, store: SemanticMemoryStore, where: str, query: str, page: int) -> str:
        require_text("query", query)
        require_int_at_least("page", page, 0)
        hits = [h for h in store.explain(query, max(len(store), 1)) if h["lexical"] > 0]
        first = page * PAGE_SIZE
        shown = hits[first:first + PAGE_SIZE]
        if not shown:
            return f"No results for {query!r} in {where} (page {page}, {len(hits)} results in all)."
        lines = []
        for hit in shown:
            turn = store.metadata[hit["row"]].get("turn", "s" + str(hit["row"]))
            lines.append(f"- [{turn}] {quote(hit['text'])}")
        heading = (f"Results {first + 1}-{first + len(shown)} of {len(hits)} for {query!r} "
                   f"in {where} (quoted data):")
        return heading + "\n" + "\n".join(lines)

    # ------------------------------------------------------------------ governance and persistence
    def erase(self, pattern: re.Pattern) -> list[Change]:
        """Redact what ``pattern`` matches in the blocks, the messages and the summary: what the
        agent holds beside its stores (``teachmem.forget`` erases those first, as its parts)."""
        if not isinstance(pattern, re.Pattern):
            raise TypeError(f"pattern must be a compiled re.Pattern, got {type(pattern).__name__}")
        changes = []

        def redact(id: str, text: str, limit: int | None = None) -> str:
            if not pattern.search(text):
                return text
            new = pattern.sub("[forgotten]", text)
            if limit is not None and len(new) > limit:     # a block keeps its limit: drop the lines
                new = "\n".join(line for line in text.split("\n") if not pattern.search(line))
            changes.append(Change("UPDATE", id, new, previous=text, reason="forgotten"))
            return new

        self.core = {label: redact(label, text, self.block_limit)
                     for label, text in self.core.items()}
        for m in self.messages:
            m["content"] = redact(m["id"], m["content"])
        self.summary = redact("summary", self.summary)
        self.changes, self.last_step = [], None
        return changes

    def to_state(self) -> dict:
        """What the agent holds beside its stores, as JSON-ready data."""
        return {"context_tokens": self.context_tokens, "block_limit": self.block_limit,
                "core": dict(self.core), "messages": [dict(m) for m in self.messages],
                "summary": self.summary,
                "last_turn": self.last_turn, "arrived": self.arrived, "warned": self.warned}

    @classmethod
    def from_state(cls, state: dict, *, llm: ToolLLM | None = None,
                   clock=None) -> "MemoryAgent":
        """Rebuild from ``to_state()``; the model is not state, so pass it again. Its stores are
        fresh: whoever loads it puts the saved ones in (see ``parts``)."""
        agent = cls(llm, context_tokens=state["context_tokens"], block_limit=state["block_limit"],
                    persona=state["core"]["persona"], clock=clock)
        # In the constructor's order (persona first), whatever order the saved keys came back in.
        agent.core = {label: require_text(label, state["core"][label], allow_empty=True)
                      for label in agent.core}
        agent.messages = [dict(m) for m in state["messages"]]
        agent.summary, agent.last_turn = state["summary"], state["last_turn"]
        agent.arrived, agent.warned = state["arrived"], state["warned"]
        return agent
