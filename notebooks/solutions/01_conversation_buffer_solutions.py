"""Worked solutions for notebooks/01_conversation_buffer.ipynb."""


class TinyBuffer:
    """1.1 · Build it: every message kept, every message sent, tokens counted message by message."""

    def __init__(self):
        self.messages = []        # every message, oldest first, as {"role": …, "content": …}

    def add(self, role, content, **kwargs):
        self.messages.append({"role": role, "content": content})

    def context(self, query=None):
        return list(self.messages)          # everything, every time: a copy the caller may change

    def token_count(self):
        return sum(int(len(m["content"].split()) * 1.3) for m in self.messages)


buffer_class = TinyBuffer     # what lesson.check_buffer_class checks


# 1.2 · Predict, then run. Twice the turns is twice as many requests, and the late requests are twice
# as long, so the total is about 2 × 2 = 4 times the bill (the table shows 4.01×).
doubling_prediction = 4


def exchanges_that_fit(tokens_per_exchange, max_tokens, system_tokens):
    """1.3: whole exchanges that fit beside the system prompt, never negative."""
    return max(0, (max_tokens - system_tokens) // tokens_per_exchange)


# 1.4 · Modify and observe. At 0.85 the guard trips after turn 29 with 128 tokens free; at 0.8, after
# turn 27 with 204 free; at 0.75, after turn 25 with 251 free: room for three more exchanges.
threshold = 0.75
