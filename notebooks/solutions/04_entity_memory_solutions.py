"""Worked solutions for notebooks/04_entity_memory.ipynb."""

# Exercise 4.1 (predict, then run). 1 is a question and 6 a hedge: both are found, then capped at 0.5 and
# filtered out. 3 names Rust, but at the user's day job, not in this project. 5 is an opinion ("my guess
# is"), no rule reads it. 2 is an occupation, and 4 settles the CSS framework (its "I love its grid"
# points at Bootstrap and is no hobby). So:
yields_a_fact = {2, 4}

# Exercise 4.3 (modify and observe). "log in" never meets "auth_method", "launch" never meets "deadline":
# add exactly those words. A broad word such as "project" would find the deadline too, and every other
# project fact with it.
extra_words = {"log": ["auth"], "launch": ["deadline"]}


def apply_fact(store, changelog, entity, attribute, value, turn):
    """Exercise 4.2: the newer value wins; a *different* value is logged as a change."""
    attributes = store.setdefault(entity, {})
    old = attributes.get(attribute)
    if old is not None and old != value:
        changelog.append({"turn": turn, "entity": entity, "attribute": attribute, "old": old, "new": value})
    attributes[attribute] = value
