"""Worked solutions for notebooks/04_entity_memory.ipynb."""


def apply_fact(store, changelog, entity, attribute, value, turn):
    """Exercise 4.1: the newer value wins; a *different* value is logged as a change."""
    attributes = store.setdefault(entity, {})
    old = attributes.get(attribute)
    if old is not None and old != value:
        changelog.append({"turn": turn, "entity": entity, "attribute": attribute, "old": old, "new": value})
    attributes[attribute] = value


def value_at(history, turn):
    """Exercise 4.2: the value whose window [valid_from, valid_to) contains turn, else None."""
    for record in history:
        still_true = record["valid_to"] is None or turn < record["valid_to"]
        if record["valid_from"] <= turn and still_true:
            return record["value"]
    return None
