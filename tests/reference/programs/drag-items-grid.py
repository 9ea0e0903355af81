import re

# The grid is 3 items a row, in document order; a place is named by row and column or
# relative to where the item is now.
name, where = re.match(r'Drag (.+?) (?:to the )?(top left|top center|top right|center left|center|'
                       r'center right|bottom left|bottom center|bottom right|up by one|down by one|'
                       r'left by one|right by one)\.', task).groups()
grid = [e for e in observation if e['tag'] == 'div' and e['text']]  # the names, in order
items = [e['text'] for e in grid]
here = items.index(name)
places = ['top left', 'top center', 'top right', 'center left', 'center', 'center right',
          'bottom left', 'bottom center', 'bottom right']
moves = {'up by one': -3, 'down by one': 3, 'left by one': -1, 'right by one': 1}
there = places.index(where) if where in places else here + moves[where]


def centre(e):
    """The middle of the name's cell: the name is a line of text at the top of a cell as
    tall as the rows' spacing."""
    return e['left'] + e['width'] / 2, e['top'] + (grid[3]['top'] - grid[0]['top']) / 2


# The list puts the item after the item under the pointer when the pointer last moved right
# over its right half, before it when it moved left over its left half; it reorders move by
# move, so the pointer travels in small steps to the target, then sideways into that half.
(x0, y0), (x1, y1) = centre(grid[here]), centre(grid[there])
side = (grid[there]['width'] / 2 - 2) * (1 if there > here else -1)
path = [(x0 + (x1 - x0) * k / 20, y0 + (y1 - y0) * k / 20) for k in range(21)]
draw(path + [(x1 + side * k / 10, y1) for k in range(1, 11)])
