"""Three jobs of reflection and experience: the prompts, the calls, and reading the replies.

* :func:`write_insights` — reflection (Generative Agents, Park et al. 2023): from recent memories,
  at most a few insights, each citing the ids of the memories it rests on.
* :func:`rate_episodes` — how useful each past task would be as a worked example for a new one.
* :func:`rewrite_instructions` — the assistant's own instructions, rewritten from feedback.

Each writes a prompt, calls ``llm.complete(messages)`` once and checks the reply, so a real model
and the offline stand-in do the same jobs. A reply that cites ids it was not shown, or rates
episodes it was not asked about, is cut back to what was asked: nothing made up is stored.

Taught in notebooks/12_reflection_and_experience.ipynb.
"""
from __future__ import annotations

import math

from teachmem.core.validate import require_positive_int, require_text
from teachmem.llm.protocol import LLM, ExtractionError
from teachmem.llm.tasks import checked_reply, load_json, tagged

__all__ = ["INSIGHT_PROMPT", "EPISODE_PROMPT", "REWRITE_PROMPT", "write_insights", "rate_episodes",
           "rewrite_instructions", "numbered"]

INSIGHT_PROMPT = (
    "Below are an assistant's recent memories, one a line, each after its id. What are at most {max_insights} "
    "high-level insights you can infer from them? An insight brings several memories together: say in one "
    "sentence what they have in common or what they add up to, and cite the ids of the memories it rests on "
    "(at least two). Answer with one JSON object: {{\"insights\": [{{\"text\": \"...\", \"cites\": [\"s1\", "
    "\"s4\"]}}]}}. If nothing connects the memories, answer {{\"insights\": []}}.")

EPISODE_PROMPT = (
    "A new task is below, then tasks the assistant completed before, one a line after its id. For each past "
    "task, rate from 0 (unrelated) to 1 (the same task) how useful its steps would be as a worked example for "
    "the new task: the same goal, the same tools, the same kind of steps. Answer with one JSON object mapping "
    "each id to its rating, e.g. {\"e1\": 0.7, \"e4\": 0.1}.")

REWRITE_PROMPT = (
    "You keep the instructions an assistant follows, one instruction a line. Rewrite them in the light of the "
    "user's feedback below: add an instruction for a new wish, change the one the feedback corrects, drop the "
    "one it withdraws, and keep every other line word for word. If the feedback says nothing about how the "
    "assistant should behave, return the instructions unchanged. Reply with the instructions only, one a line.")


def _require_llm(llm: object) -> None:
    if not (callable(getattr(llm, "complete", None)) and hasattr(llm, "usage")):
        raise TypeError(f"llm must be a language model with .complete() and .usage (e.g. OfflineLLM()), "
                        f"got {type(llm).__name__}")


def numbered(items: list[tuple[str, str]]) -> str:
    """One ``id: text`` line per item, each text on one line: the material of the insight and episode prompts.

    >>> print(numbered([("s1", "user: we use\\nMySQL"), ("s2", "user: Redis")]))
    s1: user: we use MySQL
    s2: user: Redis
    """
    return "\n".join(f"{id}: {' '.join(text.split())}" for id, text in items)


def _require_items(name: str, items: object) -> list[tuple[str, str]]:
    if not isinstance(items, list) or not all(isinstance(i, tuple) and len(i) == 2 for i in items):
        raise TypeError(f"{name} must be a list of (id, text) tuples, got {type(items).__name__}")
    for id, text in items:
        require_text(f"an id in {name}", id)
        require_text(f"the text of {id} in {name}", text)
    return items


def write_insights(llm: LLM, memories: list[tuple[str, str]], *, max_insights: int = 3) -> list[dict]:
    """At most ``max_insights`` insights ``{"text", "cites"}`` about ``memories`` (``(id, text)`` pairs).

    One model call (none for fewer than two memories: an insight joins several). Citations of ids
    that were not shown are dropped, and an insight left citing fewer than two is dropped too.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """
    _require_llm(llm)
    memories = _require_items("memories", memories)
    require_positive_int("max_insights", max_insights)
    if len(memories) < 2:
        return []
    messages = [{"role": "system", "content": INSIGHT_PROMPT.format(max_insights=max_insights)},
                {"role": "user", "content": tagged("memories", numbered(memories))}]
    data = load_json(llm.complete(messages, json_mode=True))
    items = data.get("insights") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ExtractionError('expected a JSON object with an "insights" list')
    shown, insights = {id for id, _ in memories}, []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            continue
        cites = [c for c in dict.fromkeys(item.get("cites") or []) if isinstance(c, str) and c in shown]
        if len(cites) >= 2:
            insights.append({"text": " ".join(item["text"].split()), "cites": cites})
    return insights[:max_insights]


def rate_episodes(llm: LLM, task: str, episodes: list[tuple[str, str]]) -> dict[str, float]:
    """How useful each past ``(id, task)`` would be as a worked example for ``task``: id -> rating in [0, 1].

    One model call (none without episodes). An id the model leaves out rates 0.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """
    _require_llm(llm)
    require_text("task", task)
    episodes = _require_items("episodes", episodes)
    if not episodes:
        return {}
    messages = [{"role": "system", "content": EPISODE_PROMPT},
                {"role": "user", "content": tagged("new_task", " ".join(task.split())) + "\n\n"
                 + tagged("past_tasks", numbered(episodes))}]
    data = load_json(llm.complete(messages, json_mode=True))
    if not isinstance(data, dict):
        raise ExtractionError("expected a JSON object mapping each past task's id to a rating")
    ratings = {}
    for id, _ in episodes:
        value = data.get(id, 0.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ExtractionError(f"the rating of {id} must be a number between 0 and 1, got {value!r}")
        ratings[id] = round(min(max(float(value), 0.0), 1.0), 3)
    return ratings


def rewrite_instructions(llm: LLM, instructions: str, feedback: str) -> str:
    """``instructions`` rewritten in the light of ``feedback``: one model call.

    A blank reply keeps the instructions as they were (a model that loses them must not wipe them).

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """
    _require_llm(llm)
    require_text("instructions", instructions)
    require_text("feedback", feedback)
    messages = [{"role": "system", "content": REWRITE_PROMPT},
                {"role": "user", "content": tagged("instructions", instructions.strip()) + "\n\n"
                 + tagged("feedback", " ".join(feedback.split()))}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected the instructions")
    lines = [line.strip() for line in checked_reply(reply, "instructions").splitlines() if line.strip()]
    return "\n".join(lines) if lines else instructions.strip()
