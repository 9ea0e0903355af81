"""The embedded model for real: the 0.5B (the faster one) loaded once through ``make_llm``.

Needs the assembled model: ``python -m webwise.model_assets ensure 0.5b``.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from webwise.errors import ContextOverflow
from webwise.llm import ChatModel, ChatReply, ChatRequest, make_llm

pytestmark = pytest.mark.model

SYSTEM = "You write short Python programs. Reply with one ```python code block and nothing else."


@pytest.fixture(scope="module")
def model() -> Iterator[ChatModel]:
    llm = make_llm("local:0.5b")
    yield llm
    llm.close()


def ask(user: str, **kwargs: object) -> ChatRequest:
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
    return ChatRequest(messages=messages, **kwargs)  # type: ignore[arg-type]


def test_short_code_reply_with_token_counts(model: ChatModel) -> None:
    reply = model.complete(ask("Define a function add(a, b) that returns their sum.", max_tokens=64))
    assert "def add" in reply.text and "return" in reply.text
    assert 20 < reply.prompt_tokens < 100
    assert 0 < reply.completion_tokens <= 64
    assert reply.extra["finish_reason"] == "stop"


def test_temperature_zero_is_repeatable_and_reuses_the_prefix(model: ChatModel) -> None:
    request = ask("Print the numbers 1 to 3.", max_tokens=48)
    first, second = model.complete(request), model.complete(request)
    assert first.text == second.text
    assert second.extra["cached_prompt_tokens"] >= second.prompt_tokens - 1


def test_a_seeded_warm_reply_is_repeatable(model: ChatModel) -> None:
    """Without the seed llama.cpp draws a random one per request, and reruns of a bench differ.

    The first call fills the prefix cache: a reply computed over a cached prefix may differ
    from one computed from scratch (llama.cpp's batched and single-token paths round
    differently), so only calls made from the same cache state are compared.
    """
    warm = ask("Name five animals, in any order you like.", max_tokens=24, temperature=1.0, seed=11)
    model.complete(warm)
    assert model.complete(warm).text == model.complete(warm).text


def test_stop_sequence_ends_the_reply(model: ChatModel) -> None:
    reply = model.complete(ask("Define a function add(a, b) that returns their sum.", max_tokens=64, stop=("return",)))
    assert "return" not in reply.text and "def add" in reply.text


def test_oversize_prompt_overflows_before_generating(model: ChatModel) -> None:
    with pytest.raises(ContextOverflow, match=r"^local:0\.5b: prompt does not fit the context window: .*exceeds"):
        model.complete(ask("click('button', 'OK')\n" * 6000, max_tokens=8))
    assert model.complete(ask("Say hi.", max_tokens=4)).completion_tokens > 0  # still usable after


@pytest.mark.model
def test_default_solve_with_the_embedded_model() -> None:
    """The README's main job: `webwise solve --task click-button` with no other flag."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    webwise = str(Path(sys.executable).parent / "webwise")
    result = subprocess.run([webwise, "solve", "--task", "click-button", "--json"],
                            capture_output=True, text=True, timeout=600)
    record = json.loads(result.stdout)
    assert record["llm"].startswith("local:")
    assert record["llm_calls"] >= 1 and record["prompt_tokens"] > 0
    assert result.returncode == 0 and record["success"], record["trace"][-1]


COPY = ("Here are the page's link texts: 'Rutrum', 'Sed pellentesque', 'Odio viverra', 'Quis ligula', "
        "'Aliquam erat', 'Tincidunt lorem'. Write a program that puts all of them, in this order, into a "
        "list named links and prints it.")


def on_its_own_thread(llm: ChatModel, request: ChatRequest) -> ChatReply:
    """``llm.complete(request)`` on a thread made for the call, as a bench makes every call."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(llm.complete, request).result()


def test_two_slots_keep_each_affinity_s_own_prompt_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``WEBWISE_LOCAL_SLOTS=2`` a bench's two workers (two agents, two affinities), their
    calls each on a thread of its own, find their own last prompt cached in any order, where
    with one slot each call evicts the other's. Slots once followed the calling thread, so a
    worker's second call in a row landed in the other's slot."""
    monkeypatch.setenv("WEBWISE_LOCAL_SLOTS", "2")
    llm = make_llm("local:0.5b")
    first = ask(COPY + " Use a for loop.", max_tokens=8, affinity=1)
    other = ask("Print the first ten squares, one per line, with a for loop.", max_tokens=8, affinity=2)
    try:
        for request in (first, other, other, first):
            on_its_own_thread(llm, request)
        again = [on_its_own_thread(llm, request) for request in (first, other)]
        assert all(reply.extra["cached_prompt_tokens"] >= reply.prompt_tokens - 1 for reply in again)
        with ThreadPoolExecutor(2) as workers:  # both at once
            both = [workers.submit(llm.complete, request) for request in (other, first)]
            assert all(call.result().completion_tokens > 0 for call in both)
    finally:
        llm.close()


def test_ngram_drafts_give_the_same_reply_with_tokens_accepted(model: ChatModel,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Drafting from n-grams of the prompt only saves time: at temperature 0 the reply is the
    one the model writes without it."""
    request = ask(COPY, max_tokens=120)
    plain = model.complete(request)
    monkeypatch.setenv("WEBWISE_LOCAL_DRAFT", "ngram")
    drafting = make_llm("local:0.5b")
    try:
        drafted = drafting.complete(request)
    finally:
        drafting.close()
    assert drafted.text == plain.text
    assert drafted.extra["draft_accepted"] > 0 and plain.extra["draft_tokens"] == 0
