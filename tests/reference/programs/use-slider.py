import re

# The slider's range is not shown: drag the handle past each end to read it, drag to where
# the value lies, then step to it with the arrow keys (the handle has the focus after a drag).
wanted = int(re.search(r'Select (-?\d+)', task).group(1))
track = next(e for e in observation if e['id'] == 'slider')
across = track['width'] > track['height']


def handle():
    return '[%d]' % next(e for e in observation if 'ui-slider-handle' in e['classes'].split())['ref']


def value():
    return int(next(e for e in observation if e['id'] == 'val')['text'])


def point(share):
    if across:
        return track['left'] + share * track['width'], track['top'] + track['height'] / 2
    return track['left'] + track['width'] / 2, track['top'] + track['height'] - share * track['height']


past = 5 / max(track['width'], track['height'])  # 5 px past each end
drag_to('span', handle(), *point(1 + past))
top = value()
drag_to('span', handle(), *point(-past))
bottom = value()
drag_to('span', handle(), *point((wanted - bottom) / (top - bottom)))
for _ in range(abs(wanted - value())):
    press_key('ArrowUp' if wanted > value() else 'ArrowDown')
click('button', 'Submit')
