"""The four jobs memory gives a model: the prompts, the calls, and reading the replies.

Memory strategies need a model for four jobs: summarise a conversation,
extract facts as JSON, score how important a message is, and tell whether a
new fact contradicts an old one. Each task function writes the prompt, calls
``llm.complete(messages)`` and parses the reply, so the same code runs with
any model that speaks chat messages. Material goes between tags
(``<message>...</message>``), so a real model and the offline stand-in alike
can tell the instructions from the conversation.

Taught in notebooks/03_summary_memory.ipynb and notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

import json
import math
import re
import warnings

from teachmem.core.validate import (require_choice, require_fraction, require_positive_int,
                                    require_text)
from teachmem.llm.protocol import LLM, ExtractionError, ExtractionWarning, Triple

__all__ = ["SUMMARY_PROMPT", "EXTRACTION_PROMPT", "IMPORTANCE_PROMPT", "CONTRADICTION_PROMPT",
           "summarize", "extract_triples", "score_importance", "find_contradiction",
           "tagged", "tagged_material", "instructions_only", "load_json", "checked_reply", "tool_reply"]


# ---------------------------------------------------------------------------
# The prompts
# ---------------------------------------------------------------------------

SUMMARY_PROMPT = (
    "You keep the running summary of a conversation, so that an assistant can carry on later without the "
    "transcript. Merge the new conversation into the previous summary. Keep every decision, preference, "
    "name and number together with its reason (write \"PostgreSQL for its JSONB support\", not just "
    "\"PostgreSQL\"). When something changed, keep only the new value. Leave out small talk and questions. "
    "Write plain sentences in the third person, at most {max_words} words. Reply with the summary only.")

EXTRACTION_PROMPT = (
    "Extract the facts worth remembering from the message below as JSON. Look for names, places, "
    "employers, preferences and likes, diets and allergies, budgets, dates, decisions and technical choices. "
    "Answer with one JSON object: {\"triples\": [{\"entity\": \"...\", \"attribute\": \"...\", "
    "\"value\": \"...\", \"confidence\": 0.0-1.0}]}. Use the entity \"User\" for facts about the person "
    "writing, \"Project\" for what is being built and \"API\" for how it authenticates. Give a low "
    "confidence to questions, guesses and passing mentions. If nothing is worth keeping, answer "
    "{\"triples\": []}.")

IMPORTANCE_PROMPT = (
    "Rate how important the message below is to remember for the rest of the conversation, from 0 "
    "(small talk) to 1 (a decision, a personal fact or a number the assistant must not forget). "
    "Reply with the number only.")

CONTRADICTION_PROMPT = (
    "Two facts were extracted from a conversation at different times. Does the new fact contradict the old "
    "one, that is, does it give the same entity and attribute a different value? Reply with yes or no only.")


def tagged(tag: str, text: str) -> str:
    """``text`` between ``<tag>`` and ``</tag>`` lines: material, not instructions."""
    return f"<{tag}>\n{text}\n</{tag}>"


def tagged_material(text: str, tag: str) -> str | None:
    """The text between ``<tag>`` and the last ``</tag>``, or None."""
    start = text.find(f"<{tag}>")
    end = text.rfind(f"</{tag}>")
    if start < 0 or end < start:
        return None
    return text[start + len(tag) + 2:end].strip("\n")


def instructions_only(text: str) -> str:
    """The instructions only: everything outside the tagged material."""
    return re.sub(r"<(\w+)>.*?</\1>", " ", text, flags=re.S)


# ---------------------------------------------------------------------------
# The four tasks
# ---------------------------------------------------------------------------

def _require_llm(llm: object) -> None:
    if not (hasattr(llm, "complete") and callable(llm.complete) and hasattr(llm, "usage")):
        raise TypeError(f"llm must be a language model with .complete() and .usage (e.g. OfflineLLM()), "
                        f"got {type(llm).__name__}")


def _limit_words(text: str, max_words: int) -> str:
    """Enforce the word limit on any model's reply: whole sentences if possible, else cut with "…"."""
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    head = " ".join(words[:max_words])
    end = max(head.rfind(". "), head.rfind("! "), head.rfind("? "))
    if head.endswith((".", "!", "?")):
        return head
    if end > 0:
        return head[:end + 1]
    return head.rstrip(".,;:") + "…"


def summarize(llm: LLM, text: str, *, previous_summary: str = "", max_words: int = 120) -> str:
    """Progressive summarisation: merge ``text`` into ``previous_summary``, at most ``max_words`` words.

    ``text`` is new conversation, e.g. lines like ``user: ...`` / ``assistant: ...``.
    One model call (none when there is nothing to summarise). The word limit
    is enforced on the reply, whatever the model does.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    _require_llm(llm)
    require_text("text", text, allow_empty=True)
    require_text("previous_summary", previous_summary, allow_empty=True)
    require_positive_int("max_words", max_words)
    if not text.strip() and not previous_summary.strip():
        return ""
    messages = [{"role": "system", "content": SUMMARY_PROMPT.format(max_words=max_words)},
                {"role": "user", "content": tagged("previous_summary", previous_summary.strip()) + "\n\n"
                 + tagged("conversation", text.strip())}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected the summary text")
    return _limit_words(checked_reply(reply.strip(), "summary"), max_words)


def checked_reply(value, what: str):
    """``value`` (text, or JSON data) from a model, once checked like user input: every string in it
    valid Unicode and the whole of a depth JSON can hold; else an ``ExtractionError``. A reply is
    stored, saved and sent on; a lone surrogate in it would make every later save fail."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as err:
        raise ExtractionError(f"the model's {what} is not valid Unicode text: {err.reason} at "
                              f"position {err.start}") from None
    except RecursionError:
        raise ExtractionError(f"the model's {what} is nested too deeply to read") from None
    return value


def tool_reply(llm, messages: list[dict], tools: list[dict]) -> tuple[str, list]:
    """Ask a tool-calling model for its next move: ``(text, tool_calls)``.

    The reply is input like any other: an assistant message whose ``content`` is text (or None)
    and whose ``tool_calls`` is a list (or None), valid Unicode throughout; anything else is an
    ``ExtractionError``. Each call in the list is checked where it is run.
    """
    reply = llm.complete_with_tools(messages, tools)
    if not isinstance(reply, dict):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected an assistant "
                              "message")
    content, calls = reply.get("content") or "", reply.get("tool_calls") or []
    if not isinstance(content, str) or not isinstance(calls, list):
        raise ExtractionError("the model's reply must hold text content and a list of tool_calls, "
                              f"got {type(content).__name__} and {type(calls).__name__}")
    return checked_reply(content, "reply"), checked_reply(calls, "tool calls")


def load_json(reply: str) -> object:
    """Parse a model's JSON reply, tolerating ```json fences and chatter around one object."""
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected JSON text")
    text = reply.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S | re.I)
    if fenced:
        text = fenced.group(1)
    try:
        return checked_reply(json.loads(text), "JSON")
    except RecursionError:
        raise ExtractionError("the model's JSON is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        first, last = text.find("{"), text.rfind("}")
        if 0 <= first < last:
            try:
                return checked_reply(json.loads(text[first:last + 1]), "JSON")
            except (json.JSONDecodeError, RecursionError):
                pass
        raise ExtractionError(f"the model's reply is not valid JSON ({exc.msg} at line {exc.lineno} column "
                              f"{exc.colno}); it began {reply[:60]!r}") from None


def _parse_triples(reply: str) -> list[Triple]:
    data = load_json(reply)
    if not isinstance(data, dict):
        raise ExtractionError(f'expected a JSON object with a "triples" list, got a JSON {type(data).__name__}')
    key = next((k for k in ("triples", "entities", "facts") if k in data), None)
    if key is None:
        raise ExtractionError(f'the JSON object has no "triples" list (its keys: {sorted(data)})')
    items = data[key]
    if not isinstance(items, list):
        raise ExtractionError(f'"{key}" must be a list, got {type(items).__name__}')
    return [_triple_from(item, f"{key}[{i}]", flat_keys=key == "entities") for i, item in enumerate(items)]


def _triple_from(item: object, where: str, flat_keys: bool) -> Triple:
    """One item of the model's list as a Triple, or an ExtractionError saying what is wrong with it."""
    if not isinstance(item, dict):
        raise ExtractionError(f"{where} must be an object, got {type(item).__name__}")
    attribute = item.get("attribute", item.get("key"))
    entity = item.get("entity", "User")
    value = item.get("value")
    if flat_keys and "entity" not in item and isinstance(attribute, str) and "." in attribute:
        entity, attribute = attribute.split(".", 1)   # a flat key: {"key": "Project.database"}
    for field, got in (("attribute", attribute), ("value", value), ("entity", entity)):
        if isinstance(got, bool) or not isinstance(got, (str, int, float)) or not str(got).strip():
            raise ExtractionError(f'{where} needs a non-empty "{field}", got {got!r}')
    confidence = item.get("confidence", 0.0)   # no confidence given: not sure at all
    try:
        confidence = float(confidence)
    except (TypeError, ValueError):
        raise ExtractionError(f'{where}["confidence"] must be a number, got {confidence!r}') from None
    if not math.isfinite(confidence):
        raise ExtractionError(f'{where}["confidence"] must be a finite number, got {confidence!r}')
    return Triple(str(entity).strip(), str(attribute).strip(), str(value).strip(), min(max(confidence, 0.0), 1.0))


def extract_triples(llm: LLM, text: str, *, min_confidence: float = 0.7, on_error: str = "raise") -> list[Triple]:
    """Ask the model for ``(entity, attribute, value, confidence)`` triples; keep the confident ones.

    A JSON extraction prompt, then a confidence filter
    (``confidence >= min_confidence``). If the reply is not the JSON asked for,
    ``on_error="raise"`` raises :class:`ExtractionError` naming what was wrong,
    ``on_error="warn"`` warns (:class:`ExtractionWarning`) and returns ``[]``.
    Either way nothing is returned half-parsed, so the caller's store is untouched.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    _require_llm(llm)
    require_text("text", text, allow_empty=True)
    min_confidence = require_fraction("min_confidence", min_confidence)
    require_choice("on_error", on_error, ("raise", "warn"))
    if not any(c.isalnum() for c in text):
        return []
    messages = [{"role": "system", "content": EXTRACTION_PROMPT},
                {"role": "user", "content": tagged("message", text)}]
    reply = llm.complete(messages, json_mode=True)
    try:
        triples = _parse_triples(reply)
    except ExtractionError as exc:
        if on_error == "raise":
            raise
        warnings.warn(f"extraction skipped: {exc}", ExtractionWarning, stacklevel=2)
        return []
    return [t for t in triples if t.confidence >= min_confidence]


def score_importance(llm: LLM, text: str) -> float:
    """Ask the model how important ``text`` is to remember: a float in [0, 1].

    Replies like ``0.8``, ``Importance: 0.8``, ``8/10`` or ``{"importance": 0.8}`` are understood.
    """
    _require_llm(llm)
    require_text("text", text, allow_empty=True)
    if not any(c.isalnum() for c in text):
        return 0.0
    messages = [{"role": "system", "content": IMPORTANCE_PROMPT},
                {"role": "user", "content": tagged("message", text)}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected a number")
    return _read_score(reply)


def _read_score(reply: str) -> float:
    """A score in [0, 1] out of ``0.8``, ``Importance: 0.8``, ``8/10``, ``80%`` or ``{"importance": 0.8}``."""
    try:
        data = json.loads(reply)
        if isinstance(data, dict):
            data = next((v for k, v in data.items() if "importan" in k or k == "score"), None)
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            reply = str(data)
    except json.JSONDecodeError:
        pass
    m = re.search(r"(-?\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*100\b|out of 10\b)?", reply)
    if not m:
        raise ExtractionError(f"the model's reply has no importance score between 0 and 1: {reply[:60]!r}")
    value, scale = float(m.group(1)), (m.group(2) or "").replace(" ", "")
    if scale in ("%", "/100") or (scale == "" and 10 < value <= 100):
        value /= 100
    elif scale in ("/10", "outof10") or (scale == "" and 1 < value <= 10):
        value /= 10
    if not 0 <= value <= 1:
        raise ExtractionError(f"the model's importance score is outside [0, 1]: {reply[:60]!r}")
    return round(value, 2)


def _as_triple(name: str, value: object) -> Triple:
    if isinstance(value, Triple):
        return value
    if isinstance(value, tuple) and len(value) in (3, 4) and all(isinstance(v, str) for v in value[:3]):
        return Triple(*value)
    raise TypeError(f"{name} must be a Triple(entity, attribute, value, confidence), got {value!r}")


def find_contradiction(llm: LLM, old: Triple, new: Triple) -> bool:
    """Ask the model whether ``new`` contradicts ``old`` (same entity and attribute, another value)."""
    _require_llm(llm)
    old, new = _as_triple("old", old), _as_triple("new", new)

    def fact(t: Triple) -> str:
        return json.dumps({"entity": t.entity, "attribute": t.attribute, "value": t.value})

    messages = [{"role": "system", "content": CONTRADICTION_PROMPT},
                {"role": "user", "content": tagged("old_fact", fact(old)) + "\n" + tagged("new_fact", fact(new))}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected yes or no")
    try:
        data = json.loads(reply)
        if isinstance(data, dict) and isinstance(data.get("contradiction"), bool):
            return data["contradiction"]
    except json.JSONDecodeError:
        pass
    word = re.match(r"\W*(yes|no|true|false)\b", reply, re.I)
    if not word:
        raise ExtractionError(f"the model's reply is neither yes nor no: {reply[:60]!r}")
    return word.group(1).lower() in ("yes", "true")
