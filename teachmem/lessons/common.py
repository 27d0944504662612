"""What every lesson module shares: the checker machinery, the ``explore`` widget, the figure helper.

A *checker* runs the learner's function on cases whose answers are known and prints one line:
✓ passed, ✗ what differs for which input, or ○ not implemented yet (a stub still raising
``NotImplementedError``). A *view* is a function that returns text; ``explore`` adds controls.
"""
from __future__ import annotations

import contextlib
import functools
import io
import math
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import ipywidgets
from IPython.display import display
import matplotlib.pyplot as plt
from matplotlib.figure import Figure


# A learner at 1280×720 with the file browser open sees about 105 characters of an output line;
# JupyterLab breaks a longer one anywhere, mid-word. What the lessons print is wrapped to this width.
OUTPUT_WIDTH = 100


@dataclass
class CheckResult:
    """True when the check passed. Shows nothing in a notebook: the line is already printed."""

    passed: bool
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def _ipython_display_(self) -> None:
        pass


def wrapped(text: str, width: int = OUTPUT_WIDTH) -> str:
    """``text`` with every line longer than ``width`` wrapped between words; a line's continuations
    are indented two spaces more than it, so "✗ name: ..." stays the one line that starts flush.

    >>> print(wrapped("✗ pins: the summary lost the deadline and the budget", width=30))
    ✗ pins: the summary lost the
      deadline and the budget
    """
    lines = []
    for line in text.split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        lines.append(line if len(line) <= width else textwrap.fill(
            line, width, subsequent_indent=indent + "  ", break_long_words=False, break_on_hyphens=False))
    return "\n".join(lines)


def report(passed: bool, message: str) -> CheckResult:
    """Print ``message``, wrapped to the output width, and return it as a ``CheckResult``."""
    print(wrapped(message))
    return CheckResult(passed, message)


def run_check(title: str, body: Callable[[Any], str | None], candidate: Any) -> CheckResult:
    """Run ``body(candidate)`` and report: ✓ when it returns None, ✗ with its sentence, ○ for a stub."""
    if not callable(candidate):
        return report(False, f"✗ {title}: expected a function, got {type(candidate).__name__}")
    try:
        problem = body(candidate)
    except NotImplementedError:
        return report(False, f"○ {title}: not implemented yet (replace `raise NotImplementedError` with your code)")
    except DoneByTeachmem as err:
        return report(False, f"✗ {title}: your code calls {err},\n"
                             "  which already does this job: write the steps yourself.")
    except Exception as err:  # a learner's bug: report it, do not crash the notebook
        return report(False, f"✗ {title}: your function raised {type(err).__name__}: {err}")
    return verdict(title, problem)


def run_answer(title: str, body: Callable[[Any], str | None], value: Any) -> CheckResult:
    """``run_check`` for a value written by hand: the placeholder is "not answered yet", and a bad
    value's TypeError or ValueError is printed as what differs."""
    if unanswered(value):
        return report(False, f"○ {title}: not answered yet.\n"
                             "  Write your answer in place of the placeholder, then run the cell again.")
    try:
        problem = body(value)
    except (TypeError, ValueError) as err:
        return report(False, f"✗ {title}: {err}")
    return verdict(title, problem)


def verdict(title: str, problem: str | None) -> CheckResult:
    """✓ passed when there is no ``problem``, else ✗ and the problem."""
    return report(not problem, f"✗ {title}: {problem}" if problem else f"✓ {title}: passed")


Runner = Callable[[str, Callable[[Any], "str | None"], Any], CheckResult]


def checker(title: str, runner: Runner = run_check) -> Callable[[Callable[[Any], str | None]],
                                                                Callable[[Any], CheckResult]]:
    """A printing checker from ``body(candidate)``: None when every case agrees, else a sentence
    saying what differs. ``runner``: ``run_check``, ``run_answer`` or ``run_class_check``."""
    def wrap(body: Callable[[Any], str | None]) -> Callable[[Any], CheckResult]:
        @functools.wraps(body)
        def run(candidate: Any) -> CheckResult:
            return runner(title, body, candidate)
        return run
    return wrap


def unanswered(value: Any) -> bool:
    """True for a placeholder an exercise starts with: ``...`` or None, or a tuple holding one."""
    return value is ... or value is None or isinstance(value, tuple) and any(v is ... or v is None for v in value)


@contextmanager
def after_prediction(prediction: Any) -> Iterator[Callable[[Figure], None]]:
    """Run the block either way; what it prints and shows (``show(figure)``) appears only once
    ``prediction`` is written, so a cell stored with its placeholder does not give the answer away.

    >>> with after_prediction(...):
    ...     print("the answer is 42")
    The output is hidden until you write your prediction above (then run this cell again).
    >>> with after_prediction(42):
    ...     print("the answer is 42")
    the answer is 42
    """
    if not unanswered(prediction):
        yield display
        return
    figures = set(plt.get_fignums())
    with contextlib.redirect_stdout(io.StringIO()):
        yield lambda _figure: None
    for number in set(plt.get_fignums()) - figures:
        plt.close(number)
    print("The output is hidden until you write your prediction above (then run this cell again).")


def answer_checker(title: str) -> Callable[[Callable[[Any], str | None]], Callable[[Any], CheckResult]]:
    """``checker`` for an exercise answered with a value instead of a function: a prediction written
    before a cell reveals the answer, or a setting changed until the check passes."""
    return checker(title, run_answer)


class DoneByTeachmem(Exception):
    """Raised when an answer calls the teachmem code that already does the exercise's job."""


def _refuse(name: str) -> Callable[..., Any]:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise DoneByTeachmem(name)
    return refuse


@contextmanager
def forbidding(*targets: tuple[Any, str]) -> Iterator[None]:
    """Inside the block, calling any ``(owner, attribute)`` of ``targets`` raises ``DoneByTeachmem``:
    a checker works out its known answers first, then runs the learner's function in the block, so an
    answer that only calls teachmem's own implementation fails, and says so."""
    saved = [(owner, name, vars(owner)[name]) for owner, name in targets]
    try:
        for owner, name, _ in saved:
            shown = (f"{owner.__name__}.{name}" if isinstance(owner, ModuleType) else
                     f"teachmem's {owner.__name__}" + ("" if name == "__init__" else f".{name}"))
            setattr(owner, name, _refuse(shown))
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def differs(case: str, got: Any, want: Any) -> str | None:
    """None if ``got == want``, else a sentence showing both."""
    return None if got == want else f"for {case} expected {want!r}, got {got!r}"


def first_problem(checks: Iterable[str | None]) -> str | None:
    """The first non-None message among ``checks`` (an iterable), or None."""
    return next((p for p in checks if p), None)


def _rounded(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [round(x, 4) if isinstance(x, float) else x for x in value]
    return round(value, 4) if isinstance(value, float) else value


def close(case: str, got: Any, want: Any, tol: float = 1e-9) -> str | None:
    """None if the numbers (or lists of numbers) agree to ``tol``, else a sentence showing both."""
    got_list = list(got) if isinstance(got, (list, tuple)) else [got]
    want_list = list(want) if isinstance(want, (list, tuple)) else [want]
    if len(got_list) == len(want_list) and all(
            isinstance(g, (int, float)) and math.isclose(g, w, rel_tol=tol, abs_tol=tol)
            for g, w in zip(got_list, want_list, strict=True)):
        return None
    return f"for {case} expected {_rounded(want)!r}, got {_rounded(got)!r}"


# ---------------------------------------------------------------- views and widgets
class Explorer(ipywidgets.VBox):
    """The box ``explore`` returns; a notebook not yet run shows its text where the controls go."""

    def __repr__(self) -> str:
        return "Run this cell to get the controls; what they change is shown below them."


def explore(view: Callable[..., str], **controls: Any) -> Explorer:
    """Controls above, ``view(**values)`` printed below, re-rendered on every change. ``controls``
    maps each argument of ``view`` to a widget or a fixed value. The text goes straight into the
    Output widget's state, so the stored output is the same in JupyterLab, nbclient and nbval."""
    live = {name: c for name, c in controls.items() if isinstance(c, ipywidgets.ValueWidget)}
    out = ipywidgets.Output()

    def render(_change: Any = None) -> None:
        values = {name: getattr(c, "value", c) for name, c in controls.items()}
        out.outputs = ({"output_type": "stream", "name": "stdout", "text": view(**values) + "\n"},)

    for control in live.values():
        control.observe(render, names="value")
    render()
    return Explorer([*live.values(), out])


def shown_text(box: ipywidgets.VBox) -> str:
    """The text an ``explore`` box currently shows (for tests)."""
    return "".join(o["text"] for o in box.children[-1].outputs)


def mark(flag: bool) -> str:
    """✓ or ✗."""
    return "✓" if flag else "✗"


def hanging(prefix: str, text: str, width: int = OUTPUT_WIDTH, first: int | None = None) -> list[str]:
    """``prefix`` then all of ``text``, wrapped between words into lines of at most ``width`` characters;
    the further lines start under the text's first word, so a table's last column is wrapped, not cut.
    ``first`` keeps the first line's text to that many characters, to leave room for a column after it.

    >>> print("\\n".join(hanging("✓ turn 3  ", "For the database I want PostgreSQL", width=40)))
    ✓ turn 3  For the database I want
              PostgreSQL
    """
    room = max(width - len(prefix), 30)
    wrap = functools.partial(textwrap.wrap, break_long_words=False, break_on_hyphens=False)   # words whole
    said = wrap(" ".join(text.split()), first or room) or [""]
    said = said[:1] + wrap(" ".join(said[1:]), room)
    return [prefix + said[0], *(" " * len(prefix) + more for more in said[1:])]


def short(text: str, width: int = 60) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"


# ---------------------------------------------------------------- figures
def figure(width: float = 7, height: float = 3.6, **grid: Any) -> tuple[Figure, Any]:
    """A new figure and its axes (an array of them for a ``grid`` such as ``ncols=3``), already
    closed: the notebook displays the returned figure itself."""
    fig, ax = plt.subplots(figsize=(width, height), layout="constrained", **grid)
    plt.close(fig)
    return fig, ax


# Okabe–Ito: eight colours told apart with every common kind of colour blindness (black comes last here).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def prediction_problem(prediction: Any, actual: Any, why: str) -> str | None:
    """None when ``prediction``, a value written by hand (not code), equals ``actual``, else a
    sentence; ``why``, the reason, is printed after a right prediction too."""
    if callable(prediction) or type(prediction) is not type(actual):
        return _wrong_kind(prediction, type(actual))
    if prediction != actual:
        return f"you predicted {_shown(prediction)}, the run gives {_shown(actual)}. {why}"
    print(wrapped(f"Right: {_shown(actual)}. {why}"))
    return None


# Each kind of prediction: what it looks like, and what it is called, in the words its message uses.
PREDICTION_KINDS = {set: ("a set of names in braces", "set"), str: ("a word in quotes", "word"),
                    int: ("a whole number, without quotes", "whole number")}


def _wrong_kind(prediction: Any, kind: type) -> str:
    """Why ``prediction`` is not of the ``kind`` asked for: what was expected, what was written, and, when
    the value plainly means one, the same prediction written as that kind.

    >>> _wrong_kind("buffer, summary", set)
    "the prediction is a set of names in braces, written by hand; you wrote a str, 'buffer, summary'. \
Written as a set: {'buffer', 'summary'}"
    >>> _wrong_kind(lambda: 3, int)
    'the prediction is a whole number, without quotes, written by hand; you wrote a function, code that computes it'
    """
    wanted, named = PREDICTION_KINDS.get(kind, (f"a {kind.__name__}", kind.__name__))
    if callable(prediction):
        return f"the prediction is {wanted}, written by hand; you wrote a function, code that computes it"
    written = type(prediction).__name__
    if isinstance(prediction, (str, int, float, list, tuple, frozenset, dict)) and len(repr(prediction)) <= 60:
        written += f", {_shown(prediction)}"
    rewritten = _as_kind(prediction, kind)
    also = f". Written as a {named}: {_shown(rewritten)}" if rewritten is not None else ""
    article = "an" if written[0] in "aeiou" else "a"
    return f"the prediction is {wanted}, written by hand; you wrote {article} {written}{also}"


def _as_kind(value: Any, kind: type) -> Any:
    """``value`` as a prediction of ``kind`` when it plainly means one ("buffer" is the set {"buffer"}), else None."""
    if kind is set and isinstance(value, str):
        value = [name.strip() for name in value.split(",") if name.strip()] or None
    if kind is set and (value == {} or isinstance(value, (list, tuple, frozenset))
                        and all(isinstance(v, str) for v in value)):
        return set(value)                             # {} is an empty dict; the empty set is set()
    if kind is int and isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if kind is int and isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _shown(value: Any) -> str:
    """A prediction as a learner wrote it: sets sorted, so the sentence is the same on every run."""
    if isinstance(value, (set, frozenset)):
        return "{" + ", ".join(repr(v) for v in sorted(value)) + "}" if value else "set()"
    return repr(value)
