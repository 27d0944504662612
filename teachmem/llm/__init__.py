"""Language models for memory work: one small protocol, an offline stand-in, a real adapter.

Memory strategies need a model for four jobs: summarise a conversation,
extract facts as JSON, score how important a message is, and tell whether a
new fact contradicts an old one. The task functions below (:func:`summarize`,
:func:`extract_triples`, :func:`score_importance`, :func:`find_contradiction`)
write the prompt, call ``llm.complete(messages)`` and parse the reply, so the
same code runs with any model that speaks chat messages:

* :class:`OfflineLLM` — the default everywhere. Deterministic, no network, no
  key. It reads the very prompts a real model would get, recognises which job
  it is asked to do, and does that job with the rules in ``teachmem.llm.extract``.
* :class:`OpenAICompatibleLLM` — any ``/v1/chat/completions`` endpoint
  (OpenAI, Ollama, llama.cpp server, vLLM), with the standard library only.

Every model counts its calls and tokens in ``llm.usage``, so a notebook can
show what a memory strategy costs in model calls.

Taught in notebooks/03_summary_memory.ipynb and notebooks/04_entity_memory.ipynb.
"""
from __future__ import annotations

import http.client
import json
import logging
import math
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from dataclasses import dataclass
from typing import Callable, Protocol, runtime_checkable

from teachmem.llm.extract import Triple, importance_rules, rule_triples, summarize_rules
from teachmem.core.tokens import estimate_tokens
from teachmem.core.validate import ROLES, require_fraction, require_int_at_least, require_positive_int, require_text

__all__ = ["Usage", "LLM", "OfflineLLM", "OpenAICompatibleLLM", "Triple",
           "LLMError", "AuthenticationError", "LLMTimeoutError", "MalformedResponseError",
           "ExtractionError", "ExtractionWarning",
           "summarize", "extract_triples", "score_importance", "find_contradiction"]

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Usage and the protocol
# ---------------------------------------------------------------------------

@dataclass
class Usage:
    """What a model has cost so far: calls, prompt tokens, completion tokens.

    Offline the tokens are estimated with ``teachmem.core.tokens.estimate_tokens``;
    a real endpoint reports its own counts, which are used when present.

    Taught in notebooks/03_summary_memory.ipynb.
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

    Taught in notebooks/03_summary_memory.ipynb.
    """

    usage: Usage

    def complete(self, messages: list[dict], *, json_mode: bool = False) -> str:
        ...


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

class LLMError(RuntimeError):
    """A model call failed. ``status`` is the HTTP status when there was one.

    Taught in notebooks/03_summary_memory.ipynb (as are the errors below).
    """

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
    """An extraction was skipped because the model's reply was unreadable.

    Taught in notebooks/04_entity_memory.ipynb.
    """


def _check_messages(messages) -> list[dict]:
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


# ---------------------------------------------------------------------------
# The prompts. Material goes between tags, so both a real model and the
# offline stand-in can tell the instructions from the conversation.
# ---------------------------------------------------------------------------

SUMMARY_PROMPT = (
    "You keep the running summary of a conversation, so that an assistant can carry on later without the "
    "transcript. Merge the new conversation into the previous summary. Keep every decision, preference, "
    "name and number together with its reason (write \"PostgreSQL for its JSONB support\", not just "
    "\"PostgreSQL\"). When something changed, keep only the new value. Leave out small talk and questions. "
    "Write plain sentences in the third person, at most {max_words} words. Reply with the summary only.")

EXTRACTION_PROMPT = (
    "Extract the facts worth remembering from the message below as JSON. Look for names, places, "
    "employers, preferences and likes, diets and allergies, budgets, dates, decisions and technical choices. "
    "Answer with one JSON object: {\"triples\": [{\"entity\": \"...\", \"attribute\": \"...\", "
    "\"value\": \"...\", \"confidence\": 0.0-1.0}]}. Use the entity \"User\" for facts about the person "
    "writing, \"Project\" for what is being built and \"API\" for how it authenticates. Give a low "
    "confidence to questions, guesses and passing mentions. If nothing is worth keeping, answer "
    "{\"triples\": []}.")

IMPORTANCE_PROMPT = (
    "Rate how important the message below is to remember for the rest of the conversation, from 0 "
    "(small talk) to 1 (a decision, a personal fact or a number the assistant must not forget). "
    "Reply with the number only.")

CONTRADICTION_PROMPT = (
    "Two facts were extracted from a conversation at different times. Does the new fact contradict the old "
    "one, that is, does it give the same entity and attribute a different value? Reply with yes or no only.")


def _tagged(tag: str, text: str) -> str:
    return f"<{tag}>\n{text}\n</{tag}>"


def _material(text: str, tag: str) -> str | None:
    """The text between ``<tag>`` and the last ``</tag>``, or None."""
    start = text.find(f"<{tag}>")
    end = text.rfind(f"</{tag}>")
    if start < 0 or end < start:
        return None
    return text[start + len(tag) + 2:end].strip("\n")


def _without_material(text: str) -> str:
    """The instructions only: everything outside the tagged material."""
    return re.sub(r"<(\w+)>.*?</\1>", " ", text, flags=re.S)


# ---------------------------------------------------------------------------
# The offline stand-in
# ---------------------------------------------------------------------------

class OfflineLLM:
    """A deterministic, rule-based stand-in for a language model. No network, no key.

    It receives the same chat prompts a real model would. From the instruction
    text it recognises the job (summarise, extract facts as JSON, score
    importance, spot a contradiction), reads the material out of the prompt
    and does the job with the rules in ``teachmem.llm.extract``. It understands
    this module's prompts and, as far as they go, prompts worded like seeds 000
    and 001 ("Current summary: ... New conversation: ...", "Message: ...").
    Anything else gets a reply saying what it can do. Every call is counted
    in ``usage``.

    Taught in notebooks/03_summary_memory.ipynb.
    """

    CANNOT = ("OfflineLLM is a rule-based stand-in: it can summarise, extract facts as JSON, score "
              "importance and spot contradictions, but it cannot hold a conversation. Connect a real "
              "model with OpenAICompatibleLLM for that.")

    def __init__(self):
        self.usage = Usage()

    def __repr__(self) -> str:
        return f"OfflineLLM(calls={self.usage.calls})"

    def complete(self, messages: list[dict], *, json_mode: bool = False) -> str:
        """Answer a chat prompt, deterministically. Taught in notebooks/03_summary_memory.ipynb."""
        messages = _check_messages(messages)
        prompt = "\n\n".join(m["content"] for m in messages)
        reply = self._answer(prompt, messages, json_mode)
        self.usage.record(sum(estimate_tokens(m["content"]) for m in messages), estimate_tokens(reply))
        return reply

    # -- which job is this? ----------------------------------------------
    def _answer(self, prompt: str, messages: list[dict], json_mode: bool) -> str:
        instructions = _without_material(prompt).lower()
        if "contradict" in instructions:
            answer = self._contradiction(prompt)
            return json.dumps({"contradiction": answer == "yes"}) if json_mode else answer
        if "how important" in instructions or "importance" in instructions:
            score = importance_rules(self._message(prompt, messages))
            return json.dumps({"importance": score}) if json_mode else f"{score:.2f}"
        if "extract" in instructions and "json" in instructions:
            return self._extract(prompt, messages, instructions)
        if "summar" in instructions:
            summary = self._summarize(prompt, messages, instructions)
            return json.dumps({"summary": summary}) if json_mode else summary
        return json.dumps({"error": self.CANNOT}) if json_mode else self.CANNOT

    @staticmethod
    def _message(prompt: str, messages: list[dict]) -> str:
        tagged = _material(prompt, "message")
        if tagged is not None:
            return tagged
        labelled = re.search(r"^\s*Message:\s*(.*?)(?=\n\s*(?:Respond|Answer|Reply|Return)\b|\Z)", prompt,
                             re.S | re.M | re.I)
        if labelled:
            return labelled.group(1).strip()
        users = [m["content"] for m in messages if m["role"] == "user"]
        return users[-1] if users else ""

    def _extract(self, prompt: str, messages: list[dict], instructions: str) -> str:
        found = rule_triples(self._message(prompt, messages), min_confidence=0.0)
        if '"entities"' in instructions and '"key"' in instructions:   # seed 001's answer shape
            return json.dumps({"entities": [
                {"key": t.attribute if t.entity == "User" else f"{t.entity}.{t.attribute}",
                 "value": t.value, "confidence": t.confidence} for t in found]})
        return json.dumps({"triples": [t._asdict() for t in found]})

    def _summarize(self, prompt: str, messages: list[dict], instructions: str) -> str:
        limit = re.search(r"(?:at most|under|no more than|fewer than|maximum of|max\.?|up to)\s+(\d+)\s+words",
                          instructions)
        max_words = int(limit.group(1)) if limit and int(limit.group(1)) > 0 else 120
        previous = _material(prompt, "previous_summary")
        conversation = _material(prompt, "conversation")
        if conversation is None:   # seed-style labels: "Current summary: ..." / "New conversation: ..."
            previous_match = re.search(r"(?:Current|Previous|Existing) summary:\s*(.*?)"
                                       r"(?=\n\s*New (?:conversation|summary)|\Z)", prompt, re.S | re.I)
            conversation_match = re.search(r"New (?:conversation|summary)[^:\n]*:\s*(.*?)(?=\n\s*(?:Update|"
                                           r"Preserve|Be concise|Summari[sz]e|Merged summary)\b|\Z)",
                                           prompt, re.S | re.I)
            previous = previous_match.group(1).strip() if previous_match else ""
            if conversation_match:
                conversation = conversation_match.group(1)
            else:   # no labels: the conversation is what is left once the instruction lines are gone
                text = "\n".join(m["content"] for m in messages if m["role"] != "system")
                conversation = "\n".join(line for line in text.splitlines()
                                         if not re.search(r"summar", line, re.I))
        return summarize_rules(conversation, previous or "", max_words)

    @staticmethod
    def _contradiction(prompt: str) -> str:
        try:
            old = _fact_from_json(_material(prompt, "old_fact"))
            new = _fact_from_json(_material(prompt, "new_fact"))
        except (TypeError, ValueError, KeyError):
            return "no"
        same_key = _norm(old["entity"]) == _norm(new["entity"]) and \
            _norm(old["attribute"]) == _norm(new["attribute"])
        return "yes" if same_key and _norm(old["value"]) != _norm(new["value"]) else "no"


def _fact_from_json(text: str | None) -> dict:
    data = json.loads(text or "")
    return {k: str(data[k]) for k in ("entity", "attribute", "value")}


def _norm(text: str) -> str:
    return re.sub(r"[\s_\-]+", " ", text).strip().lower()


# ---------------------------------------------------------------------------
# A real model behind any OpenAI-compatible endpoint
# ---------------------------------------------------------------------------

class _Secret:
    """Holds the API key so that printing the object never shows it."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__


_KEY_LIKE = re.compile(r"\b(?:sk|pk|rk|key)-[A-Za-z0-9_\-*.]{6,}")


class OpenAICompatibleLLM:
    """A real model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint.

    Works with OpenAI, Ollama (``http://localhost:11434/v1``), a llama.cpp
    server, vLLM, and anything else that speaks the same wire format. Only the
    standard library is used. ``base_url`` may end in ``/v1``, in
    ``/chat/completions``, or be the bare server address.

    * ``timeout``: seconds to wait for an answer (``LLMTimeoutError`` after that);
    * ``max_retries``: extra attempts after HTTP 429, any 5xx, a timeout or a
      dropped connection, waiting ``backoff × 2**attempt`` seconds (or the
      server's ``Retry-After``) in between, through ``sleep``, which tests replace;
    * HTTP 401/403 raises ``AuthenticationError`` at once; a body that is not
      chat-completions JSON raises ``MalformedResponseError``.

    The API key is sent in the ``Authorization`` header and nowhere else: it is
    not in ``repr()``, in log records, or in any error message.

    Taught in notebooks/03_summary_memory.ipynb.
    """

    RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *, timeout: float = 30.0,
                 max_retries: int = 3, backoff: float = 0.5, sleep: Callable[[float], None] = time.sleep):
        require_text("base_url", base_url)
        if not re.match(r"https?://[^/\s]+", base_url):
            raise ValueError(f"base_url must start with http:// or https://, got {self._safe_url(base_url)!r}")
        require_text("model", model)
        if api_key is not None and not isinstance(api_key, str):
            raise TypeError(f"api_key must be a str or None, got {type(api_key).__name__}")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
                or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        require_int_at_least("max_retries", max_retries, 0)
        if isinstance(backoff, bool) or not isinstance(backoff, (int, float)) or not math.isfinite(backoff) \
                or backoff < 0:
            raise ValueError(f"backoff must be a number of seconds >= 0, got {backoff!r}")
        if not callable(sleep):
            raise TypeError(f"sleep must be callable, got {type(sleep).__name__}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.backoff = float(backoff)
        self._sleep = sleep
        self._api_key = _Secret(api_key) if api_key else None
        self.usage = Usage()

    @property
    def url(self) -> str:
        """The chat-completions URL the requests go to."""
        if self.base_url.endswith("/chat/completions"):
            return self.base_url
        if re.search(r"/v\d+$", self.base_url):
            return self.base_url + "/chat/completions"
        return self.base_url + "/v1/chat/completions"

    @classmethod
    def from_env(cls, prefix: str = "TEACHMEM_LLM", **kwargs) -> "OpenAICompatibleLLM":
        """Build from ``{prefix}_BASE_URL``, ``{prefix}_MODEL`` and (optional) ``{prefix}_API_KEY``.

        Extra keyword arguments (``timeout=``, ``max_retries=``, ...) go to the constructor.
        Taught in notebooks/03_summary_memory.ipynb.
        """
        require_text("prefix", prefix)
        base_url = os.environ.get(f"{prefix}_BASE_URL", "").strip()
        model = os.environ.get(f"{prefix}_MODEL", "").strip()
        for name, value, example in ((f"{prefix}_BASE_URL", base_url, "http://localhost:11434/v1"),
                                     (f"{prefix}_MODEL", model, "llama3.2")):
            if not value:
                raise ValueError(f"environment variable {name} is not set (for example {name}={example})")
        api_key = os.environ.get(f"{prefix}_API_KEY", "").strip() or None
        return cls(base_url, model, api_key, **kwargs)

    def __repr__(self) -> str:
        key = "'***'" if self._api_key else "None"
        return f"OpenAICompatibleLLM(base_url={self._safe_url(self.base_url)!r}, model={self.model!r}, api_key={key})"

    # -- the call ----------------------------------------------------------
    def complete(self, messages: list[dict], *, json_mode: bool = False) -> str:
        """Send chat messages, return the reply text. Taught in notebooks/03_summary_memory.ipynb."""
        messages = _check_messages(messages)
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": m["role"], "content": m["content"]} for m in messages]}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        data = self._post(json.dumps(body).encode("utf-8"))
        content = self._content(data)
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if not (isinstance(prompt_tokens, int) and isinstance(completion_tokens, int)):
            prompt_tokens = sum(estimate_tokens(m["content"]) for m in messages)
            completion_tokens = estimate_tokens(content)
        self.usage.record(prompt_tokens, completion_tokens)
        return content

    def _post(self, payload: bytes) -> dict:
        url = self._safe_url(self.url)
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            logger.debug("POST %s model=%s attempt %d of %d", url, self.model, attempt + 1, attempts)
            retry_after = None
            try:
                status, headers, raw = self._send(payload)
            except LLMTimeoutError:
                error: LLMError = LLMTimeoutError(f"{url} did not answer within {self.timeout:g} s")
            except LLMError as exc:
                error = exc
            else:
                if 200 <= status < 300:
                    return self._parse_body(raw, status)
                message = self._server_message(raw)
                if status in (401, 403):
                    raise AuthenticationError(
                        f"{url} refused the request (HTTP {status}): {message}. Check the API key "
                        f"(api_key=... or the *_API_KEY environment variable).", status=status)
                if status not in self.RETRY_STATUSES and status < 500:
                    raise LLMError(f"{url} answered HTTP {status}: {message}", status=status)
                error = LLMError(f"{url} answered HTTP {status}: {message}", status=status)
                retry_after = self._retry_after(headers)
            if attempt == attempts - 1:
                raise type(error)(f"{error} (gave up after {attempts} attempt{'s' * (attempts > 1)})",
                                  status=error.status)
            delay = self.backoff * 2 ** attempt
            if retry_after is not None:
                delay = max(delay, retry_after)
            logger.warning("%s; retrying in %.2f s (attempt %d of %d)", error, delay, attempt + 2, attempts)
            self._sleep(delay)
        raise AssertionError("unreachable")   # pragma: no cover

    def _send(self, payload: bytes) -> tuple[int, dict, bytes]:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "teachmem"}
        if self._api_key:
            headers["Authorization"] = "Bearer " + self._api_key.reveal()
        request = urllib.request.Request(self.url, data=payload, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, dict(exc.headers or {}), exc.read()
        except (socket.timeout, TimeoutError):
            raise LLMTimeoutError("timeout") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                raise LLMTimeoutError("timeout") from None
            raise LLMError(f"could not reach {self._safe_url(self.url)}: {self._redact(str(exc.reason))}") from None
        except (OSError, http.client.HTTPException) as exc:
            raise LLMError(f"connection to {self._safe_url(self.url)} failed: {type(exc).__name__}") from None

    def _parse_body(self, raw: bytes, status: int) -> dict:
        url = self._safe_url(self.url)
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            preview = self._redact(raw[:100_000].decode("utf-8", "replace"))[:80]
            raise MalformedResponseError(
                f"{url} answered HTTP {status} but the body is not valid JSON ({exc.__class__.__name__}: "
                f"{getattr(exc, 'msg', exc)}); it began {preview!r}", status=status) from None
        if not isinstance(data, dict):
            raise MalformedResponseError(f"{url} answered a JSON {type(data).__name__}, expected an object "
                                         f"with a 'choices' list", status=status)
        return data

    def _content(self, data: dict) -> str:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise MalformedResponseError(f"response has no 'choices' list (keys: {sorted(data)})")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str):
            raise MalformedResponseError("response has no text at choices[0].message.content "
                                         f"(got {type(content).__name__})")
        return content

    def _server_message(self, raw: bytes) -> str:
        text = self._redact(raw[:100_000].decode("utf-8", "replace"))
        try:
            data = json.loads(text)
            error = data.get("error", data) if isinstance(data, dict) else data
            text = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        except json.JSONDecodeError:
            pass
        text = " ".join(text.split())[:200] or "(empty body)"
        return self._redact(text)

    @staticmethod
    def _retry_after(headers: dict) -> float | None:
        value = {k.lower(): v for k, v in headers.items()}.get("retry-after", "")
        try:
            return min(max(float(value), 0.0), 60.0)
        except ValueError:
            return None

    def _redact(self, text: str) -> str:
        """Hide the key, and anything that looks like a piece of it, in text from the server."""
        text = _KEY_LIKE.sub("***", text)
        if not self._api_key:
            return text
        key = self._api_key.reveal()
        text = text.replace(key, "***")
        pieces = {key[i:i + 8] for i in range(len(key) - 7)}   # a partial echo: "sk-abc…wxyz"

        def hide(token: re.Match) -> str:
            word = token.group(0)
            return "***" if any(p in word for p in pieces) else word

        return re.sub(r"[^\s\"',;:()\[\]{}<>]{8,}", hide, text)

    @staticmethod
    def _safe_url(url: str) -> str:
        """The URL without user:password@ and without a query string."""
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


# ---------------------------------------------------------------------------
# The four tasks
# ---------------------------------------------------------------------------

def _require_llm(llm) -> None:
    if not (hasattr(llm, "complete") and callable(llm.complete) and hasattr(llm, "usage")):
        raise TypeError(f"llm must be a language model with .complete() and .usage (e.g. OfflineLLM()), "
                        f"got {type(llm).__name__}")


def _limit_words(text: str, max_words: int) -> str:
    """Enforce the word limit on any model's reply: whole sentences if possible, else cut with "…"."""
    words = text.split()
    if len(words) <= max_words:
        return " ".join(words)
    head = " ".join(words[:max_words])
    end = max(head.rfind(". "), head.rfind("! "), head.rfind("? "))
    if head.endswith((".", "!", "?")):
        return head
    if end > 0:
        return head[:end + 1]
    return head.rstrip(".,;:") + "…"


def summarize(llm: LLM, text: str, *, previous_summary: str = "", max_words: int = 120) -> str:
    """Progressive summarisation: merge ``text`` into ``previous_summary``, at most ``max_words`` words.

    ``text`` is new conversation, e.g. lines like ``user: ...`` / ``assistant: ...``.
    One model call (none when there is nothing to summarise). The word limit
    is enforced on the reply, whatever the model does.

    Taught in notebooks/03_summary_memory.ipynb.
    """
    _require_llm(llm)
    require_text("text", text, allow_empty=True)
    require_text("previous_summary", previous_summary, allow_empty=True)
    require_positive_int("max_words", max_words)
    if not text.strip() and not previous_summary.strip():
        return ""
    messages = [{"role": "system", "content": SUMMARY_PROMPT.format(max_words=max_words)},
                {"role": "user", "content": _tagged("previous_summary", previous_summary.strip()) + "\n\n"
                 + _tagged("conversation", text.strip())}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected the summary text")
    return _limit_words(reply.strip(), max_words)


def _load_json(reply: str):
    """Parse a model's JSON reply, tolerating ```json fences and chatter around one object."""
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected JSON text")
    text = reply.strip()
    fenced = re.match(r"^```(?:json)?\s*(.*?)\s*```$", text, re.S | re.I)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first, last = text.find("{"), text.rfind("}")
        if 0 <= first < last:
            try:
                return json.loads(text[first:last + 1])
            except json.JSONDecodeError:
                pass
        raise ExtractionError(f"the model's reply is not valid JSON ({exc.msg} at line {exc.lineno} column "
                              f"{exc.colno}); it began {reply[:60]!r}") from None


def _parse_triples(reply: str) -> list[Triple]:
    data = _load_json(reply)
    if not isinstance(data, dict):
        raise ExtractionError(f'expected a JSON object with a "triples" list, got a JSON {type(data).__name__}')
    key = next((k for k in ("triples", "entities", "facts") if k in data), None)
    if key is None:
        raise ExtractionError(f'the JSON object has no "triples" list (its keys: {sorted(data)})')
    items = data[key]
    if not isinstance(items, list):
        raise ExtractionError(f'"{key}" must be a list, got {type(items).__name__}')
    triples = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise ExtractionError(f"{key}[{i}] must be an object, got {type(item).__name__}")
        attribute = item.get("attribute", item.get("key"))
        entity = item.get("entity", "User")
        value = item.get("value")
        if key == "entities" and "entity" not in item and isinstance(attribute, str) and "." in attribute:
            entity, attribute = attribute.split(".", 1)   # seed 001's shape: {"key": "Project.database"}
        for field, got in (("attribute", attribute), ("value", value), ("entity", entity)):
            if isinstance(got, bool) or not isinstance(got, (str, int, float)) or not str(got).strip():
                raise ExtractionError(f'{key}[{i}] needs a non-empty "{field}", got {got!r}')
        confidence = item.get("confidence", 0.0)   # no confidence: not sure at all (seed 001)
        try:
            confidence = float(confidence)
        except (TypeError, ValueError):
            raise ExtractionError(f'{key}[{i}]["confidence"] must be a number, got {confidence!r}') from None
        if not math.isfinite(confidence):
            raise ExtractionError(f'{key}[{i}]["confidence"] must be a finite number, got {confidence!r}')
        triples.append(Triple(str(entity).strip(), str(attribute).strip(), str(value).strip(),
                              min(max(confidence, 0.0), 1.0)))
    return triples


def extract_triples(llm: LLM, text: str, *, min_confidence: float = 0.7, on_error: str = "raise") -> list[Triple]:
    """Ask the model for ``(entity, attribute, value, confidence)`` triples; keep the confident ones.

    Seed 001's idea: a JSON extraction prompt, then a confidence filter
    (``confidence >= min_confidence``). If the reply is not the JSON asked for,
    ``on_error="raise"`` raises :class:`ExtractionError` naming what was wrong,
    ``on_error="warn"`` warns (:class:`ExtractionWarning`) and returns ``[]``.
    Either way nothing is returned half-parsed, so the caller's store is untouched.

    Taught in notebooks/04_entity_memory.ipynb.
    """
    _require_llm(llm)
    require_text("text", text, allow_empty=True)
    min_confidence = require_fraction("min_confidence", min_confidence)
    if on_error not in ("raise", "warn"):
        raise ValueError(f"on_error must be 'raise' or 'warn', got {on_error!r}")
    if not any(c.isalnum() for c in text):
        return []
    messages = [{"role": "system", "content": EXTRACTION_PROMPT},
                {"role": "user", "content": _tagged("message", text)}]
    reply = llm.complete(messages, json_mode=True)
    try:
        triples = _parse_triples(reply)
    except ExtractionError as exc:
        if on_error == "raise":
            raise
        warnings.warn(f"extraction skipped: {exc}", ExtractionWarning, stacklevel=2)
        return []
    return [t for t in triples if t.confidence >= min_confidence]


def score_importance(llm: LLM, text: str) -> float:
    """Ask the model how important ``text`` is to remember: a float in [0, 1].

    Replies like ``0.8``, ``Importance: 0.8``, ``8/10`` or ``{"importance": 0.8}`` are understood.
    Taught in notebooks/03_summary_memory.ipynb.
    """
    _require_llm(llm)
    require_text("text", text, allow_empty=True)
    if not any(c.isalnum() for c in text):
        return 0.0
    messages = [{"role": "system", "content": IMPORTANCE_PROMPT},
                {"role": "user", "content": _tagged("message", text)}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected a number")
    try:
        data = json.loads(reply)
        if isinstance(data, dict):
            data = next((v for k, v in data.items() if "importan" in k or k == "score"), None)
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            reply = str(data)
    except json.JSONDecodeError:
        pass
    m = re.search(r"(-?\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*100\b|out of 10\b)?", reply)
    if not m:
        raise ExtractionError(f"the model's reply has no importance score between 0 and 1: {reply[:60]!r}")
    value, scale = float(m.group(1)), (m.group(2) or "").replace(" ", "")
    if scale in ("%", "/100") or (scale == "" and 10 < value <= 100):
        value /= 100
    elif scale in ("/10", "outof10") or (scale == "" and 1 < value <= 10):
        value /= 10
    if not 0 <= value <= 1:
        raise ExtractionError(f"the model's importance score is outside [0, 1]: {reply[:60]!r}")
    return round(value, 2)


def _as_triple(name: str, value) -> Triple:
    if isinstance(value, Triple):
        return value
    if isinstance(value, tuple) and len(value) in (3, 4) and all(isinstance(v, str) for v in value[:3]):
        return Triple(*value)
    raise TypeError(f"{name} must be a Triple(entity, attribute, value, confidence), got {value!r}")


def find_contradiction(llm: LLM, old: Triple, new: Triple) -> bool:
    """Ask the model whether ``new`` contradicts ``old`` (same entity and attribute, another value).

    Taught in notebooks/04_entity_memory.ipynb.
    """
    _require_llm(llm)
    old, new = _as_triple("old", old), _as_triple("new", new)

    def fact(t: Triple) -> str:
        return json.dumps({"entity": t.entity, "attribute": t.attribute, "value": t.value})

    messages = [{"role": "system", "content": CONTRADICTION_PROMPT},
                {"role": "user", "content": _tagged("old_fact", fact(old)) + "\n" + _tagged("new_fact", fact(new))}]
    reply = llm.complete(messages)
    if not isinstance(reply, str):
        raise ExtractionError(f"the model returned {type(reply).__name__}, expected yes or no")
    try:
        data = json.loads(reply)
        if isinstance(data, dict) and isinstance(data.get("contradiction"), bool):
            return data["contradiction"]
    except json.JSONDecodeError:
        pass
    word = re.match(r"\W*(yes|no|true|false)\b", reply, re.I)
    if not word:
        raise ExtractionError(f"the model's reply is neither yes nor no: {reply[:60]!r}")
    return word.group(1).lower() in ("yes", "true")
