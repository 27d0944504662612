"""The offline summariser writes plain third-person sentences, and keeps a change through later folds."""
from __future__ import annotations

from teachmem import SummaryMemory, load_scenario
from teachmem.lab.replay import feed
from teachmem.llm import summarize_rules


def test_first_person_becomes_plain_third_person():
    assert summarize_rules("user: I'm building a shed for my neighbour's garden.", "", 40) == \
        "The user is building a shed for their neighbour's garden."
    assert summarize_rules("user: My budget is $400.", "", 40) == "The user's budget is $400."
    assert summarize_rules("user: Our deadline is the end of May.", "", 40) == "The team's deadline is the end of May."
    assert "User's" not in summarize_rules("user: I live in Oslo with my sister and my dog.", "", 40)


def test_the_subject_is_said_once_and_opening_fillers_go():
    said = summarize_rules("user: I like fixtures, and I want a coverage report.", "", 40)
    assert said == "The user likes fixtures, and wants a coverage report."
    assert summarize_rules("user: And since May I've been vegan.", "", 40) == "Since May the user has been vegan."


def test_the_assistant_speaks_of_the_user():
    assert summarize_rules("assistant: You could deploy your app on Fly.io.", "", 40) == \
        "The user could deploy their app on Fly.io."
    assert summarize_rules("assistant: Your backend will be FastAPI.", "", 40) == "The user's backend will be FastAPI."


def test_a_change_survives_the_folds_after_the_old_value_is_gone():
    memory = SummaryMemory(summarize_every=4, max_words=30)
    feed(memory, load_scenario("project_30"), upto=29)
    assert "MySQL" in memory.summary and len(memory.summary.split()) <= 30
