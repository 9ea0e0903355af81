import re

# Every shape of the kind named goes onto the box's centre; shapes are named by their ref.
kind = re.search(r'Drag all (\w+)', task).group(1)
tag = {'rectangles': 'rect', 'circles': 'circle', 'triangles': 'polygon'}[kind]
box = next(e for e in observation if e['id'] == 'shape-container')
for shape in [e for e in observation if e['tag'] == tag and e['id'] != 'shape-container']:
    drag(tag, '[%d]' % shape['ref'], 'rect', '[%d]' % box['ref'])
click('button', 'Submit')
