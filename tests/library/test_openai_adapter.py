"""OpenAICompatibleLLM against a small chat-completions server on 127.0.0.1.

The server is ``http.server`` in a thread on a free port; each test scripts
what it answers. No test talks to any other address.
"""
import json
import logging
import socket
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from teachmem.llm import (AuthenticationError, LLMError, LLMTimeoutError, MalformedResponseError,
                          OpenAICompatibleLLM, extract_triples, summarize)
from teachmem.core.tokens import estimate_tokens
from teachmem.memory.agent import MemoryAgent, tool_schemas

KEY = "sk-test-DoNotLeak-4f9a8b7c6d5e"
MESSAGES = [{"role": "user", "content": "Say hello"}]


def completion(content, usage=True):
    body = {"id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}]}
    if usage:
        body["usage"] = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    return body


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)
        self.script = []       # what to answer, one entry per request
        self.requests = []     # what was received

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests.append({"path": self.path, "headers": dict(self.headers),
                                     "body": json.loads(body)})
        status, payload, headers, delay = (self.server.script.pop(0) if self.server.script
                                           else (200, completion("hello"), {}, 0))
        if delay:
            time.sleep(delay)
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass   # the client gave up (the timeout test)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    srv = ChatServer()
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def answer(status=200, payload=None, headers=None, delay=0):
    return (status, completion("hello") if payload is None else payload, headers or {}, delay)


class Sleeps(list):
    """Stands in for time.sleep: records the delays instead of waiting."""

    def __call__(self, seconds):
        self.append(seconds)


def make(server, **kwargs):
    kwargs.setdefault("sleep", Sleeps())
    kwargs.setdefault("timeout", 5.0)
    return OpenAICompatibleLLM(server.base_url, "test-model", KEY, **kwargs)


def assert_no_key(*texts):
    for text in texts:
        assert KEY not in text
        assert "DoNotLeak" not in text


# --- success ----------------------------------------------------------------------

def test_success_sends_the_chat_completions_request(server):
    llm = make(server)
    assert llm.complete(MESSAGES) == "hello"
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["body"] == {"model": "test-model", "temperature": 0, "messages": MESSAGES}
    assert (llm.usage.calls, llm.usage.prompt_tokens, llm.usage.completion_tokens) == (1, 11, 7)


def test_json_mode_asks_for_a_json_object(server):
    server.script = [answer(payload=completion('{"triples": []}'))]
    assert make(server).complete(MESSAGES, json_mode=True) == '{"triples": []}'
    assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}


def test_usage_is_estimated_when_the_server_sends_none(server):
    server.script = [answer(payload=completion("hello there friend", usage=False))]
    llm = make(server)
    llm.complete(MESSAGES)
    assert llm.usage.prompt_tokens == estimate_tokens("Say hello")
    assert llm.usage.completion_tokens == estimate_tokens("hello there friend")


@pytest.mark.parametrize("suffix", ["", "/v1", "/v1/", "/v1/chat/completions"])
def test_base_url_forms_reach_the_same_path(server, suffix):
    root = server.base_url[:-len("/v1")]
    llm = OpenAICompatibleLLM(root + suffix, "m", sleep=Sleeps())
    llm.complete(MESSAGES)
    assert server.requests[-1]["path"] == "/v1/chat/completions"
    assert "Authorization" not in server.requests[-1]["headers"]   # no key, no header


def test_task_functions_run_over_the_wire(server):
    reply = {"triples": [{"entity": "User", "attribute": "name", "value": "Ada", "confidence": 0.9}]}
    server.script = [answer(payload=completion(json.dumps(reply))),
                     answer(payload=completion("Ada chose PostgreSQL for its JSONB support, then " + "x " * 40))]
    llm = make(server)
    assert [t.value for t in extract_triples(llm, "I'm Ada.")] == ["Ada"]
    summary = summarize(llm, "user: I'm Ada.", max_words=10)
    assert len(summary.split()) <= 10 and summary.startswith("Ada chose PostgreSQL")
    assert server.requests[0]["body"]["response_format"] == {"type": "json_object"}
    assert "response_format" not in server.requests[1]["body"]
    assert llm.usage.calls == 2


# --- timeouts and retries ------------------------------------------------------------

def test_timeout_raises_when_the_server_is_too_slow(server):
    server.script = [answer(delay=1.0)]
    llm = make(server, timeout=0.2, max_retries=0)
    with pytest.raises(LLMTimeoutError, match=r"did not answer within 0.2 s \(gave up after 1 attempt\)"):
        llm.complete(MESSAGES)
    assert llm.usage.calls == 0


def test_a_timeout_is_retried(server):
    server.script = [answer(delay=1.0), answer()]
    sleeps = Sleeps()
    assert make(server, timeout=0.2, max_retries=1, sleep=sleeps).complete(MESSAGES) == "hello"
    assert sleeps == [0.5]


def test_429_then_success_backs_off_with_growing_delays(server):
    server.script = [answer(429, {"error": {"message": "rate limited"}}),
                     answer(503, {"error": {"message": "overloaded"}}),
                     answer(429, {"error": {"message": "rate limited"}}),
                     answer()]
    sleeps = Sleeps()
    llm = make(server, max_retries=3, backoff=0.25, sleep=sleeps)
    assert llm.complete(MESSAGES) == "hello"
    assert sleeps == [0.25, 0.5, 1.0]
    assert len(server.requests) == 4 and llm.usage.calls == 1


def test_retry_after_header_is_honoured(server):
    server.script = [answer(429, {"error": "slow down"}, headers={"Retry-After": "3"}), answer()]
    sleeps = Sleeps()
    make(server, sleep=sleeps).complete(MESSAGES)
    assert sleeps == [3.0]


def test_500_every_time_gives_up_after_max_retries(server):
    server.script = [answer(500, {"error": {"message": "boom"}})] * 5
    sleeps = Sleeps()
    llm = make(server, max_retries=3, sleep=sleeps)
    with pytest.raises(LLMError, match=r"HTTP 500: boom \(gave up after 4 attempts\)") as caught:
        llm.complete(MESSAGES)
    assert caught.value.status == 500
    assert len(server.requests) == 4
    assert sleeps == [0.5, 1.0, 2.0]
    assert llm.usage.calls == 0


def test_client_errors_are_not_retried(server):
    server.script = [answer(404, {"error": {"message": "model 'test-model' not found"}})]
    sleeps = Sleeps()
    with pytest.raises(LLMError, match="HTTP 404: model 'test-model' not found") as caught:
        make(server, sleep=sleeps).complete(MESSAGES)
    assert caught.value.status == 404 and sleeps == [] and len(server.requests) == 1


def test_connection_refused_is_an_llm_error():
    with socket.socket() as probe:          # a port on 127.0.0.1 that nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    sleeps = Sleeps()
    llm = OpenAICompatibleLLM(f"http://127.0.0.1:{port}/v1", "m", KEY, max_retries=2, sleep=sleeps, timeout=2)
    with pytest.raises(LLMError, match="could not reach") as caught:
        llm.complete(MESSAGES)
    assert sleeps == [0.5, 1.0]
    assert_no_key(str(caught.value))


# --- clear errors ---------------------------------------------------------------------

def test_401_is_an_authentication_error_without_retry(server):
    server.script = [answer(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})]
    sleeps = Sleeps()
    with pytest.raises(AuthenticationError, match=r"HTTP 401.*Check the API key") as caught:
        make(server, sleep=sleeps).complete(MESSAGES)
    assert caught.value.status == 401 and sleeps == [] and len(server.requests) == 1
    assert_no_key(str(caught.value), repr(caught.value),
                  "".join(traceback.format_exception(caught.value)))


@pytest.mark.parametrize("payload, match", [
    (b"<html>502 Bad Gateway</html>", r"body is not valid JSON \(JSONDecodeError: Expecting value\).*<html>"),
    (b'{"choices": [', "body is not valid JSON"),
    (b"[1, 2, 3]", "expected an object with a 'choices' list"),
    ({"object": "chat.completion"}, r"no 'choices' list \(keys: \['object'\]\)"),
    ({"choices": []}, "no 'choices' list"),
    ({"choices": [{"message": {"role": "assistant", "content": None}}]}, r"choices\[0\]\.message\.content"),
])
def test_malformed_response_names_what_was_wrong(server, payload, match):
    server.script = [answer(200, payload)]
    llm = make(server)
    with pytest.raises(MalformedResponseError, match=match):
        llm.complete(MESSAGES)
    assert llm.usage.calls == 0


# --- the key stays secret -------------------------------------------------------------

def test_key_never_in_repr_or_str(server):
    llm = make(server)
    for text in (repr(llm), str(llm), repr(vars(llm)), str(llm.__dict__)):
        assert_no_key(text)
    assert "api_key='***'" in repr(llm)
    assert "api_key=None" in repr(OpenAICompatibleLLM(server.base_url, "m"))


def test_key_never_in_logs(server, caplog):
    server.script = [answer(429, {"error": {"message": f"too fast for key {KEY}"}}),
                     answer(500, {"error": {"message": f"internal error for {KEY}"}}),
                     answer(),
                     answer(401, {"error": {"message": f"bad key {KEY}"}})]
    llm = make(server, max_retries=3)
    with caplog.at_level(logging.DEBUG, logger="teachmem.llm"):
        llm.complete(MESSAGES)
        with pytest.raises(AuthenticationError):
            llm.complete(MESSAGES)
    assert len(caplog.records) >= 4                 # debug lines and two retry warnings were logged
    assert any(r.levelno == logging.WARNING and "retrying in" in r.getMessage() for r in caplog.records)
    assert_no_key(caplog.text, *(r.getMessage() for r in caplog.records))


def test_key_never_in_any_error_message(server):
    llm = make(server, max_retries=1)
    cases = [[answer(500, f"server echoed {KEY}".encode())] * 2,
             [answer(403, {"error": f"forbidden: {KEY}"})],
             [answer(200, f"garbage {KEY}".encode())],
             [answer(400, {"error": {"message": f"bad request with key {KEY[:-2]}"}})],   # a partial echo
             [answer(400, {"error": {"message": f"key ...{KEY[6:20]}... is invalid"}})],
             [answer(200, b"x" * 75 + KEY.encode())]]                      # across the preview's edge
    for script in cases:
        server.script = list(script)
        with pytest.raises(LLMError) as caught:
            llm.complete(MESSAGES)
        assert_no_key(str(caught.value), repr(caught.value), "".join(traceback.format_exception(caught.value)))


def test_a_key_without_a_prefix_is_hidden_too(server):
    plain_key = "0123456789abcdefXYZ"
    llm = OpenAICompatibleLLM(server.base_url, "m", plain_key, sleep=Sleeps())
    server.script = [answer(401, {"error": f"unknown key {plain_key} (also known as {plain_key[2:12]})"})]
    with pytest.raises(AuthenticationError) as caught:
        llm.complete(MESSAGES)
    assert plain_key[2:12] not in str(caught.value) and "unknown key ***" in str(caught.value)


def test_credentials_in_the_url_are_not_shown(server):
    port = server.server_address[1]
    llm = OpenAICompatibleLLM(f"http://user:hunter2@127.0.0.1:{port}/v1?api-key=abc123", "m", sleep=Sleeps())
    assert "hunter2" not in repr(llm) and "abc123" not in repr(llm)


# --- construction ---------------------------------------------------------------------

def test_from_env_reads_the_three_variables(server, monkeypatch):
    monkeypatch.setenv("TEACHMEM_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("TEACHMEM_LLM_MODEL", "env-model")
    monkeypatch.setenv("TEACHMEM_LLM_API_KEY", KEY)
    llm = OpenAICompatibleLLM.from_env(sleep=Sleeps())
    assert (llm.base_url, llm.model) == (server.base_url, "env-model")
    llm.complete(MESSAGES)
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {KEY}"
    assert server.requests[0]["body"]["model"] == "env-model"
    assert_no_key(repr(llm))


def test_from_env_with_another_prefix_and_no_key(server, monkeypatch):
    monkeypatch.setenv("OLLAMA_BASE_URL", server.base_url)
    monkeypatch.setenv("OLLAMA_MODEL", "llama3.2")
    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    llm = OpenAICompatibleLLM.from_env("OLLAMA", timeout=3.0)
    assert llm.timeout == 3.0 and "api_key=None" in repr(llm)


def test_from_env_names_the_missing_variable(monkeypatch):
    monkeypatch.delenv("TEACHMEM_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("TEACHMEM_LLM_MODEL", "m")
    with pytest.raises(ValueError, match="TEACHMEM_LLM_BASE_URL is not set"):
        OpenAICompatibleLLM.from_env()
    monkeypatch.setenv("TEACHMEM_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.delenv("TEACHMEM_LLM_MODEL")
    with pytest.raises(ValueError, match="TEACHMEM_LLM_MODEL is not set"):
        OpenAICompatibleLLM.from_env()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"base_url": "localhost:11434"}, ValueError, "base_url must start with http"),
    ({"base_url": ""}, ValueError, "base_url"),
    ({"model": ""}, ValueError, "model"),
    ({"api_key": 123}, TypeError, "api_key"),
    ({"timeout": 0}, ValueError, "timeout"),
    ({"timeout": float("inf")}, ValueError, "timeout"),
    ({"max_retries": -1}, ValueError, "max_retries"),
    ({"max_retries": 1.5}, TypeError, "max_retries"),
    ({"backoff": -0.1}, ValueError, "backoff"),
    ({"sleep": 5}, TypeError, "sleep"),
])
def test_constructor_validates_arguments(kwargs, error, match):
    args = {"base_url": "http://127.0.0.1:9/v1", "model": "m"} | kwargs
    with pytest.raises(error, match=match):
        OpenAICompatibleLLM(**args)


def test_bad_messages_never_reach_the_server(server):
    llm = make(server)
    with pytest.raises(ValueError, match="role"):
        llm.complete([{"role": "bot", "content": "hi"}])
    assert server.requests == []


# --- tool calling (the memory agent's loop) ---------------------------------------

def tool_completion(calls, content=None):
    body = completion(content)
    body["choices"][0]["message"]["tool_calls"] = calls
    body["choices"][0]["finish_reason"] = "tool_calls"
    return body


def test_tool_calling_sends_the_schemas_and_reads_the_calls(server):
    calls = [{"id": "call_1", "type": "function",
              "function": {"name": "core_memory_append", "arguments": '{"label": "human", "content": "name: Ada"}'}}]
    server.script = [answer(payload=tool_completion(calls))]
    history = MESSAGES + [{"role": "assistant", "content": "", "tool_calls": calls},
                          {"role": "tool", "tool_call_id": "call_1", "content": "OK"}]
    reply = make(server).complete_with_tools(history, tool_schemas())
    assert reply == {"role": "assistant", "content": "", "tool_calls": calls}
    body = server.requests[0]["body"]
    assert body["tools"] == tool_schemas() and body["tool_choice"] == "auto"
    assert body["messages"] == history       # the earlier calls and their results go back as sent


def test_tool_calling_without_calls_returns_the_text(server):
    server.script = [answer(payload=completion("All saved."))]
    reply = make(server).complete_with_tools(MESSAGES, [{"type": "function", "function": {"name": "f"}}])
    assert reply == {"role": "assistant", "content": "All saved.", "tool_calls": []}


@pytest.mark.parametrize("calls", [
    [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "not json"}}],
    [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "[1, 2]"}}],
    [{"id": "c", "type": "function", "function": {"arguments": "{}"}}],
    ["core_memory_append"],
    {"not": "a list"},
])
def test_malformed_tool_calls_are_a_clear_error(server, calls):
    server.script = [answer(payload=tool_completion(calls))]
    with pytest.raises(MalformedResponseError, match="tool_calls"):
        make(server).complete_with_tools(MESSAGES, [{"type": "function", "function": {"name": "f"}}])


def test_the_memory_agent_runs_on_a_real_endpoint(server):
    calls = [{"id": "call_1", "type": "function",
              "function": {"name": "core_memory_append", "arguments": '{"label": "human", "content": "name: Ada"}'}}]
    server.script = [answer(payload=tool_completion(calls)), answer(payload=completion("Hello Ada!"))]
    agent = MemoryAgent(make(server))
    step = agent.step("Hi, I'm Ada.")
    assert agent.core["human"] == "name: Ada" and step["reply"] == "Hello Ada!"
    assert [m["role"] for m in server.requests[1]["body"]["messages"]][-2:] == ["assistant", "tool"]
