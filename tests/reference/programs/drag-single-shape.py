import re

direction = re.search(r'Drag the item (\w+)', task).group(1)
dx, dy = {'left': (-15, 0), 'right': (15, 0), 'up': (0, -15), 'down': (0, 15)}[direction]
shape = next(e for e in observation if 'black-shape' in e['classes'].split())
drag_to('black-shape', shape['text'], shape['left'] + shape['width'] / 2 + dx, shape['top'] + shape['height'] / 2 + dy)
click('button', 'Submit')
