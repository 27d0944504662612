"""The LoCoMo benchmark format, and the evidence recall@k of a retriever on it.

LoCoMo (Maharana et al., 2024) is a public set of long, multi-session
conversations with questions about them. Its JSON file is a list of
conversations, each ``{"sample_id", "conversation", "qa"}``:

* ``conversation`` holds ``session_N`` lists of turns
  ``{"speaker", "dia_id", "text"}`` (``dia_id`` like ``"D3:7"``: session 3,
  turn 7) and a ``session_N_date_time`` string for each session;
* ``qa`` holds ``{"question", "answer", "evidence", "category"}``, where
  ``evidence`` lists the ``dia_id`` s of the turns that support the answer
  (adversarial questions carry ``adversarial_answer`` instead of ``answer``).

The dataset is licensed for non-commercial use only, so it is not bundled:
``LOCOMO_SAMPLE`` is a small file in the same format, written for this
project. Point ``load_locomo`` at a downloaded ``locomo10.json`` to measure
on the real thing. ``LONG_CONVERSATIONS``, also written for this project, holds
eight conversations of eight sessions each, spread over seven to eleven months,
whose questions ask mostly about the first four sessions and, four a
conversation, about the last four: recent events and values that changed (see
``teachmem.lab.evaluation.recall_over_time``; the file is written by ``tools/long_conversations.py``).

**Evidence recall@k**, exactly: every turn of a conversation is stored in a
fresh retriever as ``"speaker: text"``, in file order (sessions by number).
Each question is a query. An evidence id is *valid* when it equals (as a
string) the ``dia_id`` of a turn of that conversation; duplicates count once.
For a question with at least one valid id, recall@k is the share of its
valid evidence ids found among the ``dia_id`` s of the top ``k`` retrieved
turns. Recall@k of a set of questions is the plain mean over those questions
(macro). Questions without evidence, or whose every id is invalid, are
skipped and counted; invalid ids are dropped and counted (``malformed``: not
of the form ``D<session>:<turn>``; ``unknown``: well formed but naming no turn).

Taught in notebooks/08b_evaluate_on_locomo.ipynb.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from tqdm import tqdm

from teachmem.lab.scenarios import read_json
from teachmem.lab.evaluation.scoreboard import text_table
from teachmem.memory.semantic import SemanticMemoryStore

LOCOMO_SAMPLE = Path(__file__).parent.parent / "data" / "locomo_sample.json"
LONG_CONVERSATIONS = Path(__file__).parent.parent / "data" / "long_conversations.json"
DEFAULT_KS = (1, 5, 10, 20)
_SESSION = re.compile(r"session_(\d+)")
_DIA_ID = re.compile(r"D\d+:\d+")

Search = Callable[[str, int], Sequence[int]]


class LocomoError(ValueError):
    """A LoCoMo file is malformed; the message names the file and the field."""


#: LoCoMo's question categories by the number its file gives them (Maharana et al. 2024): 1 needs two turns or
#: more, 2 asks when, 3 needs knowledge from outside the conversation, 4 is answered by one turn, 5 has a false
#: premise (what it asks never happened, so the answer says so).
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def category_label(category: object) -> str:
    """A category as a table shows it: its number and name, or ``category X`` for one LoCoMo does not name.

    >>> category_label(4), category_label("other")
    ('4 single-hop', 'category other')
    """
    name = CATEGORY_NAMES.get(category) if isinstance(category, int) and not isinstance(category, bool) else None
    return f"{category} {name}" if name else f"category {category}"


@dataclass(frozen=True)
class LocomoTurn:
    dia_id: str
    speaker: str
    text: str
    session: int
    date_time: str | None

    @property
    def memory(self) -> str:
        """What a retriever stores for this turn: ``"speaker: text"``."""
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class LocomoQuestion:
    question: str
    answer: str | None
    evidence: tuple          # as in the file: usually dia_id strings, possibly blemished
    category: object         # an int in the public file


@dataclass(frozen=True)
class LocomoConversation:
    sample_id: str
    turns: tuple[LocomoTurn, ...]
    questions: tuple[LocomoQuestion, ...]


def _need(record, key: str, kind, where: str, path: Path):
    if not isinstance(record, dict) or key not in record:
        raise LocomoError(f"{path}: {where} is missing the field {key!r}")
    value = record[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise LocomoError(f"{path}: {where}.{key} must be {names}, got {type(value).__name__}")
    return value


def load_locomo(path: str | Path = LOCOMO_SAMPLE) -> list[LocomoConversation]:
    """Read a LoCoMo JSON file (the bundled sample by default) into conversations.

    A structural problem (a missing or mistyped field) raises ``LocomoError``
    naming the file and the field; blemished evidence ids load as they are and
    are dealt with by ``evidence_recall``.

    Taught in notebooks/08b_evaluate_on_locomo.ipynb.
    """
    path = Path(path)
    doc = read_json(path, LocomoError, f"no LoCoMo file {path}")
    if not isinstance(doc, list):
        raise LocomoError(f"{path}: the top level must be a list of conversations, got {type(doc).__name__}")
    return [_conversation(item, f"[{i}]", path) for i, item in enumerate(doc)]


def _conversation(item, where: str, path: Path) -> LocomoConversation:
    conv = _need(item, "conversation", dict, where, path)
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.fullmatch(key)))
    if not sessions:
        raise LocomoError(f"{path}: {where}.conversation has no session_N field")
    turns = []
    for number, key in sessions:
        date = conv.get(f"{key}_date_time")
        for j, t in enumerate(_need(conv, key, list, f"{where}.conversation", path)):
            at = f"{where}.conversation.{key}[{j}]"
            turns.append(LocomoTurn(_need(t, "dia_id", str, at, path), _need(t, "speaker", str, at, path),
                                    _need(t, "text", str, at, path), number, date if isinstance(date, str) else None))
    questions = []
    for j, q in enumerate(_need(item, "qa", list, where, path)):
        at = f"{where}.qa[{j}]"
        text = _need(q, "question", str, at, path)
        if not text.strip():
            raise LocomoError(f"{path}: {at}.question is empty")
        evidence = q.get("evidence", [])
        if not isinstance(evidence, list):
            raise LocomoError(f"{path}: {at}.evidence must be a list, got {type(evidence).__name__}")
        answer = q.get("answer", q.get("adversarial_answer"))
        questions.append(LocomoQuestion(text, None if answer is None else str(answer), tuple(evidence),
                                        _need(q, "category", (int, str), at, path)))
    sample_id = item.get("sample_id")
    return LocomoConversation(sample_id if isinstance(sample_id, str) else where, tuple(turns), tuple(questions))


# ------------------------------------------------------------------ retrievers
def store_retriever(make_store: Callable[[], Any] | None = None) -> Callable[[list[str]], Search]:
    """Turn a memory store into a retriever for ``evidence_recall``.

    ``make_store()`` builds an empty store with ``store(text)`` and
    ``retrieve(query, top_k) -> [(score, text, type), ...]`` best first, like
    ``SemanticMemoryStore`` (the default, with its default settings: every
    turn is stored at the same moment with the same importance, so the
    ranking is relevance alone). Retrieved texts are mapped back to turn
    positions; identical texts map to their turns in order.
    """
    factory: Callable[[], Any] = SemanticMemoryStore if make_store is None else make_store

    def build(texts: list[str]) -> Search:
        store = factory()
        positions: defaultdict[str, list[int]] = defaultdict(list)
        for i, text in enumerate(texts):
            store.store(text)
            positions[text].append(i)

        def search(query: str, k: int) -> list[int]:
            taken: defaultdict[str, int] = defaultdict(int)
            ranked = []
            for _, text, *_ in store.retrieve(query, top_k=k):
                if taken[text] < len(positions[text]):
                    ranked.append(positions[text][taken[text]])
                    taken[text] += 1
            return ranked
        return search
    return build


def overlap_retriever(stopwords: set[str]) -> Callable[[list[str]], Search]:
    """The baseline notebook 08b builds: most words shared with the question first (ties by
    position), each text's words lower-cased, ``stopwords`` left out."""
    def words(text: str) -> set[str]:
        return set(re.findall(r"[a-z0-9']+", text.lower())) - stopwords

    def build(texts: list[str]) -> Search:
        bags = [words(t) for t in texts]

        def search(query: str, k: int) -> list[int]:
            q = words(query)
            return sorted(range(len(texts)), key=lambda i: (-len(q & bags[i]), i))[:k]
        return search
    return build


def recall_at_k(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """Share of the (distinct) ``evidence`` ids among the first ``k`` of ``ranked``.

    Built inline (``recall_at_k_inline``) in notebook 08b.
    """
    wanted = set(evidence)
    if not wanted:
        raise ValueError("evidence must name at least one turn, got none")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive int, got {k!r}")
    return len(wanted & set(ranked[:k])) / len(wanted)


# ------------------------------------------------------------------ the measurement
@dataclass
class RecallReport:
    """Evidence recall@k overall and per category, with what was skipped and why.
    """

    ks: tuple[int, ...]
    conversations: int = 0
    turns: int = 0
    questions: int = 0
    no_evidence: int = 0           # skipped: an empty (or missing) evidence list
    no_valid_evidence: int = 0     # skipped: every evidence id invalid
    malformed_ids: int = 0         # dropped: not D<session>:<turn>
    unknown_ids: int = 0           # dropped: well formed, but no such turn
    per_question: list = field(default_factory=list)   # (sample_id, question, category, {k: recall})

    @property
    def scored(self) -> int:
        return len(self.per_question)

    @property
    def skipped(self) -> int:
        return self.no_evidence + self.no_valid_evidence

    def recall(self, category=None) -> dict[int, float | None]:
        """Mean recall@k over the scored questions (of one ``category``); None when there are none."""
        rows = [r for _, _, c, r in self.per_question if category is None or c == category]
        return {k: sum(r[k] for r in rows) / len(rows) if rows else None for k in self.ks}

    @property
    def categories(self) -> list:
        return sorted({c for _, _, c, _ in self.per_question}, key=lambda c: (type(c).__name__, c))

    def counts(self) -> str:
        """Three lines: what was read and scored, why questions were skipped, which evidence ids were dropped."""
        return (f"{self.conversations} conversations, {self.turns} turns, {self.questions} questions: "
                f"{self.scored} scored, {self.skipped} skipped\n"
                f"  skipped: {self.no_evidence} without evidence, {self.no_valid_evidence} with no valid evidence id\n"
                f"  evidence ids dropped: {self.malformed_ids} malformed, {self.unknown_ids} naming no turn")

    def table(self) -> str:
        """recall@k per category and overall, as plain text (macro mean over questions)."""
        header = ["questions", "n"] + [f"recall@{k}" for k in self.ks]
        rows = [[category_label(c), sum(1 for q in self.per_question if q[2] == c)] + list(self.recall(c).values())
                for c in self.categories]
        rows.append(["all", self.scored] + list(self.recall().values()))
        return text_table(header, rows, digits=3)

    def __str__(self) -> str:
        return f"{self.counts()}\n{self.table()}"

    def as_dict(self) -> dict:
        """JSON-ready figures (keys as strings), unrounded."""
        return {"ks": list(self.ks), "overall": {str(k): v for k, v in self.recall().items()},
                "per_category": {str(c): {str(k): v for k, v in self.recall(c).items()} for c in self.categories},
                "n_per_category": {str(c): sum(1 for q in self.per_question if q[2] == c) for c in self.categories},
                **{name: getattr(self, name) for name in ("conversations", "turns", "questions", "scored",
                                                          "no_evidence", "no_valid_evidence", "malformed_ids",
                                                          "unknown_ids")}}


def require_ks(ks) -> tuple[int, ...]:
    ks = tuple(ks)
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise ValueError(f"ks must be positive ints, got {ks!r}")
    return tuple(sorted(set(ks)))


def evidence_recall(conversations: Sequence[LocomoConversation], ks=DEFAULT_KS,
                    retriever: Callable[[list[str]], Search] | None = None, *,
                    progress: bool | None = None) -> RecallReport:
    """Evidence recall@k of ``retriever`` (default: ``store_retriever()``) on LoCoMo conversations.

    ``retriever(texts)`` indexes one conversation's turns (``"speaker:
    text"``) and returns ``search(query, k) -> positions`` best first. The
    definition of recall@k is in this module's docstring. ``progress``: a
    tqdm bar over conversations; None shows it only on a terminal.

    Taught in notebooks/08b_evaluate_on_locomo.ipynb.
    """
    ks = require_ks(ks)
    retriever = store_retriever() if retriever is None else retriever
    report = RecallReport(ks)
    for conv in tqdm(conversations, desc="conversations", unit="conversation",
                     disable=None if progress is None else not progress):
        report.conversations += 1
        report.turns += len(conv.turns)
        ids = {t.dia_id for t in conv.turns}
        if not conv.questions:
            continue
        search = retriever([t.memory for t in conv.turns])
        for q in conv.questions:
            report.questions += 1
            valid: set[str] = set()
            for e in q.evidence:
                if e in ids:
                    valid.add(e)
                elif isinstance(e, str) and _DIA_ID.fullmatch(e):
                    report.unknown_ids += 1
                else:
                    report.malformed_ids += 1
            if not q.evidence:
                report.no_evidence += 1
                continue
            if not valid:
                report.no_valid_evidence += 1
                continue
            ranked = [conv.turns[i].dia_id for i in search(q.question, max(ks))]
            report.per_question.append((conv.sample_id, q.question, q.category,
                                        {k: recall_at_k(ranked, valid, k) for k in ks}))
    return report

