"""Worked solutions for notebooks/09_persistence_and_governance.ipynb."""
import re
from datetime import timedelta

# Exercise 9.1: written before retention ran. The window and the transcript recorded when the number was
# said, so its seven days ran out; the summary folded it into a text with no time of its own.
still_holding = {"summary"}


def expired_ids(memories, ttl_days, pii_days, now):
    """Exercise 9.2: a memory's time to live runs from the later of when it was observed and last used;
    personal data expires ``pii_days`` after it was observed, however often it is used."""
    out = []
    for m in memories:
        days = ttl_days.get(m["type"])                 # None, or a type without a rule: kept forever
        clock_start = max(m["observed_at"], m["last_used"] or m["observed_at"])
        by_type = days is not None and clock_start + timedelta(days=days) <= now
        by_pii = m["pii"] and pii_days is not None and m["observed_at"] + timedelta(days=pii_days) <= now
        if by_type or by_pii:
            out.append(m["id"])
    return out


# Exercise 9.3: the rule table, changed until the check passes.
RULES = {
    "email": r"\b[\w.+-]+@[\w-]+\.[\w.]+\b",
    "phone": r"(?:\+44 ?|\b0)\d{2,4} ?\d{3} ?\d{3,4}\b",     # a UK number: 0 or +44, then groups of digits
    "postcode": r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b",    # LS6 2AB, YO1 7HU
}


def detect(text):
    """The kinds of personal data ``RULES`` finds in ``text``."""
    return sorted(kind for kind, pattern in RULES.items() if re.search(pattern, text))
