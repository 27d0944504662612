"""Worked solutions for notebooks/06_hybrid_manager.ipynb."""
import json


def fence(text):
    """06.1: collapse every run of whitespace to one space, then write it as a JSON string literal.

    json.dumps escapes quotes and backslashes, and after the collapse there is
    no newline left, so the result is always one line that json.loads reads back.
    """
    return json.dumps(" ".join(text.split()), ensure_ascii=False)


def pack_newest_first(costs, budget):
    """06.2: walk back from the newest message; stop at the first that does not fit; positions in order."""
    kept, left = [], budget
    for i in reversed(range(len(costs))):
        if costs[i] > left:
            break
        kept.append(i)
        left -= costs[i]
    return sorted(kept)
