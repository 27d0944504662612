"""One module per notebook: its checkers, widget views and plot helpers, and nothing else
(library code lives in ``teachmem.memory`` and ``teachmem.lab``; the projected comparison page,
whose views notebook 07 prints, in ``teachmem.app``).

start_here (00), buffer (01), window (02), summary (03), entity (04),
semantic (05), semantic_upkeep (05b), hybrid (06), compare (07), evaluate_memory (08),
locomo (08b), persistence (09), internals (09b), production (10), agent (11),
reflection (12);
``common`` holds what they share: the checker machinery, ``explore`` and the
figure helper; ``building`` what the core notebooks (01–06) add to it: the checker of a class the
learner builds and ``show_source``. A notebook imports its own module as ``lesson``::

    from teachmem.lessons import window as lesson
    lesson.check_window_class(MyWindow)
"""
