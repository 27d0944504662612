"""Every exercise of notebook 13: the worked solution passes its checker and a plausible wrong answer
fails it; the stored notebook hides 13.2's answer until the prediction, and its prose states only
figures it prints."""
import json
import re
from pathlib import Path

import pytest
from conftest import fails, load_solutions, passes
from teachmem.lab.evaluation.prompt_cache import bill, requests, system_prompt
from teachmem.lab.replay import lesson_strategies
from teachmem.lessons import costs as lesson

s13 = load_solutions("13_what_memory_costs")
NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "13_what_memory_costs.ipynb"


def _cells():
    return json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]


def _sources():
    return ["".join(c["source"]) for c in _cells()]


def _printed(cell):
    return "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))


# ------------------------------------------------------------------ 13.1 · cache hits by hand
def test_13_1_the_hand_sequence_is_the_one_the_notebook_states():
    assert lesson.hand_hits("buffer") == [0, 1168 + 130, 1168 + 390, 1168 + 650]
    assert lesson.hand_hits("window") == [0, 1168 + 130, 1168, 1168]
    window = lesson.hand_requests("window")
    assert [len(p) for p in window] == [2, 4, 4, 4] and window[2][1]["content"].startswith("user2 ")
    with pytest.raises(ValueError, match="strategy"):
        lesson.hand_requests("summary")


def test_13_1_cache_hits(capsys):
    passes(lesson.check_cache_hits(s13.cache_hits), capsys)
    buffer = s13.cache_hits["buffer"]
    # the window's messages sent before are thought to be read though they moved
    assert "request 3" in fails(lesson.check_cache_hits({"buffer": buffer, "window": [0, 1298, 1428, 1428]}),
                                capsys)
    # the first request thought to read the system prompt, found in no earlier prompt
    fails(lesson.check_cache_hits({"buffer": [1168, *buffer[1:]], "window": s13.cache_hits["window"]}), capsys)
    # the buffer's hit thought to be the previous prompt less its last message
    fails(lesson.check_cache_hits({"buffer": [0, 1168, 1428, 1688], "window": s13.cache_hits["window"]}), capsys)
    assert "whole numbers" in fails(lesson.check_cache_hits({"buffer": buffer, "window": [0, 1298]}), capsys)
    assert "keys" in fails(lesson.check_cache_hits([buffer, buffer]), capsys)
    assert not lesson.check_cache_hits(...)
    assert "not answered yet" in capsys.readouterr().out


# ------------------------------------------------------------------ 13.2 · the cheapest with caching
def test_13_2_cheapest(capsys):
    passes(lesson.check_cheapest(s13.cheapest), capsys)
    fails(lesson.check_cheapest("window"), capsys)         # the cheapest without caching
    fails(lesson.check_cheapest("summary"), capsys)
    assert "one of" in fails(lesson.check_cheapest("entity"), capsys)
    assert "written by hand" in fails(lesson.check_cheapest(lambda: "buffer"), capsys)
    assert not lesson.check_cheapest(...)
    assert "not answered yet" in capsys.readouterr().out


def test_the_cost_view_refuses_a_turn_it_does_not_have():
    costs = lesson.lesson_costs()
    assert lesson.cost_view(costs, 30).splitlines()[1].split()[0] == "buffer"
    for turn in (0, 31, "3", True, 2.0):
        with pytest.raises(ValueError, match="turn must be an int from 1 to 30"):
            lesson.cost_view(costs, turn)


def test_13_2_without_caching_the_window_is_cheaper_as_the_question_says():
    costs = lesson.lesson_costs()
    assert costs["window"][0][-1] < costs["buffer"][0][-1]
    assert costs["buffer"][1][-1] < min(costs["window"][1][-1], costs["summary"][1][-1])


# ------------------------------------------------------------------ 13.3 · a cache-friendly hybrid
def _memories_last_only(context):
    head, *blocks = context[0]["content"].split("\n\n")
    stable = [b for b in blocks if not b.startswith("Relevant memories")]
    memories = [b for b in blocks if b.startswith("Relevant memories")]
    return [{"role": "system", "content": "\n\n".join([head, *stable])}, *context[1:],
            *({"role": "system", "content": b} for b in memories)]


def _drops_the_blocks(context):
    head = context[0]["content"].split("\n\n")[0]
    return [{"role": "system", "content": head}, *context[1:]]


def _not_messages(context):
    return "\n".join(m["content"] for m in context)


def _conversation_sorted_too(context):
    mine = s13.stable_first(context)
    talk = sorted((m for m in mine if m["role"] != "system"), key=lambda m: m["content"])
    return [mine[0], *talk, *mine[len(talk) + 1:]]


def test_13_3_stable_first(capsys):
    passes(lesson.check_stable_first(s13.stable_first), capsys)
    assert "70%" in fails(lesson.check_stable_first(lambda context: context), capsys)
    # memories moved last, but the facts still in the query's order: not enough
    assert "change between two turns" in fails(lesson.check_stable_first(_memories_last_only), capsys)
    assert "reorder, don't drop" in fails(lesson.check_stable_first(_drops_the_blocks), capsys)
    assert "list of messages" in fails(lesson.check_stable_first(_not_messages), capsys)
    assert "in their order" in fails(lesson.check_stable_first(_conversation_sorted_too), capsys)


def test_13_3_the_stub_is_not_implemented_yet(capsys):
    def stable_first(context):
        raise NotImplementedError

    assert not lesson.check_stable_first(stable_first)
    assert "not implemented yet" in capsys.readouterr().out


def test_13_3_the_solution_raises_the_rate_and_keeps_the_turn_29_answer():
    before, cents_before = lesson.hit_rate(lesson.HybridMemoryManager)
    after, cents_after = lesson.hit_rate(lambda: lesson.ReorderedHybrid(s13.stable_first))
    assert before < lesson.RATE_NEEDED <= after and cents_after < cents_before


# ------------------------------------------------------------------ the stored notebook
def test_the_stored_notebook_hides_13_2_until_the_prediction():
    cells, sources = _cells(), _sources()
    question = next(i for i, s in enumerate(sources) if s.startswith("cheapest = ..."))
    reveal = next(i for i, s in enumerate(sources) if "lesson.after_prediction(cheapest)" in s)
    shown = _printed(cells[reveal])
    assert reveal == question + 1 and "US cents spent" not in shown
    assert "The output is hidden until you write your prediction above" in shown and "○" in shown
    assert sources[reveal + 1].startswith("<details><summary>Why? (open after you have run the cell)</summary>")
    assert not any("2.27" in s for s in sources[:reveal + 1])


def test_the_inline_build_agrees_with_the_library_and_the_prose_cites_printed_figures():
    cells, sources = _cells(), _sources()
    table = next(i for i, s in enumerate(sources) if s.startswith("print(lesson.cost_view(costs, 30))"))
    printed, prose = _printed(cells[table]), sources[table + 1]
    figures = re.findall(r"\d+\.\d+", prose)
    assert len(figures) >= 4 and all(f in printed for f in figures), figures
    build = next(i for i, s in enumerate(sources) if "assert reads(prompts) == by_library" in s)
    assert "1,168" in sources[build + 1] and "1168" in _printed(cells[2])


def test_the_notebook_keeps_the_real_minimum_and_fits_a_projector():
    text = "\n".join(_sources())
    assert "min_cached=0" not in text and "min_cached=1024" in text
    for cell, source in zip(_cells(), _sources(), strict=True):
        if cell["cell_type"] == "code":
            assert all(len(line) <= 100 for line in source.splitlines()), source[:60]
    twelve = json.loads((NOTEBOOK.parent / "12_reflection_and_experience.ipynb").read_text(encoding="utf-8"))
    assert "**Next:** [13 · What memory costs](13_what_memory_costs.ipynb)" in "".join(twelve["cells"][-1]["source"])


# ------------------------------------------------------------------ what Try it asks, the bill shows
def test_try_it_the_window_passes_the_buffer_on_turn_9_and_the_summary_alone_grows_on_turn_6():
    spent = {name: on for name, (_, on) in lesson.lesson_costs().items()}
    passes_on = next(t for t in range(1, 31) if spent["window"][t - 1] > spent["buffer"][t - 1])
    assert passes_on == 9 and 8 <= passes_on <= 11
    grew = [name for name, on in spent.items() if on[5] > on[4]]     # turn 5 -> turn 6
    assert grew == ["summary"]


def test_cache_costs_adds_up_every_call_bill_prices():
    costs = lesson.lesson_costs()
    for name, make in lesson_strategies().items():
        sent = requests(lesson.SCENARIO, make, system_prompt())
        for caching, spent in ((False, costs[name][0]), (True, costs[name][1])):
            assert spent[-1] == pytest.approx(100 * sum(b.cost for b in bill(sent, lesson.PRICE, caching=caching)))
