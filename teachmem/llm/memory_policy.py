"""The offline stand-in's memory policy: which memory tools to call, as four named rules.

A model driving ``teachmem.memory.agent.MemoryAgent`` reads its prompt (the core memory blocks,
the recent messages, perhaps a memory-pressure warning, the results of the tools it already
called this step) and answers with tool calls. ``OfflineLLM.complete_with_tools`` answers with
these rules. Once this step's tools have answered, the first rule alone decides; before that,
each of the other three adds the calls it asks for:

1. ``after_tools``: the tools of this step have answered, so stop, unless an append to core
   memory was refused as too long: that line goes to archival memory instead.
2. ``remember_facts``: each fact the user states about themselves or their project becomes a
   line ``attribute: value`` in the ``human`` block: appended when new, replaced when the value
   changed (``database: PostgreSQL`` becomes ``database: MySQL``), left alone when already there.
3. ``search_when_forgotten``: a question whose topic words are mostly nowhere in the context is
   looked up with ``conversation_search`` and ``archival_memory_search``.
4. ``save_before_eviction``: warned that the context is filling up, the assistant saves to
   archival memory the oldest user statements that hold no fact core memory keeps (two at most).

A real model does this with judgement; these rules make every run the same, with no key.

Taught in notebooks/11_memory_as_tools.ipynb.
"""
from __future__ import annotations

import json
import re

from teachmem.core.words import content_words
from teachmem.llm.certainty import is_question
from teachmem.llm.clauses import split_sentences
from teachmem.llm.facts import rule_triples

__all__ = ["RULES", "decide", "fact_line", "core_block"]

# Words that ask rather than name a topic: "remind me which … did we pick".
ASKING = frozenset(content_words("remind tell say said pick picked choose chose chosen decide decided "
                                 "agree agreed start again remember mention mentioned right ok"))
PRESSURE = re.compile(r"memory pressure", re.I)
SAVE_AT_MOST = 2
MIN_STATEMENT_WORDS = 8


def core_block(prompt: str, label: str) -> str | None:
    """The text of the core memory block ``label`` as the prompt shows it (``<human …>…</human>``),
    each line read back from the quoted form the prompt gives it."""
    found = re.search(rf"<{label}\b[^>]*>\n?(.*?)\n?</{label}>", prompt, re.S)
    if not found:
        return None
    return "\n".join(_unquoted(line) for line in found.group(1).splitlines())


def _unquoted(line: str) -> str:
    """A line quoted by ``teachmem.core.text.quote`` as it was; any other line as it is."""
    try:
        text = json.loads(line)
    except json.JSONDecodeError:
        return line
    return text if isinstance(text, str) else line


def fact_line(entity: str, attribute: str, value: str) -> tuple[str | None, str]:
    """``(key, line)`` for a fact: ``("database", "database: MySQL")``. An attribute that may hold
    many values (``requirement:coverage_report``) has no key: a new value is another line."""
    kind, many, _ = attribute.partition(":")
    key = kind.replace("_", " ").strip()
    return (None if many else key), f"{key}: {value}"


def call(name: str, **args) -> tuple[str, dict]:
    return name, args


# ------------------------------------------------------------------ reading the prompt
def _last_user(messages: list[dict]) -> int:
    return max((i for i, m in enumerate(messages) if m["role"] == "user"), default=-1)


def _tool_results(messages: list[dict]) -> list[tuple[dict, str]]:
    """This step's ``(call, result)`` pairs: what came after the last user message."""
    calls = {c["id"]: c for m in messages[_last_user(messages) + 1:] for c in m.get("tool_calls") or []}
    return [(calls[m["tool_call_id"]], m["content"]) for m in messages[_last_user(messages) + 1:]
            if m["role"] == "tool" and m.get("tool_call_id") in calls]


def _memory_text(messages: list[dict]) -> str:
    """Everything the context holds before the user's last message, instructions left out."""
    texts = []
    for m in messages[:_last_user(messages)]:
        start = re.search(r"<\w+ characters=", m["content"]) if m["role"] == "system" else None
        texts.append(m["content"][start.start():] if start else m["content"])
    return "\n".join(texts)


# ------------------------------------------------------------------ the rules
def after_tools(messages: list[dict]) -> list[tuple[str, dict]] | None:
    """Tools already answered this step: stop, or move a refused append to archival memory."""
    results = _tool_results(messages)
    if not results:
        return None
    done = {c["function"]["name"] for c, _ in results}
    refused = [json.loads(c["function"]["arguments"]).get("content", "") for c, result in results
               if c["function"]["name"] == "core_memory_append" and result.startswith("Error") and "limit" in result]
    if refused and "archival_memory_insert" not in done:
        return [call("archival_memory_insert", content=text) for text in refused if text]
    return []


def remember_facts(messages: list[dict]) -> list[tuple[str, dict]] | None:
    """Facts the user states go into the ``human`` block: appended, or replaced when they changed."""
    human = core_block("\n".join(m["content"] for m in messages if m["role"] == "system"), "human")
    if human is None:
        return None
    lines = human.splitlines()
    calls = []
    for fact in rule_triples(messages[_last_user(messages)]["content"]):
        key, line = fact_line(*fact[:3])
        old = next((held for held in lines if key and held.startswith(f"{key}: ")), None)
        if line in lines:
            continue
        if old is None:
            calls.append(call("core_memory_append", label="human", content=line))
        else:
            calls.append(call("core_memory_replace", label="human", old=old, new=line))
            lines.remove(old)
        lines.append(line)
    return calls or None


def search_when_forgotten(messages: list[dict]) -> list[tuple[str, dict]] | None:
    """A question about something the context no longer holds: search recall and archival memory."""
    memory = _memory_text(messages)
    stored = [int(n) for n in re.findall(r"(\d+) (?:messages|passages) in", memory)]
    asked = [s for s in split_sentences(messages[_last_user(messages)]["content"]) if is_question(s)]
    if not asked or not any(stored):       # nothing asked, or nothing stored outside the context yet
        return None
    topic = [w for w in dict.fromkeys(content_words(" ".join(asked))) if w not in ASKING and len(w) > 2]
    known = set(content_words(memory))
    missing = [w for w in topic if w not in known]
    if not topic or 2 * len(missing) < len(topic):
        return None
    query = " ".join(missing)
    return [call("conversation_search", query=query), call("archival_memory_search", query=query)]


def save_before_eviction(messages: list[dict]) -> list[tuple[str, dict]] | None:
    """Warned of memory pressure: keep the oldest statements that core memory does not hold."""
    warned = any(m["role"] == "system" and PRESSURE.search(m["content"]) for m in messages[_last_user(messages):])
    if not warned:
        return None
    statements = [m["content"] for m in messages[:_last_user(messages)]
                  if m["role"] == "user" and len(m["content"].split()) >= MIN_STATEMENT_WORDS
                  and "?" not in m["content"] and not rule_triples(m["content"])]
    return [call("archival_memory_insert", content=text) for text in statements[:SAVE_AT_MOST]] or None


RULES = (remember_facts, search_when_forgotten, save_before_eviction)


def decide(messages: list[dict], offered: set[str]) -> list[tuple[str, dict]]:
    """The tool calls for this round, as ``(name, arguments)``.

    ``after_tools`` decides alone once tools have answered; otherwise every rule of ``RULES`` adds
    its calls. Only tools in ``offered`` (the names in the prompt's tool list) are called.
    """
    if _last_user(messages) < 0:
        return []
    calls = after_tools(messages)
    if calls is None:
        calls = [c for rule in RULES for c in rule(messages) or []]
    return [(name, args) for name, args in calls if name in offered]
