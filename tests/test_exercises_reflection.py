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


# ------------------------------------------------------------------ 12.2 · the worked example to show
def _ignores_failure(episodes, task, similarity, min_similarity):
    scored = [(similarity(task, e["task"]), e["id"]) for e in episodes]
    best = max(scored, default=None, key=lambda pair: pair[0])
    return best[1] if best and best[0] >= min_similarity else None


def _strict_minimum(episodes, task, similarity, min_similarity):
    answer = s12.recall_example(episodes, task, similarity, min_similarity)
    chosen = next((e for e in episodes if e["id"] == answer), None)
    return answer if chosen is None or similarity(task, chosen["task"]) > min_similarity else None


def _last_wins_a_tie(episodes, task, similarity, min_similarity):
    return s12.recall_example(list(reversed(episodes)), task, similarity, min_similarity)


def _by_teachmem(episodes, task, similarity, min_similarity):
    memory = EpisodicMemory(min_similarity=min_similarity)
    for e in episodes:
        memory.record(e["task"], ["step"], "done", success=e["success"])
    found = memory.recall(task)
    return None if found is None else episodes[int(found.id[1:]) - 1]["id"]


def test_12_2_recall_example(capsys):
    passes(lesson.check_recall_example(s12.recall_example), capsys)
    assert "e1" in fails(lesson.check_recall_example(_ignores_failure), capsys)
    fails(lesson.check_recall_example(_strict_minimum), capsys)
    fails(lesson.check_recall_example(_last_wins_a_tie), capsys)
    assert "already does this job" in fails(lesson.check_recall_example(_by_teachmem), capsys)


def test_12_2_the_stub_is_not_implemented_yet(capsys):
    def recall_example(episodes, task, similarity, min_similarity):
        raise NotImplementedError

    assert not lesson.check_recall_example(recall_example)
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
