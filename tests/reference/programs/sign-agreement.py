import re

quoted = re.findall(r'"([^"]*)"', task)
if len(quoted) == 2:
    # The text area is disabled (no focus, no keys): drag its scrollbar's thumb, at the
    # area's right edge, from near the top to past the bottom, which unlocks the form.
    area = next(e for e in observation if e['tag'] == 'textarea')
    x = area['left'] + area['width'] - 7
    draw([(x, area['top'] + 20), (x, area['top'] + area['height'] + 60)])
    click('input_text', 'name')
    enter_text(quoted[0])
    click('button', quoted[1])
else:
    click('button', re.search(r'Click the (\w+) button', task).group(1))
