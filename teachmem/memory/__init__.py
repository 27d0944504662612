"""What learners build: one memory strategy a file.

Everything outside this folder is lab equipment (scenarios, replay, widgets,
plots, checkers) used to run, compare and measure these strategies.
"""
