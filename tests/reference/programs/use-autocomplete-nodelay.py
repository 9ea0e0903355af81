import re

start = re.search(r'starts with "(.*?)"', task).group(1)
end = re.search(r'ends with "(.*?)"', task)
click('input_text', 'tags')
enter_text(start)


def suggestions():
    return [e['text'] for e in observation if 'ui-menu-item-wrapper' in e['classes']]


if not suggestions():
    press_key('ArrowDown')  # opens the suggestions at once; typing opens them after a pause
fitting = [item for item in suggestions() if item.startswith(start) and (end is None or item.endswith(end.group(1)))]
click('ui-menu-item-wrapper', fitting[0])
click('button', 'Submit')
