"""webwise: a program-synthesis web agent after WebWISE (Tao et al., 2024).

    >>> import webwise
    >>> episode = webwise.solve("click-button", seed=0, llm="replay:replies.json")
    >>> episode.success
"""

from webwise.agent import Agent, Settings
from webwise.episode import Episode, Step
from webwise.errors import ConfigError, WebwiseError
from webwise.session import Session, solve

__all__ = ["Agent", "ConfigError", "Episode", "Session", "Settings", "Step", "WebwiseError", "solve"]
