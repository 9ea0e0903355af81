# "Select Ann>Bob>Cid". A click on an item that holds a submenu selects it (a wrong answer),
# so walk the menu with the keyboard: Tab focuses its first item, ArrowDown moves down,
# ArrowRight opens the focused item's submenu on its first item, Enter selects.
path = task[len('Select '):].strip().split('>')


def items():
    """The menu items shown now, in document order: an open submenu follows its parent."""
    return [e['text'] for e in observation if 'ui-menu-item-wrapper' in e['classes'].split()]


def active():
    """The item the keyboard is on: the menu marks the open path ui-state-active, so the last."""
    marked = [e['text'] for e in observation if 'ui-state-active' in e['classes'].split()]
    return marked[-1] if marked else None


press_key('Tab')
start = 0  # where the level being walked begins among items()
for depth, name in enumerate(path):
    if depth:
        # The submenu shows at once but takes the focus a moment later, later on a busy
        # machine; a key pressed before that still moves in the parent's level.
        press_key('ArrowRight')
        for _ in range(10):
            if name in items()[start:] and active() == items()[start]:
                break
            wait(0.3)
    for _ in range(items().index(name, start) - start):
        press_key('ArrowDown')
    start = items().index(name, start) + 1
press_key('Enter')
