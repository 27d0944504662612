"""OfflineLLM: a deterministic stand-in for a language model, made of readable rules.

It receives the very prompts a real model would get, recognises which of the
jobs it is asked to do from the instruction text, reads the material out
of the prompt and does the job with the rules of this package
(:func:`~teachmem.llm.facts.rule_triples`, :func:`~teachmem.llm.summaries.summarize_rules`,
:func:`~teachmem.llm.importance.importance_rules`, and for reflection and experience
:func:`~teachmem.llm.experience_rules.experience_reply`).

Taught in notebooks/03_summary_memory.ipynb.
"""
from __future__ import annotations

import json
import re

from teachmem.core.tokens import estimate_tokens
from teachmem.llm.experience_rules import experience_reply
from teachmem.llm.facts import rule_triples
from teachmem.llm.importance import importance_rules
from teachmem.llm.memory_policy import decide
from teachmem.llm.protocol import Usage, check_messages, check_tools
from teachmem.llm.summaries import summarize_rules
from teachmem.llm.tasks import instructions_only, tagged_material

__all__ = ["OfflineLLM"]

_WORD_LIMIT = re.compile(r"(?:at most|under|no more than|fewer than|maximum of|max\.?|up to)\s+(\d+)\s+words")
# Prompts that label their material instead of tagging it: "Message: ...",
# "Current summary: ...", "New conversation: ...".
_MESSAGE_LABEL = re.compile(r"^\s*Message:\s*(.*?)(?=\n\s*(?:Respond|Answer|Reply|Return)\b|\Z)", re.S | re.M | re.I)
_SUMMARY_LABEL = re.compile(r"(?:Current|Previous|Existing) summary:\s*(.*?)(?=\n\s*New (?:conversation|summary)|\Z)",
                            re.S | re.I)
_CONVERSATION_LABEL = re.compile(r"New (?:conversation|summary)[^:\n]*:\s*(.*?)(?=\n\s*(?:Update|Preserve|Be concise|"
                                 r"Summari[sz]e|Merged summary)\b|\Z)", re.S | re.I)


class OfflineLLM:
    """A deterministic, rule-based stand-in for a language model. No network, no key.

    It receives the same chat prompts a real model would. From the instruction
    text it recognises the job (summarise, extract facts as JSON, score
    importance, spot a contradiction; write insights, rate past tasks, rewrite
    instructions), reads the material out of the prompt
    and does the job with the rules of ``teachmem.llm``. It understands this
    package's prompts and, as far as they go, prompts that label their material
    ("Current summary: ... New conversation: ...", "Message: ...").
    Anything else gets a reply saying what it can do. Every call is counted
    in ``usage``.

    Taught in notebooks/03_summary_memory.ipynb.
    """

    CANNOT = ("OfflineLLM is a rule-based stand-in: it can summarise, extract facts as JSON, score "
              "importance and spot contradictions, but it cannot hold a conversation. Connect a real "
              "model with OpenAICompatibleLLM for that.")

    def __init__(self) -> None:
        self.usage = Usage()

    def __repr__(self) -> str:
        return f"OfflineLLM(calls={self.usage.calls})"

    def complete(self, messages: list[dict], *, json_mode: bool = False) -> str:
        """Answer a chat prompt, deterministically. Taught in notebooks/04_entity_memory.ipynb."""
        messages = check_messages(messages)
        prompt = "\n\n".join(m["content"] for m in messages)
        reply = self._answer(prompt, messages, json_mode)
        self.usage.record(sum(estimate_tokens(m["content"]) for m in messages), estimate_tokens(reply))
        return reply

    def complete_with_tools(self, messages: list[dict], tools: list[dict]) -> dict:
        """Answer a prompt that offers tools: an assistant message with its ``tool_calls``, in the
        shape an OpenAI-compatible endpoint returns. The calls come from the rules of
        ``teachmem.llm.memory_policy``; the stand-in writes no reply text.

        Taught in notebooks/11_memory_as_tools.ipynb.
        """
        messages = check_messages(messages)
        chosen = decide(messages, check_tools(tools))
        calls = [{"id": f"call_{self.usage.calls + 1}_{i}", "type": "function",
                  "function": {"name": name, "arguments": json.dumps(args)}} for i, (name, args) in enumerate(chosen, 1)]
        self.usage.record(sum(estimate_tokens(m["content"]) for m in messages),
                          sum(estimate_tokens(json.dumps(args)) + 1 for _, args in chosen))
        return {"role": "assistant", "content": "", "tool_calls": calls}

    # -- which job is this? ----------------------------------------------
    def _answer(self, prompt: str, messages: list[dict], json_mode: bool) -> str:
        instructions = instructions_only(prompt).lower()
        experience = experience_reply(prompt, instructions, json_mode)   # insights, episodes, instructions
        if experience is not None:
            return experience
        if "contradict" in instructions:
            answer = _contradiction(prompt)
            return json.dumps({"contradiction": answer == "yes"}) if json_mode else answer
        if "how important" in instructions or "importance" in instructions:
            score = importance_rules(_message(prompt, messages))
            return json.dumps({"importance": score}) if json_mode else f"{score:.2f}"
        if "extract" in instructions and "json" in instructions:
            return _extract(prompt, messages, instructions)
        if "summar" in instructions:
            summary = _summarize(prompt, messages, instructions)
            return json.dumps({"summary": summary}) if json_mode else summary
        return json.dumps({"error": self.CANNOT}) if json_mode else self.CANNOT


def _message(prompt: str, messages: list[dict]) -> str:
    """The message a task is about: tagged, labelled, or else the last user message."""
    tagged = tagged_material(prompt, "message")
    if tagged is not None:
        return tagged
    labelled = _MESSAGE_LABEL.search(prompt)
    if labelled:
        return labelled.group(1).strip()
    users = [m["content"] for m in messages if m["role"] == "user"]
    return users[-1] if users else ""


def _extract(prompt: str, messages: list[dict], instructions: str) -> str:
    found = rule_triples(_message(prompt, messages), min_confidence=0.0)
    if '"entities"' in instructions and '"key"' in instructions:   # a prompt asking for flat keys
        return json.dumps({"entities": [
            {"key": t.attribute if t.entity == "User" else f"{t.entity}.{t.attribute}",
             "value": t.value, "confidence": t.confidence} for t in found]})
    return json.dumps({"triples": [t._asdict() for t in found]})


def _summarize(prompt: str, messages: list[dict], instructions: str) -> str:
    limit = _WORD_LIMIT.search(instructions)
    max_words = int(limit.group(1)) if limit and int(limit.group(1)) > 0 else 120
    previous = tagged_material(prompt, "previous_summary")
    conversation = tagged_material(prompt, "conversation")
    if conversation is None:
        previous, conversation = _labelled_material(prompt, messages)
    return summarize_rules(conversation, previous or "", max_words)


def _labelled_material(prompt: str, messages: list[dict]) -> tuple[str, str]:
    """``(previous summary, new conversation)`` from a prompt that labels them instead of tagging them."""
    previous_match = _SUMMARY_LABEL.search(prompt)
    conversation_match = _CONVERSATION_LABEL.search(prompt)
    previous = previous_match.group(1).strip() if previous_match else ""
    if conversation_match:
        return previous, conversation_match.group(1)
    # no labels: the conversation is what is left once the instruction lines are gone
    text = "\n".join(m["content"] for m in messages if m["role"] != "system")
    return previous, "\n".join(line for line in text.splitlines() if not re.search(r"summar", line, re.I))


def _contradiction(prompt: str) -> str:
    try:
        old = _fact_from_json(tagged_material(prompt, "old_fact"))
        new = _fact_from_json(tagged_material(prompt, "new_fact"))
    except (TypeError, ValueError, KeyError):
        return "no"
    same_key = _norm(old["entity"]) == _norm(new["entity"]) and _norm(old["attribute"]) == _norm(new["attribute"])
    return "yes" if same_key and _norm(old["value"]) != _norm(new["value"]) else "no"


def _fact_from_json(text: str | None) -> dict:
    data = json.loads(text or "")
    return {k: str(data[k]) for k in ("entity", "attribute", "value")}


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text).strip().lower()
