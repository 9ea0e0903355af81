import re

# "Drag X to the 3rd position." / "to the top." / "to the bottom." / "up (down) by one position.":
# drop it on the item now in that place.
name, where = re.search(r'Drag (.+?) ((?:to the|up by|down by) .+)\.$', task).groups()
items = [e['text'] for e in observation if e['tag'] == 'div' and e['text']]
at = items.index(name)
place = re.search(r'(\d+)', where)
if where == 'to the top':
    target = 0
elif where == 'to the bottom':
    target = len(items) - 1
elif where.startswith('up by one'):
    target = at - 1
elif where.startswith('down by one'):
    target = at + 1
else:
    target = int(place.group(1)) - 1
drag('div', name, 'div', items[target])
