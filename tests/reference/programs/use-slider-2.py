import json
import re

# Three sliders, each followed by its handle: for each, read its range by dragging past both ends, drag to where the
# value lies, then step to it with the arrow keys (the handle has the focus after a drag).
wanted = json.loads(re.search(r'combination (\[.*?\])', task).group(1))
for number, goal in enumerate(wanted, 1):
    track = next(e for e in observation if e['id'] == 'slider-%d' % number)
    handle = '[%d]' % [e for e in observation if 'ui-slider-handle' in e['classes'].split()][number - 1]['ref']

    def value():
        return int(next(e for e in observation if e['id'] == 'val-%d' % number)['text'])

    def point(share):
        return track['left'] + share * track['width'], track['top'] + track['height'] / 2

    drag_to('span', handle, *point(1 + 5 / track['width']))  # 5 px past each end
    top = value()
    drag_to('span', handle, *point(-5 / track['width']))
    bottom = value()
    drag_to('span', handle, *point((goal - bottom) / (top - bottom)))
    for _ in range(abs(goal - value())):
        press_key('ArrowUp' if goal > value() else 'ArrowDown')
click('button', 'Submit')
