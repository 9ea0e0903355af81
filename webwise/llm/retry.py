"""When and how long to retry a chat call: tenacity policy shared by HTTP backends.

Transient failures (rate limits, timeouts, 5xx, dropped connections) are retried with
exponential backoff and jitter, so that many workers hitting one endpoint spread out
instead of retrying in lock step. A server's ``Retry-After`` wins over the backoff, capped
so that a misbehaving server cannot park a benchmark for an hour. A deadline bounds the
whole call, attempts and waits together: without it a hung endpoint cost the per-attempt
timeout times the attempts, 751 s a call with the defaults.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

import openai
from tenacity import RetryCallState

RETRYABLE_STATUS = frozenset({408, 429})
"""Besides 5xx: request timeout and rate limit. Any other 4xx is the caller's fault; retrying repeats it."""


@dataclass(frozen=True)
class RetryPolicy:
    """How many attempts, how long to wait between them, and how long the whole call may take (seconds)."""

    retries: int = 5
    backoff: float = 1.0
    max_backoff: float = 30.0
    max_retry_after: float = 60.0
    deadline: float = 300.0


def is_retryable(exc: BaseException) -> bool:
    """Rate limits, timeouts, 5xx and dropped connections; never other 4xx or our own bugs."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS or exc.status_code >= 500
    return False


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms``, ``retry-after`` seconds or an HTTP date; None if absent."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


class BackoffWait:
    """tenacity wait strategy: the server's Retry-After if it sent one, else jittered backoff."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy

    def __call__(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, openai.APIStatusError):
            hinted = parse_retry_after(exc.response.headers)
            if hinted is not None:
                return min(hinted, self.policy.max_retry_after)
        ceiling = min(self.policy.max_backoff, self.policy.backoff * 2 ** (state.attempt_number - 1))
        return ceiling * random.uniform(0.5, 1.0)  # "equal jitter": spread out, yet never a hot retry
