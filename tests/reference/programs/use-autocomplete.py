import re

start = re.search(r'starts with "(.*?)"', task).group(1)
end = re.search(r'ends with "(.*?)"', task)
click('input_text', 'tags')
enter_text(start)
press_key('ArrowDown')  # opens the suggestions at once (typing opens them after a pause)
items = [e['text'] for e in observation if 'ui-menu-item-wrapper' in e['classes'].split()]
wanted = next(item for item in items if item.startswith(start) and (end is None or item.endswith(end.group(1))))
# Write the suggestion out rather than click it: when the keys already moved to a suggestion
# (typing opened them first), a click picks that one, whatever it hits.
press_key('Control+a')
enter_text(wanted)
click('button', 'Submit')
