import random

import pytest

from teachmem import SlidingWindowMemory, fact_in_text, load_scenario
from teachmem.llm import importance_rules as importance
from teachmem.llm.importance import importance_cues, importance_evidence
from teachmem.lab.replay import feed, window_membership
from teachmem.lessons.window import window_view


def test_seed_example_runs_unchanged():
    mem = SlidingWindowMemory(recent_k=3, important_k=2)
    mem.add("user", "I decide to use PostgreSQL for the database")
    mem.add("assistant", "Good choice for relational data!")
    mem.add("user", "sounds good")
    mem.add("assistant", "What's next?")
    mem.add("user", "Let's work on the API layer")
    mem.add("assistant", "I'll set up Express routes")
    mem.add("user", "Add error handling too")
    window = mem.get_window()
    assert len(window) == 5
    contents = [m["content"] for m in window]
    assert "I decide to use PostgreSQL for the database" in contents
    assert "sounds good" not in contents


def test_importance_matches_whole_words_only():
    """The window scores with the one importance scorer; "use" must not fire on "because" or "user"."""
    assert "decides or prefers" not in importance_cues("The user asked because it was slow")
    assert importance("The user asked because it was slow") < importance("We use PostgreSQL")
    assert importance("ok") < importance("Which one?") < importance("We use PostgreSQL")
    assert importance("ok") < importance("```python\ndef f(x):\n    return x\n```")
    assert importance("ok") < importance("Let's switch? " + "word " * 40) <= 1.0


def test_the_window_scores_with_the_one_importance_scorer():
    """A decision said in few words ("JWT for auth") is worth a pin; "ok sounds good" is not."""
    mem = SlidingWindowMemory(2, 1)
    for text in ["ok sounds good", "we'll use React", "JWT for auth", "Stripe for payments"]:
        mem.add("user", text)
    assert mem.importance == [importance(t) for t in ["ok sounds good", "we'll use React", "JWT for auth",
                                                      "Stripe for payments"]]
    assert min(mem.importance[1:]) >= mem.importance[0] + 0.4


def test_short_conversation_keeps_everything():
    mem = SlidingWindowMemory(recent_k=3, important_k=2)
    for i in range(5):
        mem.add("user", f"message {i}")
    assert mem.window_turns() == [1, 2, 3, 4, 5]


def test_window_is_recent_plus_best_older(scenario):
    mem = feed(SlidingWindowMemory(recent_k=6, important_k=5), scenario, 29)
    assert mem.window_turns()[-6:] == list(range(24, 30))
    assert len(mem.window_turns()) == 11
    text = " ".join(m["content"] for m in mem.context())
    assert fact_in_text(scenario.fact("tests_pytest"), text)
    plain = feed(SlidingWindowMemory(recent_k=6, important_k=0), scenario, 29)
    plain_text = " ".join(m["content"] for m in plain.context())
    assert not fact_in_text(scenario.fact("tests_pytest"), plain_text)   # the context cliff


def test_matches_a_brute_force_reference():
    rng = random.Random(7)
    for _ in range(200):
        n, recent_k, important_k = rng.randint(0, 40), rng.randint(1, 8), rng.randint(0, 6)
        mem = SlidingWindowMemory(recent_k, important_k, scorer=lambda _: 0.0)
        for _ in range(n):
            mem.add("user", "x")
        mem.importance = [rng.choice([0.1, 0.4, 0.5]) for _ in range(n)]
        kept = mem.window_indices()
        if n <= recent_k + important_k:
            assert kept == list(range(n))
            continue
        older = list(range(n - recent_k))
        pinned = [i for i in kept if i < n - recent_k]
        assert len(pinned) == important_k
        # nothing left out scores higher than anything pinned, and ties go to the older
        left_out = [i for i in older if i not in pinned]
        assert all((mem.importance[p], -p) > (mem.importance[o], -o) for p in pinned for o in left_out)


@pytest.mark.parametrize("kwargs, name", [(dict(recent_k=0), "recent_k"), (dict(recent_k=-1), "recent_k"),
                                          (dict(important_k=-1), "important_k"), (dict(recent_k=2.0), "recent_k")])
def test_bad_sizes(kwargs, name):
    with pytest.raises((ValueError, TypeError), match=name):
        SlidingWindowMemory(**kwargs)


def test_bad_add_changes_nothing():
    mem = SlidingWindowMemory(2, 1)
    mem.add("user", "kept")
    before = mem.to_state()
    for kwargs in (dict(role="bot", content="x"), dict(role="user", content=b"bytes"), dict(role="user", content="x", turn=1)):
        with pytest.raises((ValueError, TypeError)):
            mem.add(**kwargs)
    assert mem.to_state() == before


def test_round_trip_state(scenario):
    mem = feed(SlidingWindowMemory(5, 3), scenario)
    again = SlidingWindowMemory.from_state(mem.to_state())
    assert again.context() == mem.context()
    again.add("user", "one more")
    mem.add("user", "one more")
    assert again.context() == mem.context()


def test_membership_matrix(scenario):
    m = window_membership(scenario, lambda: SlidingWindowMemory(6, 0))
    assert m.shape == (30, 30)
    assert m.sum(axis=1).tolist() == [min(i + 1, 6) for i in range(30)]
    assert not m[28, 6] and m[28, 28]


def test_a_message_leaving_the_window_is_a_delete():
    from teachmem import Change
    window = SlidingWindowMemory(recent_k=2, important_k=1)
    events = [window.add("user", text) for text in ["hi", "we decided to use PostgreSQL", "ok", "fine", "sure"]]
    assert events[0] == [Change("ADD", "m1", "user: hi", reason="new message")]
    assert events[3] == [Change("ADD", "m4", "user: fine", reason="new message"),
                         Change("DELETE", "m1", "user: hi", reason="fell out of the window")]
    assert events[4] == [Change("ADD", "m5", "user: sure", reason="new message"),
                         Change("DELETE", "m3", "user: ok", reason="fell out of the window")]
    assert window.window_turns() == [2, 4, 5]            # the decision stays pinned
    left = {c.id for changes in events for c in changes if c.event == "DELETE"}
    assert left == {m.id for i, m in enumerate(window.all_messages) if i not in window.window_indices()}


def test_importance_evidence_names_the_words_behind_each_cue():
    """Notebook 02 shows why a message scored what it did: the words that fired each cue, same cues as the score."""
    text = "We'll use Redis because it is fast. The backend is FastAPI."
    evidence = importance_evidence(text)
    assert evidence == {"decides or prefers": ["We'll", "use"], "names something": ["Redis", "FastAPI"],
                        "gives a reason": ["because"]}
    assert list(evidence) == list(importance_cues(text))
    assert importance_evidence("ok sounds good") == {} == importance_cues("Does that change anything?")
    assert importance_evidence("Hi, I'm Maya.")["states a fact"] == ["Maya"]     # a fact the rules found: its value
    assert importance_evidence("Launch on 2026-03-31, hosting at $20.")["has a number"] == ["2026-03-31", "$20"]


def test_the_window_view_marks_a_stale_fact_apart_from_a_held_one():
    """PostgreSQL (turn 3) was replaced on turn 17: holding it is no success, so it gets ⚠, not ✓."""
    scenario = load_scenario("project_30")
    pinned = window_view(scenario, recent_k=6, important_k=5, turn=29).splitlines()
    plain = window_view(scenario, recent_k=6, important_k=0, turn=29).splitlines()
    postgres = [line for line in pinned + plain if " PostgreSQL (" in line]
    assert [line[0] for line in postgres] == ["⚠", "·"] and all("stale" in line for line in postgres)
    assert next(line for line in pinned if " MySQL (" in line).startswith("✓")
    assert next(line for line in pinned if " PostgreSQL (" in line).startswith("⚠")
    assert next(line for line in window_view(scenario, 6, 5, turn=10).splitlines()
                if " PostgreSQL (" in line).startswith("✓")                          # not yet replaced
