"""The model protocol: what a memory strategy may ask of a language model, and how a call fails.

A model is anything with a ``usage`` counter and
``complete(messages, *, json_mode=False) -> str``. Facts travel as
:class:`Triple` records; failures are :class:`LLMError` and its subclasses.

Taught in notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

from teachmem.core.validate import ROLES

__all__ = ["Usage", "LLM", "ToolLLM", "Triple", "LLMError", "AuthenticationError", "LLMTimeoutError",
           "MalformedResponseError", "ExtractionError", "ExtractionWarning", "check_messages", "check_tools"]


@dataclass
class Usage:
    """What a model has cost so far: calls, prompt tokens, completion tokens.

    Offline the tokens are estimated with ``teachmem.core.tokens.estimate_tokens``;
    a real endpoint reports its own counts, which are used when present.

    Taught in notebooks/04_entity_memory.ipynb.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def record(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one call."""
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens

    def reset(self) -> None:
        """Start counting from zero again."""
        self.calls = self.prompt_tokens = self.completion_tokens = 0


@runtime_checkable
class LLM(Protocol):
    """Anything with ``usage`` and ``complete(messages, *, json_mode=False) -> str``.

    ``messages`` are chat messages, ``[{"role": "user", "content": "..."}]``;
    with ``json_mode=True`` the reply must be a JSON object.
    """

    usage: Usage

    def complete(self, messages: list[dict], *, json_mode: bool = False) -> str:
        ...


@runtime_checkable
class ToolLLM(LLM, Protocol):
    """A model that can also call tools: ``complete_with_tools(messages, tools) -> dict``, the assistant
    message ``{"role": "assistant", "content": str, "tool_calls": [...]}`` in the OpenAI wire format.
    ``teachmem.MemoryAgent`` needs one.
    """

    def complete_with_tools(self, messages: list[dict], tools: list[dict]) -> dict:
        ...


class Triple(NamedTuple):
    """One fact: ``(entity, attribute, value, confidence)``, e.g. ``("Project", "database", "MySQL", 0.9)``."""

    entity: str
    attribute: str
    value: str
    confidence: float = 1.0


class LLMError(RuntimeError):
    """A model call failed. ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class AuthenticationError(LLMError):
    """The endpoint refused the API key (HTTP 401 or 403)."""


class LLMTimeoutError(LLMError):
    """The endpoint did not answer within ``timeout`` seconds."""


class MalformedResponseError(LLMError):
    """The endpoint answered, but not in the chat-completions format."""


class ExtractionError(LLMError):
    """The model's reply could not be read as the answer the task asked for.

    Taught in notebooks/04_entity_memory.ipynb.
    """


class ExtractionWarning(UserWarning):
    """An extraction was skipped because the model's reply was unreadable."""


def check_messages(messages: object) -> list[dict]:
    """``messages`` as a list of ``{"role", "content"}`` dicts, or a clear TypeError / ValueError."""
    if not isinstance(messages, (list, tuple)):
        raise TypeError(f"messages must be a list of {{'role', 'content'}} dicts, got {type(messages).__name__}")
    if not messages:
        raise ValueError("messages must be a non-empty list, got []")
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise TypeError(f"messages[{i}] must be a dict with 'role' and 'content', got {type(message).__name__}")
        if message.get("role") not in ROLES:
            raise ValueError(f"messages[{i}]['role'] must be one of {ROLES}, got {message.get('role')!r}")
        if not isinstance(message.get("content"), str):
            raise TypeError(f"messages[{i}]['content'] must be a str, got {type(message.get('content')).__name__}")
    return list(messages)


def check_tools(tools: object) -> set[str]:
    """The names of ``tools``, a list of function-calling schemas
    (``{"type": "function", "function": {"name": ..., "parameters": {...}}}``), or a clear TypeError / ValueError.
    """
    if not isinstance(tools, (list, tuple)) or not tools:
        raise TypeError(f"tools must be a non-empty list of function schemas, got {tools!r:.80}")
    names = set()
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise ValueError(f"tools[{i}] must be {{'type': 'function', 'function': {{'name': ..., "
                             f"'parameters': ...}}}}, got {tool!r:.80}")
        names.add(function["name"])
    return names
