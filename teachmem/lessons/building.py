"""Checking a strategy class the learner built (notebooks 01–06), and showing the library's own.

A *class checker* replays the learner's class beside the library's strategy on conversations the
learner has not seen and prints one line: ✓ passed, ✗ the first difference, or ○ not implemented
yet. A class that makes, calls or inherits a teachmem strategy fails (``own_code``).
"""
from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import teachmem.memory as memory_package
from teachmem.lessons.common import CheckResult, checker, forbidding, report, run_check, short
from teachmem.memory.protocol import strategy_classes

PACKAGE_ROOT = Path(memory_package.__file__).resolve().parent.parent


@contextmanager
def own_code() -> Iterator[None]:
    """Inside the block, making or using any teachmem strategy raises ``DoneByTeachmem``: a class
    checker runs the learner's class in it, after working out the library's answers."""
    verbs = ("__init__", "add", "context")
    targets = [(c, verb) for c in strategy_classes() for verb in verbs if verb in vars(c)]
    with forbidding(*targets):
        yield


def run_class_check(title: str, body: Callable[[type], str | None], candidate: Any) -> CheckResult:
    """``run_check`` for a class the learner wrote: it must be a class of their own."""
    if not isinstance(candidate, type):
        return report(False, f"✗ {title}: expected a class, got {type(candidate).__name__}")
    base = next((c for c in candidate.__mro__[1:] if c.__module__.split(".")[0] == "teachmem"), None)
    if base is not None:
        return report(False, f"✗ {title}: your class inherits teachmem's {base.__name__}: "
                             "write the steps yourself.")
    return run_check(title, body, candidate)


def class_checker(title: str) -> Callable[[Callable[[Any], str | None]], Callable[[Any], CheckResult]]:
    """``checker`` for a class the learner wrote: the body replays it beside the library's strategy,
    the learner's code inside ``own_code()``, and returns the first difference, or None."""
    return checker(title, run_class_check)


def first_context_difference(case: str, got: Any, want: list[dict]) -> str | None:
    """None if two ``context()`` answers are the same messages, else one sentence naming the first
    message that differs (or the one missing or extra), cut to fit one line."""
    if not isinstance(got, list):
        return f"{case}, context() should return a list of messages, got {type(got).__name__}"
    if got == want:
        return None
    for index, (mine, theirs) in enumerate(zip(got, want, strict=False)):
        if mine != theirs:
            return f"{case}, message {index + 1} {_message_difference(mine, theirs)}"
    if len(got) < len(want):
        return f"{case}, your context() stops after {len(got)} messages; it should also send " \
               f"{short(_said(want[len(got)]), 45)!r}"
    return f"{case}, your context() sends {len(got) - len(want)} message(s) too many, " \
           f"starting with {short(_said(got[len(want)]), 45)!r}"


def _message_difference(mine: Any, theirs: dict) -> str:
    """The two messages cut short; or, when they part past the cut, their words from there."""
    said, wanted = _said(mine), _said(theirs)
    if short(said, 45) != short(wanted, 45):
        return f"should be {short(wanted, 45)!r}, yours is {short(said, 45)!r}"
    yours, ours = str(mine.get("content")), theirs["content"]     # same role: the cut shows it
    shorter = min(len(yours.split()), len(ours.split()))
    pairs = zip(yours.split(), ours.split(), strict=False)
    start = next((i for i, (a, b) in enumerate(pairs) if a != b), shorter)
    return (f"({theirs['role']}) should read {_words_from(ours, start)!r} at word {start + 1}, "
            f"yours reads {_words_from(yours, start)!r}")


def _words_from(text: str, start: int) -> str:
    shown = " ".join(text.split()[max(start - 2, 0):start + 6])
    return short(shown, 45) if shown else "(nothing)"


def _said(message: Any) -> str:
    if isinstance(message, dict) and "role" in message:
        return f"{message['role']}: {message.get('content', '')}"
    return repr(message)


def show_source(*symbols: Any) -> None:
    """Print the library's own code for each symbol (a class, function or method), under the
    name of its file: by named symbol, never by line numbers, so edits elsewhere change nothing."""
    for symbol in symbols:
        path = Path(inspect.getsourcefile(symbol) or "?")
        where = path.relative_to(PACKAGE_ROOT.parent) if path.is_relative_to(PACKAGE_ROOT) else path
        print(f"# {where} · {symbol.__qualname__}")
        print(textwrap.dedent(inspect.getsource(symbol)).rstrip())
        print()


@contextmanager
def own_code_except_parts(composite: type) -> Iterator[None]:
    """``own_code`` for a class built from strategies (notebook 06's hybrid): the parts stay usable;
    making ``composite`` or calling any of its methods, even unbound, raises ``DoneByTeachmem``."""
    methods = [name for name, value in vars(composite).items() if inspect.isfunction(value)]
    with forbidding(*[(composite, name) for name in methods]):
        yield
