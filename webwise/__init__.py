"""webwise: a program-synthesis web agent after WebWISE (Tao et al., 2024).

    >>> import webwise
    >>> episode = webwise.solve("click-button", seed=0, llm="replay:replies.json")
    >>> episode.success

``llm`` may also be a model of your own: any object with a ``name``, ``complete(ChatRequest) ->
ChatReply`` and ``close()`` (:class:`ChatModel`).
"""

from webwise.agent import Agent, Settings
from webwise.episode import Episode, Step
from webwise.errors import ConfigError, WebwiseError
from webwise.llm.base import ChatModel, ChatReply, ChatRequest
from webwise.session import Session, solve

__all__ = ["Agent", "ChatModel", "ChatReply", "ChatRequest", "ConfigError", "Episode", "Session", "Settings", "Step",
           "WebwiseError", "solve"]
