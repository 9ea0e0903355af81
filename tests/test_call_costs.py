"""Where a run's model time goes: one record per call in the episode, a table per run.

The embedded model's timings are checked for real in ``test_llm_local.py`` (marked
``model``); here the records come from the replay backend and from the real ``openai``
client against the local chat server, through real episodes in headless Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import webwise
from chat_server import ChatServer, Response, completion
from webwise import cli, tables
from webwise.extraction import chars_past_block
from webwise.llm import make_llm

SOLVED = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"


@pytest.mark.parametrize(("reply", "past"), [
    ("```python\nclick('a', 'b')", 0),  # stopped at the closing fence: nothing past it
    ("```python\nclick('a', 'b')\n```", 0),
    ("Here:\n```python\nclick('a', 'b')\n```\nThis clicks b.", len("\nThis clicks b.")),
    ("no code at all", 0),
])
def test_chars_past_block(reply: str, past: int) -> None:
    assert chars_past_block(reply) == past


def test_every_call_of_an_episode_is_recorded(tmp_path: Path) -> None:
    """A step that raised, a step that solved: one call each, in order, with what it cost."""
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"click-button": [
        "```python\nclick('button', 'no such button')\n```\nThat clicks it.", SOLVED]}))
    episode = webwise.solve("click-button", seed=1, llm=f"replay:{replies}", examples="none")
    assert episode.success and episode.llm_calls == 2
    first, second = episode.calls
    assert (first.kind, first.step, first.trial) == ("step", 0, 0)
    assert (second.kind, second.step) == ("step", 1)
    assert first.past_block == len("\nThat clicks it.") and second.past_block == 0
    assert first.prompt_tokens == episode.trace[0].prompt_tokens
    assert first.prompt_ms is None and first.cached_tokens is None  # replay reports no timings
    assert episode.to_dict()["calls"][1]["kind"] == "step"


def test_a_review_between_trials_is_recorded_as_such(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"click-button": [
        "```python\nclick('button', 'no such button')\n```", "Step: 1\n```python\nclick('button', 'x')\n```",
        SOLVED, SOLVED]}))
    episode = webwise.solve("click-button", seed=2, llm=f"replay:{replies}", examples="none", max_steps=1,
                            trials=2)
    kinds = [(call.kind, call.trial) for call in episode.calls]
    assert ("review", 0) in kinds
    assert kinds[0] == ("step", 0) and kinds[-1][0] == "step" and kinds[-1][1] == 1


def test_cached_prompt_tokens_from_an_openai_compatible_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    body = completion(SOLVED, prompt_tokens=900, completion_tokens=30)
    body["usage"]["prompt_tokens_details"] = {"cached_tokens": 768}
    with ChatServer([Response(body=body)]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("WEBWISE_LLM_CACHE", raising=False)
        llm = make_llm("openai:test-model")
        try:
            episode = webwise.solve("click-button", seed=0, llm=llm, examples="none")
        finally:
            llm.close()
    assert episode.success
    (call,) = episode.calls
    assert (call.prompt_tokens, call.cached_tokens, call.completion_tokens) == (900, 768, 30)
    assert call.finish == "stop"


def reasoning_endpoint(body: dict[str, object]) -> Response:
    """Answers like OpenAI's reasoning models: 400 for ``max_tokens``, ``stop`` or a temperature
    other than 1 (their error bodies, word for word), else a think block and then the program."""
    for field, code, message in (
        ("max_tokens", "unsupported_parameter",
         "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."),
        ("stop", "unsupported_parameter", "Unsupported parameter: 'stop' is not supported with this model."),
        ("temperature", "unsupported_value",
         "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is "
         "supported."),
    ):
        if field in body and not (field == "temperature" and body[field] == 1):
            return Response(status=400, body={"error": {"message": message, "type": "invalid_request_error",
                                                        "param": field, "code": code}})
    return Response(body=completion("<think>\nMaybe Cancel?\n```python\nclick('button', 'Cancel')\n```\nNo.\n"
                                    "</think>\n" + SOLVED))


def two_episodes(endpoint: Callable[[dict[str, object]], Response],
                 monkeypatch: pytest.MonkeyPatch) -> tuple[ChatServer, list[webwise.Episode]]:
    """Two click-button episodes in one session against ``endpoint``: what the backend learnt in
    the first still holds in the second."""
    with ChatServer(default=endpoint) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("WEBWISE_LLM_CACHE", raising=False)
        with webwise.Session("openai:o-test") as session:
            episodes = [session.run("click-button", seed=seed, examples="none") for seed in (0, 1)]
    return server, episodes


def test_a_reasoning_model_s_refused_fields_are_dropped_and_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    server, episodes = two_episodes(reasoning_endpoint, monkeypatch)
    assert all(episode.success for episode in episodes)
    assert [call.refused for e in episodes for call in e.calls] == [["max_tokens", "stop", "temperature"]] * 2
    assert len(server.requests) == 5  # three refusals, learnt once, then one request per episode
    last = server.requests[-1]
    assert "max_tokens" not in last and "stop" not in last and "temperature" not in last
    assert last["max_completion_tokens"] == server.requests[0]["max_tokens"]


def thinking_endpoint(body: dict[str, object]) -> Response:
    """A model that thinks in its reply's text, writing code while it thinks, on a server that
    applies the stop sequence to all of it (llama.cpp's ``llama-server`` without a reasoning parser)."""
    thinking = "<think>\nFirst try:\n```python\nclick('button', 'Cancel')\n```\nNo, the task names another.\n"
    if "stop" in body:
        return Response(body=completion(thinking.split("\n```\n")[0]))  # cut where the stop sequence is
    return Response(body=completion(thinking + "</think>\n" + SOLVED))


def test_a_stop_sequence_that_cuts_the_thinking_is_no_longer_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    server, episodes = two_episodes(thinking_endpoint, monkeypatch)
    assert all(episode.success for episode in episodes)
    assert [call.refused for e in episodes for call in e.calls] == [["stop"]] * 2
    assert ["stop" in sent for sent in server.requests] == [True, False, False]


def test_the_token_budget_reaches_a_reasoning_model_from_the_command_line(monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    with ChatServer(default=reasoning_endpoint) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("WEBWISE_LLM_CACHE", raising=False)
        status = cli.main(["solve", "--task", "click-button", "--examples", "none", "--llm", "openai:o-test",
                           "--max-tokens", "3000", "--json"])
    assert status == 0, capsys.readouterr().err
    assert server.requests[0]["max_tokens"] == 3000 and server.requests[-1]["max_completion_tokens"] == 3000
    assert json.loads(capsys.readouterr().out)["calls"][0]["refused"] == ["max_tokens", "stop", "temperature"]


def _record(calls: list[dict[str, object]]) -> dict[str, object]:
    return {"task": "click-button", "seed": 0, "method": "webwise", "examples": "manual", "llm": "local:0.5b",
            "success": True, "steps": 1, "llm_calls": len(calls), "calls": calls}


def test_the_tables_say_where_the_model_time_went() -> None:
    call = {"kind": "step", "seconds": 2.0, "prompt_tokens": 1000, "cached_tokens": 800, "prompt_ms": 1200.0,
            "completion_tokens": 40, "generate_ms": 800.0, "draft_tokens": 0, "draft_accepted": 0, "past_block": 0}
    records = [_record([call, {**call, "past_block": 12, "cached_tokens": 600}]),
               _record([{**call, "from_cache": True, "seconds": 0.01}])]  # a cache hit: no model ran
    spent = tables.cost(records)
    assert spent is not None and spent.calls == 2
    assert spent.computed == pytest.approx(300) and spent.prompt_s == pytest.approx(1.2)
    assert spent.past_block == pytest.approx(0.5) and spent.drafted is None
    text = tables.markdown(tables.compute(records))
    assert "### Model calls" in text and "| 2 | 2.00 | 1000 | 300 | 1.20 | 40.0 | 0.80 | - | 50% |" in text


def test_records_without_calls_have_no_cost_table() -> None:
    record = _record([])
    del record["calls"]
    assert tables.cost([record]) is None
    assert "### Model calls" not in tables.markdown(tables.compute([record]))


def test_speed_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from webwise.errors import ConfigError
    from webwise.llm.local import Tuning

    assert Tuning.from_env() == Tuning(slots=1, draft="none")
    monkeypatch.setenv("WEBWISE_LOCAL_SLOTS", "2")
    monkeypatch.setenv("WEBWISE_LOCAL_DRAFT", "ngram")
    monkeypatch.setenv("WEBWISE_LOCAL_CACHE_MIB", "0")
    assert Tuning.from_env() == Tuning(slots=2, draft="ngram")
    for name, bad in (("WEBWISE_LOCAL_DRAFT", "fast"), ("WEBWISE_LOCAL_SLOTS", "0")):
        monkeypatch.setenv(name, bad)
        with pytest.raises(ConfigError, match=name):
            Tuning.from_env()
        monkeypatch.delenv(name)


def test_the_host_ram_prompt_cache_cannot_be_turned_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp's host-RAM cache let replies go on with another task's text, with two slots
    and with one: asking for it is a one-line error, not a silently mixed run."""
    from webwise.errors import ConfigError
    from webwise.llm.local import Tuning

    monkeypatch.setenv("WEBWISE_LOCAL_CACHE_MIB", "1024")
    for slots in ("1", "2"):
        monkeypatch.setenv("WEBWISE_LOCAL_SLOTS", slots)
        with pytest.raises(ConfigError, match="WEBWISE_LOCAL_CACHE_MIB: llama.cpp's host-RAM prompt cache stays off"):
            Tuning.from_env()


def _chunk(content: str | None = None, finish: str | None = None, **more: object) -> dict[str, object]:
    """A streamed chunk as llama.cpp's server sends it (``timings_per_token`` on)."""
    delta = {} if content is None else {"content": content}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}], "object": "chat.completion.chunk",
            **more}


def test_a_reply_gone_into_a_loop_is_cut_after_the_repeats() -> None:
    from webwise.llm.local import REPEATS, _Stream

    stream = _Stream()
    head = "```python\nclick('input_text', '')\nenter_text('7')\n"
    stopped = [stream.take(_chunk(head))]
    for n in range(REPEATS + 3):
        timings = {"cache_n": 800, "prompt_n": 300, "prompt_ms": 900.0, "predicted_n": 20 + 9 * n,
                   "predicted_ms": 400.0 + n}
        stopped += [stream.take(_chunk("click('button', '')")), stream.take(_chunk("\n", timings=timings))]
        if stopped[-1]:
            break
    assert stopped.count(True) == 1 and stopped[-1]
    reply = stream.reply("local:0.5b", 1.5)
    assert reply.text == head + "click('button', '')\n" * REPEATS
    assert reply.extra["finish_reason"] == "repeat"
    assert (reply.prompt_tokens, reply.completion_tokens) == (1100, 20 + 9 * (REPEATS - 1))
    assert reply.extra["cached_prompt_tokens"] == 800


def test_a_streamed_reply_takes_its_counts_from_the_usage_chunk() -> None:
    from webwise.llm.local import _Stream

    stream = _Stream()
    for chunk in (_chunk(None), _chunk("```python\nclick('a', 'b')"), _chunk(None, "stop"),
                  {"choices": [], "usage": {"prompt_tokens": 57, "completion_tokens": 9},
                   "timings": {"cache_n": 40, "prompt_n": 17, "draft_n": 6, "draft_n_accepted": 4}}):
        assert not stream.take(chunk)
    reply = stream.reply("local:0.5b", 0.3)
    assert reply.text == "```python\nclick('a', 'b')" and reply.extra["finish_reason"] == "stop"
    assert (reply.prompt_tokens, reply.completion_tokens) == (57, 9)
    assert (reply.extra["draft_tokens"], reply.extra["draft_accepted"]) == (6, 4)


def test_a_streamed_error_is_an_llm_error() -> None:
    from webwise.errors import ContextOverflow, LLMError
    from webwise.llm.local import _Stream

    stream = _Stream()
    assert stream.take({"error": {"code": 400, "message": "request (20030 tokens) exceeds the available context",
                                  "type": "exceed_context_size_error"}})
    with pytest.raises(ContextOverflow, match="does not fit"):
        stream.reply("local:0.5b", 0.1)
    other = _Stream()
    other.take({"error": {"code": 500, "message": "boom"}})
    with pytest.raises(LLMError, match="llama.cpp error: boom"):
        other.reply("local:0.5b", 0.1)
