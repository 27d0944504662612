"""The rules for facts about the user, as a table: one small named rule per kind of fact.

Each rule reads one clause and yields the facts it finds. :data:`PERSONAL_RULES`
lists them in the order they run, each with the cue words that must appear in
the clause before its pattern is tried at all. Read the table to see what the
offline extractor can know about a person; read a rule to see exactly why a
sentence became a fact and why another did not.

Personal rules only listen to the user: an assistant saying "I'm happy to
help" is not a name. The project rules (technologies, budgets, deadlines)
are in :mod:`teachmem.llm.project_rules`.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, Iterator, NamedTuple

from teachmem.llm.clauses import DOT
from teachmem.llm.lexicon import (DIETS, JOBS, NOT_ATTRIBUTES, NOT_EMPLOYERS, NOT_NAMES, NOT_WANTS, TECH_LOOKUP,
                                  VAGUE_STARTS, tech_attribute, tech_matches)
from teachmem.llm.patterns import (AGE, ALLERGIC, ALLERGY_HAVE, AS_JOB, BUILDING, DIET, DISLIKE, EAT_NOT, EMPLOYER,
                                   FAVORITE, FAVORITE_REV, IM_A, INTOLERANT, LIKE, LOCATION, MY_X_IS, NAME_CALL,
                                   NAME_IM, NAME_MY, ORIGIN, PREFER, WANT, WORK_AS)
from teachmem.llm.phrases import (PHRASE_ENDS, WINDOW, after, each, head_noun, is_vague, list_items, phrase,
                                  proper_name, singular, slug, strip_article, with_article)
from teachmem.llm.protocol import Triple

__all__ = ["Found", "Clause", "Rule", "found", "PERSONAL_RULES", "personal_facts"]


class Found(NamedTuple):
    """A fact as the rules found it, with what is needed to list and explain it.

    Facts are listed by ``rank``, then by position: 0 names, favourites, budgets
    and "my X is Y"; 1 preferences; 2 likes, dislikes and wishes; 3 origin, job,
    age, diet and allergies; 4 where the user lives; 5 the employer; 6 the project.
    """

    triple: Triple
    phrase: str     # the fact as one short statement, e.g. "lives in lisbon"
    rank: int       # facts are listed by kind (this rank), then by position
    pos: int        # where in the message it was found
    span: tuple[int, int] | None = None   # the characters of its clause a personal fact used up


class Clause(NamedTuple):
    """One clause being read: its text, where it starts in the message, and whether the whole
    message is typed in lower case (then names come without capitals)."""

    text: str
    pos: int
    lower: bool


def found(entity: str, attribute: str, value: str, confidence: float, phrase: str, rank: int, pos: int,
          span: tuple[int, int] | None = None) -> Found:
    """A :class:`Found`, with the dots of abbreviations put back and the phrase on one lower-case line."""
    value = value.replace(DOT, ".")
    phrase = re.sub(r"\s+", " ", phrase.replace(DOT, ".")).strip().lower()
    return Found(Triple(entity, attribute, value, round(confidence, 2)), phrase, rank, pos, span)


def _fact(c: Clause, entity: str, attribute: str, value: str, confidence: float, phrase: str, rank: int,
          start: int, end: int | None = None) -> Found:
    """A personal fact found at ``start`` in the clause. It uses the clause up to ``end`` (80 characters
    if not given), so that "I work at Oracle" is an employer and not also a database."""
    return found(entity, attribute, value, confidence, phrase, rank, c.pos + start,
                 (start, start + 80 if end is None else end))


def _could_be_name(name: str) -> bool:
    first = name.split()[0].lower() if name else ""
    return bool(name) and first not in NOT_NAMES and first not in PHRASE_ENDS


# -- names ----------------------------------------------------------------

def name_is(c: Clause) -> Iterator[Found]:
    """"My name is Dana", "name's Dana"."""
    for m in each(NAME_MY, c.text):
        name = proper_name(after(c.text, m), c.lower, 3) or phrase(after(c.text, m), 1).capitalize()
        if name and name.lower() not in NOT_NAMES:
            yield _fact(c, "User", "name", name, 0.9, f"name is {name}", 0, m.start())


def call_me(c: Clause) -> Iterator[Found]:
    """"Call me Dee", "I go by Dee"."""
    for m in each(NAME_CALL, c.text):
        name = proper_name(after(c.text, m), c.lower, 1 if c.lower else 2)
        if _could_be_name(name):
            yield _fact(c, "User", "name", name, 0.85, f"name is {name}", 0, m.start())


def i_am_name(c: Clause) -> Iterator[Found]:
    """"I'm Dana", "this is Dana": a capitalised word that is not a state ("I'm Tired"), a verb or a technology."""
    for m in each(NAME_IM, c.text):
        tail = after(c.text, m)
        if not tail[:1].isupper():
            continue
        name = proper_name(tail, False, 2)
        first = name.split()[0].lower() if name else ""
        if _could_be_name(name) and not first.endswith("ing") and first not in TECH_LOOKUP \
                and name not in TECH_LOOKUP:
            yield _fact(c, "User", "name", name, 0.85, f"name is {name}", 0, m.start())


# -- where the user lives and works ----------------------------------------

def lives_in(c: Clause) -> Iterator[Found]:
    """"I live in Lisbon", "I'm based in Porto", "we moved to Berlin"."""
    for m in each(LOCATION, c.text):
        place = proper_name(after(c.text, m), c.lower)
        if place and place.lower() not in TECH_LOOKUP and place not in TECH_LOOKUP:
            yield _fact(c, "User", "location", place, 0.9, f"lives in {place}", 4, m.start(), m.end() + len(place) + 1)


def comes_from(c: Clause) -> Iterator[Found]:
    """"I'm originally from Porto"."""
    for m in each(ORIGIN, c.text):
        place = proper_name(after(c.text, m), c.lower)
        if place:
            yield _fact(c, "User", "origin", place, 0.85, f"is from {place}", 3, m.start(), m.end() + len(place) + 1)


def works_at(c: Clause) -> Iterator[Found]:
    """"I work at Helios", "I'm employed by a bakery"."""
    for m in each(EMPLOYER, c.text):
        tail = after(c.text, m)
        company = phrase(tail, 4) if re.match(r"(?:an?|the) [a-z]", tail) else proper_name(tail, c.lower)
        if company and company.lower() not in NOT_EMPLOYERS and not is_vague(company):
            yield _fact(c, "User", "employer", company, 0.9, f"works at {company}", 5, m.start(),
                        m.end() + len(company) + 1)


def works_as(c: Clause) -> Iterator[Found]:
    """"I work as a nurse"."""
    for m in each(WORK_AS, c.text):
        job = phrase(after(c.text, m), 4)
        if job:
            yield _fact(c, "User", "occupation", job, 0.85, f"works as {with_article(job)}", 3, m.start())


def works_for_as(c: Clause) -> Iterator[Found]:
    """"I work for Acme as a firmware engineer"."""
    for m in each(AS_JOB, c.text):
        job = phrase(after(c.text, m), 4)
        if job and head_noun(job) in JOBS and not WORK_AS.search(c.text):
            yield _fact(c, "User", "occupation", job, 0.85, f"works as {with_article(job)}", 3, m.start())


def i_am_a(c: Clause) -> Iterator[Found]:
    """"I'm a data engineer": an occupation when the last word is a job."""
    for m in each(IM_A, c.text):
        tail = after(c.text, m)
        if re.match(r"(?:big |huge |massive )?fan of ", tail, re.I):
            continue   # "I'm a fan of" is a like
        job = phrase(tail, 4)
        if job and head_noun(job) in JOBS:
            yield _fact(c, "User", "occupation", job, 0.85, f"is {with_article(job)}", 3, m.start())


# -- body: age, diet, allergies (several allergies hold at once: one key each)

def age(c: Clause) -> Iterator[Found]:
    """"I'm 34", "I am 34 years old"."""
    for m in each(AGE, c.text):
        yield _fact(c, "User", "age", m.group(1), 0.85, f"is {m.group(1)} years old", 3, m.start())


def diet(c: Clause) -> Iterator[Found]:
    """"I'm vegetarian", "I've gone vegan", "I eat only halal"."""
    for m in each(DIET, c.text):
        value = DIETS[(m.group(1) or m.group(2)).lower()]
        yield _fact(c, "User", "diet", value, 0.9, f"is {value}", 3, m.start())


def does_not_eat(c: Clause) -> Iterator[Found]:
    """"I don't eat pork or shellfish": one fact per item."""
    for m in each(EAT_NOT, c.text):
        for item in list_items(after(c.text, m), 3):
            if not is_vague(item):
                yield _fact(c, "User", f"avoids:{slug(item)}", item, 0.85, f"does not eat {item}", 3, m.start())


def allergic_to(c: Clause) -> Iterator[Found]:
    """"I'm allergic to peanuts and shellfish": one fact per allergen."""
    for m in each(ALLERGIC, c.text):
        for item in list_items(after(c.text, m), 3):
            yield _fact(c, "User", f"allergy:{slug(item)}", item, 0.9, f"is allergic to {item}", 3, m.start())


def has_allergy(c: Clause) -> Iterator[Found]:
    """"I have a severe peanut allergy"."""
    for m in each(ALLERGY_HAVE, c.text):
        item = m.group(1)
        yield _fact(c, "User", f"allergy:{slug(item)}", item, 0.9, f"is allergic to {item}", 3, m.start())


def intolerant(c: Clause) -> Iterator[Found]:
    """"I'm lactose intolerant"."""
    for m in each(INTOLERANT, c.text):
        item = m.group(1)
        yield _fact(c, "User", f"intolerance:{slug(item)}", item, 0.85, f"is {item} intolerant", 3, m.start())


# -- favourites, preferences, likes, plans ----------------------------------

def favourite(c: Clause) -> Iterator[Found]:
    """"My favourite colour is blue": the key names the thing, so a new favourite colour replaces the old."""
    for m in each(FAVORITE, c.text):
        thing, value = m.group(1), phrase(after(c.text, m), 4)
        if value and not is_vague(value):
            yield _fact(c, "User", f"favorite_{slug(thing, False)}", value, 0.9, f"favorite {thing} is {value}", 0,
                        m.start())


def favourite_reversed(c: Clause) -> Iterator[Found]:
    """"Blue is my favourite colour"."""
    for m in each(FAVORITE_REV, c.text):
        value = re.sub(r"^(?:i think|honestly|probably|the|a|an) ", "", m.group(1), flags=re.I)
        thing = m.group(2)
        if value and not is_vague(value):
            yield _fact(c, "User", f"favorite_{slug(thing, False)}", value, 0.85, f"favorite {thing} is {value}", 0,
                        m.start())


_TO_VERB_STOPS = PHRASE_ENDS - {"on", "at", "in", "from", "with", "by", "during"}
_PREFER_VERB = re.compile(r"^(?:use|using|go with|have|get|take|eat|drink|go for|sit in|book) ", re.I)
_OVER = re.compile(r"\s*(?:over|to|rather than|instead of|than|versus|vs\.?)\s+(?:the |a |an )?(.+)", re.I)


def prefers(c: Clause) -> Iterator[Found]:
    """"I prefer window seats", "I'd rather fly early", "we prefer FastAPI" (a project preference).

    The key says what the preference is *about*, so a new seat preference
    replaces the old one, while a food preference sits beside it.
    """
    for m in each(PREFER, c.text):
        tail = after(c.text, m)
        if re.match(r"not\b", tail, re.I):
            continue
        rather = m.group(0).lower().rstrip().endswith("rather")
        value, key = _preferred(tail, c.text, rather)
        if value and key and not is_vague(value):
            entity = "Project" if m.group(0).lower().startswith("we") else "User"
            yield found(entity, f"preference:{key}", value, 0.9, f"prefers {value}", 1, c.pos + m.start())


def _preferred(tail: str, clause: str, rather: bool) -> tuple[str, str]:
    """``(value, key)`` of what follows "I prefer" (or "I'd rather", then a verb)."""
    verb_phrase = re.match(r"to (\w+)", tail, re.I)
    if verb_phrase:   # "to fly early": about flying
        return "to " + phrase(tail[3:], 6, stops=_TO_VERB_STOPS), singular(verb_phrase.group(1))
    if rather and not _PREFER_VERB.match(tail):   # "rather travel by train": about travelling
        return phrase(tail, 6, stops=_TO_VERB_STOPS), singular(tail.split(None, 1)[0]) if tail.strip() else ""
    tail = _PREFER_VERB.sub("", tail)
    said = phrase(tail, 4, stops=PHRASE_ENDS | {"to"})
    value = strip_article(said)
    techs = tech_matches(value)
    if techs:   # "Postgres": a technology, keyed like the choice it is
        return techs[0][2], tech_attribute(techs[0][3], clause)[1]
    other = _OVER.match(tail[len(said):WINDOW] if said else "")
    if other and phrase(other.group(1), 4):   # "aisle over window": about both
        return value, "_vs_".join(sorted([head_noun(value), head_noun(phrase(other.group(1), 4))]))
    return value, head_noun(value)


def dislikes(c: Clause) -> Iterator[Found]:
    """"I hate olives", "I don't really like jazz"."""
    for m in each(DISLIKE, c.text):
        for item in list_items(after(c.text, m), 4):
            if not is_vague(item):
                yield _fact(c, "User", f"dislikes:{slug(item)}", item, 0.85, f"dislikes {item}", 2, m.start())


def likes(c: Clause) -> Iterator[Found]:
    """"I love hiking and jazz", "I'm a big fan of sushi", but not inside "I don't like"."""
    negative = [m.span() for m in each(DISLIKE, c.text)]
    for m in each(LIKE, c.text):
        if any(s <= m.start() < e for s, e in negative):
            continue
        verb = (m.group(1) or "like").lower()
        verb = verb if verb.endswith("s") else verb + "s"
        tail = after(c.text, m)
        if re.match(r"to (?:think|say|know|believe|imagine|keep|make|point|add|mention|ask|see|get|have)\b",
                    tail, re.I):
            continue
        for item in list_items(re.sub(r"^to ", "", tail, flags=re.I), 4):
            if not is_vague(item):
                yield _fact(c, "User", f"likes:{slug(item)}", item, 0.85, f"{verb} {item}", 2, m.start())


_BUILDING_STOPS = PHRASE_ENDS - {"for", "with", "in", "on"}


def building(c: Clause) -> Iterator[Found]:
    """"I'm building a booking app for a yoga studio" (the stack is a separate fact)."""
    for m in each(BUILDING, c.text):
        what = re.split(r"\s+(?:with|using|in|on)\s+", phrase(after(c.text, m), 8, stops=_BUILDING_STOPS))[0]
        if what and not is_vague(what):
            yield _fact(c, "Project", "description", what, 0.8, f"is building {what}", 6, m.start(), m.start() + 1)


def wants(c: Clause) -> Iterator[Found]:
    """"I want a standing desk", but not "I need help" or "I want to ..."."""
    for m in each(WANT, c.text):
        tail = after(c.text, m)
        item = strip_article(phrase(tail, 4))
        if item and not re.match(r"to\b", tail, re.I) and not is_vague(item) \
                and item.split()[0].lower() not in NOT_WANTS and not tech_matches(item):
            yield _fact(c, "User", f"wants:{slug(item)}", item, 0.75, f"wants {item}", 2, m.start())


_MY_X_STOPS = PHRASE_ENDS - {"with", "on", "at", "in", "from", "for", "by"}


def my_x_is(c: Clause) -> Iterator[Found]:
    """"My sister is Ana", "our deadline is tight", "my dog is called Rex" (dog_name): anything else with a name."""
    for m in each(MY_X_IS, c.text):
        owner, thing = m.group(1).lower(), m.group(2).lower()
        key = slug(thing, False)
        if key in NOT_ATTRIBUTES or key.endswith("budget") or key.startswith("favo") \
                or key in ("first_name", "full_name", "real_name"):
            continue   # a figure of speech, or a fact another rule reads
        tail = after(c.text, m)
        called = re.match(r"(?:called|named) ", tail, re.I)
        if called:
            key, thing, tail = key + "_name", thing + " name", tail[called.end():]
        if tail.lower().startswith(VAGUE_STARTS):
            continue
        value = phrase(tail, 5, stops=_MY_X_STOPS)
        if value and not is_vague(value):
            entity = "Project" if owner == "our" else "User"
            yield _fact(c, entity, key, value, 0.8, f"{thing} is {value}", 0, m.start())


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

class Rule(NamedTuple):
    """A rule: its name, the cue words one of which the clause must contain (none: always tried), and the rule."""

    name: str
    cues: tuple[str, ...]
    read: Callable[[Clause], Iterable[Found]]


_LIKE_CUES = ("like", "love", "enjoy", "ador", "fan of", "into", "hate", "stand", "care for", "detest", "loathe")

PERSONAL_RULES: tuple[Rule, ...] = (
    Rule("name: my name is Dana", ("name",), name_is),
    Rule("name: call me Dee", ("call", " by "), call_me),
    Rule("name: I'm Dana", ("i", "this is", "it's"), i_am_name),
    Rule("location: I live in Lisbon", ("live", "living", "resid", "based", "located", "moved", "relocated"),
         lives_in),
    Rule("origin: I'm from Porto", ("from",), comes_from),
    Rule("employer: I work at Helios", ("work", "employed"), works_at),
    Rule("occupation: I work as a nurse", ("work", "employed"), works_as),
    Rule("occupation: I work for Acme as an engineer", ("work", "employed"), works_for_as),
    Rule("occupation: I'm a nurse", ("a ",), i_am_a),
    Rule("age: I'm 34", (), age),
    Rule("diet: I'm vegetarian", (), diet),
    Rule("avoids: I don't eat pork", ("eat",), does_not_eat),
    Rule("allergy: I'm allergic to peanuts", ("allerg",), allergic_to),
    Rule("allergy: I have a peanut allergy", ("allerg",), has_allergy),
    Rule("intolerance: I'm lactose intolerant", ("intolerant",), intolerant),
    Rule("favorite: my favourite colour is blue", ("favo",), favourite),
    Rule("favorite: blue is my favourite colour", ("favo",), favourite_reversed),
    Rule("preference: I prefer window seats", ("prefer", "rather"), prefers),
    Rule("dislikes: I hate olives", _LIKE_CUES, dislikes),
    Rule("likes: I love hiking", _LIKE_CUES, likes),
    Rule("description: I'm building a booking app", ("ing ",), building),
    Rule("wants: I want a standing desk", ("want", "need"), wants),
    Rule("anything: my dog is called Rex", (" is ", " are "), my_x_is),
)


def personal_facts(c: Clause) -> list[Found]:
    """Facts about the user in one clause: every rule of :data:`PERSONAL_RULES` whose cue is there, in order."""
    low = c.text.lower()
    return [fact for rule in PERSONAL_RULES if not rule.cues or any(cue in low for cue in rule.cues)
            for fact in rule.read(c)]
