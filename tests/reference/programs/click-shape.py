import re

description = re.search(r'Click on an? (.+)$', task).group(1).strip().rstrip('.').split()
kinds = {'circle': 'circle', 'rect': 'rectangle', 'polygon': 'triangle'}


def looks(item):
    """(size, colour, kind, text) of a grid item: shapes are 10 or 20 px, letters 10 or 20 px fonts."""
    size = 'large' if item['height'] >= 15 else 'small'
    if item['tag'] == 'text':
        return size, item['color'], 'digit' if item['text'].isdigit() else 'letter', item['text']
    return size, item['color'], 'shape', kinds[item['tag']]


def fits(item):
    size, colour, kind, text = looks(item)
    *qualities, name = description
    return (all(q in (size, colour) for q in qualities)
            and name in ('item', kind, text))


items = [e for e in observation if e['color'] and (e['tag'] in kinds or e['tag'] == 'text')]
target = next(e for e in items if fits(e))
click(target['tag'], f"[{target['ref']}]")
