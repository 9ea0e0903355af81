import datetime
import re

month, day, year = [int(part) for part in re.search(r'(\d+)/(\d+)/(\d+)', task).groups()]
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
click('button', 'Submit')
