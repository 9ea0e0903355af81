# A straight stroke through the dot across the drawing area (between the top of #area and
# the controls), in the direction the task names.
dot = next(e for e in observation if e['tag'] == 'circle')
area = next(e for e in observation if e['id'] == 'area')
controls = next(e for e in observation if e['id'] == 'controls')
x, y = dot['left'] + dot['width'] / 2, dot['top'] + dot['height'] / 2
if 'horizontal' in task:
    points = [(area['left'] + 5 + (area['width'] - 10) * i / 60, y) for i in range(61)]
else:
    points = [(x, area['top'] + 5 + (controls['top'] - area['top'] - 10) * i / 60) for i in range(61)]
draw(points)
click('button', 'Submit')
