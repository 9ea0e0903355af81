"""``openai:MODEL``: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp).

The official ``openai`` client does the HTTP; its own retries are switched off so that tenacity
(:mod:`webwise.llm.retry`) is the only retry layer and the attempt count means what it says.
Every failure leaves as one line: :class:`ContextOverflow` when the prompt does not fit,
:class:`EndpointError` when the endpoint cannot be reached, hangs past the call's deadline,
keeps failing (5xx, 429) or keeps answering with junk (an infrastructure fault: the bench
reruns the episode), :class:`LLMError` for the rest (a reply with no text, a request refused).
Messages name the endpoint's URL, so a typo in ``OPENAI_BASE_URL`` shows.
"""

from __future__ import annotations

import math
import os
import re
import time

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from tenacity import Retrying, retry_if_exception, stop_after_attempt, stop_before_delay

from webwise.arguments import web_url
from webwise.errors import ConfigError, ContextOverflow, EndpointError, LLMError
from webwise.llm.base import ChatReply, ChatRequest, estimate_tokens, one_line
from webwise.llm.retry import BackoffWait, RetryPolicy, is_retryable

PLACEHOLDER_KEY = "sk-no-key-needed"
"""Sent when OPENAI_API_KEY is unset: local servers ignore the key, but the client insists on one."""

DEFAULT_TIMEOUT = 120.0
"""Seconds per attempt; generous because OpenAI-compatible servers on a CPU can be slow."""

_OVERFLOW = re.compile(
    r"context_length_exceeded|maximum context length|context (?:length|size|window)|"
    r"exceed_context_size|too many tokens|prompt is too long|input is too long",
    re.IGNORECASE,
)


def _env_number(name: str, default: float, *, positive: bool = False, whole: bool = False) -> float:
    """The number the variable ``name`` holds (``default`` when unset): finite, not negative, above
    0 when ``positive`` (a zero timeout or deadline failed every call at once, as an endpoint that
    keeps failing) and, with ``whole``, a whole number. ``nan`` passed every comparison, and ``inf``
    or ``1.5`` retries crashed or were cut to another count."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, not {raw!r}") from None
    if not math.isfinite(value) or value < 0 or (positive and value == 0) or (whole and not value.is_integer()):
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"{name} must be {kind} {'above' if positive else '>='} 0, not {raw!r}")
    return value


def policy_from_env() -> tuple[float, RetryPolicy]:
    """Per-attempt timeout and retry policy from WEBWISE_LLM_TIMEOUT / _RETRIES / _BACKOFF / _MAX_WAIT / _DEADLINE."""
    timeout = _env_number("WEBWISE_LLM_TIMEOUT", DEFAULT_TIMEOUT, positive=True)
    default = RetryPolicy()
    return timeout, RetryPolicy(
        retries=int(_env_number("WEBWISE_LLM_RETRIES", default.retries, whole=True)),
        backoff=_env_number("WEBWISE_LLM_BACKOFF", default.backoff),
        max_backoff=default.max_backoff,
        max_retry_after=_env_number("WEBWISE_LLM_MAX_WAIT", default.max_retry_after),
        deadline=_env_number("WEBWISE_LLM_DEADLINE", default.deadline, positive=True),
    )


def endpoint(base_url: str | None = None) -> str | None:
    """The endpoint's base URL, ``base_url`` or ``OPENAI_BASE_URL`` (None: the client's default).

    A URL without an ``http(s)://`` scheme or a host is a :class:`ConfigError` here, before a
    browser starts: the client would report it as a connection failure, retried for half a minute.
    """
    url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    return None if url is None else web_url("OPENAI_BASE_URL", url)


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return exc.message


#: Request fields some models refuse with a 400 (OpenAI's reasoning models: ``max_tokens``,
#: ``stop``, a temperature other than 1), and the field each is then sent as (None: left out).
_REFUSABLE: dict[str, str | None] = {"max_tokens": "max_completion_tokens", "stop": None, "temperature": None,
                                     "seed": None}
_UNSUPPORTED = re.compile(r"unsupported (?:parameter|value): '(\w+)'|'(\w+)' is not supported", re.IGNORECASE)


def _refused_field(exc: openai.APIStatusError) -> str | None:
    """The request field a 400 says this model does not take, when it is one of :data:`_REFUSABLE`.

    OpenAI names it in ``param`` with the code ``unsupported_parameter`` or
    ``unsupported_value``; other servers only in the message, which is read as a fallback.
    """
    if exc.status_code != 400:
        return None
    param = getattr(exc, "param", None)
    if getattr(exc, "code", None) in ("unsupported_parameter", "unsupported_value") and param in _REFUSABLE:
        return str(param)
    match = _UNSUPPORTED.search(_status_message(exc))
    field = match and (match.group(1) or match.group(2))
    return field if field in _REFUSABLE else None


def _stopped_while_thinking(completion: object) -> bool:
    """Whether the stop sequence ended the reply inside a reasoning model's ``<think>`` block.

    The stop sequence closes the program's code block; a model that thinks in the reply's
    text writes code blocks while thinking too, and was cut at the first one, before it
    answered.
    """
    choices = getattr(completion, "choices", None) if isinstance(completion, ChatCompletion) else None
    if not choices or getattr(choices[0], "finish_reason", None) != "stop":
        return False
    text = getattr(getattr(choices[0], "message", None), "content", None)
    return isinstance(text, str) and "<think>" in text and "</think>" not in text


def _is_overflow(exc: openai.APIStatusError) -> bool:
    if exc.status_code not in (400, 413, 422):
        return False
    code = getattr(exc, "code", None)
    return code == "context_length_exceeded" or bool(_OVERFLOW.search(f"{_status_message(exc)} {exc.body}"))


class _Refused(Exception):
    """The endpoint refused a request field; it is marked, and the request is sent again."""


class _Malformed(Exception):
    """A body that is no chat completion (not JSON, no ``choices[0].message.content``): a
    proxy that cut the body short, a server answering junk while it restarts. Retried like a
    dropped connection, since asking again is how a flaky endpoint answers; the last one
    ends the call as an :class:`EndpointError`."""


def _retried(exc: BaseException) -> bool:
    return is_retryable(exc) or isinstance(exc, _Malformed)


def _malformation(completion: object) -> str | None:
    """What makes ``completion`` no chat completion, or None. A message whose content is null
    is one: the model said nothing (a refusal, a tool call), which asking again does not mend."""
    choices = getattr(completion, "choices", None) if isinstance(completion, ChatCompletion) else None
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    if isinstance(content, str) or (isinstance(message, ChatCompletionMessage) and content is None):
        return None
    got = type(completion).__name__ if not isinstance(completion, str) else one_line(completion, 120)
    return f"no choices[0].message.content in {got}"


class OpenAIModel:
    """Chat completions over HTTP with retries; thread-safe like the client it wraps."""

    def __init__(
        self,
        model: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        policy: RetryPolicy = RetryPolicy(),
        base_url: str | None = None,
        api_key: str | None = None,
    ) -> None:
        self.name = f"openai:{model}"
        self.model = model
        #: Fields this endpoint refused for this model: from then on they are sent as
        #: :data:`_REFUSABLE` says, and every reply names them in ``extra["refused"]``.
        self.refused: frozenset[str] = frozenset()
        self.policy, self.timeout = policy, timeout
        self.client = openai.OpenAI(
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY,
            base_url=endpoint(base_url),
            timeout=timeout,
            max_retries=0,
        )

    @property
    def url(self) -> str:
        return str(self.client.base_url).rstrip("/")

    def complete(self, request: ChatRequest) -> ChatReply:
        start = time.perf_counter()
        deadline = time.monotonic() + self.policy.deadline
        while True:
            retrying = Retrying(
                retry=retry_if_exception(_retried),
                stop=stop_after_attempt(self.policy.retries + 1) | stop_before_delay(self.policy.deadline),
                wait=BackoffWait(self.policy),
                reraise=True,
            )
            try:
                completion = self._attempts(retrying, request, deadline)
            except _Refused:
                continue
            if not (request.stop and "stop" not in self.refused and _stopped_while_thinking(completion)):
                break
            self.refused |= {"stop"}  # the stop sequence cut the thinking: ask again without it
        attempts = retrying.statistics.get("attempt_number", 1)
        return self._reply(completion, request, time.perf_counter() - start, attempts)

    def _attempts(self, retrying: Retrying, request: ChatRequest, deadline: float) -> object:
        """The completion, with retries; each failure that ends them becomes one of webwise's errors.

        A 400 refusing a field of :data:`_REFUSABLE` that is still sent raises :class:`_Refused`
        after marking the field, so the caller asks again without it.
        """
        try:
            return retrying(self._create, request, deadline)
        except openai.APIStatusError as exc:
            field = _refused_field(exc)
            if field is not None and field not in self.refused:
                self.refused |= {field}
                raise _Refused(field) from None
            detail = one_line(_status_message(exc))
            if _is_overflow(exc):
                raise ContextOverflow(f"{self.name}: prompt does not fit the context window: {detail}") from None
            if exc.status_code in (401, 403, 404):  # wrong key or model: every later call would fail too
                raise ConfigError(f"{self.name}: HTTP {exc.status_code} from {self.url}: {detail} "
                                  "(check OPENAI_API_KEY, OPENAI_BASE_URL and the model name)") from None
            failed = EndpointError if is_retryable(exc) else LLMError
            raise failed(f"{self.name}: HTTP {exc.status_code} from {self.url}{self._tries(retrying)}: "
                         f"{detail}") from None
        except openai.APITimeoutError:
            raise EndpointError(f"{self.name}: no answer from {self.url}{self._tries(retrying)} "
                                f"(WEBWISE_LLM_TIMEOUT {self.timeout:g} s an attempt, "
                                f"WEBWISE_LLM_DEADLINE {self.policy.deadline:g} s a call)") from None
        except openai.APIConnectionError as exc:
            raise EndpointError(f"{self.name}: cannot connect to {self.url}{self._tries(retrying)}: "
                                f"{one_line(exc.__cause__ or exc)}") from None
        except _Malformed as exc:
            raise EndpointError(f"{self.name}: malformed response from {self.url}{self._tries(retrying)}: {exc}") from None
        except openai.OpenAIError as exc:
            raise EndpointError(f"{self.name}: malformed response from {self.url}: {one_line(exc)}") from None

    @staticmethod
    def _tries(retrying: Retrying) -> str:
        attempts = retrying.statistics.get("attempt_number", 1)
        return f" after {attempts} attempts" if attempts > 1 else ""

    def _create(self, request: ChatRequest, deadline: float) -> object:
        """One attempt, cut short where the call's deadline comes before the attempt's timeout."""
        timeout = max(0.01, min(self.timeout, deadline - time.monotonic()))
        fields: dict[str, object] = {"temperature": request.temperature, "max_tokens": request.max_tokens}
        if request.stop:
            fields["stop"] = list(request.stop)
        if request.seed is not None:
            fields["seed"] = request.seed
        for field in self.refused & fields.keys():
            value = fields.pop(field)
            if _REFUSABLE[field]:
                fields[_REFUSABLE[field]] = value  # type: ignore[index]
        try:
            completion = self.client.chat.completions.create(
                model=self.model,
                messages=request.messages,  # type: ignore[arg-type]
                timeout=timeout,
                **fields,  # type: ignore[arg-type]
            )
        except ValueError as exc:  # a body that is not JSON
            raise _Malformed(one_line(exc)) from None
        problem = _malformation(completion)
        if problem is not None:
            raise _Malformed(problem)
        return completion

    def _reply(self, completion: object, request: ChatRequest, seconds: float, attempts: int) -> ChatReply:
        """The reply of a completion :func:`_malformation` passed (the client does not
        validate bodies, so the shape was checked by hand)."""
        choices = completion.choices  # type: ignore[attr-defined]
        text = choices[0].message.content
        if text is None:  # e.g. a refusal or a tool call: the model said nothing
            raise LLMError(f"{self.name}: the reply from {self.url} has no text "
                           f"(message content null, finish_reason {choices[0].finish_reason!r})")
        usage = getattr(completion, "usage", None)
        prompt_tokens = getattr(usage, "prompt_tokens", None)
        completion_tokens = getattr(usage, "completion_tokens", None)
        estimated = not (isinstance(prompt_tokens, int) and isinstance(completion_tokens, int))
        if estimated:
            prompt_tokens = estimate_tokens("".join(m["content"] for m in request.messages))
            completion_tokens = estimate_tokens(text)
        return ChatReply(
            text=text,
            prompt_tokens=int(prompt_tokens),  # type: ignore[arg-type]
            completion_tokens=int(completion_tokens),  # type: ignore[arg-type]
            seconds=seconds,
            extra={
                "finish_reason": getattr(choices[0], "finish_reason", None),  # type: ignore[index]
                "attempts": attempts,
                "usage_estimated": estimated,
                "refused": sorted(self.refused),
                **_cached_tokens(usage),
            },
        )

    def close(self) -> None:
        self.client.close()


def _cached_tokens(usage: object) -> dict[str, int]:
    """The prompt tokens an endpoint served from its prefix cache, where it says so
    (``usage.prompt_tokens_details.cached_tokens``: OpenAI, vLLM, llama.cpp's server)."""
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
    return {"cached_prompt_tokens": cached} if isinstance(cached, int) and not isinstance(cached, bool) else {}
