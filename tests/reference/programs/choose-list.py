import re

wanted = re.search(r'Select (.*) from the list', task).group(1)
click('select', '')  # focuses the list; typing a name selects the option it starts
for char in wanted:
    press_key('Space' if char == ' ' else char)
click('button', 'Submit')
