"""Worked solutions for notebooks/08b_evaluate_on_locomo.ipynb."""

# Exercise 8.4: written before the baseline ran. Counting shared words ranks a turn that shares only a question's
# common words as high as the turn that answers it, and a turn that says the same thing in other words shares
# nothing, so the evidence turns drown among the rest.
prediction = "lower"

# Exercise 8.5: written before the cell ran. Section 6 printed each long conversation's turns and tokens: long-1
# has 114 turns and 1435 tokens, about 12.6 tokens a turn, and long-4 111 turns and 2012 tokens, about 18; the
# eight together are 863 turns, so a turn is about 14 to 15 tokens and 500 tokens hold 500 / 14.5, about 35
# turns: three and a half times the top 10 that strict@10 looks at.
turns_in_500 = 35

# Exercise 8.6: a word is worth leaving out only where the question shares it with a wrong turn that ties the
# evidence at rank 1 or beats it. "what" and "did" open many questions but few turns use them, so leaving them
# out changes nothing; "is", "in" and "how" are in questions and turns alike. Leaving them out lifts recall@1
# from 0.333 to 0.476, above the semantic store's 0.405; recall@5 drops a little (0.708 to 0.637): fewer shared
# words means more ties, broken by position.
stopwords = {"is", "in", "how"}
