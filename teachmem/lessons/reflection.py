"""Notebook 12's conversation, checkers and views: reflection, episodes and instructions.

Taught in notebooks/12_reflection_and_experience.ipynb.
"""
from __future__ import annotations

from collections.abc import Callable

from teachmem.lab.replay import add_turn, feed
from teachmem.lab.scenarios import load_scenario
from teachmem.lessons.common import (after_prediction as after_prediction, answer_checker, checker, differs,
                                     explore as explore, first_problem, forbidding, prediction_problem, short,
                                     wrapped)
from teachmem.memory.episodic import EpisodicMemory
from teachmem.memory.reflection import ReflectiveMemory

#: Ana's conversation: who she is and what her project runs on, said across six messages.
ANA = ("My name is Ana and I live in Lisbon", "We picked Postgres for the app because of JSONB", "ok",
       "I am vegetarian, by the way", "Actually we switched to MySQL last week", "Redis caches the sessions now")
REPLY = "Noted."


def told_ana(memory):
    """``memory`` after Ana's conversation: each message, then the assistant's short reply."""
    for text in ANA:
        memory.add("user", text)
        memory.add("assistant", REPLY)
    return memory


def reflections_view(memory: ReflectiveMemory) -> str:
    """What each reflection wrote, the memories each insight cites, and what reflecting cost.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """
    lines = []
    for number, reflection in enumerate(memory.reflections, 1):
        lines.append(f"reflection {number} after turn {reflection['turn']}: {reflection['calls']} call, "
                     f"{reflection['tokens']} tokens, {len(reflection['insights'])} insight(s)")
        for insight_id in reflection["insights"]:
            insight = memory.get(insight_id)
            lines.append(f"  {insight_id} {insight['text']}")
            lines += [f"      cites {c}: {memory.get(c)['text']}" for c in insight["metadata"]["cites"]]
    return "\n".join(lines) or "no reflection yet"


def threshold_view(threshold: float) -> str:
    """The 30-turn project replayed with ``threshold``: when it reflected, the insights it holds, the cost.

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """
    memory = feed(ReflectiveMemory(threshold=threshold), load_scenario("project_30"))
    turns = ", ".join(str(r["turn"]) for r in memory.reflections) or "none"
    lines = [f"threshold {threshold:g}: reflected after turns {turns}",
             f"model calls: {memory.llm.usage.calls} in all, {memory.reflection_calls} of them reflecting",
             f"insights held at the end: {len(memory.insights())}"]
    return wrapped("\n".join(lines + [f"  {i['id']} {i['text']}" for i in memory.insights()]))


def score_parts(memory: ReflectiveMemory, query: str, top_k: int = 5) -> str:
    """The best ``top_k`` memories for ``query``, each with the three parts of Generative Agents' score
    (recency + importance + relevance, each rescaled from 0 to 1 over the stored memories).

    Taught in notebooks/12_reflection_and_experience.ipynb.
    """
    rows = [f"{'score':>5} = {'recency':>7} + {'importance':>10} + {'relevance':>9}   memory"]
    rows += [f"{h['score']:5.2f} = {h['recency']:7.2f} + {h['importance']:10.2f} + {h['relevance']:9.2f}   "
             f"{short(h['text'], 56)}" for h in memory.explain(query, top_k=top_k)]
    return "\n".join(rows)


# ---------------------------------------------------------------- exercise 12.1: a prediction
@answer_checker("calls_prediction")
def check_calls_prediction(calls_prediction: object) -> str | None:
    """Exercise 12.1: how many model calls does Ana's conversation cost with ``threshold=1.0``?"""
    memory = told_ana(ReflectiveMemory(threshold=1.0))
    return prediction_problem(calls_prediction, memory.llm.usage.calls,
                              f"Each of the {2 * len(ANA)} messages is scored (one call each); the sum passes "
                              f"1.0 {len(memory.reflections)} times, and each reflection is one call more, even "
                              "one that finds nothing to join.")


# ---------------------------------------------------------------- exercise 12.2: the worked examples
def _overlap(a: str, b: str) -> float:
    """The checker's own similarity: shared lower-case words over all words."""
    x, y = set(a.lower().split()), set(b.lower().split())
    return len(x & y) / len(x | y) if x | y else 0.0


def _episode(id: str, task: str, success: bool) -> dict:
    return {"id": id, "task": task, "success": success}


_BANK = [_episode("e1", "set up nightly postgres backups", True),
         _episode("e2", "set up nightly mysql backups", False),
         _episode("e3", "write a react login form", True),
         _episode("e4", "write a react signup form", True),
         _episode("e5", "set up weekly postgres backups", True)]
# (episodes, task, min_similarity, k) -> the ids to recall, best first, worked out by hand with _overlap
RECALL = [((_BANK, "set up nightly mysql backups", 0.2, 2), ["e1", "e5"]),    # e2 is closest, but failed
          ((_BANK, "set up nightly mysql backups", 0.5, 2), ["e1"]),          # e5 rates 3/7, below 0.5
          ((_BANK, "write a react form", 0.2, 2), ["e4", "e3"]),              # a tie (4/5): newer first
          ((_BANK, "write a react form", 0.2, 1), ["e4"]),
          ((_BANK, "write a react signup page", 0.2, 5), ["e4", "e3"]),       # fewer than k qualify
          ((_BANK, "plan the team offsite", 0.2, 3), []),                     # nothing similar enough
          ((_BANK, "set up nightly postgres backups", 1.0, 3), ["e1"]),       # equal to the minimum counts
          ((_BANK, "write a react form", 0.2, 0), []),
          ((_BANK[1:2], "set up nightly mysql backups", 0.0, 1), []),         # only a failure
          (([], "anything", 0.0, 1), [])]


@checker("recall_examples")
def check_recall_examples(recall_examples: Callable) -> str | None:
    """Exercise 12.2: ``recall_examples(episodes, task, similarity, min_similarity, k)`` -> the ids of at
    most ``k`` successful episodes rated at least ``min_similarity``, most similar first, the newer first
    on a tie. Compared with answers worked out by hand."""
    with forbidding((EpisodicMemory, "__init__")):
        return first_problem(
            _recall_problem(bank, task, low, k, recall_examples([dict(e) for e in bank], task, _overlap, low, k), want)
            for (bank, task, low, k), want in RECALL)


def _recall_problem(bank: list[dict], task: str, low: float, k: int, got: object, want: list[str]) -> str | None:
    """What differs; for the right ids in the wrong order, also their ratings and the rule that orders them."""
    problem = differs(f"task {task!r} with min_similarity {low} and k {k}", got, want)
    if problem is None or not isinstance(got, list) or sorted(map(repr, got)) != sorted(map(repr, want)):
        return problem
    ratings = ", ".join(f"{e['id']} rates {_overlap(task, e['task']):.2f}" for e in bank if e["id"] in want)
    return (f"{problem}: the right ids in the wrong order ({ratings}, the later stored the newer); "
            "the most similar comes first, and on a tie the newer first")


# ---------------------------------------------------------------- exercise 12.3: a threshold
MAX_REFLECTIONS = 3
STACK_BY_TURN = 10


@answer_checker("threshold")
def check_threshold(threshold: object) -> str | None:
    """Exercise 12.3: at most three reflections over the 30-turn project, yet the stack joined by turn 10."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"threshold must be a number, got {type(threshold).__name__}")   # printed as what differs
    memory = ReflectiveMemory(threshold=threshold)       # a bad number is a ValueError: printed too
    scenario = load_scenario("project_30")
    feed(memory, scenario, STACK_BY_TURN)
    early = [i for i in memory.insights() if "stack" in i["text"]]
    for t in scenario.turns[STACK_BY_TURN:]:
        add_turn(memory, scenario, t.turn)
    if len(memory.reflections) > MAX_REFLECTIONS:
        return (f"with threshold {threshold} the memory reflected {len(memory.reflections)} times "
                f"({memory.reflection_calls} calls); raise it to reflect less often")
    if not early:
        return (f"with threshold {threshold} no insight joined the stack by turn {STACK_BY_TURN}; "
                "lower it to reflect sooner")
    return None

