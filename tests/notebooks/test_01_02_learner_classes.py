"""The classes the learner writes in notebooks 01 (a buffer) and 02 (a window with pins), and the
library files those notebooks send them to read.

For each checker: the worked solution passes; the skeleton as the notebook stores it says "not
implemented yet"; two plausible wrong versions fail, each with its own one-line message; a class
that wraps or inherits the library strategy fails. The conversations it checks on are its own,
not the notebook's. ``memory/buffer.py``, ``window.py`` and ``token_window.py`` open with what the
notebook builds, in its order, and put what later notebooks add under a "Going further" marker.
"""
from __future__ import annotations

import json

import pytest

from conftest import ROOT, load_solutions, run_cell, unwrapped
from teachmem import ConversationBuffer, SlidingWindowMemory, load_scenario
from teachmem.lab import unseen_conversations as unseen
from teachmem.lessons import buffer, window
from teachmem.llm import importance_rules

S01 = load_solutions("01_conversation_buffer")
S02 = load_solutions("02_sliding_window")
NOTEBOOKS = ROOT / "notebooks"


def _cells(stem: str) -> list[dict]:
    return json.loads((NOTEBOOKS / f"{stem}.ipynb").read_text())["cells"]


def _skeleton(stem: str, class_name: str, check: str) -> type:
    """The learner's class exactly as the stored notebook gives it, run without its check line."""
    source = next("".join(c["source"]) for c in _cells(stem)
                  if c["cell_type"] == "code" and f"class {class_name}" in "".join(c["source"]))
    namespace: dict = {}
    run_cell(source.replace(f"lesson.{check}({class_name})", ""), namespace)
    return namespace[class_name]


def _verdict(check, candidate, capsys) -> tuple[bool, str]:
    result = check(candidate)
    return bool(result), unwrapped(capsys.readouterr().out).strip()


# ---------------------------------------------------------------- 01: the buffer
class RoundsTheTotal(S01.TinyBuffer):
    """Rounds once, over all the words, instead of once a message."""

    def token_count(self):
        return int(sum(len(m["content"].split()) for m in self.messages) * 1.3)


class HandsOutItsList(S01.TinyBuffer):
    """Returns its own list: a caller who appends to it changes the buffer."""

    def context(self, query=None):
        return self.messages


class KeepsOnlyTheUser(S01.TinyBuffer):
    """Forgets the assistant's replies."""

    def add(self, role, content, **kwargs):
        if role != "assistant":
            super().add(role, content)


class WrapsTheBuffer:
    def __init__(self):
        self.inner = ConversationBuffer()

    def add(self, role, content, **kwargs):
        self.inner.add(role, content)

    def context(self, query=None):
        return self.inner.context()

    def token_count(self):
        return self.inner.token_count()


def test_01_the_worked_solution_passes(capsys):
    assert _verdict(buffer.check_buffer_class, S01.buffer_class, capsys) == (True, "✓ your buffer: passed")


def test_01_the_skeleton_is_not_implemented_yet(capsys):
    passed, out = _verdict(buffer.check_buffer_class, _skeleton("01_conversation_buffer", "TinyBuffer",
                                                                "check_buffer_class"), capsys)
    assert not passed and out.startswith("○ your buffer: not implemented yet")


@pytest.mark.parametrize("wrong, says", [
    (RoundsTheTotal, "token_count() should be 34, yours is 35: int(words × 1.3) for each message"),
    (HandsOutItsList, "context() hands out your own list"),
    (KeepsOnlyTheUser, "your context() stops after 2 messages; it should also send 'assistant:"),
])
def test_01_plausible_wrong_buffers_fail_with_their_own_line(wrong, says, capsys):
    passed, out = _verdict(buffer.check_buffer_class, wrong, capsys)
    assert not passed and out.startswith("✗ your buffer: unseen conversation 1, after message")
    assert says in out and out.count("✗") == 1


@pytest.mark.parametrize("library_in_disguise, says", [
    (WrapsTheBuffer, "calls teachmem's ConversationBuffer"),
    (type("MyBuffer", (ConversationBuffer,), {}), "inherits teachmem's ConversationBuffer"),
    (S01.TinyBuffer(), "expected a class"),
])
def test_01_the_library_in_disguise_fails(library_in_disguise, says, capsys):
    passed, out = _verdict(buffer.check_buffer_class, library_in_disguise, capsys)
    assert not passed and says in out
    assert ConversationBuffer().add("user", "still works")        # the checker put it back


# ---------------------------------------------------------------- 02: the window with pins
class ForgetsTheHalfWeight(S02.MyWindow):
    """Scores a reply like a user's message, so restated decisions take the pins."""

    def add(self, role, content, **kwargs):
        self.importance.append(importance_rules(content))
        self.all_messages.append({"role": role, "content": content})


class PinsByScore(S02.MyWindow):
    """The right pins, sent best first instead of in conversation order."""

    def window_indices(self):
        n = len(self.all_messages)
        if n <= self.recent_k + self.important_k:
            return list(range(n))
        best = sorted(range(n - self.recent_k), key=lambda i: -self.importance[i])[:self.important_k]
        return best + list(range(n - self.recent_k, n))


class TiesToTheNewer(S02.MyWindow):
    """Among equal scores, pins the newer message."""

    def window_indices(self):
        n = len(self.all_messages)
        if n <= self.recent_k + self.important_k:
            return list(range(n))
        older = list(range(n - self.recent_k))
        ranked = sorted(older, key=lambda i: self.importance[i])          # best last, newer last
        pinned = ranked[len(ranked) - self.important_k:] if self.important_k else []
        return sorted(pinned) + list(range(n - self.recent_k, n))


class NoPins(S02.MyWindow):
    """Only ``last_k``: the recent messages, no pins."""

    def window_indices(self):
        n = len(self.all_messages)
        return list(range(max(0, n - self.recent_k), n))


class WrapsTheWindow:
    def __init__(self, recent_k, important_k):
        self.inner = SlidingWindowMemory(recent_k, important_k)

    def add(self, role, content, **kwargs):
        self.inner.add(role, content)

    def context(self, query=None):
        return self.inner.context()


def test_02_the_worked_solution_passes(capsys):
    assert _verdict(window.check_window_class, S02.window_class, capsys) == (True, "✓ your window: passed")


def test_02_the_skeleton_is_not_implemented_yet(capsys):
    passed, out = _verdict(window.check_window_class, _skeleton("02_sliding_window", "MyWindow",
                                                                "check_window_class"), capsys)
    assert not passed and out.startswith("○ your window: not implemented yet")


@pytest.mark.parametrize("wrong, says", [
    (ForgetsTheHalfWeight, "(recent_k=4, important_k=3), after message 8, message 2 should be 'user: Do they take"),
    (PinsByScore, "you send the right messages in the wrong order: the pins first, as they were said"),
    (TiesToTheNewer, "(recent_k=1, important_k=4), after message 6, message 2 should be 'assistant: Happy"),
    (NoPins, "(recent_k=3, important_k=2), after message 4, message 1 should be 'user: My partner Tomas"),
])
def test_02_plausible_wrong_windows_fail_with_their_own_line(wrong, says, capsys):
    passed, out = _verdict(window.check_window_class, wrong, capsys)
    assert not passed and out.startswith("✗ your window: unseen conversation")
    assert says in out and out.count("✗") == 1


@pytest.mark.parametrize("library_in_disguise, says", [
    (WrapsTheWindow, "calls teachmem's SlidingWindowMemory"),
    (type("MyWindow", (SlidingWindowMemory,), {}), "inherits teachmem's SlidingWindowMemory"),
])
def test_02_the_library_in_disguise_fails(library_in_disguise, says, capsys):
    passed, out = _verdict(window.check_window_class, library_in_disguise, capsys)
    assert not passed and says in out
    assert SlidingWindowMemory(2, 1).add("user", "still works")     # the checker put it back


def test_the_checks_use_conversations_the_notebooks_never_show():
    said = {t.content for t in load_scenario("project_30").turns}
    for seed in (1, 2, 3):
        assert not said & {content for _, content in unseen.buffer_conversation(seed)}
    for seed in range(1, len(unseen.WINDOW_SIZES) + 1):
        assert not said & {content for _, content in unseen.window_conversation(seed)}
    shown = json.dumps(_cells("01_conversation_buffer")) + json.dumps(_cells("02_sliding_window"))
    assert "Alfama" not in shown and "ladder" not in shown


@pytest.mark.parametrize("stem, check, library_code", [
    ("01_conversation_buffer", "check_buffer_class(TinyBuffer)", "def token_count(self) -> int:"),
    ("02_sliding_window", "check_window_class(MyWindow)", "def window_indices(self) -> list[int]:"),
])
def test_the_stored_notebook_holds_the_skeleton_then_the_library_code(stem, check, library_code):
    cells = [c for c in _cells(stem) if c["cell_type"] == "code"]
    at = next(i for i, c in enumerate(cells) if check in "".join(c["source"]))
    checked = "".join(cells[at]["outputs"][0]["text"])
    assert checked.startswith("○ your") and "not implemented yet" in checked
    assert "# YOUR CODE:" in "".join(cells[at]["source"])
    shown = "".join(cells[at + 1]["outputs"][0]["text"])
    assert "lesson.show_source(" in "".join(cells[at + 1]["source"]) and library_code in shown


# ---------------------------------------------------------------- the library reads like the lesson
# file -> the names the notebook builds or teaches, in its order, all before the "Going further" marker
OPENINGS = {
    "buffer.py": ["def add(", "def context(", "def token_count(", "def is_near_limit("],
    "window.py": ["def add(", "def window_indices(", "def context("],
    "token_window.py": ["def capacity(", "def add(", "def _trim(", "def context("],
}
LATER = ["def erase(", "def delete(", "def provenance(", "def to_state(", "def from_state("]


@pytest.mark.parametrize("name", OPENINGS)
def test_the_memory_file_opens_with_its_notebooks_core(name):
    text = (ROOT / "teachmem" / "memory" / name).read_text()
    marker = text.index("    # ---- Going further (09: ")
    places = [text.index(core) for core in OPENINGS[name]]
    assert places == sorted(places) and places[-1] < marker
    assert all(text.index(later) > marker for later in LATER)
    assert "Taught in notebooks/0" in text
    assert not [line for line in text.splitlines() if len(line) > 100]
