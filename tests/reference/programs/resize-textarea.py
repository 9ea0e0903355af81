import re

# Drag the textarea's bottom-right corner (where its resize handle is) 20 px the way the task asks.
dimension, direction = re.search(r'the (width|height) is (larger|smaller)', task).groups()
area = next(e for e in observation if e['tag'] == 'textarea')
x, y = area['left'] + area['width'] - 4, area['top'] + area['height'] - 4
step = 20 if direction == 'larger' else -20
dx, dy = (step, 0) if dimension == 'width' else (0, step)
draw([(x + dx * i / 10, y + dy * i / 10) for i in range(11)])
click('button', 'Submit')
