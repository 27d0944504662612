"""Worked solutions for notebooks/03_summary_memory.ipynb."""

# Exercise 3.1 (predict, then run). Under a fixed word limit each fold gives up reasons and elaborations
# before whole facts, so the first to go is the reason, "mainly for its JSONB support", while the decision
# it explains stays. Short sentences that each hold a fact of their own survive; after the ten folds the
# login sentence (long, and worth less per word) has gone too: 6 of the 8 facts are left.
drift_prediction = ("db_reason_jsonb", 6)   # (first_to_go, kept_at_the_end)

# Exercise 3.3 (modify and observe). The view after the last fold shows two ✗: the JSONB reason and the
# JWT login. Pin exactly those, briefly: pins are sent with every request.
my_pins = ["Database: PostgreSQL, chosen for its JSONB support", "Login: JWT access tokens"]


def split_for_summary(messages, keep_recent):
    """Exercise 3.2: the oldest messages to summarise, and the last keep_recent to keep as they are."""
    # Not messages[:-keep_recent]: with keep_recent=0 that slice is empty, not everything.
    cut = max(len(messages) - keep_recent, 0)
    return messages[:cut], messages[cut:]
