"""Summaries by rules: an extractive summariser that keeps what a later turn needs.

It keeps the sentences that carry facts, decisions, numbers and reasons,
rewrites "I"/"we"/"my" into "the user"/"the team"/"their" so the summary reads
as plain third-person sentences whoever reads it, lets a newer value retire an older sentence, and, when over
the word limit, gives things up in a fixed order: weak sentences, then
elaborations and reasons (the "why" goes before the "what"), then whole
facts, least important first.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable, NamedTuple

from teachmem.core.validate import require_positive_int, require_text
from teachmem.llm.certainty import is_question
from teachmem.llm.clauses import normalise, role_lines, split_sentences
from teachmem.llm.facts import rule_triples
from teachmem.llm.importance import CHITCHAT, DECISION_WORD, NUMBER, PLAN_WORD, REASON, importance_score
from teachmem.llm.protocol import Triple

__all__ = ["summarize_rules"]

_FILLER = re.compile(
    r"^(?:(?:hi|hello|hey|ok|okay|so|well|actually|also|anyway|alright|right|great|cool|nice|sure|yes|yeah|"
    r"yep|oh|um|uh|btw|by the way|honestly|basically|noted|understood|sounds good|thanks|thank you|perfect|"
    r"happy to help|of course|good|got it|and|some news)\b[,!.:;]?\s+){1,4}",
    re.I)
_IMPERATIVE = re.compile(r"^(?:add|use|create|build|implement|set up|make|remove|include|support|deploy|"
                         r"write|fix|switch|move|keep|start|send|store|hide|put|split|promote|rotate|"
                         r"design|aim|plan|launch|ship)\b", re.I)
_MODALS = frozenset("can could will would should might must may did was had shall".split())
# Adverbs kept between the subject and the verb it conjugates ("I really need" -> "User really needs").
# Not the adverbs of the rule patterns: there "do" is emphatic ("I do like"), here it is a verb ("User does").
_ADVERBS = frozenset("""really also just still actually always usually never only definitely mostly often
    sometimes generally totally absolutely honestly personally strongly much already even""".split())
_NOT_PAST = frozenset("need feed seed speed proceed succeed exceed bleed breed embed shred".split())


def _third_person(verb: str) -> str:
    low = verb.lower()
    irregular = {"have": "has", "do": "does", "go": "goes", "am": "is", "are": "is", "be": "is",
                 "don't": "doesn't", "haven't": "hasn't", "aren't": "isn't", "do not": "does not"}
    if low in irregular:
        return irregular[low]
    if low in _MODALS or (low.endswith("ed") and low not in _NOT_PAST) or low.endswith("n't"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# First person to third. "{S}" is "the user" (or "the assistant"); "my" becomes the singular "their",
# which needs no guess at anyone's gender.
_CONTRACTIONS = [(r"\b(?:i'm|i am)\b", "{S} is"), (r"\bi've\b", "{S} has"), (r"\bi'll\b", "{S} will"),
                 (r"\bi'd\b", "{S} would"), (r"\bcall me\b", "{S} goes by"),
                 (r"\b(?:we're|we are)\b", "the team is"), (r"\bwe've\b", "the team has"),
                 (r"\bwe'll\b", "the team will"), (r"\bwe'd\b", "the team would"),
                 (r"^my\b", "{S}'s"), (r"\bmy\b", "their"), (r"^our\b", "the team's"), (r"\bour\b", "their"), (r"\bmyself\b", "themselves"),
                 (r"\bme\b", "them")]
_YOU = [(r"\b(?:you're|you are)\b", "the user is"), (r"^your\b", "the user's"), (r"\byour\b", "their"),
        (r"\byou\b", "the user")]


def _subject(role: str) -> str:
    return "the assistant" if role == "assistant" else "the user"


def _rewrite(sentence: str, role: str) -> str:
    """First person to third: "I prefer window seats" -> "The user prefers window seats"."""
    subject = _subject(role)
    text = _FILLER.sub("", sentence.strip()).strip()
    decided = f"{subject} decided to" if role != "assistant" else f"{subject} suggested to"
    text = re.sub(r"\b(?:let's|lets)\b", decided, text, flags=re.I)
    text = _third_person_words(text, role).rstrip(" .!,;:")
    # "The user likes fixtures, and the user wants …": the subject is said once.
    text = re.sub(rf"^({subject}\b[^.]*?,? and) {subject} ", r"\1 ", text, flags=re.I)
    return (text[:1].upper() + text[1:] + ".") if text else ""


def _third_person_words(text: str, role: str) -> str:
    """The pronoun part of ``_rewrite``: "my sister's" -> "their sister's", "I need" -> "the user needs"."""
    subject = _subject(role)
    for pattern, replacement in _CONTRACTIONS + (_YOU if role == "assistant" else []):
        text = re.sub(pattern, replacement.format(S=subject), text, flags=re.I)

    def conjugate(m: re.Match) -> str:
        subject_word = subject if m.group(1).lower() == "i" else "the team"
        adverbs, verb = m.group(2) or "", m.group(3)
        return f"{subject_word} {adverbs}{_third_person(verb)}"

    return re.sub(r"\b(i|we)\b(?![.'])\s+((?:(?:" + "|".join(_ADVERBS) + r")\s+){0,2})([a-z']+)",
                  conjugate, text, flags=re.I)


class _Unit(NamedTuple):
    """One sentence of the summary, with what decides whether it stays."""

    text: str
    score: float
    triples: tuple[tuple[str, str, str], ...]   # (entity, attribute, value) of the facts it states
    order: int
    role: str
    changed: bool = False   # states a value that replaced an older one


def _salient(sentence: str, role: str, facts: list[Triple]) -> bool:
    """Worth a place in the summary: a fact, a decision, a plan, a number or a reason."""
    if is_question(sentence) or CHITCHAT.match(sentence[:200]):
        return False
    if role == "assistant":
        return bool(facts)
    core = _FILLER.sub("", sentence.strip())
    return bool(facts or DECISION_WORD.search(core) or PLAN_WORD.search(core)
                or NUMBER.search(core) or REASON.search(core) or _IMPERATIVE.match(core))


# A sentence that says a value changed ("switch to MySQL instead of PostgreSQL") stays a change in
# every later fold, after the sentence with the old value is long gone.
_CHANGE = re.compile(r"\b(?:switch(?:es|ed|ing)? to|mov(?:e|es|ed|ing) to|instead of|replac(?:e|es|ed|ing)|"
                     r"no longer|from now on)\b", re.I)


def _make_unit(text: str, role: str, order: int, facts: list[Triple] | None = None) -> _Unit:
    facts = rule_triples(text) if facts is None else facts
    score = importance_score(text, facts) * (0.8 if role == "assistant" else 1.0)
    return _Unit(text, score, tuple((t.entity, t.attribute, t.value) for t in facts), order, role,
                 bool(facts) and _CHANGE.search(text) is not None)


def _strip_reason(unit: _Unit) -> _Unit:
    """Cut the reason ("… for its JSONB support"), unless the words cut belong to a fact's value
    ("a booking app for their sister's studio" is a description, not a reason)."""
    m = REASON.search(unit.text)
    if not m or m.start() < 8:
        return unit
    head = unit.text[:m.start()].rstrip(" ,;:-—–")
    # "…, mainly for its JSONB support" must not leave "…, mainly." behind.
    head = _HEDGE_TAIL.sub("", head).rstrip(" ,;:-—–")
    if not head or not all(v.lower() in head.lower() for _, _, v in unit.triples):
        return unit
    return unit._replace(text=head + ".")


_HEDGE_TAIL = re.compile(r"[\s,]+(?:mainly|mostly|partly|largely|primarily|chiefly|especially|"
                         r"simply|just|only|probably)$", re.I)


_ELABORATION = re.compile(r":\s|;\s|\s[-–—]\s|,\s(?:with|which|so|where|including)\s")


def _trim_elaboration(unit: _Unit) -> _Unit:
    """Cut what follows a colon, semicolon or dash when the head already holds the facts."""
    m = _ELABORATION.search(unit.text)
    if not m:
        return unit
    head = unit.text[:m.start()].rstrip(" ,")
    if len(head.split()) < 3 or not all(v.lower() in head.lower() for _, _, v in unit.triples):
        return unit
    return unit._replace(text=head + ".")


def _words_in(unit: _Unit) -> int:
    return len(unit.text.split())


def _values(unit: _Unit) -> set[str]:
    return {t[2].lower() for t in unit.triples}


class _Fitting:
    """The sentences of a summary being cut down to ``max_words``, with their running word count."""

    def __init__(self, units: list[_Unit], max_words: int):
        self.units, self.max_words = units, max_words
        self.total = sum(_words_in(u) for u in units)

    def fits(self) -> bool:
        return self.total <= self.max_words

    def drop(self, order: list[_Unit], stop: Callable[[_Unit], bool] = lambda u: False) -> None:
        """Drop sentences in ``order`` until it fits or ``stop`` says so; never the last sentence."""
        gone: set[int] = set()
        for unit in order:
            if self.fits() or stop(unit) or len(self.units) - len(gone) == 1:
                break
            gone.add(unit.order)
            self.total -= _words_in(unit)
        self.units = [u for u in self.units if u.order not in gone]

    def shorten(self, cut: Callable[[_Unit], _Unit]) -> list[_Unit]:
        """Apply ``cut`` to sentences, oldest first, until it fits; return each cut sentence as it was."""
        before_cuts = []
        for i, unit in enumerate(self.units):
            if self.fits():
                break
            self.units[i] = cut(unit)
            self.total += _words_in(self.units[i]) - _words_in(unit)
            if self.units[i] != unit:
                before_cuts.append(unit)
        return before_cuts

    def drop_least_worth(self) -> None:
        """Whole sentences, the ones worth least per word first (the older among equals).

        A sentence is worth its score, plus a bonus for each value nobody else
        states; the last sentence that still holds a value is dropped only when
        nothing else can go, and a value that replaced an older one last of all:
        without it the summary would fall silent on something that changed.
        """
        said = Counter(v for u in self.units for v in _values(u))

        def per_word(u: _Unit) -> float:
            return (u.score + 0.3 * sum(said[v] == 1 for v in _values(u))) / max(_words_in(u), 1)

        last_holders = []
        for unit in sorted(self.units, key=lambda u: (per_word(u), u.order)):
            if any(said[v] == 1 for v in _values(unit)):
                last_holders.append(unit)
            elif not self.fits():
                self.drop([unit])
                said.subtract(_values(unit))
        self.drop(sorted(last_holders, key=lambda u: (u.changed, per_word(u), u.order)))

    def restore(self, before_cuts: list[_Unit]) -> None:
        """Put back cut sentences whole, the last cut first, while they fit."""
        for before in reversed(before_cuts):
            for i, unit in enumerate(self.units):
                grown = self.total + _words_in(before) - _words_in(unit)
                if unit.order == before.order and grown <= self.max_words:
                    self.total = grown
                    self.units[i] = before

    def cut_words(self) -> None:
        """Still too long (one huge sentence): cut words, and say so with "…"."""
        words = " ".join(u.text for u in self.units).split()[:self.max_words]
        words[-1] = words[-1].rstrip(".,;:") + "…"
        self.units = [_Unit(" ".join(words), 0.0, (), 0, "summary")]


def _fit(units: list[_Unit], max_words: int) -> list[_Unit]:
    """Give things up, in a fixed order, until the summary fits in ``max_words``."""
    fitting = _Fitting(units, max_words)
    fitting.drop(sorted(units, key=lambda u: (u.score, u.order)), stop=lambda u: u.score >= 0.5)   # weak ones
    before_cuts = fitting.shorten(_trim_elaboration)                                              # elaborations
    before_cuts += fitting.shorten(_strip_reason)              # then reasons
    fitting.drop_least_worth()
    fitting.restore(before_cuts)   # dropping a sentence may have freed room for a cut one
    if not fitting.fits():
        fitting.cut_words()
    return fitting.units


def summarize_rules(text: str, previous_summary: str = "", max_words: int = 120) -> str:
    """Merge new conversation ``text`` into ``previous_summary``, in at most ``max_words`` words.

    Keeps decisions, preferences, names, numbers and their reasons; drops small
    talk and questions; a newer value replaces an older one ("switch to MySQL"
    retires the PostgreSQL sentence). ``text`` may be a transcript with
    ``user:`` / ``assistant:`` line prefixes.

    >>> summarize_rules("user: Hi! I'm Maya.\\nassistant: Nice to meet you.\\n"
    ...                 "user: Let's use PostgreSQL for its JSONB support.")
    'The user is Maya. The user decided to use PostgreSQL for its JSONB support.'
    """
    text = normalise(require_text("text", text, allow_empty=True))
    previous_summary = normalise(require_text("previous_summary", previous_summary, allow_empty=True))
    require_positive_int("max_words", max_words)
    units: list[_Unit] = []
    for sentence in split_sentences(previous_summary):
        units.append(_make_unit(sentence if sentence[-1] in ".!?" else sentence + ".", "summary", len(units)))
    units += _new_units(text, len(units))
    # The assistant repeating what the user decided adds words, not facts.
    stated = {t for u in units if u.role != "assistant" for t in u.triples}
    units = [u for u in units if u.role != "assistant" or set(u.triples) - stated]
    return " ".join(u.text for u in _fit(_unique(_latest(units)), max_words))


def _new_units(text: str, order: int) -> list[_Unit]:
    """The salient sentences of new conversation, in the third person."""
    units: list[_Unit] = []
    for role, line, _ in role_lines(text):
        role = role or "user"
        for sentence in split_sentences(line):
            if not any(c.isalpha() for c in sentence):
                continue
            facts = rule_triples(f"{role}: {sentence}")
            rewritten = _rewrite(sentence, role) if _salient(sentence, role, facts) else ""
            if rewritten:
                # The facts must speak like the text they belong to ("my sister's" ->
                # "their sister's"), or nothing can check that a trimmed sentence still holds them.
                facts = [t._replace(value=_third_person_words(t.value, role)) for t in facts]
                units.append(_make_unit(rewritten, role, order + len(units), facts))
    return units


def _latest(units: list[_Unit]) -> list[_Unit]:
    """Retire every sentence whose facts have all been given a newer value later on, and mark
    the sentences stating those newer values as changes."""
    latest: dict[tuple[str, str], str] = {}
    kept: list[_Unit] = []
    changed: set[tuple[str, str, str]] = set()
    for unit in reversed(units):   # walk backwards, remembering the latest values
        replaced = unit.triples and all((e, a) in latest and latest[(e, a)] != v for e, a, v in unit.triples)
        if replaced:
            changed.update((e, a, latest[(e, a)]) for e, a, _ in unit.triples)
        else:
            kept.append(unit)
        for e, a, v in unit.triples:
            latest.setdefault((e, a), v)
    return [u._replace(changed=u.changed or bool(changed.intersection(u.triples))) for u in kept[::-1]]


def _unique(units: list[_Unit]) -> list[_Unit]:
    """The first of sentences that read the same."""
    seen: set[str] = set()
    unique = []
    for unit in units:
        if unit.text.lower() not in seen:
            seen.add(unit.text.lower())
            unique.append(unit)
    return unique
