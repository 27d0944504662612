"""Worked solutions for notebooks/01_conversation_buffer.ipynb."""
from itertools import accumulate

# 1.1 · Predict, then run. Twice the turns is twice as many requests, and the late requests are twice
# as long, so the total is about 2 × 2 = 4 times the bill (the table shows 4.01×).
doubling_prediction = 4


def request_tokens(turn_tokens):
    """1.2: request i resends messages 1..i, so it costs their running sum."""
    return list(accumulate(turn_tokens))


def exchanges_that_fit(tokens_per_exchange, max_tokens, system_tokens):
    """1.3: whole exchanges that fit beside the system prompt, never negative."""
    return max(0, (max_tokens - system_tokens) // tokens_per_exchange)


# 1.4 · Modify and observe. At 0.85 the guard trips after turn 29 with 128 tokens free; at 0.8, after
# turn 27 with 204 free; at 0.75, after turn 25 with 251 free: room for three more exchanges.
threshold = 0.75
