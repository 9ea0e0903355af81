import math

# A closed circle of radius 20 around the dot.
dot = next(e for e in observation if e['tag'] == 'circle')
x, y = dot['left'] + dot['width'] / 2, dot['top'] + dot['height'] / 2
draw([(x + 20 * math.cos(2 * math.pi * i / 60), y + 20 * math.sin(2 * math.pi * i / 60)) for i in range(61)])
click('button', 'Submit')
