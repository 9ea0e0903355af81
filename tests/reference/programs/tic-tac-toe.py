lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
# The page's opponent plays a random free cell 55 times in 100, else wins when it can, else
# blocks; each move of ours is the one most likely to win against it.
RANDOM = 0.55


def board():
    """The cells in order, each 'x', 'o' or '' from its mark class."""
    cells = [''] * 9
    for e in observation:
        if e['id'].startswith('ttt-'):
            classes = e['classes'].split()
            cells[int(e['id'][4:])] = 'x' if 'mark-x' in classes else 'o' if 'mark-o' in classes else ''
    return tuple(cells)


def won(cells, mark):
    return any(all(cells[c] == mark for c in line) for line in lines)


def completing(cells, mark):
    return [c for line in lines for c in line if cells[c] == '' and sum(cells[d] == mark for d in line) == 2]


def put(cells, cell, mark):
    return cells[:cell] + (mark,) + cells[cell + 1:]


memo = {}


def chance(cells):
    """Probability of a win with X to move on `cells`, playing best from here."""
    if cells in memo:
        return memo[cells]
    free = [c for c in range(9) if cells[c] == '']
    best = max((after_x(put(cells, c, 'x')) for c in free), default=0.0)
    memo[cells] = best
    return best


def after_x(cells):
    if won(cells, 'x'):
        return 1.0
    free = [c for c in range(9) if cells[c] == '']
    if not free:
        return 0.0
    smart = (completing(cells, 'o') or completing(cells, 'x') or [None])[0]
    total = 0.0
    for c in free:
        weight = RANDOM / len(free) + ((1 - RANDOM) / len(free) if smart is None else (1 - RANDOM) * (c == smart))
        if weight:
            after = put(cells, c, 'o')
            total += weight * (0.0 if won(after, 'o') else chance(after))
    return total


for turn in range(5):
    cells = board()
    free = [c for c in range(9) if cells[c] == '']
    if not free:
        break
    move = max(free, key=lambda c: after_x(put(cells, c, 'x')))
    click('span', 'ttt-' + str(move))
