"""Signatures and docstrings of the actions a generated program may call.

These stubs never run: the executor implements them and the sandbox proxies them. Their
docstrings are written for the model: short, concrete, with examples on invented pages
that carry no loops or literals worth copying into a real task.
"""

from __future__ import annotations

Observation = list[dict]


def click(tag: str, text: str) -> Observation:
    """Click the element with this tag (or class) whose text is `text`.

    Match order: exact text, text ignoring case, element id, text containing `text`,
    then any tag with exactly this text. `tag` may be a tag such as 'button', 'a',
    'span', 'label', 'td', 'input_checkbox', 'input_text', 't' (a bare text node), the
    word 'input' for any input, or one of the element's classes.
    Clicking an input_text focuses it, so enter_text can type into it next.
    Returns the new observation. Raises an error naming close candidates if none match.
    Example: click('button', 'Save')
    """
    raise NotImplementedError


def enter_text(text: str) -> Observation:
    """Type `text` into the focused input; end it with '\\n' to press Enter afterwards.

    Click the input first. Raises an error when nothing editable is focused.
    Dates and times may be written as people write them ('03/14/2016', '9:37 PM').
    Example: click('input_text', 'username'); enter_text('alice')
    """
    raise NotImplementedError


def press_key(key: str) -> Observation:
    """Press a key or a combination in the focused element.

    Keys: Enter, Tab, Backspace, Delete, Escape, Space, Home, End, ArrowUp, ArrowDown,
    ArrowLeft, ArrowRight, and combinations such as 'Control+a', 'Control+c',
    'Control+v', 'Shift+Tab'.
    Example: press_key('Control+a')
    """
    raise NotImplementedError


def scroll(text: str) -> Observation:
    """Scroll the first element whose text contains `text` into view.

    Example: scroll('Terms of use')
    """
    raise NotImplementedError


def click_at(x: float, y: float) -> Observation:
    """Press and release the pointer at the point (x, y) of the page.

    x and y are page pixels, the frame of every element's left, top, width and height.
    Example: click the middle of a box: b = next(e for e in observation if e['id'] == 'box')
             click_at(b['left'] + b['width'] / 2, b['top'] + b['height'] / 2)
    """
    raise NotImplementedError


def hover(tag: str, text: str) -> Observation:
    """Rest the pointer on the element click(tag, text) would hit, without clicking.

    A menu item opens its submenu so. Example: hover('span', 'Help')
    """
    raise NotImplementedError


def drag(tag: str, text: str, to_tag: str, to_text: str) -> Observation:
    """Press on one element, move to the centre of another, release there.

    Both are named as click names them. Example: drag('li', 'Milk', 'li', 'Eggs')
    """
    raise NotImplementedError


def drag_to(tag: str, text: str, x: float, y: float) -> Observation:
    """Press on the element, move to the point (x, y) of the page, release there.

    Example: move a handle 30 pixels right:
             h = next(e for e in observation if 'handle' in e['classes'])
             drag_to('span', h['text'], h['left'] + h['width'] / 2 + 30, h['top'] + h['height'] / 2)
    """
    raise NotImplementedError


def draw(points: list[tuple[float, float]]) -> Observation:
    """Press at points[0], move through each point in order, release at the last.

    points: 2 to 200 (x, y) pairs in page pixels (a flat list x1, y1, x2, y2, ... is read as pairs).
    Example: draw([(20, 80), (60, 80), (100, 80)])
    """
    raise NotImplementedError


def select_text(text: str) -> Observation:
    """Select `text` on the page, as dragging across it would: a whole element's text first.

    Example: select_text('blue whale')
    """
    raise NotImplementedError


def wait(seconds: float) -> Observation:
    """Wait `seconds` (more than 0, at most 5), then return the page as it is then.

    Example: wait(2)
    """
    raise NotImplementedError


def click_action1(tag: str, text: str, observation: Observation) -> dict:
    """Paper spelling of click: returns an action for env.step to perform.

    Example: action = click_action1('button', 'Save', observation)
             observation, reward, terminated, truncated, info = env.step(action)
    """
    raise NotImplementedError


def enter_text_action(text: str, observation: Observation) -> dict:
    """Paper spelling of enter_text: returns an action for env.step to perform."""
    raise NotImplementedError


def scroll_action1(text: str, observation: Observation) -> dict:
    """Paper spelling of scroll: returns an action for env.step to perform."""
    raise NotImplementedError


class Env:
    """The `env` object of the paper's spelling."""

    def step(self, action: dict) -> tuple[Observation, float, bool, bool, dict]:
        """Perform an action built by click_action1, enter_text_action or scroll_action1.

        Returns (observation, reward, terminated, truncated, info).
        """
        raise NotImplementedError
