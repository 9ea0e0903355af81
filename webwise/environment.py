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
from selenium.common.exceptions import InvalidSessionIdException, JavascriptException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.action_builder import ActionBuilder

from webwise import browser as browser_mod
from webwise.dom import Element, flatten, spoken
from webwise.errors import ConfigError, WebwiseError
from webwise.pages import PageServer
from webwise.tasks import html_root, page_path

# One episode per page load: once an episode has ended, the page shows its START cover, and a
# click there (a program's click_at anywhere on the task) called core.startEpisodeReal again,
# which drew another problem and set the reward back to 0. An episode the page had ended on its
# own timer (moving-items, at -1) was then recorded as a fresh, unfinished one.
_RESET_JS = """
Math.seedrandom(arguments[0]);
core.setDataMode(arguments[1]);
core.EPISODE_MAX_TIME = arguments[2];
core.startEpisodeReal();
core.startEpisodeReal = function () {};
return WOB_TASK_READY;
"""
_READY_JS = "return WOB_TASK_READY;"
_LOADED_JS = "return document.readyState === 'complete' && typeof core !== 'undefined' && !!core.startEpisodeReal;"
_STATE_JS = "return [WOB_DONE_GLOBAL, WOB_REWARD_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON];"
# What core.getDOMInfo leaves out of what the page shows, keyed by the refs it just gave out:
# an SVG shape's paint (the colour the page wrote, as written when it is a name) and corners
# (a line's ends, a polygon's points) in the viewport frame of getBoundingClientRect; the hull
# of what a 2D canvas has drawn; the background of a childless, textless element (a swatch);
# the alt text (or title) of an image, the text the page shows in its place; which options of
# a list are chosen; which elements set the pointer cursor; which controls the page disabled.
_VISUALS_JS = """
function paint(el, property, computed) {
  var written = el.getAttribute(property) || el.style[property];
  return /^[a-z]+$/i.test(written || '') ? written : computed;
}
function place(el, points) {
  var m = el.getScreenCTM();
  return m ? points.map(function (p) { return [p[0] * m.a + p[1] * m.c + m.e, p[0] * m.b + p[1] * m.d + m.f]; }) : [];
}
function hull(points) {
  points.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
  function cross(o, a, b) { return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]); }
  function half(list) {
    var out = [];
    list.forEach(function (p) {
      while (out.length >= 2 && cross(out[out.length - 2], out[out.length - 1], p) <= 0) { out.pop(); }
      out.push(p);
    });
    out.pop();
    return out;
  }
  return points.length < 3 ? points : half(points).concat(half(points.slice().reverse()));
}
function drawn(canvas) {
  var context = null;
  try { context = canvas.getContext('2d'); } catch (e) { return []; }
  if (!context || !canvas.width || !canvas.height) { return []; }
  var w = canvas.width, h = canvas.height, data = context.getImageData(0, 0, w, h).data, ends = [];
  for (var y = 0; y < h; y++) {
    var first = -1, last = -1;
    for (var x = 0; x < w; x++) {
      if (data[(y * w + x) * 4 + 3] >= 128) { if (first < 0) { first = x; } last = x; }
    }
    if (first >= 0) { ends.push([first, y], [last + 1, y], [first, y + 1], [last + 1, y + 1]); }
  }
  var box = canvas.getBoundingClientRect(), sx = box.width / w, sy = box.height / h;
  return hull(ends).map(function (p) { return [box.left + p[0] * sx, box.top + p[1] * sy]; });
}
function swatch(el) {
  var style = window.getComputedStyle(el);
  return el instanceof HTMLElement && !el.children.length && !el.textContent.trim() &&
    !/^rgba\\(.*, 0\\)$/.test(style.backgroundColor) && paint(el, 'backgroundColor', style.backgroundColor);
}
function alt(el) {
  return el instanceof HTMLImageElement && (el.alt || el.title).trim();
}
// What a childless, textless picture stands for: an image its alt text (or title), an icon
// (a CSS background image: a jQuery UI sprite) its classes, the only name the page gives it.
function pictured(el) {
  if (alt(el)) { return alt(el); }
  return el instanceof HTMLElement && !el.children.length && !el.textContent.trim() &&
    window.getComputedStyle(el).backgroundImage !== 'none' && el.className.trim();
}
// The instruction as the page shows it when a picture stands in it for a word
// (use-colorwheel-2: "Select the following color [a coloured box] ...", click-menu-2: "the
// item with the [an icon] icon"): its texts and pictures in order, a swatch as [its colour],
// an image or icon as what it stands for; null when it holds none.
function said() {
  var query = document.getElementById('query'), pieces = [], any = false;
  if (!query) { return null; }
  (function walk(node) {
    node.childNodes.forEach(function (child) {
      if (child.nodeType === 3) { pieces.push(child.data); }
      else if (child instanceof Element && swatch(child)) { pieces.push([swatch(child)]); any = true; }
      else if (child instanceof Element && pictured(child)) { pieces.push(pictured(child)); any = true; }
      else if (child instanceof Element) { walk(child); }
    });
  })(query);
  return any ? pieces : null;
}
function visuals() {
  var out = {};
  Object.keys(core.previousDOMInfo).forEach(function (ref) {
    var el = core.previousDOMInfo[ref];
    if (!(el instanceof Element)) { return; }
    var style = window.getComputedStyle(el);
    if (el instanceof SVGGeometryElement || el instanceof SVGTextElement) {
      var stroked = el instanceof SVGLineElement || el instanceof SVGPolylineElement || style.fill === 'none';
      var points = [];
      if (el instanceof SVGLineElement) {
        points = [[el.x1.baseVal.value, el.y1.baseVal.value], [el.x2.baseVal.value, el.y2.baseVal.value]];
      } else if (el.points) {
        for (var i = 0; i < el.points.numberOfItems; i++) { points.push([el.points.getItem(i).x, el.points.getItem(i).y]); }
      }
      out[ref] = {color: stroked ? paint(el, 'stroke', style.stroke) : paint(el, 'fill', style.fill), points: place(el, points)};
    } else if (el instanceof HTMLCanvasElement) {
      out[ref] = {color: '', points: drawn(el)};
    } else if (alt(el)) {
      out[ref] = {color: '', points: [], text: alt(el)};
    } else if (swatch(el)) {
      out[ref] = {color: swatch(el), points: []};
    } else if (el instanceof HTMLOptionElement && el.selected) {
      out[ref] = {color: '', points: [], selected: true};
    }
    if (pointing(el, style)) { (out[ref] = out[ref] || {color: '', points: []}).clickable = true; }
    if (el.matches(':disabled')) { (out[ref] = out[ref] || {color: '', points: []}).disabled = true; }
  });
  return out;
}
// An element the page marks as one to click (it sets the pointer cursor, which its children
// inherit): find-greatest's face-down cards are textless divs nothing else names.
function pointing(el, style) {
  return style.cursor === 'pointer' && !(el.parentElement && window.getComputedStyle(el.parentElement).cursor === 'pointer');
}
"""
# Asynchronous: waits (up to arguments[0] ms) until no jQuery animation and no finite CSS or
# Web animation is running, then reads the DOM, the state, the utterance and the visuals in one go.
_OBSERVE_JS = _VISUALS_JS + """
var done = arguments[arguments.length - 1], deadline = Date.now() + arguments[0];
function moving() {
  if (window.jQuery && jQuery.timers && jQuery.timers.length) { return true; }
  return !!document.getAnimations && document.getAnimations().some(function (a) {
    return a.playState === 'running' && a.effect && a.effect.getComputedTiming().endTime !== Infinity;
  });
}
// An image still loading measures zero wide, and core.getDOMInfo skips it: email-inbox's star
// and trash icons (CSS content:url images, made at reset) were missing from a first read under
// load, and came later with later refs. A CSS image has no load state of its own, so each
// URL a shown element uses is loaded once more into a probe, which the cache serves.
var probes = window.__webwiseProbes || (window.__webwiseProbes = {});
function loading() {
  var pending = false;
  document.querySelectorAll('body *').forEach(function (el) {
    if (pending || !el.getClientRects().length) { return; }
    if (el.tagName === 'IMG' && !el.complete) { pending = true; return; }
    var style = window.getComputedStyle(el);
    (style.content + ' ' + style.backgroundImage).replace(/url\\("([^"]*)"\\)/g, function (whole, url) {
      var probe = probes[url];
      if (!probe) { probe = probes[url] = new Image(); probe.src = url; }
      pending = pending || !probe.complete;
    });
  });
  return pending;
}
// core.getDOMInfo skips an element of zero size and everything in it, but a container can
// measure zero while what it holds shows: a list whose items all float has zero height
// (drag-items-grid's <ul>, and its names with it, were missing). For the read, such a
// container measures as the union of the boxes of what it holds; it returns them to undo.
function unfold() {
  var measured = [];
  document.querySelectorAll('body *').forEach(function (el) {
    var own = el.getBoundingClientRect(), left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
    if ((own.width && own.height) || window.getComputedStyle(el).display === 'none') { return; }
    el.querySelectorAll('*').forEach(function (inner) {
      var box = inner.getBoundingClientRect();
      if (!box.width || !box.height) { return; }
      left = Math.min(left, box.left); top = Math.min(top, box.top);
      right = Math.max(right, box.right); bottom = Math.max(bottom, box.bottom);
    });
    if (right > left) {
      var union = new DOMRect(left, top, right - left, bottom - top);
      el.getBoundingClientRect = function () { return union; };
      measured.push(el);
    }
  });
  // A closed drop-down list shows only its chosen option, but a person picks from all of
  // them (choose-list): for the read, its options measure as the list itself.
  document.querySelectorAll('select').forEach(function (list) {
    var box = list.getBoundingClientRect();
    if (list.multiple || list.size > 1 || !box.width || !box.height) { return; }
    Array.prototype.forEach.call(list.options, function (option) {
      option.getBoundingClientRect = function () { return box; };
      measured.push(option);
    });
  });
  return measured;
}
function read() {
  var u = core.getUtterance(), measured = unfold(), tree;
  try { tree = core.getDOMInfo(); } finally { measured.forEach(function (el) { delete el.getBoundingClientRect; }); }
  done([tree, [WOB_DONE_GLOBAL, WOB_REWARD_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_REASON],
        typeof u === 'string' ? u : u.utterance, visuals(), typeof u === 'string' ? said() : null]);
}
function wait() { if (!(moving() || loading()) || Date.now() > deadline) { read(); } else { setTimeout(wait, 20); } }
// After a frame: a scroll's events come with the next one, not with the scroll, and
// sign-agreement enables its fields on its text's scroll event (a click read before it, under
// load, found them still disabled). A page drawing no frame is read after 100 ms.
WOB_DONE_GLOBAL, core.getDOMInfo;  // a page without MiniWoB's globals fails here, at once, not in a timer
var started = false;
function start() { if (!started) { started = true; wait(); } }
requestAnimationFrame(function () { setTimeout(start, 0); });
setTimeout(start, 100);
"""
_VIEWPORT_JS = "return [window.innerWidth, window.innerHeight];"
#: How long each pointer move lasts: short, so a 200-point drawing fits a program's time.
MOVE_MS = 10
#: The longest an observation waits for animations to end (jQuery's default lasts 400 ms).
SETTLE_MS = 1000
#: The largest episode seed: the page gets it as a JavaScript number, exact up to 2**53 - 1;
#: larger seeds round, and two of them gave the same page.
MAX_SEED = 2**53 - 1


def check_seed(seed: object) -> int:
    """``seed`` when it is a page seed, a whole number from 0 to :data:`MAX_SEED`; else a one-line
    :class:`ConfigError`. A bool, a float or a string is refused rather than passed on: the page
    would draw from another number than the one the episode records."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"a seed is a whole number, not {seed!r}")
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed {seed} is out of range: seeds run from 0 to {MAX_SEED}")
    return seed


class BrowserDied(WebwiseError):
    """The browser or its driver stopped answering; the caller replaces it."""


class PageFault(WebwiseError):
    """The task page would not load or reset: a fault of the browser's surroundings (the page
    server, a Grid node that cannot reach it), not of the agent; the episode cannot begin."""


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
        self.utterance = ""
        self._pointer_moved = False

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
                raise BrowserDied(f"browser died: {browser_mod.driver_said(exc)}") from None
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
        self._pointer_moved = True
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
        """Start a seeded episode of ``task`` on a freshly loaded page; returns the utterance.

        Same seed, same page, whatever ran before. MiniWoB's own reset draws the new episode
        into the page the last one used, and what the last episode did stayed: the field it
        focused (whose next click then gave no focus event, so choose-date's calendar stayed
        shut), the calendar it opened, the "No search results." notes an autocomplete adds
        (book-flight, use-autocomplete). A load costs about 0.1 s.
        """
        check_seed(seed)
        if self._pointer_moved:
            self._park_pointer()
        self._open(task)
        self.script(_RESET_JS, seed, mode, self.episode_ms)
        deadline = time.monotonic() + 5
        while not self.script(_READY_JS):
            if time.monotonic() > deadline:
                raise PageFault(f"task {task} did not become ready after reset")
            time.sleep(0.02)
        self.utterance = self.observe()[2]
        return self.utterance

    def _park_pointer(self) -> None:
        """Move the pointer back to the window's top-left corner, where a new browser's starts.

        The pointer rests where the last pointer action left it, and the next episode's page
        appears under it: Chrome gives the element there a mouseover, so a hover in one episode
        of click-menu opened a submenu on the first page of the next one (same seed, three more
        items), and what a seed showed first depended on the episode run before it. Moved
        before the reset, the events go to the page being replaced.
        """
        with self._guard():
            builder = ActionBuilder(self.driver, duration=0)
            builder.pointer_action.move_to_location(0, 0)
            builder.perform()
        self._pointer_moved = False

    def _open(self, task: str) -> None:
        try:
            with self._guard():
                self.driver.get(self.pages.base_url + page_path(task))
        except WebDriverException as exc:  # the browser lives, but found nothing there: net::ERR_...
            raise PageFault(self._not_loaded(task, browser_mod.driver_said(exc))) from None
        deadline = time.monotonic() + 10
        while not self.script(_LOADED_JS):
            if time.monotonic() > deadline:
                raise PageFault(self._not_loaded(task, "it never finished loading"))
            time.sleep(0.02)

    def _not_loaded(self, task: str, why: str) -> str:
        """A task page that did not load, where from, and on a Grid what to check: its nodes load
        the pages from this machine's page server."""
        hint = " (can the Grid's nodes reach --page-host?)" if self.remote_url else ""
        return f"page of task {task} did not load from {self.pages.base_url}{hint}: {why}"

    def observe(self) -> tuple[list[Element], Outcome, str]:
        """Visible elements in document order, the outcome so far, and the utterance.

        Read once the page stops moving: an accordion or a date picker animates for a few
        hundred ms after the click that opens it, and a page read meanwhile shows a panel
        half open (click-collapsible-2: a link in the opening section missing from the
        observation, so the program's next click found nothing).
        """
        with self._on_the_task_page():
            tree, state, utterance, visuals, said = self.driver.execute_async_script(_OBSERVE_JS, SETTLE_MS)
        return flatten(tree, visuals), Outcome.from_page(state), spoken(said) if said else utterance

    def outcome(self) -> Outcome:
        with self._on_the_task_page():
            return Outcome.from_page(self.driver.execute_script(_STATE_JS))

    @contextlib.contextmanager
    def _on_the_task_page(self) -> Iterator[None]:
        """A read of MiniWoB's globals (``core``, ``WOB_DONE_GLOBAL``) that finds none: the
        browser is no longer on the task's page, a :class:`PageFault` in one line (the driver's
        error came with its native stack trace, out of the episode as a traceback)."""
        try:
            with self._guard():
                yield
        except JavascriptException as exc:
            raise PageFault(f"the task's page is gone from the browser: {browser_mod.driver_said(exc)}") from None

    def screenshot_png(self) -> bytes:
        with self._guard():
            return self.driver.get_screenshot_as_png()

    def _discard_browser(self) -> None:
        if self.browser is not None:
            self.browser.quit()
        self.browser = None
        self._pointer_moved = False  # a new browser's pointer starts at the corner

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
    """Whether ``exc`` says the browser is gone, so a new one is needed. On a Grid, a session it
    ended (its session timeout, a node restarted) is "Unable to find session with ID", and one
    whose chromedriver died "Unable to execute request for an existing session": kept, every
    later episode of the worker failed on it, or hung."""
    if isinstance(exc, InvalidSessionIdException):
        return True
    text = (exc.msg or str(exc)).lower()
    return any(s in text for s in ("invalid session id", "session deleted", "chrome not reachable", "disconnected",
                                   "connection refused", "no such window", "target window already closed",
                                   "unable to find session", "unable to execute request for an existing session"))
