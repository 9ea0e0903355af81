"""Errors that cross module boundaries, and what each means to a user.

The CLI maps :class:`ConfigError` to exit status 2 with one line on stderr; everything
else that goes wrong inside an episode is recorded in the episode's trace instead of raised.
"""


class WebwiseError(Exception):
    """Base class: every error webwise raises on purpose."""


class ConfigError(WebwiseError):
    """Bad input or configuration: unknown task, malformed spec, missing file."""


class LLMError(WebwiseError):
    """The model endpoint failed for good (after retries) or returned nothing usable."""


class EndpointError(LLMError):
    """The model endpoint could not be reached, hung past its deadline or kept failing.

    An infrastructure fault, not the agent's: the episode that hit it is recorded with
    ``infra_error``, kept out of success rates, and run again by ``bench --resume``.
    """


class Interrupted(WebwiseError):
    """The run was asked to stop (Ctrl-C, SIGTERM) while waiting on the model: the call is abandoned."""


class ContextOverflow(LLMError):
    """The prompt does not fit the model's context window (the paper's "TLE")."""


class RepliesExhausted(LLMError):
    """A replay file has no reply left for this call of the episode."""
