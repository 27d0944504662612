"""Worked solutions for notebooks/00_start_here.ipynb."""
import re

# 0.1 · Predict, then run. The toy model reads the messages in order and stops at the first
# "my name is …" it finds, so the old name, still in the history, wins over the correction.
name_prediction = "Maya"


def latest_name_model(messages):
    """0.2 · Modify and observe: read the user's messages newest first, so the last name given wins;
    the assistant's "my name is Tess" is its own name, not the user's."""
    for message in reversed(messages):
        found = re.search(r"my name is (\w+)", message["content"], re.IGNORECASE)
        if message["role"] == "user" and found:
            return f"Your name is {found.group(1)}."
    return "I don't know your name."


def current_facts(scenario, turn):
    """0.3: stated by ``turn`` and not yet replaced, in scenario order."""
    return [f.id for f in scenario.facts
            if f.stated_turn <= turn and (f.superseded_turn is None or turn < f.superseded_turn)]
