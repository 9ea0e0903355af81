"""webwise: a program-synthesis web agent after WebWISE (Tao et al., 2024).

    >>> import webwise
    >>> episode = webwise.solve("click-button", seed=0, llm="replay:replies.json")
    >>> episode.success

``llm`` may also be a model of your own: any object with a ``name``, ``complete(ChatRequest) ->
ChatReply`` and ``close()`` (:class:`ChatModel`).

The names below are imported on first use, not with the package: the ``webwise`` command
imports the package before it can catch Ctrl-C, and the agent's modules (Selenium, the
sandbox, the prompts) take about a third of a second to import, a window in which an
interrupt printed a traceback.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webwise.agent import Agent, Settings
    from webwise.episode import Episode, Step
    from webwise.errors import ConfigError, WebwiseError
    from webwise.llm.base import ChatModel, ChatReply, ChatRequest
    from webwise.session import Session, solve

_HOMES = {
    "Agent": "webwise.agent", "Settings": "webwise.agent",
    "Episode": "webwise.episode", "Step": "webwise.episode",
    "ConfigError": "webwise.errors", "WebwiseError": "webwise.errors",
    "ChatModel": "webwise.llm.base", "ChatReply": "webwise.llm.base", "ChatRequest": "webwise.llm.base",
    "Session": "webwise.session", "solve": "webwise.session",
}
"""Each public name and the module that defines it."""

__all__ = ["Agent", "ChatModel", "ChatReply", "ChatRequest", "ConfigError", "Episode", "Session", "Settings", "Step",
           "WebwiseError", "solve"]


def __getattr__(name: str) -> Any:
    """``webwise.NAME`` for a public name: its module is imported now, and the name kept here."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'webwise' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
