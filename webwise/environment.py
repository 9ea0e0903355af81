"""A MiniWoB++ task page driven through Selenium: reset, observe, read the outcome.

One browser is reused across episodes (a page load only when the task changes). Every
value that reaches the page travels as a script argument, never spliced into source.
Success means raw reward >= 1: some tasks pay partial reward for a wrong answer.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import urllib3
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder

from webwise import browser as browser_mod
from webwise.dom import Element, flatten
from webwise.errors import ConfigError, WebwiseError
from webwise.pages import PageServer
from webwise.tasks import html_root, page_path

_RESET_JS = """
if (WOB_DONE_GLOBAL === false) { core.endEpisode(0); }
Math.seedrandom(arguments[0]);
core.setDataMode(arguments[1]);
core.EPISODE_MAX_TIME = arguments[2];
// refs restart at 1 each episode: forget the stamps of the last one, or two elements share a ref
document.querySelectorAll('[data-wob_ref]').forEach(function (e) {
  delete e.dataset.wob_ref; delete e.dataset.wob_eps;
});
core.startEpisodeReal();
return WOB_TASK_READY;
"""
_READY_JS = "return WOB_TASK_READY;"
_LOADED_JS = "return document.readyState === 'complete' && typeof core !== 'undefined' && !!core.startEpisodeReal;"
_STATE_JS = "return [WOB_DONE_GLOBAL, WOB_REWARD_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON];"
# Asynchronous: waits (up to arguments[0] ms) until no jQuery animation and no finite CSS or
# Web animation is running, then reads the DOM, the state and the utterance in one go.
_OBSERVE_JS = """
var done = arguments[arguments.length - 1], deadline = Date.now() + arguments[0];
function moving() {
  if (window.jQuery && jQuery.timers && jQuery.timers.length) { return true; }
  return !!document.getAnimations && document.getAnimations().some(function (a) {
    return a.playState === 'running' && a.effect && a.effect.getComputedTiming().endTime !== Infinity;
  });
}
function read() {
  var u = core.getUtterance();
  done([core.getDOMInfo(), [WOB_DONE_GLOBAL, WOB_REWARD_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON],
        typeof u === 'string' ? u : u.utterance]);
}
(function wait() { if (!moving() || Date.now() > deadline) { read(); } else { setTimeout(wait, 20); } })();
"""
_VIEWPORT_JS = "return [window.innerWidth, window.innerHeight];"
#: How long each pointer move lasts: short, so a 200-point drawing fits a program's time.
MOVE_MS = 10
#: The longest an observation waits for animations to end (jQuery's default lasts 400 ms).
SETTLE_MS = 1000
#: The largest episode seed: the page gets it as a JavaScript number, exact up to 2**53 - 1;
#: larger seeds round, and two of them gave the same page.
MAX_SEED = 2**53 - 1


class BrowserDied(WebwiseError):
    """The browser or its driver stopped answering; the caller replaces it."""


@dataclass(frozen=True)
class Outcome:
    """The episode's state as the page reports it."""

    done: bool = False
    reward: float = 0.0
    raw_reward: float = 0.0
    reason: str | None = None

    @property
    def success(self) -> bool:
        return self.done and self.raw_reward >= 1.0

    @classmethod
    def from_page(cls, values: list[Any]) -> "Outcome":
        done, reward, raw, reason = values
        return cls(bool(done), float(reward or 0), float(raw or 0), None if reason is None else str(reason))


class MiniWoBEnv:
    """Opens task pages in one reused browser and runs seeded episodes on them.

    ``episode_ms`` replaces the page's own time limit (7-60 s), which an LLM-driven
    episode would always exceed.
    """

    def __init__(self, *, remote_url: str | None = None, episode_ms: int = 3_600_000,
                 pages: PageServer | None = None) -> None:
        self._own_pages = pages is None
        self.pages = pages or PageServer(html_root(), host="127.0.0.1")
        self.remote_url = remote_url
        self.episode_ms = episode_ms
        self.browser: browser_mod.Browser | None = None
        self.task: str | None = None
        self.utterance = ""

    @property
    def driver(self):
        if self.browser is None:
            self.browser = browser_mod.launch(self.remote_url)
        return self.browser.driver

    @contextlib.contextmanager
    def _guard(self) -> Iterator[None]:
        """Turn every sign of a dead browser or driver into :class:`BrowserDied`."""
        try:
            yield
        except WebDriverException as exc:
            if _is_dead(exc):
                self._discard_browser()
                raise BrowserDied(f"browser died: {(exc.msg or type(exc).__name__).splitlines()[0]}") from None
            raise
        except (urllib3.exceptions.HTTPError, ConnectionError) as exc:
            self._discard_browser()
            raise BrowserDied(f"browser died: {type(exc).__name__}") from None

    def script(self, source: str, *args: Any) -> Any:
        """Run a script with data arguments (never spliced into the source)."""
        with self._guard():
            return self.driver.execute_script(source, *args)

    def keys(self, *keys: str, modifiers: tuple[str, ...] = ()) -> None:
        """Send key events to the focused element, holding ``modifiers`` down."""
        with self._guard():
            chain = ActionChains(self.driver)
            for modifier in modifiers:
                chain.key_down(modifier)
            chain.send_keys(*keys)
            for modifier in reversed(modifiers):
                chain.key_up(modifier)
            chain.perform()

    def pointer(self, points: Sequence[tuple[int, int]], *, press: bool) -> None:
        """Move the mouse through ``points`` (viewport CSS pixels) as WebDriver pointer actions.

        With ``press`` the left button goes down at the first point and up at the last, so
        the page gets real mousedown, mousemove and mouseup events (what jQuery UI's
        draggable, sortable, slider and resizable and d3's drag listen to); without it the
        pointer only moves, and the page gets mouseover/mouseenter on what it ends over.
        """
        with self._guard():
            builder = ActionBuilder(self.driver, duration=MOVE_MS)
            mouse = builder.pointer_action
            (x, y), *rest = points
            mouse.move_to_location(x, y)
            if press:
                mouse.pointer_down()
            for x, y in rest:
                mouse.move_to_location(x, y)
            if press:
                mouse.pointer_up()
            builder.perform()

    def viewport(self) -> tuple[float, float]:
        """The window's viewport size in CSS pixels: where pointer actions may go."""
        width, height = self.script(_VIEWPORT_JS)
        return float(width), float(height)

    def reset(self, task: str, seed: int, mode: str = "train") -> str:
        """Start a seeded episode of ``task``; returns the utterance. Same seed, same page."""
        if not 0 <= seed <= MAX_SEED:
            raise ConfigError(f"seed {seed} is out of range: seeds run from 0 to {MAX_SEED}")
        if task != self.task or self.browser is None:
            self._open(task)
        self.script(_RESET_JS, seed, mode, self.episode_ms)
        deadline = time.monotonic() + 5
        while not self.script(_READY_JS):
            if time.monotonic() > deadline:
                raise WebwiseError(f"task {task} did not become ready after reset")
            time.sleep(0.02)
        self.utterance = self.observe()[2]
        return self.utterance

    def _open(self, task: str) -> None:
        self.task = None
        with self._guard():
            self.driver.get(self.pages.base_url + page_path(task))
        deadline = time.monotonic() + 10
        while not self.script(_LOADED_JS):
            if time.monotonic() > deadline:
                raise WebwiseError(f"page of task {task} did not load")
            time.sleep(0.02)
        self.task = task

    def observe(self) -> tuple[list[Element], Outcome, str]:
        """Visible elements in document order, the outcome so far, and the utterance.

        Read once the page stops moving: an accordion or a date picker animates for a few
        hundred ms after the click that opens it, and a page read meanwhile shows a panel
        half open (click-collapsible-2: a link in the opening section missing from the
        observation, so the program's next click found nothing).
        """
        with self._guard():
            tree, state, utterance = self.driver.execute_async_script(_OBSERVE_JS, SETTLE_MS)
        return flatten(tree), Outcome.from_page(state), utterance

    def outcome(self) -> Outcome:
        return Outcome.from_page(self.script(_STATE_JS))

    def screenshot_png(self) -> bytes:
        with self._guard():
            return self.driver.get_screenshot_as_png()

    def _discard_browser(self) -> None:
        if self.browser is not None:
            self.browser.quit()
        self.browser = None
        self.task = None

    def close(self) -> None:
        """Quit the browser and stop the page server; no process or temp dir is left."""
        self._discard_browser()
        if self._own_pages:
            self.pages.close()

    def __enter__(self) -> "MiniWoBEnv":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _is_dead(exc: WebDriverException) -> bool:
    text = (exc.msg or str(exc)).lower()
    return any(s in text for s in ("invalid session id", "session deleted", "chrome not reachable", "disconnected",
                                   "connection refused", "no such window", "target window already closed"))
