import re

# The shapes the task names go onto the left box's centre, every other shape onto the right's.
kind = re.search(r'Drag all (\w+) into', task)
colour = re.search(r'Drag all (\S+) shapes into', task)
tags = {'rectangles': 'rect', 'circles': 'circle', 'triangles': 'polygon'}
left, right = [e for e in observation if e['id'] == 'shape-container']
shapes = [e for e in observation if e['tag'] in ('rect', 'circle', 'polygon') and e['id'] != 'shape-container']
for shape in shapes:
    if colour:
        wanted = shape['color'] == colour.group(1)
    else:
        wanted = shape['tag'] == tags[kind.group(1)]
    box = left if wanted else right
    drag(shape['tag'], '[%d]' % shape['ref'], 'rect', '[%d]' % box['ref'])
click('button', 'Submit')
