"""The classes the learner builds in notebooks 03 (summary memory) and 04 (entity memory), proven
both ways: the worked solution passes; the bare skeleton of the notebook says "not implemented
yet"; two plausible wrong versions each fail, with different one-line messages; a class that wraps
or inherits the library's strategy fails. The skeleton is taken from the stored notebook itself.
"""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, load_solutions
from teachmem import EntityMemory, SummaryMemory, load_scenario, rule_triples
from teachmem.lab.lesson_examples import FOLLOW_UP
from teachmem.lab.replay import feed
from teachmem.lab.unseen_conversations import entity_conversations, summary_conversations
from teachmem.lessons import entity as lesson04
from teachmem.lessons import summary as lesson03

s03 = load_solutions("03_summary_memory")
s04 = load_solutions("04_entity_memory")


def checked(checker, candidate, capsys) -> tuple[bool, str]:
    """Whether the check passed, and its message (as printed, before wrapping to the page)."""
    result = checker(candidate)
    out = capsys.readouterr().out
    assert ("✓" in out) == bool(result), out
    assert " ".join(out.split()) == " ".join(result.message.split())
    return bool(result), result.message


def skeleton(stem: str, cell_id: str, name: str) -> type:
    """The learner's class exactly as the stored notebook gives it (the check call left out)."""
    cells = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text())["cells"]
    source = "".join(next(c for c in cells if c["id"] == cell_id)["source"])
    code = "\n".join(line for line in source.splitlines() if not line.startswith("lesson.check_"))
    namespace: dict = {}
    exec("from teachmem import summarize, rule_triples\n" + code, namespace)   # noqa: S102
    return namespace[name]


# ------------------------------------------------------------------ 03: TinySummaryMemory
class FoldsEverything(s03.TinySummaryMemory):
    """Ignores keep_recent: the latest exchange is folded away too."""

    def _summarize(self):
        text = "\n".join(f"{m['role']}: {m['content']}" for m in self.buffer)
        self.summary = s03.summarize(self.llm, text, previous_summary=self.summary,
                                     max_words=self.max_words)
        self.buffer = []


class FoldsOneLate(s03.TinySummaryMemory):
    """Folds when more than summarize_every messages wait, one message late."""

    def add(self, role, content):
        self.buffer.append({"role": role, "content": content})
        if len(self.buffer) > self.summarize_every:
            self._summarize()


class StartsOverEachFold(s03.TinySummaryMemory):
    """Forgets to pass the previous summary: each fold starts a new summary."""

    def _summarize(self):
        cut = len(self.buffer) - self.keep_recent
        oldest, self.buffer = self.buffer[:cut], self.buffer[cut:]
        text = "\n".join(f"{m['role']}: {m['content']}" for m in oldest)
        self.summary = s03.summarize(self.llm, text, max_words=self.max_words)


class WrapsSummaryMemory:
    def __init__(self, llm, summarize_every=6, keep_recent=0, max_words=120):
        self.memory = SummaryMemory(summarize_every, keep_recent=keep_recent, max_words=max_words,
                                    llm=llm)

    def add(self, role, content):
        self.memory.add(role, content)

    def context(self, query=None):
        return self.memory.context()

    def pin(self, fact):
        self.memory.pin(fact)


class InheritsSummaryMemory(SummaryMemory):
    pass


def test_03_the_worked_class_passes(capsys):
    assert checked(lesson03.check_summary_class, s03.TinySummaryMemory, capsys)[0]


def test_03_the_notebook_skeleton_is_not_implemented_yet(capsys):
    bare = skeleton("03_summary_memory", "bd38b12e", "TinySummaryMemory")
    passed, out = checked(lesson03.check_summary_class, bare, capsys)
    assert not passed and out.startswith("○ summary memory: not implemented yet")


def test_03_wrong_versions_fail_each_with_its_own_one_line_message(capsys):
    messages = []
    for wrong in (FoldsEverything, FoldsOneLate, StartsOverEachFold):
        passed, out = checked(lesson03.check_summary_class, wrong, capsys)
        assert not passed and out.startswith("✗ summary memory: "), out
        assert "\n" not in out    # one line (the page wraps it)
        messages.append(out)
    assert len(set(messages)) == 3
    assert "stops after 1 messages" in messages[0]         # the kept messages are missing
    assert "0 model call(s) so far, SummaryMemory 1" in messages[1]
    assert "message 1 should be 'system: CONVERSATION SUMMARY" in messages[2]   # the summary


def test_03_two_summaries_that_part_past_the_cut_are_shown_from_where_they_part():
    said = "CONVERSATION SUMMARY: The user chose PostgreSQL, then React, and the deadline is"
    want = [{"role": "system", "content": f"{said} March."}]
    got = [{"role": "system", "content": f"{said} April."}]
    assert lesson03.first_context_difference("case", got, want) == (
        "case, message 1 (system) should read 'deadline is March.' at word 13, "
        "yours reads 'deadline is April.'")


@pytest.mark.parametrize("cls, said", [(WrapsSummaryMemory, "calls teachmem's SummaryMemory"),
                                       (InheritsSummaryMemory, "inherits teachmem's SummaryMemory")])
def test_03_a_class_that_wraps_or_inherits_the_library_fails(cls, said, capsys):
    passed, out = checked(lesson03.check_summary_class, cls, capsys)
    assert not passed and said in out


def test_03_the_checker_replays_unseen_conversations_that_fold_without_a_blank_summary():
    seen = {t.content for t in load_scenario("project_30").turns} | set(FOLLOW_UP)
    for (every, keep, words), _pins, messages in summary_conversations():
        assert not seen & {m["content"] for m in messages}
        memory = SummaryMemory(every, keep_recent=keep, max_words=words)
        changes = [c for m in messages for c in memory.add(m["role"], m["content"])]
        assert not [c for c in changes if c.event == "NOOP"]      # the learner need not handle it
        assert [c for c in changes if c.id == "summary"], "every case folds at least once"
    assert any(keep for (_, keep, _), _, _ in summary_conversations())
    assert any(pins for _, pins, _ in summary_conversations())


# ------------------------------------------------------------------ 04: TinyEntityMemory
class MinesEveryMessage(s04.TinyEntityMemory):
    """Stores the assistant's suggestions as decisions too."""

    def add(self, role, content, turn=None):
        self.turn = self.turn + 1 if turn is None else turn
        for entity, attribute, value, _confidence in rule_triples(content):
            self.store(entity, attribute, value)


class FirstValueWins(s04.TinyEntityMemory):
    """Never replaces a value: the oldest statement wins."""

    def store(self, entity, attribute, value):
        self.facts.setdefault((entity, attribute), value)


class LogsEveryRestatement(s04.TinyEntityMemory):
    """Logs a change when the same value is said again."""

    def store(self, entity, attribute, value):
        old = self.facts.get((entity, attribute))
        if old is not None:
            self.changelog.append({"turn": self.turn, "entity": entity, "attribute": attribute,
                                   "old": old, "new": value})
        self.facts[(entity, attribute)] = value


class WrapsEntityMemory:
    def __init__(self):
        self.memory = EntityMemory()

    def add(self, role, content, turn=None):
        self.memory.add(role, content, turn=turn)

    def context(self, query=None):
        return self.memory.context()

    @property
    def changelog(self):
        return self.memory.get_changelog()


class InheritsEntityMemory(EntityMemory):
    pass


def test_04_the_worked_class_passes(capsys):
    assert checked(lesson04.check_entity_class, s04.TinyEntityMemory, capsys)[0]


def test_04_the_notebook_skeleton_is_not_implemented_yet(capsys):
    bare = skeleton("04_entity_memory", "bb2670bc", "TinyEntityMemory")
    passed, out = checked(lesson04.check_entity_class, bare, capsys)
    assert not passed and out.startswith("○ entity memory: not implemented yet")


def test_04_wrong_versions_fail_each_with_its_own_one_line_message(capsys):
    messages = []
    for wrong in (MinesEveryMessage, FirstValueWins, LogsEveryRestatement):
        passed, out = checked(lesson04.check_entity_class, wrong, capsys)
        assert not passed and out.startswith("✗ entity memory: "), out
        assert "\n" not in out    # one line (the page wraps it)
        messages.append(out)
    assert len(set(messages)) == 3
    assert "(assistant: " in messages[0] and "too" in messages[0]
    assert "should say" in messages[1]
    assert "which changed nothing" in messages[2]


@pytest.mark.parametrize("cls, said", [(WrapsEntityMemory, "calls teachmem's EntityMemory"),
                                       (InheritsEntityMemory, "inherits teachmem's EntityMemory")])
def test_04_a_class_that_wraps_or_inherits_the_library_fails(cls, said, capsys):
    passed, out = checked(lesson04.check_entity_class, cls, capsys)
    assert not passed and said in out


def test_04_the_checker_replays_unseen_conversations_with_replacements_and_repeats():
    seen = {t.content for t in load_scenario("project_30").turns}
    events: set[str] = set()
    for messages in entity_conversations():
        assert not seen & {content for role, content in messages if role == "user"}
        memory = EntityMemory()
        changes = [c for turn, (role, content) in enumerate(messages, 1)
                   for c in memory.add(role, content, turn=turn)]
        events |= {c.event for c in changes}
    assert events == {"ADD", "UPDATE", "NOOP"}      # new facts, replaced values and repeats
    replies = [content for messages in entity_conversations() for role, content in messages
               if role == "assistant"]
    assert any(rule_triples(reply) for reply in replies)   # the assistant names technologies too


def test_04_the_validity_figure_fits_a_laptop_screen_and_labels_stay_off_other_bars():
    scenario = load_scenario("project_30")
    memory = feed(EntityMemory(), scenario)
    fig = lesson04.plot_validity(memory, len(scenario))
    assert fig.get_size_inches()[1] * 100 <= 600
    ax = fig.axes[0]
    to_data = ax.transData.inverted()
    bars = [(p.get_x(), p.get_x() + p.get_width(), round(p.get_y() + p.get_height() / 2))
            for p in ax.patches]
    for label in ax.texts:
        left, right = to_data.transform(label.get_window_extent())[:, 0]
        row = round(label.get_position()[1])
        inside = [b for b in bars if b[2] == row and b[0] <= (left + right) / 2 <= b[1]]
        assert not inside or right <= inside[0][1] + 0.01, label.get_text()   # within its bar
        others = [b for b in bars if b[2] == row and not b[0] <= (left + right) / 2 <= b[1]]
        assert all(right <= b[0] or left >= b[1] for b in others), label.get_text()
