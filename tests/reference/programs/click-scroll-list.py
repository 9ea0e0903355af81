import re

# The list's options are not in the observation, but a click reaches any visible element,
# and a click in a list that takes several adds its option to the choice.
names = re.search(r'Select (.*) from the scroll list', task).group(1).split(', ')
for name in names:
    click('option', name)
click('button', 'Submit')
