"""Notebook 06's own class is honest: the learner's hybrid manager (MyHybrid) is checked against
HybridMemoryManager on conversations the notebook never shows. The worked solution passes, the bare
skeleton is "not implemented yet", plausible wrong packings fail with different one-line messages,
and a class that wraps, inherits or borrows from HybridMemoryManager fails. Its parts (window,
entity and semantic memories) are the learner's to use."""
import json

from conftest import ROOT, load_solutions, verdicts
from teachmem import HybridMemoryManager, estimate_tokens
from teachmem.core.text import fenced
from teachmem.lessons import hybrid

S06 = load_solutions("06_hybrid_manager")
NOTEBOOK = ROOT / "notebooks" / "06_hybrid_manager.ipynb"


def _skeleton_cell() -> str:
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    return next("".join(c["source"]) for c in cells if "class MyHybrid" in "".join(c["source"]))


def _variant(**methods) -> type:
    """The worked solution with some methods replaced: a plausible wrong version."""
    return type("MyHybrid", (S06.MyHybrid,), methods)


def _stop_at_the_first_misfit(self, system, header, lines, cap, source):
    """A block that stops at the first line over its cap, as the window does."""
    def with_block(chosen):
        return f"{system}\n\n{fenced(header, chosen)}" if chosen else system

    base = estimate_tokens(system)
    chosen = []
    for line in lines:
        fits = estimate_tokens(with_block(chosen + [line])) - base <= cap
        self.trace.append((source, line, fits, "fits" if fits else "over the cap"))
        if not fits:
            break
        chosen.append(line)
    return with_block(chosen)


def _skip_what_does_not_fit(self, left):
    """A window that skips a message that does not fit and tries older ones (exercise 6.1)."""
    kept = []
    for message in reversed(self.window.get_window()):
        cost = estimate_tokens(message["content"])
        fits = cost <= left
        self.trace.append(("message", message["content"], fits, "fits" if fits else "skipped"))
        if fits:
            kept.append(message)
            left -= cost
    return kept[::-1]


def _memories_first(self, query=None):
    """The memories' block before the facts'."""
    self.trace = []
    room = self.limit - estimate_tokens(self.system_prompt)
    memories = self._ranked_memories(query)
    facts = self._ranked_facts(query)
    system = self._add_fenced(self.system_prompt, "Relevant memories", memories,
                              int(room * self.memory_share), "memory")
    system = self._add_fenced(system, "Known facts", facts, int(room * self.fact_share), "fact")
    return [{"role": "system", "content": system}] + self._add_window(self.limit - estimate_tokens(system))


def _trace_without_the_dropped(self, left):
    """Packs right, but the trace leaves out the window's messages that did not fit."""
    kept = S06.MyHybrid._add_window(self, left)
    self.trace = [entry for entry in self.trace if entry[0] != "message" or entry[2]]
    return kept


class _Wraps:
    def __init__(self, token_budget=3500):
        self.manager = HybridMemoryManager(token_budget)
        self.trace = []

    def add(self, role, content, turn=None, timestamp=None):
        self.manager.add(role, content, turn=turn, timestamp=timestamp)

    def context(self, query=None):
        return self.manager.context(query)


def _borrowed_window(self, left):
    """Calls the library's own packing step, unbound, on the learner's object."""
    return HybridMemoryManager._add_window(self, left, None)


def test_the_checker_passes_the_worked_solution_and_says_what_the_skeleton_lacks(capsys):
    [(passed, line)] = verdicts(hybrid.check_hybrid_class, [S06.MyHybrid], capsys)
    assert passed and line == "✓ hybrid manager: passed"
    scope: dict = {}
    exec(_skeleton_cell(), scope)
    [(passed, line)] = verdicts(hybrid.check_hybrid_class, [scope["MyHybrid"]], capsys)
    assert not passed and line.startswith("○ hybrid manager: not implemented yet")


def test_wrong_packings_fail_with_different_one_line_messages(capsys):
    results = verdicts(hybrid.check_hybrid_class,
                       [_variant(_add_fenced=_stop_at_the_first_misfit),
                        _variant(_add_window=_skip_what_does_not_fit),
                        _variant(context=_memories_first),
                        _variant(_add_window=_trace_without_the_dropped)], capsys)
    assert not any(passed for passed, _ in results)
    stop, skip, order, trace = (line for _, line in results)
    assert "trace entry 3 should be ✗ fact" in stop
    assert "message 2 should be 'user: Payments go through PayPal.'" in skip
    assert "the system message's line 3 should be 'Known facts" in order
    assert "your trace has 16 entries; the packing considered 19" in trace
    assert len({stop, skip, order, trace}) == 4
    for line in (stop, skip, order, trace):
        assert "\n" not in line and line.startswith("✗ hybrid manager: conversation "), line


def test_a_class_that_wraps_inherits_or_borrows_the_library_manager_fails(capsys):
    results = verdicts(hybrid.check_hybrid_class,
                       [_Wraps, type("Mine", (HybridMemoryManager,), {}),
                        _variant(_add_window=_borrowed_window), S06.MyHybrid()], capsys)
    assert not any(passed for passed, _ in results)
    wraps, inherits, borrows, instance = (line for _, line in results)
    assert "calls teachmem's HybridMemoryManager, which already does this job" in wraps
    assert "inherits teachmem's HybridMemoryManager" in inherits
    assert "calls teachmem's HybridMemoryManager._add_window" in borrows
    assert "expected a class" in instance


def test_the_library_stays_usable_after_a_refused_class(capsys):
    hybrid.check_hybrid_class(_Wraps)
    capsys.readouterr()
    manager = HybridMemoryManager()
    manager.add("user", "We use PostgreSQL for the database.", turn=1)
    assert "PostgreSQL" in manager.context("Which database?")[0]["content"]


def test_the_stored_notebook_holds_the_skeleton_and_its_not_implemented_line():
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    skeleton = _skeleton_cell()
    assert skeleton.count("raise NotImplementedError  # YOUR CODE") == 3
    checked = next(c for c in cells if "lesson.check_hybrid_class(MyHybrid)" in "".join(c["source"]))
    out = "".join("".join(o.get("text", "")) for o in checked["outputs"])
    assert out.startswith("○ hybrid manager: not implemented yet")
