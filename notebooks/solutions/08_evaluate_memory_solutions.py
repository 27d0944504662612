"""Worked solutions for notebooks/08_evaluate_memory.ipynb."""
import re

# Exercise 8.1: written before the scoreboard ran. The buffer resends every message; the summary wrote the
# address into its running text; the window and the hybrid manager pin the address message, because the
# importance scorer rates a stated address highly (the hybrid also keeps it in its long-term store). Nothing
# acts on "please forget". Entity memory and the semantic store leave it out by accident: it was never
# extracted, or is not among the best matches.
still_sends = {"buffer", "hybrid", "summary", "window"}


def turns_to_forget(holds_by_turn, deleted_on):
    """Exercise 8.2: for each fact, the turns from its deletion request until the context stops mentioning
    it for good (0: gone at once); None when the last turn still mentions it."""
    turns = sorted(holds_by_turn)
    out = {}
    for fact, asked in deleted_on.items():
        mentioned = [t for t in turns if t >= asked and fact in holds_by_turn[t]]
        if not mentioned:
            out[fact] = 0                      # never mentioned after the request
        elif mentioned[-1] == turns[-1]:
            out[fact] = None                   # still there at the end
        else:
            gone_from = turns[turns.index(mentioned[-1]) + 1]
            out[fact] = gone_from - asked
    return out


# Exercise 8.3: the notebook's UserNotes and ForgetfulNotes, with the rule tables changed until the check passes.
FORGET_WORDS = ["forget", "delete"]               # "please delete my phone number" is a request too
DETAILS = {                                       # a word the request uses -> what that detail looks like
    "address": r"\b\d+ \w+ (?:Grove|Lane|Road|Street)\b|\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b",   # street or postcode
    "phone": r"\b07\d{3} ?\d{6}\b",
    "mobile": r"\b07\d{3} ?\d{6}\b",              # Ravi says "mobile", not "phone"
}


class UserNotes:
    """Keeps the user's statements; writes them down every `batch` messages."""

    def __init__(self, batch=1):
        self.batch, self.seen, self.pending, self.notes = batch, 0, [], []

    def add(self, role, content, *, turn=None, timestamp=None):
        self.seen += 1
        if role == "user" and not content.rstrip().endswith("?"):
            self.pending.append(content)
        if self.seen % self.batch == 0:
            self.notes, self.pending = self.notes + self.pending, []

    def context(self, query=None):
        if not self.notes:
            return []
        return [{"role": "system", "content": "The user told us:\n" + "\n".join(f"- {n}" for n in self.notes)}]


class ForgetfulNotes(UserNotes):
    """UserNotes that drops every note matching a detail the user asks it to forget."""

    def add(self, role, content, *, turn=None, timestamp=None):
        said = content.lower()
        if role == "user" and any(word in said for word in FORGET_WORDS):
            for kind, pattern in DETAILS.items():
                if kind in said:
                    self.notes = [n for n in self.notes if not re.search(pattern, n)]
                    self.pending = [n for n in self.pending if not re.search(pattern, n)]
        super().add(role, content, turn=turn, timestamp=timestamp)


forgetful_notes = ForgetfulNotes      # the same class under the name its checker, check_forgetful_notes, goes by
