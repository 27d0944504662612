"""Every exercise of notebook 11 is honest: the worked solution passes its checker, a plausible wrong
answer fails it, and an answer read off teachmem's own defaults or trace fails it too."""
import json
from pathlib import Path

import matplotlib

from conftest import load_solutions, run_cell, verdicts
from teachmem import MemoryAgent
from teachmem.lessons import agent as lesson

S11 = load_solutions("11_memory_as_tools")



def test_11_1_the_turn_of_the_first_eviction(capsys):
    warned_by_teachmem = next(t.turn for t in lesson.run() if t.warned)   # the warning, not the eviction
    (solution, sol_line), (wrong, wrong_line), (own, own_line), (stub, stub_line), (bad, bad_line) = verdicts(
        lesson.check_predicted_turn, [S11.predicted_turn, 30, warned_by_teachmem, ..., "25"], capsys)
    assert solution and sol_line.endswith("✓ predicted_turn: passed")
    assert not wrong and "first passes the budget on turn 25" in wrong_line
    assert not own and "is the warning (70 %)" in own_line
    assert not stub and "not answered yet" in stub_line
    assert not bad and "predicted_turn must be a turn number" in bad_line


# ---------------------------------------------------------- the stored notebook keeps 11.1's answer hidden
def _notebook_cells():
    path = Path(__file__).resolve().parents[2] / "notebooks" / "11_memory_as_tools.ipynb"
    cells = json.loads(path.read_text())["cells"]
    return cells, ["".join(c["source"]) for c in cells]


def test_the_stored_reveal_hides_its_answer_and_its_plot():
    """The plot of the whole run (the drop and the eviction line at turn 25) stood in the cell after
    the reveal, so a stored notebook showed the answer before the learner predicted."""
    cells, sources = _notebook_cells()
    question = next(i for i, s in enumerate(sources) if s.startswith("predicted_turn = ..."))
    reveal = next(i for i, s in enumerate(sources) if "lesson.after_prediction(predicted_turn)" in s)
    assert reveal == question + 1
    assert "with lesson.after_prediction(predicted_turn) as show:" in sources[reveal]
    assert "    show(lesson.plot_context_fill(" in sources[reveal]        # drawn inside the reveal
    shown = "".join("".join(o.get("text", "")) for o in cells[reveal]["outputs"])
    assert "first eviction" not in shown and "The output is hidden until" in shown
    assert sources[reveal + 1].startswith("<details><summary>Why? (open after you have run the cell)</summary>")
    for cell in cells[:reveal + 2]:                                        # up to the folded explanation
        assert not any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])), cell["source"][:2]
    assert sum("plot_context_fill" in s for s in sources) == 1             # and no second copy of the plot


def test_the_prose_counts_the_bank_as_printed():
    """The prose said "five conversations" above a table that prints "mean over 6 scenarios"."""
    cells, sources = _notebook_cells()
    at = next(i for i, s in enumerate(sources) if "lesson.compare_bank()" in s)
    printed = "".join(cells[at]["outputs"][0]["text"])
    count = int(printed.split("mean over ")[1].split()[0])
    words = {5: "five", 6: "six", 7: "seven"}
    assert f"{words[count]} scenarios" in sources[at - 1] and "five conversations" not in sources[at - 1]


def test_the_notebook_links_its_solutions_and_the_next_notebook():
    _, sources = _notebook_cells()
    assert "](solutions/11_memory_as_tools_solutions.py)" in "".join(sources)
    assert "**Next:** [12 · Reflection and experience](12_reflection_and_experience.ipynb)" in sources[-1]


# ---------------------------------------------------------- cells a learner runs twice
def _namespace_up_to(cells, last):
    """Every code cell before ``last`` run once, in order, as Run All would."""
    matplotlib.use("Agg")
    namespace: dict = {}
    for cell in cells[:last]:
        if cell["cell_type"] == "code":
            run_cell("".join(cell["source"]), namespace)
    return namespace


def test_the_jsonb_step_gives_the_same_answer_when_run_twice():
    """The JSONB cell stepped the agent of the cell before: run again, it found the first run's results
    already in the context and made no search, while still printing "JSONB in the context now: True"."""
    cells, sources = _notebook_cells()
    at = next(i for i, s in enumerate(sources) if "What did we say about JSONB?" in s)
    namespace = _namespace_up_to(cells, at)
    first = run_cell(sources[at], namespace)
    assert "conversation_search({'query': 'jsonb'})" in first
    assert run_cell(sources[at], namespace) == first


def test_the_first_demo_shows_both_facts_it_names():
    """"Hi! I'm Maya, and for the database I want PostgreSQL." appended only the name: the rules read one
    fact a sentence."""
    cells, sources = _notebook_cells()
    at = next(i for i, s in enumerate(sources) if "def run_step(" in s)
    printed = "".join("".join(o.get("text", "")) for o in cells[at]["outputs"])
    assert "'content': 'name: Maya'" in printed and "'content': 'database: PostgreSQL'" in printed
    assert "one fact a sentence" in sources[at] and "notebook 04's fact rules" in sources[at + 1]


def test_the_search_results_are_said_to_be_numbered_by_turn():
    _, sources = _notebook_cells()
    at = next(i for i, s in enumerate(sources) if "What did we say about JSONB?" in s)
    assert "the number in brackets is the turn" in sources[at - 1]


# ---------------------------------------------------------- 11.2 · the eviction cut, written by the learner
def _evicts_on_equal(sizes, room):                   # `>=`: evicts one more when the rest fit exactly
    cut = 0
    while cut < len(sizes) and sum(sizes[cut:]) >= room:
        cut += 1
    return cut


def _evicts_the_newest(sizes, room):                 # drops from the wrong end
    cut = 0
    while cut < len(sizes) and sum(sizes[:len(sizes) - cut]) > room:
        cut += 1
    return cut


def _counts_what_fits(sizes, room):                  # returns how many stay, not how many go
    return len(sizes) - S11.oldest_to_evict(sizes, room)


def _calls_teachmem(sizes, room):
    from teachmem.memory.agent import oldest_to_evict
    return oldest_to_evict(sizes, room)


def _runs_an_agent(sizes, room):
    MemoryAgent(context_tokens=2 * room + 1000)
    return 0


def test_11_2_oldest_to_evict(capsys):
    results = verdicts(lesson.check_oldest_to_evict,
                       [S11.oldest_to_evict, _evicts_on_equal, _evicts_the_newest, _counts_what_fits,
                        _calls_teachmem, _runs_an_agent], capsys)
    assert results[0] == (True, "✓ oldest_to_evict: passed")
    assert not results[1][0] and "room 50 expected 1, got 2" in results[1][1] and "exactly room fits" in results[1][1]
    assert not any(ok for ok, _ in results[2:])
    assert "the [20, 30] that stay add up to 50, over room 49: evict more" in results[2][1]   # too few go
    assert "already does this job" in results[4][1] and "already does this job" in results[5][1]


def test_11_2_the_stub_is_not_implemented_yet_and_the_agent_uses_the_same_cut(capsys):
    def oldest_to_evict(sizes, room):
        raise NotImplementedError

    assert not lesson.check_oldest_to_evict(oldest_to_evict)
    assert "not implemented yet" in capsys.readouterr().out
    first = next(t for t in lesson.run() if t.evicted)            # the agent still evicts on turn 25
    assert first.turn == 25 and first.tokens <= 500


def test_the_jsonb_search_prose_names_what_the_pages_print():
    """With neighbour words on by default the first page brought turns that never say JSONB and left
    turn 18 ("JSONB goes away") to the second: the prose says which, as the stored output prints."""
    cells, sources = _notebook_cells()
    at = next(i for i, s in enumerate(sources) if "What did we say about JSONB?" in s)
    printed = "".join("".join(o.get("text", "")) for o in cells[at]["outputs"])
    first, second = printed.split("archival_memory_search")[0], printed.split("Results 6-")[1]
    results = {}
    for item in first.split("\n- [")[1:]:
        turn, text = item.split("] ", 1)
        results[int(turn)] = "JSONB" in text
    assert {3, 4} <= {turn for turn, says in results.items() if says}
    silent = sorted(turn for turn, says in results.items() if not says)
    prose = sources[at + 1]
    words = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
    assert f"{words[len(silent)]} of its {words[len(results)]} results never say JSONB" in prose
    assert f"turns {', '.join(map(str, silent[:-1]))} and {silent[-1]}" in prose
    assert "- [18]" in second and "JSONB goes away" in second and 18 not in results
    assert "Turn 18 does say" in prose and "second page (`page=1`, printed last)" in prose
