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


from teachmem.llm import rule_triples


class TinyEntityMemory:
    """Exercise 4.2: an entity memory of your own; the three decision lines are filled in."""

    def __init__(self):
        self.facts = {}       # (entity, attribute) -> value: what is true now
        self.changelog = []   # every replaced value: {"turn", "entity", "attribute", "old", "new"}
        self.turn = 0

    def add(self, role, content, turn=None):
        self.turn = self.turn + 1 if turn is None else turn
        if role == "user":    # an assistant's suggestion is no decision
            for entity, attribute, value, confidence in rule_triples(content):
                self.store(entity, attribute, value)

    def store(self, entity, attribute, value):
        old = self.facts.get((entity, attribute))
        if old is not None and old != value:    # a contradiction: the newer statement wins
            self.changelog.append({"turn": self.turn, "entity": entity, "attribute": attribute,
                                   "old": old, "new": value})
        self.facts[(entity, attribute)] = value

    def context(self, query=None):
        table = {}
        for (entity, attribute), value in sorted(self.facts.items()):
            table.setdefault(entity, []).append(f"{attribute}: {value}")
        lines = [f"[{entity}] " + ", ".join(pairs) for entity, pairs in table.items()]
        if not lines:
            return []
        return [{"role": "system", "content": "\n".join(["Known facts:", *lines])}]


entity_class = TinyEntityMemory
