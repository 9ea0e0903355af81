import re

wanted = re.search(r'button (\w+)', task).group(1)
click('button', wanted)
