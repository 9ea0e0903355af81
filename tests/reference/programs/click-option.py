import re

wanted = re.search(r'Select (.*) and click Submit', task).group(1)
click('label', wanted)
click('button', 'Submit')
