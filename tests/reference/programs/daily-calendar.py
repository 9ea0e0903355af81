import re

# The calendar has two half-hour rows an hour, #hh-0 (12am) to #hh-47; dragging from one row
# to another draws the event, and a box to name it opens. The event must end inside the
# window. The page's own events (which a press on them would hit instead of the rows) lie
# within 6-10am, 12-4pm and 6-10pm, so draw from 10am for the morning window, to end at 12pm
# for the afternoon one, and from 4pm for the evening one.
length, unit, name, hour, half = re.search(
    r'Create a ([\d.]+) (hours?|mins) event named "(.+)", between (\d+)(AM|PM)', task).groups()
halves = round(float(length) * (2 if unit.startswith('hour') else 1 / 30))
window = (int(hour) % 12 + (12 if half == 'PM' else 0)) * 2
start = {16: 20, 24: 24 - halves, 32: 32}[window]
scroll('10am' if start < 24 else '4pm')
drag('div', f'hh-{start}', 'div', f'hh-{start + halves - 1}')
click('input_text', 'event-name')
enter_text(name)
click('button', 'Create')
