"""Worked solutions for notebooks/13_what_memory_costs.ipynb."""

# Exercise 13.1: the system prompt is 1,168 tokens, each message 130. A request reads the longest opening
# it shares with a prompt already cached, if that opening has at least 1,024 tokens. The first request
# finds the cache empty. The buffer's next requests each open with the whole previous prompt: system + 1,
# 3, 5 messages. The window's second request still starts with user 1; from the third on it starts with
# another message, so only the system prompt is shared, though two of its messages were sent before.
cache_hits = {"buffer": [0, 1168 + 130, 1168 + 3 * 130, 1168 + 5 * 130],
              "window": [0, 1168 + 130, 1168, 1168]}

# Exercise 13.2: written before the run.
cheapest = "buffer"


def stable_first(context):
    """Exercise 13.3: the hybrid's context, stable blocks first, the retrieved memories last.

    The hybrid sends one system message, "You are a helpful assistant." then the known facts, then the
    relevant memories, each block after a blank line, then the conversation. The facts are ranked by the
    latest message, so the same facts come in another order on every turn: sorted, the block stays the
    same until a fact changes. The memories change with every question: they go after the conversation.
    """
    system, talk = context[0]["content"], context[1:]
    head, *blocks = system.split("\n\n")
    stable, memories = [], []
    for block in blocks:
        title, *lines = block.split("\n")
        if title.startswith("Relevant memories"):
            memories.append(block)
        else:
            stable.append("\n".join([title, *sorted(lines)]))
    return [{"role": "system", "content": "\n\n".join([head, *stable])}, *talk,
            *({"role": "system", "content": block} for block in memories)]
