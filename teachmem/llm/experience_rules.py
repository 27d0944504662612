"""The offline stand-in's rules for reflection and experience: insights, similar episodes, instructions.

* **Insights** (:func:`insight_rules`): memories whose facts are about the same thing (the user, the
  project, its API) are brought together in one sentence, the latest value of each fact replacing the old;
  then a word several memories share becomes "X comes up again and again". Each cites its memories.
* **Similar episodes** (:func:`similarity_rules`): the share of content words two tasks have in
  common, a technology counting as its category too ("MySQL" also says "database").
* **Instructions from feedback** (:func:`rewrite_rules`): a request ("please keep it short", "don't
  use emojis") or a complaint ("too long") becomes an instruction; it replaces the line about the
  same thing, or is added; "emojis are fine again" drops that line.

:func:`experience_reply` recognises these three prompts for ``OfflineLLM``.

Taught in notebooks/12_reflection_and_experience.ipynb.
"""
from __future__ import annotations

import json
import re

from teachmem.core.words import STOPWORDS, content_words, stem, tokenize
from teachmem.llm.clauses import split_sentences
from teachmem.llm.facts import rule_triples
from teachmem.llm.lexicon import tech_matches
from teachmem.llm.tasks import tagged_material

__all__ = ["SUBJECTS", "GENERIC_WORDS", "COMPLAINTS", "fact_insights", "subject_insights", "insight_rules",
           "similarity_rules", "TOPICS", "as_instruction", "rewrite_rules", "experience_reply"]

# ---------------------------------------------------------------------------------------- insights
#: How an insight about each entity of the fact rules begins.
SUBJECTS = {"User": "What the user has said about themselves", "Project": "The project's stack so far",
            "API": "How the project's API works"}
#: Words too common to be what memories have in common.
GENERIC_WORDS = frozenset(stem(w) for w in """use using used want need think like make know way thing things
something time today tomorrow yesterday week good great sure also still maybe actually right well new let""".split())
ROLE = re.compile(r"^\s*(?:user|assistant|system|tool)\s*:\s*", re.I)


def fact_insights(memories: list[tuple[str, str]]) -> list[dict]:
    """One insight per entity that facts of two or more memories are about; the latest value of each fact wins.

    >>> fact_insights([("s1", "user: we picked Postgres"), ("s2", "user: we switched to MySQL and Redis caches it")])
    [{'text': "The project's stack so far: database MySQL; cache Redis.", 'cites': ['s1', 's2']}]
    """
    values: dict[str, dict[str, str]] = {}
    cites: dict[str, list[str]] = {}
    for id, text in memories:
        for triple in rule_triples(text):
            values.setdefault(triple.entity, {})[triple.attribute.replace("_", " ")] = triple.value
            cites.setdefault(triple.entity, [])
            if id not in cites[triple.entity]:
                cites[triple.entity].append(id)
    insights = []
    for entity, facts in values.items():
        said = "; ".join(f"{attribute.split(':')[0]} {value}" for attribute, value in facts.items())
        if len(cites[entity]) >= 2:
            insights.append({"text": f"{SUBJECTS.get(entity, entity)}: {said}.", "cites": cites[entity]})
    return insights


def subject_insights(memories: list[tuple[str, str]], min_memories: int = 3) -> list[dict]:
    """A word (by its stem) that ``min_memories`` or more of the user's memories use, most used first.

    >>> subject_insights([("s1", "user: the migration failed"), ("s2", "user: the migration is slow"),
    ...                   ("s3", "user: I rewrote the migration")])[0]["text"]
    'Migration comes up again and again: 3 of these memories mention it.'
    """
    ids: dict[str, list[str]] = {}
    surface: dict[str, str] = {}
    for id, text in memories:
        if text.lower().startswith("assistant:"):       # what the user keeps saying, not the replies
            continue
        for word in tokenize(ROLE.sub("", text)):
            key = stem(word)
            if word in STOPWORDS or len(word) < 3 or word.isdigit() or key in GENERIC_WORDS:
                continue
            surface.setdefault(key, word)
            if id not in ids.setdefault(key, []):
                ids[key].append(id)
    ranked = sorted((key for key in ids if len(ids[key]) >= min_memories), key=lambda key: -len(ids[key]))
    return [{"text": f"{surface[key].capitalize()} comes up again and again: {len(ids[key])} of these memories "
                     "mention it.", "cites": ids[key]} for key in ranked]


def insight_rules(memories: list[tuple[str, str]], max_insights: int = 3) -> list[dict]:
    """Fact insights first, then recurring subjects; none citing the same memories as one before it."""
    chosen, seen = [], set()
    for insight in fact_insights(memories) + subject_insights(memories):
        if frozenset(insight["cites"]) not in seen:
            seen.add(frozenset(insight["cites"]))
            chosen.append(insight)
    return chosen[:max_insights]


# ---------------------------------------------------------------------------------------- episodes
def similarity_rules(task: str, past: str) -> float:
    """The share of content words two tasks have in common (a technology also counts as its category).

    >>> similarity_rules("Set up MySQL backups", "Set up PostgreSQL backups")
    0.6
    """
    def words(text: str) -> set[str]:
        return set(content_words(text)) | {f"[{hit[3]}]" for hit in tech_matches(text)}

    a, b = words(task), words(past)
    return round(len(a & b) / len(a | b), 2) if a | b else 0.0


# ---------------------------------------------------------------------------------------- instructions
#: A complaint about the last reply, and the instruction it asks for.
COMPLAINTS = {r"\btoo (?:long|wordy|verbose)\b": "Keep answers short.",
              r"\btoo (?:short|brief|terse)\b|\bmore detail": "Give answers in more detail.",
              r"\btoo (?:formal|stiff)\b": "Write in a casual tone.",
              r"\btoo (?:casual|informal|chatty)\b": "Write in a formal tone.",
              r"\btoo (?:technical|much jargon)\b": "Explain without jargon."}
DIRECTIVE = re.compile(r"(?:always|never|don't|do not|stop|avoid|use|keep|be|write|answer|reply|give|start|end|"
                       r"include|add|show|put|call|address|no more|prefer|skip|explain|mention|ask)\b", re.I)
REQUEST = re.compile(r"^(?:(?:and|but|also|so|ok|okay|from now on|in future|in the future|next time),?\s+)*"
                     r"(?:please\s+|(?:could|can|would) you(?: please)?\s+|i(?:'d| would) (?:like|prefer|rather)"
                     r"(?: it if)? you\s+(?:to\s+)?|i want you to\s+)?", re.I)
WITHDRAW = re.compile(r"\b(?:(?:is|are) (?:fine|ok|okay|allowed) again|no need to|you can (?:use|go back to)|"
                      r"forget (?:the rule|what i said) about)\b", re.I)
#: Words that say what to do, not what about: set aside when finding the line an instruction replaces.
VERBS = frozenset(content_words("always never stop avoid use using keep be write answer answers reply give start end "
                                "include add show put call address more less prefer skip explain mention ask"))


def as_instruction(sentence: str) -> str | None:
    """A request or complaint as one instruction, or None if it asks nothing of the assistant.

    >>> as_instruction("Could you please stop using emojis?"), as_instruction("That was too long")
    ('Stop using emojis.', 'Keep answers short.')
    """
    for complaint, instruction in COMPLAINTS.items():
        if re.search(complaint, sentence, re.I):
            return instruction
    wish = REQUEST.sub("", sentence.strip(), count=1).rstrip("?!. ")
    if not DIRECTIVE.match(wish):
        return None
    wish = re.sub(r"^don't\b", "Do not", wish, flags=re.I)
    return wish[0].upper() + wish[1:] + "."


#: Words that are about the same thing: "short" and "more detail" both say how long answers are.
TOPICS = {"length": "short long brief concise detail detailed verbose wordy terse length",
          "tone": "formal casual informal chatty stiff tone", "jargon": "jargon technical plain simple"}
TOPIC_OF = {stem(word): topic for topic, words in TOPICS.items() for word in words.split()}


def _topic(text: str) -> set[str]:
    """What an instruction is about: its content words, less the verbs, a word of ``TOPICS`` as its topic."""
    return {TOPIC_OF.get(word, word) for word in content_words(text)} - VERBS


def rewrite_rules(instructions: str, feedback: str) -> str:
    """Each request or complaint in ``feedback`` replaces the last line about the same thing, or is added;
    a withdrawal drops that line. Everything else is kept word for word."""
    lines = [line for line in instructions.splitlines() if line.strip()]
    for sentence in split_sentences(feedback):
        withdraw, rule = WITHDRAW.search(sentence), as_instruction(sentence)
        if not withdraw and rule is None:
            continue
        topic = _topic(sentence if withdraw else rule or "")
        same = [i for i, line in enumerate(lines) if _topic(line) & topic]
        if withdraw:
            lines = [line for i, line in enumerate(lines) if i not in same[-1:]]
        elif same:
            lines[same[-1]] = rule or ""
        else:
            lines.append(rule or "")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------- the prompts
def _items(material: str | None) -> list[tuple[str, str]]:
    """``id: text`` lines back into pairs."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^(\S+): (.*)$", material or "", re.M)]


def experience_reply(prompt: str, instructions: str, json_mode: bool) -> str | None:
    """The reply to an insight, episode or instructions prompt (``instructions`` in lower case), else None."""
    if "insights" in instructions:
        limit = re.search(r"at most (\d+)", instructions)
        memories = _items(tagged_material(prompt, "memories"))
        return json.dumps({"insights": insight_rules(memories, int(limit.group(1)) if limit else 3)})
    if "worked example" in instructions:
        task = tagged_material(prompt, "new_task") or ""
        return json.dumps({id: similarity_rules(task, past) for id, past in _items(tagged_material(prompt,
                                                                                                  "past_tasks"))})
    if "feedback" in instructions and "instructions" in instructions:
        return rewrite_rules(tagged_material(prompt, "instructions") or "", tagged_material(prompt, "feedback") or "")
    return None
