"""``openai:MODEL``: any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama, llama.cpp).

The official ``openai`` client does the HTTP; its own retries are switched off so that tenacity
(:mod:`webwise.llm.retry`) is the only retry layer and the attempt count means what it says.
Every failure leaves as one line: :class:`ContextOverflow` when the prompt does not fit,
:class:`EndpointError` when the endpoint cannot be reached, hangs past the call's deadline,
keeps failing (5xx, 429), cuts its answers off or keeps answering with junk (an infrastructure
fault: the bench reruns the episode), :class:`ConfigError` for a status every later call would
get too (a wrong key, URL or model, no credit), :class:`LLMError` for the rest (a reply with no
text, a request refused). Messages name the endpoint's URL, so a typo in ``OPENAI_BASE_URL`` shows.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import socket
import threading
import time
from typing import TYPE_CHECKING, NamedTuple

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from tenacity import Retrying, retry_if_exception, stop_after_attempt, stop_before_delay

from webwise.arguments import web_url
from webwise.errors import ConfigError, ContextOverflow, EndpointError, LLMError
from webwise.llm.base import ChatReply, ChatRequest, estimate_tokens, one_line
from webwise.llm.retry import BackoffWait, RetryPolicy, is_retryable

if TYPE_CHECKING:  # the HTTP library the installed openai uses (httpx, or httpx2 in newer ones)
    import httpx2

PLACEHOLDER_KEY = "sk-no-key-needed"
"""Sent when OPENAI_API_KEY is unset: local servers ignore the key, but the client insists on one."""

DEFAULT_TIMEOUT = 120.0
"""Seconds per attempt; generous because OpenAI-compatible servers on a CPU can be slow."""

MAX_COUNT = 10**8
"""More tokens than any model reads or writes in one call: a larger count from a server is no count."""

#: HTTP statuses every later call would get too (a wrong key, URL or model, a retired model, no
#: credit left): they stop the run at once. 413 is not one: a shorter prompt may pass.
_FATAL_STATUS = frozenset({401, 402, 403, 404, 405, 410})

_OVERFLOW = re.compile(
    r"context_length_exceeded|maximum context length|context (?:length|size|window)|"
    r"exceed_context_size|too many tokens|prompt is too long|input is too long",
    re.IGNORECASE,
)


#: The most a ``WEBWISE_LLM_*`` setting may be: more seconds overflowed the socket layer's clock
#: (every call then failed as the agent's), and more retries are a typo.
_MOST_SECONDS, _MOST_RETRIES = 1_000_000, 100
_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _env_number(name: str, default: float, *, positive: bool = False, whole: bool = False) -> float:
    """The number the variable ``name`` holds (``default`` when unset): written in ASCII digits
    (``30``, ``2.5``; float() also took ``1_0``, ``１`` and ``nan``), above 0 when ``positive`` (a
    zero timeout or deadline failed every call at once, as an endpoint that keeps failing), at
    most :data:`_MOST_SECONDS` and, with ``whole``, a whole number up to :data:`_MOST_RETRIES`."""
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    most = _MOST_RETRIES if whole else _MOST_SECONDS
    value = float(raw) if _DECIMAL.fullmatch(raw) else math.nan
    if not 0 <= value <= most or (positive and value == 0) or (whole and not value.is_integer()):
        kind = "a whole number" if whole else "a number"
        span = f"above 0, up to {most}" if positive else f"from 0 to {most}"
        raise ConfigError(f"{name} must be {kind} {span}, not {raw!r}")
    return value


def checked_key(value: str | None = None) -> str:
    """The key sent, ``value`` or ``OPENAI_API_KEY`` (a placeholder for servers that need none);
    a :class:`ConfigError` when an HTTP header cannot carry it: a non-ASCII key failed in the
    client at every attempt, reported as the endpoint's malformed answer."""
    key = value or os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY
    if not all(" " < char < "\x7f" for char in key):
        raise ConfigError("OPENAI_API_KEY holds a space or a character an HTTP header cannot carry")
    return key


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
    """Whether the stop sequence ended a reply that opens with a reasoning model's ``<think>``
    block inside that block (``completion`` is one :func:`_malformation` passed).

    The stop sequence closes the program's code block; a model that thinks in the reply's
    text writes code blocks while thinking too, and was cut at the first one, before it
    answered. Only the opening counts: a reply that names ``<think>`` further on (a label on
    the page, a string in the program) was not thinking.
    """
    choice = completion.choices[0]  # type: ignore[attr-defined]
    text = choice.message.content
    return (getattr(choice, "finish_reason", None) == "stop" and isinstance(text, str)
            and text.lstrip().startswith("<think>") and "</think>" not in text)


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


class _CutOff(Exception):
    """The answer began (status and headers came) and its connection ended before the body did:
    a proxy or server that died mid-transfer. Retried like a dropped connection, and named for
    what it is: the endpoint was reached."""


def _retried(exc: BaseException) -> bool:
    return is_retryable(exc) or isinstance(exc, (_Malformed, _CutOff))


def _malformation(completion: object) -> str | None:
    """What makes ``completion`` no chat completion, or None. A message whose content is null
    is one: the model said nothing (a refusal, a tool call), which asking again does not mend.

    The client does not validate bodies, so every level is checked for its type: a ``choices``
    that is a dict or a number raised KeyError or TypeError here, an agent failure."""
    choices = getattr(completion, "choices", None) if isinstance(completion, ChatCompletion) else None
    message = getattr(choices[0], "message", None) if isinstance(choices, list) and choices else None
    content = getattr(message, "content", None)
    if isinstance(content, str) or (isinstance(message, ChatCompletionMessage) and content is None):
        return None
    got = type(completion).__name__ if not isinstance(completion, str) else one_line(completion, 120)
    return f"no choices[0].message.content in {got}"


class _Attempt:
    """One attempt's watchdog: it shuts the attempt's connection once its time is up.

    httpx's timeout bounds each read, not the answer: a server sending its body a byte at a
    time held a call for hours. The timer runs from the attempt's start; the connection is
    known once the answer's headers are in (:meth:`answered`, before the body is read), and a
    shut socket wakes the read waiting on it, whose failure is then reported as a timeout.
    """

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self.response: httpx2.Response | None = None  # the answer, once its headers came
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self) -> _Attempt:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    def answered(self, response: httpx2.Response) -> None:
        with self._lock:
            self.response = response
            if self.expired:
                self._shut()

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            if self.response is not None:
                self._shut()

    def _shut(self) -> None:
        """Shut the answer's socket, unless its body is read already (the connection is then the pool's)."""
        if self.response is None or self.response.is_closed:
            return
        stream = self.response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):  # socket.socket's: SSLSocket's drops TLS state under the reader
                socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _Usage(NamedTuple):
    """The tokens of one completion, and whether they are estimated (the server gave no counts)."""

    prompt: int
    completion: int
    cached: int | None
    estimated: bool


def _count(value: object) -> int | None:
    """``value`` as a token count, or None when it is none: not an int (a bool is one to Python),
    below 0, or above :data:`MAX_COUNT`. A server's -5 failed the episode, 10**30 went into the tables."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value <= MAX_COUNT else None


def _usage(completion: object, request: ChatRequest) -> _Usage:
    """The counts of a completion :func:`_malformation` passed: the server's, or, where one is
    missing or no count, both estimated from the text. The prompt tokens the server took from
    its prefix cache (``usage.prompt_tokens_details.cached_tokens``: OpenAI, vLLM, llama.cpp's
    server) are kept only when they are a part of the server's prompt count."""
    usage = getattr(completion, "usage", None)
    prompt = _count(getattr(usage, "prompt_tokens", None))
    written = _count(getattr(usage, "completion_tokens", None))
    if prompt is None or written is None:
        text = completion.choices[0].message.content or ""  # type: ignore[attr-defined]
        return _Usage(estimate_tokens("".join(m["content"] for m in request.messages)), estimate_tokens(text),
                      None, True)
    cached = _count(getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None))
    return _Usage(prompt, written, cached if cached is not None and cached <= prompt else None, False)


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
        self._in_flight = threading.local()  # each thread's attempt in flight (.attempt), for the response hook
        self.client = openai.OpenAI(
            api_key=checked_key(api_key),
            base_url=endpoint(base_url),
            timeout=timeout,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(event_hooks={"response": [self._answered]}),
        )

    @property
    def url(self) -> str:
        return str(self.client.base_url).rstrip("/")

    def complete(self, request: ChatRequest) -> ChatReply:
        """The reply; its ``extra["attempts"]`` counts every request the call sent (those a refused
        field or a cut thinking asked again included), and its tokens every completion it got."""
        start = time.perf_counter()
        deadline = time.monotonic() + self.policy.deadline
        attempts = 0
        cut: list[object] = []  # completions the stop sequence ended while thinking
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
            finally:
                attempts += _attempt_number(retrying)
            if not (request.stop and "stop" not in self.refused and _stopped_while_thinking(completion)):
                break
            cut.append(completion)  # it cost tokens too
            self.refused |= {"stop"}  # the stop sequence cut the thinking: ask again without it
        return self._reply(completion, request, time.perf_counter() - start, attempts, cut)

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
            if exc.status_code in _FATAL_STATUS:
                check = ("the account's credit or quota" if exc.status_code == 402
                         else "OPENAI_API_KEY, OPENAI_BASE_URL and the model name")
                raise ConfigError(f"{self.name}: HTTP {exc.status_code} from {self.url}: {detail} "
                                  f"(check {check})") from None
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
        except _CutOff as exc:
            raise EndpointError(f"{self.name}: the response from {self.url} was cut off{self._tries(retrying)}: "
                                f"{exc}") from None
        except _Malformed as exc:
            raise EndpointError(f"{self.name}: malformed response from {self.url}{self._tries(retrying)}: {exc}") from None
        except openai.OpenAIError as exc:
            raise EndpointError(f"{self.name}: malformed response from {self.url}: {one_line(exc)}") from None

    @staticmethod
    def _tries(retrying: Retrying) -> str:
        attempts = _attempt_number(retrying)
        return f" after {attempts} attempts" if attempts > 1 else ""

    def _answered(self, response: httpx2.Response) -> None:
        """httpx's response hook, in the thread making the attempt: its watchdog learns the connection."""
        attempt = getattr(self._in_flight, "attempt", None)
        if attempt is not None:
            attempt.answered(response)

    def _create(self, request: ChatRequest, deadline: float) -> object:
        """One attempt, cut short where the call's deadline comes before the attempt's timeout.

        The time is a total, kept by an :class:`_Attempt` watchdog: an answer still coming when
        it is up fails as a timeout, one whose connection ends midway as :class:`_CutOff`.
        """
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
        with _Attempt(timeout) as attempt:
            self._in_flight.attempt = attempt
            try:
                raw = self.client.chat.completions.with_raw_response.create(
                    model=self.model,
                    messages=request.messages,  # type: ignore[arg-type]
                    timeout=timeout,
                    **fields,  # type: ignore[arg-type]
                )
            except openai.APITimeoutError:
                raise
            except openai.APIConnectionError as exc:
                if attempt.expired:  # the watchdog shut the connection
                    raise openai.APITimeoutError(request=exc.request) from None
                if attempt.response is not None and not attempt.response.is_redirect:  # the answer had begun
                    raise _CutOff(one_line(exc.__cause__ or exc)) from None
                raise
            finally:
                self._in_flight.attempt = None
        try:
            completion = raw.parse()
        except Exception as exc:  # not JSON, JSON nested past the recursion limit, ...: never the agent's
            raise _Malformed(one_line(exc)) from None
        problem = _malformation(completion)
        if problem is not None:
            raise _Malformed(problem)
        return completion

    def _reply(self, completion: object, request: ChatRequest, seconds: float, attempts: int,
               cut: list[object]) -> ChatReply:
        """The reply of a completion :func:`_malformation` passed (the client does not
        validate bodies, so the shape was checked by hand), costing the tokens of the
        completions ``cut`` while thinking too."""
        choices = completion.choices  # type: ignore[attr-defined]
        text = choices[0].message.content
        if text is None:  # e.g. a refusal or a tool call: the model said nothing
            raise LLMError(f"{self.name}: the reply from {self.url} has no text "
                           f"(message content null, finish_reason {choices[0].finish_reason!r})")
        usages = [_usage(done, request) for done in (*cut, completion)]
        cached = [usage.cached for usage in usages if usage.cached is not None]
        return ChatReply(
            text=text,
            prompt_tokens=sum(usage.prompt for usage in usages),
            completion_tokens=sum(usage.completion for usage in usages),
            seconds=seconds,
            extra={
                "finish_reason": getattr(choices[0], "finish_reason", None),  # type: ignore[index]
                "attempts": attempts,
                "usage_estimated": any(usage.estimated for usage in usages),
                "refused": sorted(self.refused),
                **({"cached_prompt_tokens": sum(cached)} if cached else {}),
            },
        )

    def close(self) -> None:
        self.client.close()


def _attempt_number(retrying: Retrying) -> int:
    """The attempts ``retrying`` made (tenacity counts them in its statistics)."""
    return int(retrying.statistics.get("attempt_number", 1))
