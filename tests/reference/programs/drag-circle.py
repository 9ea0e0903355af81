import re

direction = re.search(r'Drag the circle (\w+)', task).group(1)
dx, dy = {'left': (-15, 0), 'right': (15, 0), 'up': (0, -15), 'down': (0, 15)}[direction]
circle = next(e for e in observation if e['tag'] == 'circle')
drag_to('circle', circle['text'], circle['left'] + circle['width'] / 2 + dx, circle['top'] + circle['height'] / 2 + dy)
click('button', 'Submit')
