"""OpenAICompatibleLLM: a real model behind any ``/v1/chat/completions`` endpoint.

OpenAI, Ollama, a llama.cpp server, vLLM and anything else that speaks the
same wire format, with the standard library only: retries with backoff, clear
errors, and an API key that never shows up in a repr, a log line or an error.

Taught in notebooks/03_summary_memory.ipynb.
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
from typing import Any, Callable

from teachmem.core.tokens import estimate_tokens
from teachmem.core.validate import require_int_at_least, require_text
from teachmem.llm.protocol import (AuthenticationError, LLMError, LLMTimeoutError, MalformedResponseError, Usage,
                                   check_messages, check_tools)

__all__ = ["OpenAICompatibleLLM"]

logger = logging.getLogger(__name__)


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
    def from_env(cls, prefix: str = "TEACHMEM_LLM", **kwargs: Any) -> OpenAICompatibleLLM:
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
        """Send chat messages, return the reply text. Taught in notebooks/04_entity_memory.ipynb."""
        messages = check_messages(messages)
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": m["role"], "content": m["content"]} for m in messages]}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        data = self._post(json.dumps(body).encode("utf-8"))
        content = self._content(data)
        self._record_usage(data, messages, content)
        return content

    def complete_with_tools(self, messages: list[dict], tools: list[dict]) -> dict:
        """Send chat messages and function-calling ``tools``; return the assistant message,
        ``{"role": "assistant", "content": str, "tool_calls": [...]}``, in the wire format (each call's
        ``function.arguments`` a JSON object as text). ``messages`` may hold the assistant's earlier
        ``tool_calls`` and ``{"role": "tool", "tool_call_id": ..., "content": ...}`` results.

        Taught in notebooks/11_memory_as_tools.ipynb.
        """
        messages = check_messages(messages)
        check_tools(tools)
        wire = [{k: m[k] for k in ("role", "content", "tool_calls", "tool_call_id") if k in m} for m in messages]
        body = {"model": self.model, "temperature": 0, "messages": wire, "tools": list(tools), "tool_choice": "auto"}
        data = self._post(json.dumps(body).encode("utf-8"))
        message = self._message(data)
        calls = message.get("tool_calls") or []
        content = message.get("content") or ""
        if not isinstance(calls, list) or not isinstance(content, str):
            raise MalformedResponseError("response has no list at choices[0].message.tool_calls")
        for i, call in enumerate(calls):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                function = {}
            try:
                arguments = json.loads(function["arguments"])
            except (TypeError, KeyError, json.JSONDecodeError):
                arguments = None
            if not isinstance(arguments, dict) or not isinstance(function.get("name"), str):
                raise MalformedResponseError(f"tool_calls[{i}] must name a function and give its arguments as "
                                             f"a JSON object, got {call!r:.120}")
        self._record_usage(data, messages, content + json.dumps(calls))
        return {"role": "assistant", "content": content, "tool_calls": calls}

    def _record_usage(self, data: dict, messages: list[dict], reply: str) -> None:
        """Count the call: the endpoint's own token counts when it reports them, else estimates."""
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        prompt_tokens, completion_tokens = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if not (isinstance(prompt_tokens, int) and isinstance(completion_tokens, int)):
            prompt_tokens = sum(estimate_tokens(m["content"]) for m in messages)
            completion_tokens = estimate_tokens(reply)
        self.usage.record(prompt_tokens, completion_tokens)

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

    def _message(self, data: dict) -> dict:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise MalformedResponseError(f"response has no 'choices' list (keys: {sorted(data)})")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise MalformedResponseError("response has no message at choices[0].message")
        return message

    def _content(self, data: dict) -> str:
        content = self._message(data).get("content")
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
