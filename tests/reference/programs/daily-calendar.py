import re

# The calendar has two half-hour rows an hour, #hh-0 (12am) to #hh-47; dragging from one row
# to another draws the event, and a box to name it opens. Draw it from the window's start.
length, unit, name, hour, half = re.search(
    r'Create a ([\d.]+) (hours?|mins) event named "(.+)", between (\d+)(AM|PM)', task).groups()
halves = round(float(length) * (2 if unit.startswith('hour') else 1 / 30))
start = (int(hour) % 12 + (12 if half == 'PM' else 0)) * 2
scroll(f'{int(hour)}{half.lower()}')
drag('div', f'hh-{start}', 'div', f'hh-{start + halves - 1}')
click('input_text', 'event-name')
enter_text(name)
click('button', 'Create')
