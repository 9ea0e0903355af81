import re

target, box = re.search(r'Select (-?\d+) with the slider, click the (\d)\w\w checkbox', task).groups()
# The slider moves one step per arrow key once its handle has the focus; #val shows its value.
current = int(next(e['text'] for e in observation if e['id'] == 'val'))
click('ui-slider-handle', '')
steps = int(target) - current
for _ in range(abs(steps)):
    press_key('ArrowRight' if steps > 0 else 'ArrowLeft')
click('input_checkbox', 'checkbox-' + box)
click('button', 'Submit')
