"""The ``openai:MODEL`` backend driven through the real openai client against a scripted local server."""

from __future__ import annotations

import contextlib
import email.utils
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from chat_server import (
    ChatServer,
    Response,
    Script,
    context_overflow,
    dropped,
    error,
    free_port,
    malformed,
    rate_limited,
    reply,
    server_error,
    slow,
    unauthorized,
)
from webwise.errors import ConfigError, ContextOverflow, EndpointError, LLMError
from webwise.llm import ChatModel, ChatRequest, make_llm
from webwise.llm.cache import request_key
from webwise.llm.openai_backend import OpenAIModel
from webwise.llm.retry import parse_retry_after

REQUEST = ChatRequest(
    messages=[{"role": "system", "content": "You write programs."}, {"role": "user", "content": "Click OK."}],
    max_tokens=64,
    stop=("\n```\n",),
    task="click-button",
)


@pytest.fixture(autouse=True)
def fast_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Short backoff and timeout so retry tests take milliseconds; no stray cache or key."""
    monkeypatch.setenv("WEBWISE_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("WEBWISE_LLM_RETRIES", "3")
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "5")
    monkeypatch.delenv("WEBWISE_LLM_CACHE", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., tuple[ChatServer, ChatModel]]]:
    """``run(*script)`` starts a server with that script and returns it with a model pointed at it."""
    with contextlib.ExitStack() as stack:

        def start(*script: Script) -> tuple[ChatServer, ChatModel]:
            server = stack.enter_context(ChatServer(script))
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            model = make_llm("openai:test-model")
            stack.callback(model.close)
            return server, model

        yield start


def test_reply_tokens_and_request_shape(run) -> None:
    server, model = run(reply("```python\nclick('button', 'OK')\n```", prompt_tokens=57, completion_tokens=9))
    got = model.complete(REQUEST)
    assert got.text == "```python\nclick('button', 'OK')\n```"
    assert (got.prompt_tokens, got.completion_tokens) == (57, 9)
    assert got.extra["finish_reason"] == "stop" and got.extra["usage_estimated"] is False
    assert not got.cached
    sent = server.requests[0]
    assert sent["model"] == "test-model"
    assert sent["messages"] == REQUEST.messages
    assert sent["stop"] == ["\n```\n"] and sent["max_tokens"] == 64 and sent["temperature"] == 0.0
    assert server.headers[0]["authorization"].startswith("Bearer ")  # placeholder key when none is set


def test_no_stop_field_when_no_stop_sequences(run) -> None:
    server, model = run(reply())
    model.complete(ChatRequest(messages=REQUEST.messages))
    assert "stop" not in server.requests[0]


def test_seed_is_sent_only_when_the_request_has_one(run) -> None:
    server, model = run(reply(), reply())
    model.complete(REQUEST)
    model.complete(ChatRequest(**{**REQUEST.__dict__, "temperature": 0.7, "seed": 3}))
    assert "seed" not in server.requests[0]
    assert (server.requests[1]["seed"], server.requests[1]["temperature"]) == (3, 0.7)


def test_a_refused_field_is_dropped_once_and_other_400s_still_fail(run) -> None:
    refusal = Response(status=400, body={"error": {"message": "Unsupported parameter: 'stop' is not supported with "
                                                   "this model.", "type": "invalid_request_error", "param": "stop",
                                                   "code": "unsupported_parameter"}})
    other = Response(status=400, body={"error": {"message": "Invalid value for 'messages'.", "param": "messages",
                                                 "code": "invalid_value"}})
    server, model = run(refusal, reply(), other)
    assert model.complete(REQUEST).extra["refused"] == ["stop"]
    with pytest.raises(LLMError, match="HTTP 400 .*Invalid value for 'messages'"):
        model.complete(REQUEST)
    assert ["stop" in sent for sent in server.requests] == [True, False, False]
    assert model.complete(REQUEST).extra["refused"] == ["stop"]


def test_api_key_from_environment(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    server, model = run(reply())
    model.complete(REQUEST)
    assert server.headers[0]["authorization"] == "Bearer sk-real"


def test_missing_usage_is_estimated(run) -> None:
    _, model = run(reply("x" * 40, usage=False))
    got = model.complete(REQUEST)
    assert got.completion_tokens == 10 and got.prompt_tokens > 0
    assert got.extra["usage_estimated"] is True


@pytest.mark.parametrize(
    "failure", [server_error(500), server_error(503), rate_limited(), dropped()], ids=["500", "503", "429", "drop"]
)
def test_transient_failures_are_retried(run, failure) -> None:
    server, model = run(failure, failure, reply("done"))
    got = model.complete(REQUEST)
    assert got.text == "done"
    assert len(server.requests) == 3 and got.extra["attempts"] == 3


def test_gives_up_after_the_retry_budget(run) -> None:
    server, model = run(*[server_error()] * 10)
    with pytest.raises(EndpointError, match=rf"^openai:test-model: HTTP 500 from {server.base_url} after 4 attempts: "
                                            "The server had an error"):
        model.complete(REQUEST)
    assert len(server.requests) == 4  # WEBWISE_LLM_RETRIES=3 -> 4 attempts


def test_retry_after_seconds_is_honoured(run) -> None:
    server, model = run(rate_limited("1"), reply("after wait"))
    start = time.monotonic()
    assert model.complete(REQUEST).text == "after wait"
    assert time.monotonic() - start >= 0.95
    assert len(server.requests) == 2


def test_retry_after_http_date() -> None:
    now = time.time()
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after({"retry-after-ms": "250"}) == 0.25
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_retry_after_is_capped(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBWISE_LLM_MAX_WAIT", "0.2")
    _, model = run(rate_limited("3600"), reply("capped"))
    start = time.monotonic()
    assert model.complete(REQUEST).text == "capped"
    assert time.monotonic() - start < 2


def test_timeout_is_retried_then_reported(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "0.3")
    monkeypatch.setenv("WEBWISE_LLM_RETRIES", "1")
    server, model = run(slow(3), slow(3))
    with pytest.raises(EndpointError, match=rf"^openai:test-model: no answer from {server.base_url} after 2 attempts "
                                            r"\(WEBWISE_LLM_TIMEOUT 0.3 s an attempt, WEBWISE_LLM_DEADLINE 300 s a call\)$"):
        model.complete(REQUEST)
    assert len(server.requests) == 2


def test_a_hung_endpoint_costs_the_deadline_not_timeout_times_attempts(run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34: 120 s x 6 attempts was 751 s a call; the deadline bounds the call, waits included."""
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "1")
    monkeypatch.setenv("WEBWISE_LLM_RETRIES", "20")
    monkeypatch.setenv("WEBWISE_LLM_DEADLINE", "2.5")
    server, model = run(*[slow(60)] * 30)
    start = time.monotonic()
    with pytest.raises(EndpointError, match="no answer from .* after 3 attempts"):
        model.complete(REQUEST)
    assert 2.4 < time.monotonic() - start < 4
    assert len(server.requests) == 3  # 1 s, 1 s, then the half second left


def test_a_failed_connection_names_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    model = make_llm("openai:test-model")
    try:
        with pytest.raises(EndpointError, match=rf"^openai:test-model: cannot connect to {url} after 4 attempts: "
                                                ".*[Cc]onnection refused") as info:
            model.complete(REQUEST)
    finally:
        model.close()
    assert "\n" not in str(info.value)


def test_timeout_then_success(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "0.3")
    server, model = run(slow(3), reply("fast"))
    assert model.complete(REQUEST).text == "fast"
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        (unauthorized(), r"^openai:test-model: HTTP 401 from \S+: Incorrect API key provided.*check OPENAI_API_KEY"),
        (error(400, "temperature must be <= 2"), r"^openai:test-model: HTTP 400 from \S+: temperature must be <= 2$"),
        (error(404, "The model `test-model` does not exist"), r"HTTP 404.*the model name"),
    ],
    ids=["401", "400", "404"],
)
def test_client_errors_are_not_retried(run, failure, message) -> None:
    server, model = run(failure, reply("never"))
    with pytest.raises((LLMError, ConfigError), match=message) as info:
        model.complete(REQUEST)
    assert not isinstance(info.value, ContextOverflow)
    assert isinstance(info.value, ConfigError) == (" 400" not in message)  # a bad key or model is configuration
    assert not isinstance(info.value, EndpointError)  # the request's fault, not the endpoint's: no rerun
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "overflow",
    [
        context_overflow(),
        error(
            400,
            "request (9000 tokens) exceeds the available context size (8192 tokens)",
            type_="exceed_context_size_error",
        ),
    ],
    ids=["openai", "llama.cpp"],
)
def test_context_overflow(run, overflow) -> None:
    server, model = run(overflow)
    with pytest.raises(ContextOverflow, match=r"^openai:test-model: prompt does not fit the context window: "):
        model.complete(REQUEST)
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    "body",
    [malformed(), Response(body='{"choices": []}'), Response(body='{"choices": [{"message": "hi"}]}'),
     Response(body="[]"), Response(body='{"choices": [{"message": {"content": ["hi"]}}]}')],
    ids=["not-json", "no-choices", "message-not-object", "list", "content-not-text"],
)
def test_malformed_bodies_are_retried_then_reported(run, body) -> None:
    """A body cut short by a proxy, or junk from a server restarting, is asked again like a
    dropped connection; one that stays junk ends the call in one line (it used to end at once)."""
    server, model = run(*[body] * 10)
    with pytest.raises(EndpointError, match=rf"^openai:test-model: malformed response from {server.base_url} "
                                            "after 4 attempts: ") as info:
        model.complete(REQUEST)
    assert "\n" not in str(info.value) and "ChatCompletion(" not in str(info.value)
    assert len(server.requests) == 4


def test_a_malformed_body_then_a_reply_is_the_reply(run) -> None:
    server, model = run(Response(body='{"choices": [ cut sho'), reply("done"))
    got = model.complete(REQUEST)
    assert (got.text, got.extra["attempts"], len(server.requests)) == ("done", 2, 2)


def test_a_null_reply_says_so_in_one_line() -> None:
    """Issue 34: a null content printed the client object's repr; it is the model saying nothing."""
    body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "length"}]}
    with ChatServer([Response(body=body)]) as server:
        model = OpenAIModel("test-model", base_url=server.base_url)
        try:
            with pytest.raises(LLMError) as info:
                model.complete(REQUEST)
        finally:
            model.close()
    assert str(info.value) == (f"openai:test-model: the reply from {server.base_url} has no text "
                               "(message content null, finish_reason 'length')")
    assert not isinstance(info.value, EndpointError)


def test_cache_answers_the_second_identical_request(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEBWISE_LLM_CACHE", str(tmp_path / "cache"))
    server, model = run(reply("first", prompt_tokens=11), reply("second"))
    one = model.complete(REQUEST)
    again = model.complete(ChatRequest(**{**REQUEST.__dict__, "task": "other-task", "call_index": 3}))
    assert (one.cached, again.cached) == (False, True)
    assert again.text == "first" and again.prompt_tokens == 11
    assert len(server.requests) == 1
    different = model.complete(ChatRequest(**{**REQUEST.__dict__, "max_tokens": 65}))
    assert (different.text, different.cached) == ("second", False)
    assert len(server.requests) == 2


def test_cache_keys_seeded_requests_apart_and_keeps_unseeded_keys() -> None:
    """Caches written before requests carried seeds must still answer temperature-0 runs."""
    assert request_key("openai:test-model", REQUEST) == \
        "a274a0ceb513ad13921e4c78656ec77fbcb4f3ef6270298abd9951665f4ab928"
    seeded = [ChatRequest(**{**REQUEST.__dict__, "temperature": 0.7, "seed": seed}) for seed in (1, 2)]
    keys = {request_key("openai:test-model", request) for request in [REQUEST, *seeded]}
    assert len(keys) == 3


def test_cache_survives_a_new_process_and_ignores_torn_entries(run, tmp_path: Path) -> None:
    server, model = run(reply("kept"), reply("fresh"))
    cached = make_llm("openai:test-model", cache_dir=tmp_path)
    assert cached.complete(REQUEST).text == "kept"
    again = make_llm("openai:test-model", cache_dir=tmp_path)
    assert again.complete(REQUEST).cached
    (entry,) = tmp_path.glob("*/*.json")
    entry.write_text('{"text": "tor')
    assert again.complete(REQUEST).text == "fresh"
    assert len(server.requests) == 2
    cached.close()
    again.close()
