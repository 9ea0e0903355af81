"""The ``openai:MODEL`` backend driven through the real openai client against a scripted local server."""

from __future__ import annotations

import contextlib
import dataclasses
import email.utils
import json
import socket
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from chat_server import (
    JSON,
    ChatServer,
    Response,
    Script,
    completion,
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
from webwise.llm.base import estimate_tokens
from webwise.llm.cache import request_key
from webwise.llm.openai_backend import OpenAIModel
from webwise.llm.retry import parse_retry_after

REQUEST = ChatRequest(
    messages=[{"role": "system", "content": "You write programs."}, {"role": "user", "content": "Click OK."}],
    max_tokens=64,
    stop=("\n```\n",),
    task="click-button",
)


@dataclasses.dataclass
class Paced(Response):
    """A 200 whose body goes out a byte every ``pause`` seconds (0: at once), and stops after
    ``cut`` bytes with the connection closed (None: the whole body)."""

    pause: float = 0.0
    cut: int | None = None


class PacedServer(ChatServer):
    """A :class:`ChatServer` that also sends :class:`Paced` answers: a server trickling its
    body, or one dying in the middle of it. Other answers go out as usual."""

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        base, server = super()._handler_class(), self

        class Handler(base):  # type: ignore[valid-type,misc]
            def _send(self, response: Response) -> None:
                if not isinstance(response, Paced):
                    super()._send(response)
                    return
                payload = (response.body if isinstance(response.body, str) else json.dumps(response.body)).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                sent = payload[:response.cut]
                step = 1 if response.pause else max(len(sent), 1)
                for start in range(0, len(sent), step):
                    self.wfile.write(sent[start:start + step])
                    if server._stopping.wait(response.pause):  # the test is over
                        return
                if response.cut is not None:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)

        return Handler


def trickle(pause: float = 0.05) -> Paced:
    """A completion sent a byte every ``pause`` seconds: each read gets a byte well within any timeout."""
    return Paced(body=completion("late"), pause=pause)


def cut_off(after: int = 100) -> Paced:
    """A completion whose connection closes after ``after`` bytes of its body."""
    return Paced(body=completion("cut"), cut=after)


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
            server = stack.enter_context(PacedServer(script))
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


def with_usage(usage: JSON, text: str = "x" * 40) -> Response:
    """A completion whose ``usage`` is ``usage``, as the server sends it."""
    body = completion(text)
    body["usage"] = usage
    return Response(body=body)


@pytest.mark.parametrize(
    "usage",
    [{"prompt_tokens": -5, "completion_tokens": -1}, {"prompt_tokens": True, "completion_tokens": False},
     {"prompt_tokens": 10**30, "completion_tokens": 10**30}, {"prompt_tokens": 57, "completion_tokens": -1}],
    ids=["negative", "bool", "absurd", "one-negative"],
)
def test_counts_that_are_no_counts_are_estimated(run, usage) -> None:
    """Audit D4: a server's -5 failed the episode (a ChatReply below 0), ``true`` was recorded
    as 1 token and 10**30 summed into the tables; such a count is treated as missing."""
    _, model = run(with_usage(usage))
    got = model.complete(REQUEST)
    prompt = estimate_tokens("".join(message["content"] for message in REQUEST.messages))
    assert (got.prompt_tokens, got.completion_tokens, got.extra["usage_estimated"]) == (prompt, 10, True)


@pytest.mark.parametrize(("cached", "kept"), [(20, 20), (57, 57), (-3, None), (58, None)],
                         ids=["part", "all", "negative", "above-prompt"])
def test_cached_tokens_are_kept_only_as_a_part_of_the_prompt(run, cached, kept) -> None:
    """Audit D4: a ``cached_tokens`` of -3 was recorded; it is of ``prompt_tokens``, so one
    below 0 or above them is dropped (the call's ``cached_tokens`` is then null)."""
    usage = {"prompt_tokens": 57, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": cached}}
    _, model = run(with_usage(usage))
    got = model.complete(REQUEST)
    assert got.extra.get("cached_prompt_tokens") == kept
    assert (got.prompt_tokens, got.completion_tokens, got.extra["usage_estimated"]) == (57, 9, False)


def test_a_reply_cut_while_thinking_is_asked_again_and_both_cost(run) -> None:
    """The stop sequence cut the thinking at its first code block: asked again without it,
    the call costs both completions' tokens and counts both requests as attempts (audit D5:
    the first one was counted nowhere)."""
    thinking = "\n <think>\nMaybe:\n```python\nclick('button', 'OK')"
    answer = "<think>\nMaybe:\n```python\nclick('button', 'OK')\n```\n</think>\n```python\nclick('button', 'OK')\n```"
    server, model = run(reply(thinking, prompt_tokens=50, completion_tokens=12),
                        reply(answer, prompt_tokens=50, completion_tokens=30), reply("next"))
    got = model.complete(REQUEST)
    assert got.text == answer
    assert (got.prompt_tokens, got.completion_tokens, got.extra["attempts"]) == (100, 42, 2)
    assert got.extra["refused"] == ["stop"] and got.extra["usage_estimated"] is False
    model.complete(REQUEST)
    assert ["stop" in sent for sent in server.requests] == [True, False, False]


@pytest.mark.parametrize(
    "text",
    ["The task says <think> is the label:\n```python\nclick('button', '<think>')",
     "```python\nclick('button', 'OK')  # <think>"],
    ids=["prose", "code"],
)
def test_a_think_tag_later_in_the_reply_is_no_thinking(run, text) -> None:
    """Audit D5: any ``<think>`` without ``</think>`` asked again and dropped the stop sequence
    for the rest of the run; only a reply that opens with the block was thinking."""
    server, model = run(reply(text), reply())
    got = model.complete(REQUEST)
    assert (got.text, got.extra["attempts"], got.extra["refused"]) == (text, 1, [])
    model.complete(REQUEST)
    assert ["stop" in sent for sent in server.requests] == [True, True]


@pytest.mark.parametrize(
    "failure", [server_error(500), server_error(503), rate_limited(), dropped(), cut_off()],
    ids=["500", "503", "429", "drop", "cut-off"],
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


def test_a_body_sent_a_byte_at_a_time_is_cut_at_the_deadline(run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Audit D1: httpx's timeout bounds each read, and a byte came every 0.05 s, so the call
    ran as long as the server liked (a 100 KB body at 0.5 s a byte: 14 hours). Each attempt
    now ends at its time and the call at its deadline, as for a server that says nothing."""
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "0.6")
    monkeypatch.setenv("WEBWISE_LLM_RETRIES", "20")
    monkeypatch.setenv("WEBWISE_LLM_DEADLINE", "1.5")
    server, model = run(*[trickle()] * 30)
    start = time.monotonic()
    with pytest.raises(EndpointError, match=rf"^openai:test-model: no answer from {server.base_url} after 3 attempts "
                                            r"\(WEBWISE_LLM_TIMEOUT 0.6 s an attempt, WEBWISE_LLM_DEADLINE 1.5 s a call\)$"):
        model.complete(REQUEST)
    assert 1.4 < time.monotonic() - start < 3
    assert len(server.requests) == 3  # 0.6 s, 0.6 s, then the 0.3 s left


def test_each_thread_s_attempt_keeps_its_own_time(run, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bench workers share one model: a call answered in another thread while this one waits
    for its headers must not take this attempt's watchdog, nor its time."""
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "0.8")
    monkeypatch.setenv("WEBWISE_LLM_RETRIES", "0")
    slow = ChatRequest(messages=[{"role": "user", "content": "slow"}])
    late = dataclasses.replace(trickle(), delay=0.3)  # its headers come after the other call's answer

    def answer(body: JSON) -> Response:
        return late if body["messages"][-1]["content"] == "slow" else reply("fast")

    _, model = run(answer, answer)
    start = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(model.complete, slow)
        time.sleep(0.1)
        assert model.complete(REQUEST).text == "fast"
        with pytest.raises(EndpointError, match="no answer from"):
            waiting.result(timeout=10)
    assert time.monotonic() - start < 2


def test_a_body_cut_off_midway_is_retried_then_named_so(run) -> None:
    """Audit D12: the endpoint answered and the body stopped halfway; that read "cannot
    connect to URL", sending the user after a firewall that is not there."""
    server, model = run(*[cut_off()] * 10)
    with pytest.raises(EndpointError, match=rf"^openai:test-model: the response from {server.base_url} was cut off "
                                            "after 4 attempts: peer closed connection without sending complete "
                                            r"message body \(received 100 bytes, expected \d+\)$"):
        model.complete(REQUEST)
    assert len(server.requests) == 4


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
    ("failure", "message", "config"),
    [
        (unauthorized(), r"^openai:test-model: HTTP 401 from \S+: Incorrect API key provided.*check OPENAI_API_KEY",
         True),
        (error(402, "insufficient_quota: You exceeded your current quota", code="insufficient_quota"),
         r"^openai:test-model: HTTP 402 from \S+: insufficient_quota: You exceeded your current quota "
         r"\(check the account's credit or quota\)$", True),
        (error(400, "temperature must be <= 2"), r"^openai:test-model: HTTP 400 from \S+: temperature must be <= 2$",
         False),
        (error(404, "The model `test-model` does not exist"), r"HTTP 404.*the model name", True),
        (error(405, "Method Not Allowed"), r"HTTP 405 .*check OPENAI_API_KEY, OPENAI_BASE_URL", True),
        (error(410, "The model `test-model` was retired"), r"HTTP 410 .*the model name", True),
        (error(413, "Request Entity Too Large"), r"^openai:test-model: HTTP 413 from \S+: Request Entity Too Large$",
         False),
        (error(415, "Unsupported Media Type"), r"^openai:test-model: HTTP 415 from \S+: Unsupported Media Type$",
         False),
    ],
    ids=["401", "402", "400", "404", "405", "410", "413", "415"],
)
def test_client_errors_are_not_retried(run, failure, message, config) -> None:
    """A status every later call would get too (a wrong key, URL or model, no credit: audit D8
    counted a 402 as the agent's failure) stops the run; one about this request fails the call."""
    server, model = run(failure, reply("never"))
    with pytest.raises((LLMError, ConfigError), match=message) as info:
        model.complete(REQUEST)
    assert not isinstance(info.value, ContextOverflow)
    assert isinstance(info.value, ConfigError) == config
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
     Response(body="[]"), Response(body='{"choices": [{"message": {"content": ["hi"]}}]}'),
     Response(body='{"choices": {"0": {"message": {"content": "hi"}}}}'), Response(body='{"choices": 1}'),
     Response(body='{"a":' * 100_000 + "1" + "}" * 100_000)],
    ids=["not-json", "no-choices", "message-not-object", "list", "content-not-text", "choices-dict", "choices-number",
         "nested-100000-deep"],
)
def test_malformed_bodies_are_retried_then_reported(run, body) -> None:
    """A body cut short by a proxy, or junk from a server restarting, is asked again like a
    dropped connection; one that stays junk ends the call in one line (it used to end at once).
    Audit D3: a ``choices`` dict or number, and JSON too deep to read, raised KeyError, TypeError
    and RecursionError out of the backend, recorded as the agent's failure."""
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
