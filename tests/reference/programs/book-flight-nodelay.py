import datetime
import re

kind, origin, destination, date = re.search(
    r'Book the (\w+) one-way flight from: (.+?) to: (.+?) on (\d+/\d+/\d+)', task).groups()


def fill(field, place):
    """Type the place and write out the airport the suggestions offer for it.

    Written out, not clicked: when the keys already moved to a suggestion (typing opened
    them first), a click picks that one, whatever it hits.
    """
    click('input_text', field)
    enter_text(place)
    press_key('ArrowDown')  # opens the suggestions at once (typing opens them after a pause)
    items = [e['text'] for e in observation if 'ui-menu-item-wrapper' in e['classes'].split()]
    press_key('Control+a')
    enter_text(next(item for item in items if place in item))


fill('flight-from', origin)
fill('flight-to', destination)
month, day, year = [int(part) for part in date.split('/')]
click('input_text', 'datepicker')


def shown():
    """The (year, month) the calendar shows."""
    name = next(e['text'] for e in observation if 'ui-datepicker-month' in e['classes'].split())
    shown_year = next(e['text'] for e in observation if 'ui-datepicker-year' in e['classes'].split())
    return int(shown_year), datetime.datetime.strptime(name, '%B').month


for _ in range(24):
    now = shown()
    if now == (year, month):
        break
    click('a', 'Prev' if now > (year, month) else 'Next')
click('ui-state-default', str(day))
click('button', 'Search')
durations = [e['text'] for e in observation if 'time-duration' in e['classes'].split()]
buttons = [e for e in observation if 'flight-price' in e['classes'].split()]
if kind == 'cheapest':
    values = [int(re.search(r'\$(\d+)', b['text']).group(1)) for b in buttons]
else:
    values = [int(h) * 60 + int(m) for h, m in (re.search(r'(\d+)h (\d+)m', d).groups() for d in durations)]
chosen = buttons[values.index(min(values))]
click('button', f"[{chosen['ref']}]")
