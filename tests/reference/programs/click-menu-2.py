import re

# The item is named by its label, or by its icon: the instruction says an icon by its
# classes, and each item's icon is a span of those classes just after the item.
named = re.search(r'labeled "(.+)"', task)
icon = None if named else re.search(r'with the (.+) icon', task).group(1)
click('button', 'Menu')


def label_of(classes):
    """The text of the item whose icon has these classes (the item just before it)."""
    index = next(i for i, e in enumerate(observation) if e['tag'] == 'span' and e['classes'] == classes)
    return observation[index - 1]['text']


def shown():
    """Whether the item asked for, by label or by icon, is on the page now."""
    if named:
        return named.group(1) in [e['text'] for e in observation if 'ui-menu-item-wrapper' in e['classes'].split()]
    return any(e['classes'] == icon for e in observation)


wanted = named.group(1) if named else None
if not shown():
    hover('div', 'Playback')  # the other items are in the Playback submenu
    for _ in range(10):  # which opens a moment after the pointer rests on it, later on a busy machine
        wait(0.3)
        if shown():
            break
wanted = wanted or label_of(icon)
click('div', wanted)
