import re

# The cube turns with momentum after a drag: drag a little, let it settle, read the side
# now active, and again until the wanted side is active (side 1 lies over the top, the
# others around).
wanted = re.search(r'"(\d)"', task).group(1)
push = 25  # pixels per drag


def active():
    return next(e['text'] for e in observation if 'active' in e['classes'].split())


for _ in range(4):
    if active() == wanted:
        break
    side = next(e for e in observation if e['text'] == active() and 'cube-image' in e['classes'].split())
    x, y = side['left'] + side['width'] / 2, side['top'] + side['height'] / 2
    hover('div', active())  # the cube turns by how far the pointer moved since its last frame:
    wait(0.2)  # let it see the pointer arrive before the press
    if wanted in ('1', '6'):
        drag_to('div', active(), x, y - push)
    else:
        drag_to('div', active(), x + push, y)
    wait(1.5)
if active() == wanted:
    click('button', 'Submit')
# --- next program ---
import re

# round 2: the same again from where the cube now is, with drags of another length
# (the harness does not rerun the same calls on a page it sees as unchanged).
# The cube turns with momentum after a drag: drag a little, let it settle, read the side
# now active, and again until the wanted side is active (side 1 lies over the top, the
# others around).
wanted = re.search(r'"(\d)"', task).group(1)
push = 20  # pixels per drag


def active():
    return next(e['text'] for e in observation if 'active' in e['classes'].split())


for _ in range(4):
    if active() == wanted:
        break
    side = next(e for e in observation if e['text'] == active() and 'cube-image' in e['classes'].split())
    x, y = side['left'] + side['width'] / 2, side['top'] + side['height'] / 2
    hover('div', active())  # the cube turns by how far the pointer moved since its last frame:
    wait(0.2)  # let it see the pointer arrive before the press
    if wanted in ('1', '6'):
        drag_to('div', active(), x, y - push)
    else:
        drag_to('div', active(), x + push, y)
    wait(1.5)
if active() == wanted:
    click('button', 'Submit')
# --- next program ---
import re

# round 3: the same again from where the cube now is, with drags of another length
# (the harness does not rerun the same calls on a page it sees as unchanged).
# The cube turns with momentum after a drag: drag a little, let it settle, read the side
# now active, and again until the wanted side is active (side 1 lies over the top, the
# others around).
wanted = re.search(r'"(\d)"', task).group(1)
push = 30  # pixels per drag


def active():
    return next(e['text'] for e in observation if 'active' in e['classes'].split())


for _ in range(4):
    if active() == wanted:
        break
    side = next(e for e in observation if e['text'] == active() and 'cube-image' in e['classes'].split())
    x, y = side['left'] + side['width'] / 2, side['top'] + side['height'] / 2
    hover('div', active())  # the cube turns by how far the pointer moved since its last frame:
    wait(0.2)  # let it see the pointer arrive before the press
    if wanted in ('1', '6'):
        drag_to('div', active(), x, y - push)
    else:
        drag_to('div', active(), x + push, y)
    wait(1.5)
if active() == wanted:
    click('button', 'Submit')
# --- next program ---
import re

# round 4: the same again from where the cube now is, with drags of another length
# (the harness does not rerun the same calls on a page it sees as unchanged).
# The cube turns with momentum after a drag: drag a little, let it settle, read the side
# now active, and again until the wanted side is active (side 1 lies over the top, the
# others around).
wanted = re.search(r'"(\d)"', task).group(1)
push = 15  # pixels per drag


def active():
    return next(e['text'] for e in observation if 'active' in e['classes'].split())


for _ in range(4):
    if active() == wanted:
        break
    side = next(e for e in observation if e['text'] == active() and 'cube-image' in e['classes'].split())
    x, y = side['left'] + side['width'] / 2, side['top'] + side['height'] / 2
    hover('div', active())  # the cube turns by how far the pointer moved since its last frame:
    wait(0.2)  # let it see the pointer arrive before the press
    if wanted in ('1', '6'):
        drag_to('div', active(), x, y - push)
    else:
        drag_to('div', active(), x + push, y)
    wait(1.5)
if active() == wanted:
    click('button', 'Submit')
# --- next program ---
import re

# round 5: the same again from where the cube now is, with drags of another length
# (the harness does not rerun the same calls on a page it sees as unchanged).
# The cube turns with momentum after a drag: drag a little, let it settle, read the side
# now active, and again until the wanted side is active (side 1 lies over the top, the
# others around).
wanted = re.search(r'"(\d)"', task).group(1)
push = 35  # pixels per drag


def active():
    return next(e['text'] for e in observation if 'active' in e['classes'].split())


for _ in range(4):
    if active() == wanted:
        break
    side = next(e for e in observation if e['text'] == active() and 'cube-image' in e['classes'].split())
    x, y = side['left'] + side['width'] / 2, side['top'] + side['height'] / 2
    hover('div', active())  # the cube turns by how far the pointer moved since its last frame:
    wait(0.2)  # let it see the pointer arrive before the press
    if wanted in ('1', '6'):
        drag_to('div', active(), x, y - push)
    else:
        drag_to('div', active(), x + push, y)
    wait(1.5)
if active() == wanted:
    click('button', 'Submit')
