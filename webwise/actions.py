"""The action executor: program API v1 and its pointer actions performed on the page.

Each action reads the page afresh, acts, and reports the outcome in as few WebDriver
round trips as possible (a click is three scripts: read the DOM, click, then read the DOM
and the reward in one). Arguments reach the page only as script arguments or WebDriver
key and pointer events.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.keys import Keys

from webwise import dom
from webwise.browser import driver_said
from webwise.dates import month_title, parse_date, shown_month, to_input_value
from webwise.environment import BrowserDied, MiniWoBEnv, Outcome
from webwise.matching import (
    ELLIPSIS_WITHIN,
    NoMatch,
    captioned_field,
    described,
    find_target,
    loosely_named,
    naming_call,
    tag_matches,
)

# Choose an option of a list as a pointer would (HTMLOptionElement.click() alone chooses
# nothing); in a list that takes several it toggles, as Ctrl+click does, since the API has
# no modifier clicks.
_CHOOSE_JS = """
function choose(option) {
  var list = option.closest('select');
  option.selected = list.multiple ? !option.selected : true;
  list.focus();
  list.dispatchEvent(new Event('input', {bubbles: true}));
  list.dispatchEvent(new Event('change', {bubbles: true}));
  option.dispatchEvent(new MouseEvent('click', {bubbles: true, cancelable: true, view: window}));
}
"""
# Click the element core.getDOMInfo registered under arguments[0]; a bare text node (ref < 0)
# is clicked through whatever is hit at its centre, when that lies inside its parent.
# Returns [problem, box, skipped]: box names the checkbox the click works (the element itself,
# or the control of the label holding it); when arguments[4] (the boxes this program's clicks
# flipped already) holds it, nothing is clicked and skipped is true. An option is chosen
# (_CHOOSE_JS). Any other element gets the events a person's click sends, at its centre
# (widgets such as jQuery UI's spinner act on mousedown, not on click); a click inside
# editable text (a rich-text editor's paragraph) puts the caret there, at the end of what it
# hit, as a person's click would, since the synthetic events move no caret.
_CLICK_JS = _CHOOSE_JS + """
var ref = arguments[0], el = null;
var hit = document.elementFromPoint(arguments[1], arguments[2]);
if (ref > 0) { el = core.previousDOMInfo[ref]; }
else {
  var parent = core.previousDOMInfo[arguments[3]];
  el = (hit && parent && parent.contains(hit)) ? hit : parent;
}
if (!el || !el.isConnected) { return ['the element is no longer on the page', null, false]; }
if (el.matches && el.matches(':disabled')) {
  return ['it is disabled: the page enables it only once something else is done', null, false];
}
var label = el.closest('label');
var box = (el instanceof HTMLInputElement) ? el : (label ? label.control : null);
var name = null;
if (box && box.type === 'checkbox') {
  name = box.id ? '#' + box.id : '[' + box.dataset.wob_ref + ']';
  if (arguments[4].indexOf(name) >= 0) { return [null, name, true]; }
}
if (el instanceof HTMLOptionElement && el.closest('select')) {
  choose(el);
} else if (el instanceof SVGElement) {
  ['mousedown', 'mouseup', 'click'].forEach(function (t) {
    el.dispatchEvent(new MouseEvent(t, {bubbles: true, cancelable: true, view: window}));
  });
} else {
  var at = {bubbles: true, cancelable: true, view: window, clientX: arguments[1], clientY: arguments[2]};
  ['mouseover', 'mousedown', 'mouseup'].forEach(function (t) { el.dispatchEvent(new MouseEvent(t, at)); });
  el.click(); el.focus();
  var text = el.isContentEditable ? el : (hit && el.contains(hit) && hit.isContentEditable ? hit : null);
  if (text) {
    var host = text.closest('[contenteditable]:not([contenteditable="false"])') || text;
    host.focus();
    var caret = document.createRange();
    caret.selectNodeContents(text); caret.collapse(false);
    window.getSelection().removeAllRanges(); window.getSelection().addRange(caret);
  }
}
return [null, name, false];
"""
# A hidden element whose own text is arguments[0] (else the first that contains it), and the
# ref of the visible control that opens the panel holding it: a link to an ancestor's id
# (href="#id"), else an element naming it in aria-controls, as tabs and accordions
# (jQuery UI, WAI-ARIA) do; for a hidden list nested in a visible list item (a file tree's
# closed folder, a submenu), that item's first visible child with a text of its own. The
# fourth value says the hidden list is a menu's submenu (role="menu"), which hovering opens.
# An element named in the summary's notation (arguments[1]: words each its id or one of its
# classes; arguments[2]: classes it has) counts too, after those found by their text: an icon
# has no text (click-menu-2's items are named by their icon's classes). The fifth value is the
# element's classes.
_HIDDEN_JS = """
var wanted = arguments[0].toLowerCase(), names = arguments[1], classes = arguments[2];
function named(el) {
  var list = Array.from(el.classList || []);
  return names.length + classes.length > 0 &&
    names.every(function (n) { return el.id === n || list.indexOf(n) >= 0; }) &&
    classes.every(function (c) { return list.indexOf(c) >= 0; });
}
function shown(el) { var r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
function ownText(el) {
  var own = '';
  el.childNodes.forEach(function (n) { if (n.nodeType === 3) { own += n.textContent; } });
  return own.replace(/\\s+/g, ' ').trim();
}
function opener(found) {
  for (var j = 0; j < found.length; j++) {
    if (shown(found[j]) && found[j].dataset.wob_ref) { return +found[j].dataset.wob_ref; }
  }
  return null;
}
function control(el) {
  for (var up = el.parentElement; up && up !== document.body; up = up.parentElement) {
    var ref = null;
    if (up.id) {
      var id = CSS.escape(up.id);
      ref = opener(Array.from(document.querySelectorAll('a[href="#' + id + '"]')).concat(
        Array.from(document.querySelectorAll('[aria-controls="' + id + '"]'))));
    }
    if (ref !== null) { return [ref, false]; }
    var item = up.parentElement;
    if (/^[UO]L$/.test(up.tagName) && !shown(up) && item.tagName === 'LI' && shown(item)) {
      ref = opener(Array.from(item.children).filter(function (c) { return c !== up && ownText(c); }));
    }
    if (ref !== null) { return [ref, up.getAttribute('role') === 'menu']; }
  }
  return null;
}
var all = Array.from(document.body.querySelectorAll('*')).filter(function (el) { return !shown(el); });
var hidden = all.filter(function (el) { return ownText(el).toLowerCase().indexOf(wanted) >= 0; });
hidden.sort(function (a, b) { return (ownText(b).toLowerCase() === wanted) - (ownText(a).toLowerCase() === wanted); });
hidden = hidden.concat(all.filter(function (el) { return named(el) && hidden.indexOf(el) < 0; }));
for (var i = 0; i < hidden.length; i++) {
  var found = control(hidden[i]);
  if (found !== null) {
    return [hidden[i].tagName.toLowerCase(), ownText(hidden[i])].concat(found, [hidden[i].getAttribute('class') || '']);
  }
}
return null;
"""
_SCROLL_JS = """
var el = core.previousDOMInfo[arguments[0]];
if (el) { el.scrollIntoView({block: 'center'}); }
"""
# Of the refs arguments[0] lists, the first whose content scrolls (not all of it shows): scroll
# it to its end, as reading through it does, and return that ref; null when none scrolls.
_SCROLL_THROUGH_JS = """
var refs = arguments[0];
for (var i = 0; i < refs.length; i++) {
  var el = core.previousDOMInfo[refs[i]];
  if (el && el.scrollHeight > el.clientHeight) { el.scrollTop = el.scrollHeight; return refs[i]; }
}
return null;
"""
_FOCUS_JS = """
var el = document.activeElement;
if (!el || el === document.body) { return null; }
var editable = el.isContentEditable || el instanceof HTMLTextAreaElement ||
  (el instanceof HTMLInputElement &&
   !['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes(el.type));
return [el.tagName.toLowerCase(), el.type || '', editable && !el.disabled && !el.readOnly, +el.dataset.wob_ref || null];
"""
# Which of the refs arguments[0] names are disabled fields (the page turns them on again later).
_DISABLED_JS = """
return arguments[0].filter(function (ref) {
  var el = core.previousDOMInfo[ref];
  return !!(el && el.matches && el.matches(':disabled'));
});
"""
_VALUE_JS = "return document.activeElement ? document.activeElement.value : null;"
_READ_ONLY_JS = "return !!(document.activeElement && document.activeElement.readOnly);"
_SET_VALUE_JS = """
var el = document.activeElement;
el.value = arguments[0];
el.dispatchEvent(new Event('input', {bubbles: true}));
el.dispatchEvent(new Event('change', {bubbles: true}));
"""

# Select arguments[0] in the text of the task's area (the page without its instruction): a
# text node that is all of it (trimmed), else its first occurrence across text nodes, else in a
# text field's value; when it is an option of a list, choose that option, as clicking it does
# (the first occurrence of "Alexa" is in an earlier option "Alexandra"). Returns the tag of the
# element the selection starts in, or null.
_SELECT_JS = _CHOOSE_JS + """
var wanted = arguments[0], root = document.getElementById('area') || document.body;
var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT), nodes = [], text = '', node;
while ((node = walker.nextNode())) { nodes.push([node, text.length]); text += node.data; }
var whole = nodes.find(function (entry) { return entry[0].data.trim() === wanted; });
var at = whole ? whole[1] + whole[0].data.indexOf(wanted) : text.indexOf(wanted);
if (at >= 0) {
  var end = at + wanted.length, range = document.createRange();
  for (var i = 0; i < nodes.length; i++) {
    var n = nodes[i][0], from = nodes[i][1], to = from + n.data.length;
    if (from <= at && at < to) { range.setStart(n, at - from); }
    if (from < end && end <= to) { range.setEnd(n, end - from); break; }
  }
  var start = range.startContainer.parentElement;
  if (start instanceof HTMLOptionElement && start.closest('select')) { choose(start); return 'option'; }
  var selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  ['mousedown', 'mouseup'].forEach(function (t) {
    start.dispatchEvent(new MouseEvent(t, {bubbles: true, cancelable: true, view: window}));
  });
  return start.tagName.toLowerCase();
}
var fields = root.querySelectorAll('textarea, input');
for (var j = 0; j < fields.length; j++) {
  var f = fields[j], k = typeof f.value === 'string' ? f.value.indexOf(wanted) : -1;
  if (k >= 0 && f.setSelectionRange) {
    f.focus(); f.setSelectionRange(k, k + wanted.length);
    return f.tagName.toLowerCase();
  }
}
return null;
"""

KEYS: dict[str, str] = {
    "enter": Keys.ENTER, "return": Keys.ENTER, "tab": Keys.TAB, "backspace": Keys.BACKSPACE,
    "delete": Keys.DELETE, "escape": Keys.ESCAPE, "esc": Keys.ESCAPE, "space": Keys.SPACE,
    "home": Keys.HOME, "end": Keys.END, "arrowup": Keys.ARROW_UP, "arrowdown": Keys.ARROW_DOWN,
    "arrowleft": Keys.ARROW_LEFT, "arrowright": Keys.ARROW_RIGHT, "pageup": Keys.PAGE_UP,
    "pagedown": Keys.PAGE_DOWN,
}
MODIFIERS: dict[str, str] = {
    "control": Keys.CONTROL, "ctrl": Keys.CONTROL, "shift": Keys.SHIFT, "alt": Keys.ALT,
    "meta": Keys.META, "cmd": Keys.META,
}
_MAX_TEXT = 2000
#: Characters typed in one batch, about half a second's typing: enter_text stops between
#: batches once the program's time is up.
_KEY_BATCH = 200
#: What draw() takes: at least a start and an end, at most this many points.
MAX_POINTS = 200
#: Seconds a pointer gesture is allowed per point: WebDriver performs one whole, at about 17 ms
#: a point here (MOVE_MS each and the driver's own time; 200 points took 3.35 s).
_POINT_SECONDS = 0.02
#: The longest wait(), in seconds: a program has 10 s in all.
MAX_WAIT = 5.0
#: Seconds hover() rests the pointer before the page is observed: menus open a submenu a moment
#: after the pointer arrives (jQuery UI waits 300 ms), and the observation only waits for
#: animations already running, so a hover read at once saw the submenu still closed.
HOVER_DWELL = 0.5
#: Pixels between the moves of a drag: jQuery UI's sortable reorders as the pointer passes
#: items, so a drag goes there in steps rather than in one jump.
_DRAG_STEP = 20
#: How far past the target's centre drag() releases, along its way: a sortable list moves an
#: item aside once the pointer reaches the item's middle, and the observation's whole-pixel
#: geometry puts the centre up to half a pixel short of it.
_PAST_CENTRE = 2
#: Input kinds whose value is set whole from the forms people write, not typed key by key.
_SET_KINDS = frozenset({"date", "time", "datetime-local", "month", "week"})


class ActionError(Exception):
    """An action that cannot be performed; the one-line message goes to the program."""


def failure(action: str, exc: Exception) -> str:
    """The program's one line for an action that raised something other than :class:`ActionError`.

    A program's arguments reach code that was not written for them (a digit ``regex`` reads
    and ``int()`` refuses, a lone surrogate the driver will not send): whatever that raises
    is the action's error, not the host's crash. Only a dead browser stops the program
    (:class:`BrowserDied`, raised as it is).
    """
    if isinstance(exc, WebDriverException):
        return f"{action} failed in the browser: {driver_said(exc)}"
    return f"{action} failed: {type(exc).__name__}: {exc}"


@dataclass
class ActionRecord:
    """One performed (or refused) action, as the episode trace keeps it."""

    name: str
    args: list[Any]
    target: str | None = None
    target_text: str | None = None
    error: str | None = None
    ms: float = 0.0
    #: The checkbox the click flipped (its id, or ref), not one the page flipped in turn.
    flipped: str | None = None
    #: What the executor did other than asked, said in the step's feedback.
    note: str | None = None


@dataclass
class Executor:
    """Performs actions on ``env`` and keeps the flags the filtered summary shows.

    ``view`` turns the page's elements into the observation programs see (filtered
    summary, whole DOM, or nothing), so every action returns the method's own view.
    """

    env: MiniWoBEnv
    view: Callable[[list[dom.Element], set[int], set[int]], list[dom.Element]]
    clicked: set[int] = field(default_factory=set)
    typed: set[int] = field(default_factory=set)
    initial_values: dict[int, Any] = field(default_factory=dict)
    records: list[ActionRecord] = field(default_factory=list)
    outcome: Outcome = field(default_factory=Outcome)
    observation: list[dom.Element] = field(default_factory=list)
    page_key: str = ""
    focus: dom.Element | None = None
    elements: list[dom.Element] = field(default_factory=list)
    caption_misses: set[tuple[str, str]] = field(default_factory=set)
    #: The guards that make a program do less than it says, for small models' habits: a
    #: checkbox flips at most once per program, a held value is not typed again, typing
    #: right after a click on another field's caption is refused, and caption clicks that
    #: focused nothing before go to their field (:meth:`caption_fix`). False runs
    #: programs literally, as program API v1 reads.
    guards: bool = True
    #: When the program now running must be over (``time.monotonic()``). The sandbox kills it
    #: then, but cannot stop a pause the host makes for it (``wait``, ``hover``'s rest), which
    #: would keep the host busy past the program's wall-clock limit.
    deadline: float = math.inf

    def start(self) -> list[dom.Element]:
        """Begin an episode: forget flags, remember initial values, observe."""
        self.clicked.clear()
        self.typed.clear()
        self.records.clear()
        elements, self.outcome, _ = self.env.observe()
        self.initial_values = {e["ref"]: e["value"] for e in elements}
        return self._summarise(elements)

    @property
    def focus_ref(self) -> int | None:
        return self.focus["ref"] if self.focus else None

    def refresh(self) -> list[dom.Element]:
        """Observe the page again (between programs)."""
        elements, self.outcome, _ = self.env.observe()
        return self._summarise(elements)

    def caption_fix(self, tag: str, text: str) -> str | None:
        """The click reaching the field that ``click(tag, text)`` names by its caption, once a
        caption click of the same tag has focused nothing (None: leave the click as written).

        ``caption_misses`` holds the ``(tag, text)`` of clicks whose typing failed because
        they hit a field's caption (the caller may share one set across an episode's
        trials). A page that does not tie one ``label`` to its field ties none (login-user's
        Username and Password), so every click of that tag on a caption goes to its field:
        fixing only the click that failed left the 1.5B's next program failing on the next
        caption (login-user-popup, 6 of 6 episodes on fresh seeds). It is looked up on the
        current page, so a caption that names no field here is left alone.
        """
        if not self.guards or tag.strip().lower() not in {t.strip().lower() for t, _ in self.caption_misses}:
            return None
        found = _captioned_call(self.elements, tag, text)
        return None if found is None else found[2]

    def _summarise(self, elements: list[dom.Element]) -> list[dom.Element]:
        self.elements = elements
        modified = {e["ref"] for e in elements if e["ref"] in self.typed
                    or (e["ref"] in self.initial_values and e["value"] != self.initial_values[e["ref"]])}
        self.observation = self.view(elements, self.clicked, modified)
        self.page_key = dom.page_key(elements)
        self.focus = next((e for e in elements if e["focused"]), None)
        return self.observation

    # -- program API v1 ------------------------------------------------------------

    def click(self, tag: str, text: str) -> list[dom.Element]:
        tag, text = _text_arg("click", "tag", tag), _text_arg("click", "text", text)
        return self._perform("click", [tag, text], lambda: self._click(tag, text))

    def enter_text(self, text: str) -> list[dom.Element]:
        text = _keys_arg("enter_text", "text", text)
        return self._perform("enter_text", [text], lambda: self._type(text))

    def press_key(self, key: str) -> list[dom.Element]:
        key = _keys_arg("press_key", "key", key)
        return self._perform("press_key", [key], lambda: self._press(key))

    def scroll(self, text: str) -> list[dom.Element]:
        text = _text_arg("scroll", "text", text)
        return self._perform("scroll", [text], lambda: self._scroll(text))

    # -- pointer actions (additive to v1) ------------------------------------------

    def click_at(self, x: float, y: float) -> list[dom.Element]:
        if isinstance(x, str) and isinstance(y, str):
            raise ActionError(_meant("click_at", (_text_arg("click_at", "x", x), _text_arg("click_at", "y", y))))
        point = _point_arg("click_at()", x, y)
        return self._perform("click_at", list(point), lambda: self._pointer("click_at", [point]))

    def hover(self, tag: str, text: str) -> list[dom.Element]:
        tag, text = _text_arg("hover", "tag", tag), _text_arg("hover", "text", text)
        return self._perform("hover", [tag, text], lambda: self._hover(tag, text))

    def drag(self, tag: str, text: str, to_tag: str, to_text: str) -> list[dom.Element]:
        _refuse_point_start("drag", tag, text, to_tag, to_text)
        tag, text = _text_arg("drag", "tag", tag), _text_arg("drag", "text", text)
        if _is_number(to_tag) and _is_number(to_text):
            raise ActionError(_meant("drag", (tag, text, to_tag, to_text)))
        to_tag, to_text = _text_arg("drag", "to_tag", to_tag), _text_arg("drag", "to_text", to_text)
        return self._perform("drag", [tag, text, to_tag, to_text],
                             lambda: self._drag("drag", tag, text, (to_tag, to_text)))

    def drag_to(self, tag: str, text: str, x: float, y: float) -> list[dom.Element]:
        _refuse_point_start("drag_to", tag, text, x, y)
        tag, text = _text_arg("drag_to", "tag", tag), _text_arg("drag_to", "text", text)
        if isinstance(x, str) and isinstance(y, str):
            point_texts = (_text_arg("drag_to", "x", x), _text_arg("drag_to", "y", y))
            raise ActionError(_meant("drag_to", (tag, text, *point_texts)))
        point = _point_arg("drag_to()", x, y)
        return self._perform("drag_to", [tag, text, *point], lambda: self._drag("drag_to", tag, text, point))

    def draw(self, points: Any) -> list[dom.Element]:
        path = _points_arg(points)
        return self._perform("draw", [[list(p) for p in path]], lambda: self._pointer("draw", path))

    def select_text(self, text: str) -> list[dom.Element]:
        text = _text_arg("select_text", "text", text)
        return self._perform("select_text", [text], lambda: self._select(text))

    def wait(self, seconds: float) -> list[dom.Element]:
        delay = _number_arg("wait()", "seconds", seconds)
        if not 0 < delay <= MAX_WAIT:
            raise ActionError(f"wait() takes seconds above 0 and at most {MAX_WAIT:g}, not {delay:g}")
        return self._perform("wait", [seconds], lambda: self._pause(delay))

    # -- the paper's spellings ----------------------------------------------------

    @staticmethod
    def make_action(spelling: str, kind: str, *args: Any) -> dict[str, Any]:
        """``click_action1`` and friends (``spelling``): an action as data, performed by
        ``env.step``. The arguments are checked as the action's own, so what goes back to the
        program is bounded text, never the program's own data echoed (a list nested to the
        pipe's depth limit); a refusal names the function the program called."""
        return {"action": kind, "args": [_text_arg(spelling, "each argument", arg) for arg in args]}

    def step(self, action: Any) -> tuple[list[dom.Element], float, bool, bool, dict[str, Any]]:
        """``env.step(action)``: perform an action made by ``click_action1`` and friends."""
        if not isinstance(action, dict) or action.get("action") not in ("click", "enter_text", "scroll"):
            raise ActionError("env.step() expects an action made by click_action1, enter_text_action or scroll_action1")
        args = action.get("args")
        perform = {"click": self.click, "enter_text": self.enter_text, "scroll": self.scroll}[action["action"]]
        expected = 2 if action["action"] == "click" else 1
        if not isinstance(args, list) or len(args) != expected:
            raise ActionError(f"env.step(): a {action['action']} action needs {expected} argument(s)")
        observation = perform(*args)
        info = {"reason": self.outcome.reason}
        return observation, self.outcome.reward, self.outcome.done, False, info

    # -- mechanics ------------------------------------------------------------------

    def _perform(self, name: str, args: list[Any], act: Callable[[], str | None]) -> list[dom.Element]:
        record = ActionRecord(name, args)
        self.records.append(record)
        checked = _checked(self.elements)
        started = time.perf_counter()
        try:
            record.target = act()
        except ActionError as exc:
            record.error = str(exc)
            raise
        except BrowserDied:
            raise
        except Exception as exc:  # whatever else the program's arguments provoke is its error too
            record.error = failure(name, exc)
            raise ActionError(record.error) from exc
        finally:
            record.ms = round((time.perf_counter() - started) * 1000, 1)
        observation = self.refresh()
        if record.flipped and _checked(self.elements).get(record.flipped) == checked.get(record.flipped):
            record.flipped = None  # the page kept the box as it was
        return observation

    def _find(self, elements: list[dom.Element], tag: str, text: str) -> dom.Element:
        """The element ``click(tag, text)`` hits, or the error naming close candidates or the
        closed panel that holds it."""
        try:
            return find_target(elements, tag, text)
        except NoMatch as exc:
            hidden = self._hidden_hint(elements, text, tag)
            raise ActionError(f"no {tag!r} element with text {text!r} in view; {hidden}" if hidden
                              else str(exc)) from None

    def _pointer(self, action: str, points: list[tuple[float, float]]) -> None:
        """Press at the first point, move through the rest, release at the last.

        Every point must lie in the viewport: WebDriver refuses moves outside it, and a
        point off the window is a program's mistake worth one line.
        """
        viewport = self.env.viewport()
        for point in points:
            _check_inside(action, point, viewport)
        self._gesture(action, _whole(points), press=True)

    def _gesture(self, action: str, points: list[tuple[int, int]], *, press: bool) -> None:
        """Move the pointer through ``points``, if that can end before :attr:`deadline`.

        WebDriver performs a gesture whole and cannot stop it midway, so one that cannot end in
        the program's time is refused before it starts: a draw of 200 points begun at the end
        of a program went on 3.4 s past its wall-clock limit, the page still taking the moves
        after the sandbox had killed the program.
        """
        need = len(points) * _POINT_SECONDS
        left = self.deadline - time.monotonic()
        if need > left:
            raise ActionError(f"{action}(): the program's time ran out: {len(points)} pointer moves take about "
                              f"{need:.1f} s, and {max(0.0, left):.1f} s were left")
        self.env.pointer(points, press=press)

    def _pause(self, seconds: float) -> None:
        """Sleep ``seconds``, or until :attr:`deadline` when that comes first."""
        time.sleep(max(0.0, min(seconds, self.deadline - time.monotonic())))

    def _send_text(self, keys: str) -> None:
        """Type ``keys`` in batches of :data:`_KEY_BATCH`, none begun after :attr:`deadline`.

        The driver types about 400 characters a second, so 2,000 take 5 s; a typing begun
        near the program's end went on 5 s past its wall-clock limit, the page still taking
        keys after the sandbox had killed the program.
        """
        for start in range(0, len(keys), _KEY_BATCH):
            if time.monotonic() >= self.deadline:
                raise ActionError(f"enter_text(): the program's time ran out after {start} of {len(keys)} "
                                  "characters were typed")
            self.env.keys(keys[start:start + _KEY_BATCH])

    def _hover(self, tag: str, text: str) -> str:
        target = self._find(self.env.observe()[0], tag, text)
        self.records[-1].target_text = target["text"] or target["deep_text"]
        centre = dom.centre(target)
        _check_inside("hover", centre, self.env.viewport(), target)
        self._gesture("hover", _whole([centre]), press=False)
        self._pause(HOVER_DWELL)
        return f"{target['tag']} {target['deep_text'][:40]!r}".strip()

    def _drag(self, action: str, tag: str, text: str, to: tuple[str, str] | tuple[float, float]) -> str:
        """Drag the element to the centre of the element ``to`` names (drag) or to the point ``to`` (drag_to).

        The pointer goes there in steps of :data:`_DRAG_STEP` pixels; every step lies on the
        segment between two points inside the viewport, so inside it too.
        """
        elements = self.env.observe()[0]
        source = self._find(elements, tag, text)
        self.records[-1].target_text = source["text"] or source["deep_text"]
        target = self._find(elements, *to) if action == "drag" else None
        viewport = self.env.viewport()
        if target is None:
            _check_inside(action, to, viewport)
        else:
            _check_inside(action, dom.centre(target), viewport, target)
        start = dom.centre(source)
        _check_inside(action, start, viewport, source)
        end = _past(start, dom.centre(target)) if target is not None else to
        steps = max(2, min(MAX_POINTS - 1, math.ceil(math.dist(start, end) / _DRAG_STEP)))
        path = [start] + [(start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps)
                          for i in range(1, steps + 1)]
        self._gesture(action, _whole(path), press=True)
        return f"{source['tag']} {source['deep_text'][:40]!r}".strip()

    def _select(self, text: str) -> str:
        if not text.strip():
            raise ActionError("select_text() needs a text to select")
        found = self.env.script(_SELECT_JS, text)
        if found is None:
            raise ActionError(f"select_text({text!r}): the page shows no such text")
        return str(found)

    def _click(self, tag: str, text: str) -> str:
        """Click the target; the record's note says why not when it would undo this program's work.

        A click that would flip back a checkbox this program already flipped by a click is not
        made: small models click a box's label and then the box (or its text, or the same box
        twice), which checks and unchecks it. Boxes the page flipped in turn (a "select all")
        do not count, so a program may check all and then uncheck one; the next program may
        uncheck any.
        """
        elements, _, _ = self.env.observe()
        target = self._find(elements, tag, text)
        parent = target["parent"] if target["ref"] < 0 else None
        x, y = dom.centre(target)
        flipped = [record.flipped for record in self.records[:-1] if record.flipped and self.guards]
        problem, box, skipped = self.env.script(_CLICK_JS, target["ref"], x, y, parent, flipped)
        if problem:
            raise ActionError(f"click({tag!r}, {text!r}): {problem}")
        record = self.records[-1]
        record.target_text = target["text"] or target["deep_text"]
        if skipped:
            record.note = (f"not clicked: it would flip back {box}, which this program already"
                           " flipped (a box and its label are one control)")
        else:
            record.flipped = box
            self.clicked.add(target["ref"] if target["ref"] > 0 else parent)
        return f"{target['tag']} {target['deep_text'][:40]!r}".strip()

    def _hidden_hint(self, elements: list[dom.Element], text: str, tag: str = "") -> str | None:
        """Where a text the page holds out of view is, and the click that shows it.

        Tabs and accordions keep their closed panels' content out of the observation, so a
        program that names a link in another tab gets "no element" and a list of visible
        look-alikes; the 1.5B then scrolled, or clicked the same tab again (paper48:
        click-tab-2 and click-collapsible-2). The panel's own control says where it is.
        A menu's submenu opens under the pointer, and a click on its item chooses that item
        (click-menu ends the episode as failed), so for a submenu the hint is a hover.
        An element named in the summary's notation is looked for too: click-menu-2 names its
        item by the classes of the icon it shows, and the 1.5B's ``click('div', 'ui-icon
        ui-icon-stop')`` for an item of the closed Playback submenu was told only of the
        visible items, at every trial.
        """
        wanted = dom.collapse(text)
        description = described(wanted, tag) if wanted else None
        names, classes = (list(description.names), list(description.classes)) if description else ([], [])
        found = self.env.script(_HIDDEN_JS, wanted, names, classes) if wanted else None
        if not found:
            return None
        hidden_tag, hidden_text, ref, menu, hidden_classes = found
        hidden_text = hidden_text or "".join("." + part for part in str(hidden_classes).split())
        control = next((e for e in elements if e["ref"] == ref), None)
        call = naming_call(elements, control, "hover" if menu else "click") if control is not None else None
        if call is None:
            return None
        if menu:
            return (f"{hidden_tag} {hidden_text[:40]!r} is in a closed submenu: {call} opens it "
                    "(a click on the item would choose it)")
        return f"{hidden_tag} {hidden_text[:40]!r} is in a closed panel: {call} opens it"

    def _focused(self) -> tuple[str, str, int | None]:
        """Tag, input type and ref of the focused editable element.

        The last observation (taken at the end of the previous action) already says which
        input has the focus; only when it shows none, or something other than a text-like
        input, does the page get asked, which also covers contenteditable elements. Typing
        right after a click on another field's caption is refused: the focus stayed on the
        field typed into before, and the text would land there.
        """
        if self.focus is not None and self.focus["tag"] in dom.TYPABLE:
            advice = self._caption_advice(self.focus["ref"]) if self.guards else None
            if advice:
                raise ActionError(f"not typed: the focus is still on another field ({self.focus['tag']}); {advice}")
            tag = self.focus["tag"]
            return tag, tag.removeprefix("input_") if tag.startswith("input_") else "", self.focus["ref"]
        focus = self.env.script(_FOCUS_JS)
        if not focus or not focus[2]:
            what = f"a {focus[0]}" if focus else "nothing"
            advice = self._caption_advice() or self._fields_advice()
            raise ActionError(f"no text input is focused ({what} is); {advice}")
        return focus[0], focus[1], focus[3]

    def _fields_advice(self) -> str:
        """The clicks that focus the page's fields, for typing with none focused.

        "Click the input first" alone named no input: on email-inbox-reply the 1.5B typed the
        reply right after clicking Reply, and again after the error, never clicking the
        reply's textarea it had not looked for. A field the page has disabled is not named:
        login-user-popup disables its fields while a popup the first click opened waits for an
        answer, and the 1.5B, told to click the username field, clicked it again and met "it is
        disabled" (seeds 1 and 2 of the suite run, every trial); that none can take text is said.
        """
        fields = [e for e in self.elements if e["tag"] in dom.TYPABLE]
        disabled = set(self.env.script(_DISABLED_JS, [e["ref"] for e in fields])) if fields else set()
        calls = [call for e in fields if e["ref"] not in disabled and (call := naming_call(self.elements, e))]
        if not calls and disabled:
            shut = [f"{e['tag']} {(e['id'] or e['deep_text'])[:40]!r}" for e in fields if e["ref"] in disabled]
            more = f" and {len(shut) - 3} more" if len(shut) > 3 else ""
            return (f"the page has disabled its fields ({', '.join(shut[:3])}{more}): it enables them only once "
                    "something else is done")
        if not calls:
            return "the page shows no field to type into"
        more = f" and {len(calls) - 3} more" if len(calls) > 3 else ""
        return "click the field first, then type: " + ", ".join(calls[:3]) + more

    def _caption_advice(self, focused: int | None = None) -> str | None:
        """When the click before this typing hit the caption of a field other than ``focused``,
        the click that reaches that field.

        Small models name a field by its caption (``click('label', 'Password')``); on pages
        whose captions are not tied to their fields that click focuses nothing, and "click
        the input first" alone leads them to click the caption again. The click is kept in
        ``caption_misses`` for ``caption_fix``.
        """
        previous = self.records[-2] if len(self.records) > 1 else None
        if previous is None or previous.name != "click" or previous.error:
            return None
        found = _captioned_call(self.elements, *previous.args)
        if found is None or found[1]["ref"] == focused:
            return None
        caption, _, call = found
        self.caption_misses.add((previous.args[0], previous.args[1]))
        shown = f"{caption['tag']} {caption['deep_text'][:40]!r}"
        clicked = f"click({previous.args[0]!r}, {previous.args[1]!r})"
        return f"{clicked} clicked the {shown}, not its field; click the field: {call}"

    def _calendar_clicks(self, text: str) -> str | None:
        """The clicks that pick the date ``text`` on the calendar the page shows, or None.

        The 1.5B typed the asked date into choose-date's and book-flight's read-only field,
        and when told to use the calendar clicked day 1 of the month it showed (0 of 18
        episodes). The calendar's title says which month is shown, its Prev and Next
        controls move by one, and a day is a link named by its number. Several moves are
        written as a loop: told to call Prev "11 times", the 1.5B called it once.
        """
        wanted = parse_date(text)
        shown = shown_month([e["text"] for e in self.elements if e["text"]])
        if wanted is None or shown is None:
            return None
        months = (wanted.year - shown[0]) * 12 + wanted.month - shown[1]
        names = ("next",) if months > 0 else ("prev", "previous")
        control = next((e for e in self.elements if e["text"].lower() in names), None)
        move = naming_call(self.elements, control) if control is not None else None
        if months and move is None:
            return None
        link = next((e["tag"] for e in self.elements
                     if e["text"] == str(wanted.day) and e["tag"] in ("a", "button", "td", "span")), "a")
        day = f"click({link!r}, {str(wanted.day)!r})"
        title = month_title(*shown)
        if not months:
            return f"the calendar shows {title}; for {text} call {day}"
        if abs(months) == 1:
            return f"the calendar shows {title}; for {text} call {move}, then {day}"
        way = "forward" if months > 0 else "back"
        return (f"the calendar shows {title}; for {text} go {way} {abs(months)} months with "
                f"`for _ in range({abs(months)}): {move}`, then call {day}")

    def _type(self, text: str) -> str:
        """Type into the focused field; a field that already holds exactly ``text`` keeps it.

        Small models write each step's program from the start again and replayed steps
        retype too, so "type the username" runs twice on one field; typing it again would
        leave ``nathalienathalie`` there (the 1.5B lost login-user s2 to that on paper48).
        Typing into a field that holds other text adds to it, as keys do; the record's note
        says so, since a model that types a second guess into a number field means to
        replace the first and otherwise never learns why the page read ``54``.
        A read-only field (choose-date's date picker) ignores keys; typing into it is refused,
        since the program would go on to submit an empty field without ever learning why. A field
        whose page swallows the keys (use-spinner's) keeps its value, and the note says so.
        """
        tag, kind, ref = self._focused()
        if ref:
            self.typed.add(int(ref))
        enter = text.endswith("\n")
        body = text[:-1] if enter else text
        held_value = self.focus["value"] if self.focus is not None and self.focus["ref"] == ref else ""
        held = self.guards and bool(body) and held_value == body
        if held:
            body = ""
        elif body and self.env.script(_READ_ONLY_JS):
            raise ActionError(f"not typed: the focused {tag} is read-only, the page fills it from its own "
                              "controls (a date picker's calendar, a list): "
                              + (self._calendar_clicks(body) or "click the value among them instead"))
        elif kind in _SET_KINDS:
            value = to_input_value(kind, body)
            if value is None:
                raise ActionError(f"cannot read {body!r} as a {kind}")
            self.env.script(_SET_VALUE_JS, value)
            body = ""
        if body:
            self._send_text(body.replace("\n", Keys.ENTER))
        # Read before the Enter, which may submit and clear the field (a terminal's prompt).
        value = self.env.script(_VALUE_JS) if body and isinstance(held_value, str) else None
        if enter:
            self.env.keys(Keys.ENTER)
        if held_value and value == held_value + body:
            self.records[-1].note = (f"the field held {held_value[:40]!r}, so the text went after it; "
                                     "press_key('Control+a') first to replace it")
        elif isinstance(value, str) and value == held_value and "\n" not in body:
            self.records[-1].note = ("the field's value did not change: the page ignores typed keys there; "
                                     "set it with the page's own controls (its arrows, buttons or list)")
        return f"{tag} {kind}".strip() + (" (already held this text)" if held else "")

    def _press(self, key: str) -> str:
        *mods, main = _key_parts(key)
        try:
            modifiers = [MODIFIERS[m.lower()] for m in mods]
        except KeyError as exc:
            raise ActionError(f"unknown modifier {exc.args[0]!r} in {key!r}; use Control, Shift, Alt or Meta") from None
        if main.lower() in KEYS:
            code = KEYS[main.lower()]
        elif len(main) == 1:
            code = main
        else:
            raise ActionError(f"unknown key {main!r}; use Enter, Tab, Backspace, Delete, Escape, Space, Home, End, "
                              "PageUp, PageDown, an Arrow key or one character")
        self.env.keys(code, modifiers=tuple(modifiers))
        return key

    def _scroll(self, text: str) -> str:
        """Scroll the innermost element holding ``text`` into view: its containers hold it
        too, and the outermost one scrolled into view left the text out of view (order-food:
        a dish at the bottom of the scrolled menu stayed hidden, and a click_at on it missed).

        When no element holds it, two things programs mean by it are done; both came from
        the 1.5B asked to "Scroll to the bottom of the textarea" (sign-agreement,
        scroll-text-2). A copy of a text as the page text cuts it names that element, as for
        click, and a copy that keeps the text's end (``start ... end``) also scrolls the
        element's content to that end. A text naming a box by its tag, class or id
        (``scroll('textarea')``) scrolls that box's content to its end.
        """
        elements, _, _ = self.env.observe()
        holder, to_end = _innermost_holder(elements, dom.collapse(text).lower()), False
        if holder is None and (holder := loosely_named(elements, "", text)) is not None:
            to_end = bool(ELLIPSIS_WITHIN.match(text))
        if holder is not None:
            ref = holder["ref"] if holder["ref"] > 0 else holder["parent"]
            self.env.script(_SCROLL_JS, ref)
            said = f"{holder['tag']} {holder['deep_text'][:40]!r}"
            through = to_end and self.env.script(_SCROLL_THROUGH_JS, [ref]) is not None
            return f"{said}, scrolled to its end" if through else said
        named = [e for e in elements if e["ref"] > 0 and (tag_matches(e, text) or e["id"] == text.strip())]
        scrolled = self.env.script(_SCROLL_THROUGH_JS, [e["ref"] for e in named]) if named else None
        box = next((e for e in named if e["ref"] == scrolled), None)
        if box is None:
            raise ActionError(f"scroll({text!r}): no element contains that text")
        return f"{box['tag']} {box['id'] or box['deep_text'][:40]!r}, scrolled to its end"


def _innermost_holder(elements: list[dom.Element], wanted: str) -> dom.Element | None:
    """The innermost element whose text contains ``wanted`` (lower case), the first such."""
    parents = {element["ref"]: element["parent"] for element in elements}
    holder = None
    for element in elements:
        if wanted and wanted in element["deep_text"].lower() and (
                holder is None or _inside(element["ref"], holder["ref"], parents)):
            holder = element
    return holder


def _key_parts(key: str) -> list[str]:
    """``key``'s modifiers, then its main key: the parts between its '+' signs.

    A '+' that ends the key after another '+' (``Control++``), or alone, is the plus key, one
    character as press_key takes any, not a separator before an empty name. A part that is
    only whitespace is that key (' ' is the space bar), not an empty name.
    """
    if key == "+" or key.endswith("++"):
        head, main = key[:-2], "+"
    else:
        head, _, main = key.rpartition("+")
    return [part.strip() or part for part in (head.split("+") if head else []) + [main]]


def _inside(ref: int, ancestor: int, parents: dict[int, int | None]) -> bool:
    """Whether the element ``ref`` lies inside the element ``ancestor``."""
    parent = parents.get(ref)
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parents.get(parent)
    return False


def _checked(elements: list[dom.Element]) -> dict[str, bool]:
    """The checked state of each checkbox, by id (or ref when it has none)."""
    return {f"#{e['id']}" if e["id"] else f"[{e['ref']}]": e["value"]
            for e in elements if e["tag"] == "input_checkbox"}


def _captioned_call(elements: list[dom.Element], tag: str,
                    text: str) -> tuple[dom.Element, dom.Element, str] | None:
    """The element ``click(tag, text)`` hits, the field it captions and the click reaching that field."""
    try:
        caption = find_target(elements, tag, text)
    except NoMatch:
        return None
    captioned = captioned_field(elements, caption)
    call = naming_call(elements, captioned) if captioned is not None else None
    return None if captioned is None or call is None else (caption, captioned, call)


#: The private-use characters WebDriver's keystrokes read as special keys (``Keys.F5`` is U+E035).
_KEY_CODES = ("\ue000", "\uf8ff")
#: Halves of UTF-16 surrogate pairs: alone they are no character, and the driver refuses a
#: command holding one ("invalid argument: missing command parameters"), which named nothing
#: the program could fix.
_SURROGATES = ("\ud800", "\udfff")


def _holds(text: str, span: tuple[str, str]) -> bool:
    """Whether ``text`` holds a character from ``span[0]`` to ``span[1]``."""
    return any(span[0] <= char <= span[1] for char in text)


def _text_arg(action: str, name: str, value: Any) -> str:
    """Actions take text; numbers are accepted as their text, anything else is refused, and so
    is a lone surrogate (the pipe from the sandbox carries one as ``"\\ud800"``)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ActionError(f"{action}() expects {name} as a string, not {type(value).__name__}")
    text = str(value)
    if len(text) > _MAX_TEXT:
        raise ActionError(f"{action}(): {name} is longer than {_MAX_TEXT} characters")
    if _holds(text, _SURROGATES):
        raise ActionError(f"{action}(): {name} holds a lone surrogate (U+D800-U+DFFF), half of a character")
    return text


def _keys_arg(action: str, name: str, value: Any) -> str:
    """Text that goes to the page as keystrokes. WebDriver reads the characters U+E000-U+F8FF
    as keys of its own (F5, browser back, ...), a way around the list of keys press_key names."""
    text = _text_arg(action, name, value)
    if _holds(text, _KEY_CODES):
        raise ActionError(f"{action}(): {name} holds a character U+E000-U+F8FF, which WebDriver sends as a "
                          "key of its own; use press_key with a key's name")
    return text


def _check_inside(action: str, point: tuple[float, float], viewport: tuple[float, float],
                  element: dom.Element | None = None) -> None:
    """Refuse a point outside the viewport, naming ``element`` when the point is its centre."""
    (x, y), (width, height) = point, viewport
    if 0 <= x < width and 0 <= y < height:
        return
    if element is not None:
        text = element["deep_text"][:40]
        advice = f"; scroll({text!r}) first" if text else ""
        raise ActionError(f"{action}(): the {element['tag']} {text!r} is outside the window{advice}")
    raise ActionError(f"{action}(): the point ({x:g}, {y:g}) is outside the window "
                      f"(0 <= x < {width:g}, 0 <= y < {height:g})")


def _whole(points: list[tuple[float, float]]) -> list[tuple[int, int]]:
    """Points in whole pixels, as WebDriver pointer moves take them."""
    return [(round(x), round(y)) for x, y in points]


def _past(start: tuple[float, float], end: tuple[float, float]) -> tuple[float, float]:
    """``end`` moved :data:`_PAST_CENTRE` pixels further along the way from ``start``."""
    distance = math.dist(start, end)
    if distance == 0:
        return end
    scale = _PAST_CENTRE / distance
    return end[0] + (end[0] - start[0]) * scale, end[1] + (end[1] - start[1]) * scale


def _number_arg(call: str, name: str, value: Any) -> float:
    """A finite int or float; bools, strings, NaN and infinities are refused (``call`` names
    where the number was given, as ``click_at()`` or ``draw() point 3``)."""
    if not _is_number(value):
        raise ActionError(f"{call} expects {name} as a number, not {type(value).__name__}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise ActionError(f"{call} expects {name} as a finite number, not {value!r:.40}")
    return number


#: For a pointer action given the other kind of target, the call it meant and why: the 1.5B
#: writes ``drag_to('circle', 'yellow', 'rect', '#shape-container')`` for ``drag``, again and
#: again when told only that x is not a number, ``drag('circle', '.black-circle', 66, 103)``
#: for ``drag_to`` (which looked for an element of tag 66), and ``click_at('div #area', 'Tab
#: #2')`` for ``click``.
_MEANT = {
    "drag_to": ("drag", "drag_to() drops at a point (x, y) of the page, not on an element; to drop on an element"),
    "drag": ("drag_to", "drag() drops on an element (to_tag, to_text), not at a point; to drop at a point"),
    "click_at": ("click", "click_at() clicks a point (x, y) of the page, not an element; to click an element"),
}


def _meant(called: str, args: tuple[Any, ...]) -> str:
    """The error for ``called`` given the other kind of target: it names the call that takes it."""
    other, why = _MEANT[called]
    return f"{why}, write {other}{args!r}"


def _refuse_point_start(called: str, x: Any, y: Any, *to: Any) -> None:
    """Refuse ``drag`` or ``drag_to`` given a point where its element goes, naming the call for it.

    Both press on an element; given numbers there (form-sequence: ``drag_to(23, 71, 13, 71)``
    for a slider's handle at (23, 71)), they looked for an element of tag 23 and said "no '23'
    element with text '71'". A press at a point and a release at another is ``draw``.
    """
    if not (_is_number(x) and _is_number(y)):
        return
    if len(to) == 2 and all(map(_is_number, to)):
        raise ActionError(f"{called}() presses on an element (tag, text), not at a point; to drag from a point "
                          f"to a point, write draw([({x!r}, {y!r}), ({to[0]!r}, {to[1]!r})])")
    raise ActionError(f"{called}() presses on an element (tag, text), not at a point: name the element to drag, "
                      "as click() does")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _point_arg(call: str, x: Any, y: Any) -> tuple[float, float]:
    return _number_arg(call, "x", x), _number_arg(call, "y", y)


def _points_arg(points: Any) -> list[tuple[float, float]]:
    """draw()'s points: a list (or tuple) of 2..MAX_POINTS (x, y) pairs of numbers.

    A flat list of numbers (``draw([4, 130, 12, 114, 20, 130])``, as the 0.5B writes it and as
    canvas APIs take coordinates) is read as its pairs in turn; one of odd length is refused.
    """
    if not isinstance(points, (list, tuple)):
        raise ActionError(f"draw() expects points as a list of (x, y) pairs, not {type(points).__name__}")
    if points and all(map(_is_number, points)):
        if len(points) % 2:
            raise ActionError(f"draw() read {len(points)} numbers, which are not (x, y) pairs: "
                              "write draw([(x1, y1), (x2, y2), ...])")
        points = [points[index:index + 2] for index in range(0, len(points), 2)]
    if not 2 <= len(points) <= MAX_POINTS:
        raise ActionError(f"draw() takes 2 to {MAX_POINTS} points, not {len(points)}")
    path = []
    for number, point in enumerate(points):
        if not isinstance(point, (list, tuple)) or len(point) != 2:
            raise ActionError(f"draw(): point {number} is not an (x, y) pair")
        path.append(_point_arg(f"draw() point {number}", *point))
    return path
