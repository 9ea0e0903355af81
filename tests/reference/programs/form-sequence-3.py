import re

option, button = re.search(r'Choose (.+) from the dropdown, then click the button labeled "(.+)"', task).groups()
# A styled dropdown: open it, then pick the option from its list (not in the summary, but clickable).
click('selectric', '')
click('li', option)
click('button', button)
