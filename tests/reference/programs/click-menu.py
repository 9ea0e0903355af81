# "Select Ann>Bob>Cid". A click on an item that holds a submenu selects it (a wrong answer),
# so walk the menu with the keyboard: Tab focuses its first item, ArrowDown moves down,
# ArrowRight opens the focused item's submenu on its first item, Enter selects.
path = task[len('Select '):].strip().split('>')


def items():
    """The menu items shown now, in document order: an open submenu follows its parent."""
    return [e['text'] for e in observation if 'ui-menu-item-wrapper' in e['classes'].split()]


press_key('Tab')
start = 0  # where the level being walked begins among items()
for depth, name in enumerate(path):
    if depth:
        press_key('ArrowRight')
        for _ in range(10):  # the submenu opens with a short animation, longer on a busy machine
            if name in items()[start:]:
                break
            wait(0.3)
    for _ in range(items().index(name, start) - start):
        press_key('ArrowDown')
    start = items().index(name, start) + 1
press_key('Enter')
