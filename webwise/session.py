"""A session: one browser, one sandbox worker and one model, reused across episodes.

This is the library entry point (``import webwise``): ``webwise.solve(...)`` for one
episode, ``with webwise.Session(...) as s: s.run(...)`` for many.
"""

from __future__ import annotations

from pathlib import Path

from sandbox import Sandbox
from webwise.agent import Agent, Settings, check_method
from webwise.environment import MiniWoBEnv
from webwise.episode import Episode
from webwise.llm import ChatModel, make_llm
from webwise.pages import PageServer
from webwise.tasks import check_task


class Session:
    """Owns an environment, a sandbox and a model until :meth:`close`."""

    def __init__(self, llm: str | ChatModel = "local", settings: Settings = Settings(), *,
                 remote_url: str | None = None, pages: PageServer | None = None) -> None:
        self.llm = make_llm(llm) if isinstance(llm, str) else llm
        self.env = MiniWoBEnv(remote_url=remote_url, pages=pages)
        self.sandbox = Sandbox(settings.limits)
        self.agent = Agent(self.llm, self.env, self.sandbox, settings)

    def run(self, task: str, seed: int = 0, method: str = "webwise", examples: str = "manual") -> Episode:
        check_task(task)
        return self.agent.run(task, seed, method, examples)

    def close(self) -> None:
        self.sandbox.close()
        self.env.close()
        self.llm.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def solve(task: str, *, seed: int = 0, method: str = "webwise", examples: str = "manual",
          llm: str | ChatModel = "local", max_steps: int = 5, trials: int = 1,
          store_dir: Path | None = None, guards: bool = True, max_tokens: int = Settings.max_tokens) -> Episode:
    """Run one episode of ``task`` and return its record (``episode.success``, ``.trace``, ...).

    ``guards=False`` runs programs literally (see :class:`webwise.Settings`).
    """
    check_task(task)
    check_method(method, examples)
    settings = Settings(max_steps=max_steps, max_tokens=max_tokens, trials=trials, store_dir=store_dir, guards=guards)
    with Session(llm, settings) as session:
        return session.run(task, seed, method, examples)
