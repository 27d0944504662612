"""Every exercise of notebook 12: the worked solution passes its checker, a plausible wrong answer fails it,
and an answer that just calls teachmem's own implementation fails it too."""
import json
from pathlib import Path

from conftest import fails, load_solutions, passes
from teachmem import EpisodicMemory, ReflectiveMemory
from teachmem.lessons import reflection as lesson

s12 = load_solutions("12_reflection_and_experience")




# ------------------------------------------------------------------ 12.1 · predict the cost of reflecting
def test_12_1_prediction(capsys):
    passes(lesson.check_calls_prediction(s12.calls_prediction), capsys)
    fails(lesson.check_calls_prediction(12), capsys)        # forgets the reflections' own calls
    fails(lesson.check_calls_prediction(13), capsys)        # forgets the reflection that wrote nothing
    fails(lesson.check_calls_prediction(7), capsys)         # scores only the user's messages
    # "calling teachmem" instead of predicting
    assert "by hand" in fails(lesson.check_calls_prediction(
        lambda: lesson.told_ana(ReflectiveMemory(threshold=1.0)).llm.usage.calls), capsys)
    assert not lesson.check_calls_prediction(...)
    assert "not answered yet" in capsys.readouterr().out


# ------------------------------------------------------------------ 12.2 · the worked examples to show
def _ignores_failure(episodes, task, similarity, min_similarity, k):
    return s12.recall_examples([dict(e, success=True) for e in episodes], task, similarity,
                               min_similarity, k)


def _strict_minimum(episodes, task, similarity, min_similarity, k):
    found = s12.recall_examples(episodes, task, similarity, min_similarity, k)
    tasks = {e["id"]: e["task"] for e in episodes}
    return [id for id in found if similarity(task, tasks[id]) > min_similarity]


def _older_wins_a_tie(episodes, task, similarity, min_similarity, k):
    rated = [(similarity(task, e["task"]), e["id"]) for e in episodes if e["success"]]
    rated = sorted((r for r in rated if r[0] >= min_similarity), key=lambda r: -r[0])   # stable
    return [id for _, id in rated[:k]]


def _ignores_k(episodes, task, similarity, min_similarity, k):
    return s12.recall_examples(episodes, task, similarity, min_similarity, len(episodes))


def _only_the_best(episodes, task, similarity, min_similarity, k):
    return s12.recall_examples(episodes, task, similarity, min_similarity, k)[:1]


def _by_teachmem(episodes, task, similarity, min_similarity, k):
    memory = EpisodicMemory(min_similarity=min_similarity)
    for e in episodes:
        memory.record(e["task"], ["step"], "done", success=e["success"])
    found = memory.recall(task)
    return [] if found is None else [episodes[int(found.id[1:]) - 1]["id"]][:k]


def test_12_2_recall_examples(capsys):
    passes(lesson.check_recall_examples(s12.recall_examples), capsys)
    assert "e2" in fails(lesson.check_recall_examples(_ignores_failure), capsys)
    fails(lesson.check_recall_examples(_strict_minimum), capsys)
    assert "['e3', 'e4']" in fails(lesson.check_recall_examples(_older_wins_a_tie), capsys)
    fails(lesson.check_recall_examples(_ignores_k), capsys)
    fails(lesson.check_recall_examples(_only_the_best), capsys)
    assert "already does this job" in fails(lesson.check_recall_examples(_by_teachmem), capsys)


def test_12_2_the_stub_is_not_implemented_yet(capsys):
    def recall_examples(episodes, task, similarity, min_similarity, k):
        raise NotImplementedError

    assert not lesson.check_recall_examples(recall_examples)
    assert "not implemented yet" in capsys.readouterr().out


# ------------------------------------------------------------------ 12.3 · a threshold worth its cost
def test_12_3_threshold(capsys):
    passes(lesson.check_threshold(s12.threshold), capsys)
    assert "raise it" in fails(lesson.check_threshold(2.0), capsys)       # reflects six times
    assert "lower it" in fails(lesson.check_threshold(8), capsys)          # the stack is joined too late
    fails(lesson.check_threshold(ReflectiveMemory(threshold=4.5)), capsys)   # a memory is not a threshold
    fails(lesson.check_threshold(-1), capsys)
    assert not lesson.check_threshold(...)
    assert "not answered yet" in capsys.readouterr().out


# ------------------------------------------------------------------ the widget: every slider position
def test_the_threshold_view_answers_every_slider_position():
    seen = []
    for step in range(15):                                   # FloatSlider(min=1.0, max=8.0, step=0.5)
        threshold = 1.0 + step / 2
        view = lesson.threshold_view(threshold)
        assert view.startswith(f"threshold {threshold:g}: reflected after turns")
        seen.append(int(view.split("model calls: ")[1].split()[0]))
    assert seen == sorted(seen, reverse=True)                # a higher threshold never costs more calls


# ------------------------------------------------------------------ the stored notebook keeps 12.1's answer hidden
def test_the_stored_notebook_hides_the_answer_until_the_prediction_and_fits_a_projector():
    cells = json.loads((Path(__file__).resolve().parent.parent / "notebooks"
                        / "12_reflection_and_experience.ipynb").read_text())["cells"]
    sources = ["".join(c["source"]) for c in cells]
    question = next(i for i, s in enumerate(sources) if s.startswith("calls_prediction = ..."))
    reveal = next(i for i, s in enumerate(sources) if "lesson.after_prediction(calls_prediction)" in s)
    shown = "".join("".join(o.get("text", "")) for o in cells[reveal]["outputs"])
    assert reveal == question + 1 and "model calls in all" not in shown
    assert "The output is hidden until you write your prediction above" in shown and "○" in shown
    assert sources[reveal + 1].startswith("<details><summary>Why? (open after you have run the cell)</summary>\n\n")
    assert sources[reveal + 1].rstrip().endswith("</details>")
    assert not any("14" in s for s in sources[:reveal + 1])        # the answer, stated too early
    for cell, text in zip(cells, sources, strict=True):
        if cell["cell_type"] == "code":
            assert all(len(line) <= 100 for line in text.splitlines()), text[:60]


# ------------------------------------------------------------------ what a learner found in the stored notebook
def _sources():
    cells = json.loads((Path(__file__).resolve().parent.parent / "notebooks"
                        / "12_reflection_and_experience.ipynb").read_text())["cells"]
    return ["".join(c["source"]) for c in cells]


def test_the_static_threshold_view_shows_a_threshold_that_fails_12_3(capsys):
    """The static view at 4.0 printed a threshold that passes 12.3, three lines above the exercise."""
    sources = _sources()
    static = next(s for s in sources if s.startswith("print(lesson.threshold_view("))
    value = float(static.split("threshold_view(")[1].split(")")[0])
    fails(lesson.check_threshold(value), capsys)
    slider = next(s for s in sources if "FloatSlider(value=" in s)
    assert f"FloatSlider(value={value}," in slider                  # the widget starts there too


def test_the_why_explains_both_empty_reflections():
    memory = lesson.told_ana(ReflectiveMemory(threshold=1.0))
    assert [len(r["insights"]) for r in memory.reflections] == [0, 0]
    why = next(s for s in _sources() if s.startswith("<details><summary>Why?"))
    assert "The second" in why and "at least two" in why


def test_every_reflective_memory_but_the_exercises_uses_the_threshold_of_section_1():
    """The scoreboard used 2.5 unexplained while section 1 uses 2.0."""
    text = "\n".join(_sources())
    assert "threshold=2.5" not in text and 'lambda: ReflectiveMemory(threshold=2.0)' in text


def test_forgetting_in_section_5_leaves_the_memory_of_section_1_alone():
    """forget(memory, ...) changed `memory`, so re-running section 1.3 afterwards printed "Lisbon False"."""
    section_5 = next(s for s in _sources() if "forget(" in s and "MemoryDB" in s)
    assert "forget(memory" not in section_5 and 'db.load(user_id="ana", name="reflective")' in section_5
