import re


def plus_after(name):
    """Scroll the item named `name` into view; its '+' is the first one after its name."""
    scroll(name)
    start = next(i for i, e in enumerate(observation) if e['text'] == name and 'item-name' in e['classes'])
    return next(e for e in observation[start:] if 'add' in e['classes'].split())


def press(element):
    click_at(element['left'] + element['width'] / 2, element['top'] + element['height'] / 2)


by_type = re.match(r'Order (\d+) items that are (\S+)', task)
if by_type:
    count, kind = int(by_type.group(1)), by_type.group(2)
    # An item's types are its images, said by their alt text, between its name and its '+'.
    for i, e in enumerate(observation):
        if 'item-name' in e['classes']:
            name = e['text']
        elif e['tag'] == 'img' and e['text'] == kind:
            break
    button = plus_after(name)
    for _ in range(count):
        press(button)
else:
    for name in task.split(': ', 1)[1].split(', '):
        press(plus_after(name))
click('button', 'Order!')
