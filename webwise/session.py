"""A session: one browser, one sandbox worker and one model, reused across episodes.

This is the library entry point (``import webwise``): ``webwise.solve(...)`` for one
episode, ``with webwise.Session(...) as s: s.run(...)`` for many.
"""

from __future__ import annotations

import threading
from pathlib import Path

from sandbox import Sandbox
from webwise.agent import Agent, Settings, check_method
from webwise.arguments import grid_url
from webwise.environment import MiniWoBEnv, check_seed
from webwise.episode import Episode
from webwise.errors import ConfigError, WebwiseError
from webwise.llm import ChatModel, as_model
from webwise.pages import PageServer
from webwise.tasks import check_task


class Session:
    """Owns an environment, a sandbox and a model until :meth:`close`.

    ``llm`` is a spec string (``"openai:gpt-4o-mini"``, ``"replay:FILE"``, ``"local:1.5b"``) or
    any object with a ``name`` (a str, recorded in every episode), ``complete(ChatRequest) ->
    ChatReply`` and ``close()`` (:class:`webwise.ChatModel`). The session owns the model either
    way: :meth:`close` closes it, so a model given to one session is not to be used after it.
    A session runs one episode at a time, on its one browser: a second thread's :meth:`run`
    while one is going is refused (give each thread its own session).
    """

    def __init__(self, llm: str | ChatModel = "local", settings: Settings = Settings(), *,
                 remote_url: str | None = None, pages: PageServer | None = None) -> None:
        if not isinstance(settings, Settings):
            raise ConfigError(f"settings must be a webwise.Settings, not {type(settings).__name__}")
        remote_url = grid_url("remote_url", remote_url)  # "" would quietly start the browser here
        self.llm = as_model(llm)
        self.env = MiniWoBEnv(remote_url=remote_url, pages=pages)
        self.sandbox = Sandbox(settings.limits)
        self.agent = Agent(self.llm, self.env, self.sandbox, settings)
        self.closed = False
        self._running = threading.Lock()

    def run(self, task: str, seed: int = 0, method: str = "webwise", examples: str = "manual") -> Episode:
        """Run one episode of ``task`` at ``seed`` and return its record."""
        if self.closed:  # its browser would start again, and be left running with no one to close it
            raise WebwiseError("this Session is closed; make a new one to run more episodes")
        check_task(task)
        check_seed(seed)
        # Refused, not queued: two episodes on one browser would drive each other's page, and a
        # caller who shares a session across threads expects them to run at once.
        if not self._running.acquire(blocking=False):
            raise WebwiseError("this Session is running an episode in another thread; give each thread its own Session")
        try:
            return self.agent.run(task, seed, method, examples)
        finally:
            self._running.release()

    def close(self) -> None:
        """Quit the browser, stop the sandbox worker and close the model; closing again does nothing."""
        if self.closed:
            return
        self.closed = True
        self.sandbox.close()
        self.env.close()
        self.llm.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def solve(task: str, *, seed: int = 0, method: str = "webwise", examples: str = "manual",
          llm: str | ChatModel = "local", max_steps: int = 5, trials: int = 1,
          store_dir: Path | str | None = None, guards: bool = True,
          max_tokens: int = Settings.max_tokens) -> Episode:
    """Run one episode of ``task`` and return its record (``episode.success``, ``.trace``, ...).

    ``guards=False`` runs programs literally (see :class:`webwise.Settings`).
    """
    check_task(task)
    check_seed(seed)
    check_method(method, examples)
    settings = Settings(max_steps=max_steps, max_tokens=max_tokens, trials=trials, store_dir=store_dir,
                        guards=guards)
    with Session(llm, settings) as session:
        return session.run(task, seed, method, examples)
