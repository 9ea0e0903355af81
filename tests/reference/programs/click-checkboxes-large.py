import re

listed = re.search(r'Select (.*) and click Submit', task).group(1)
wanted = [] if listed == 'nothing' else listed.split(', ')
for name in wanted:
    click('label', name)
click('button', 'Submit')
