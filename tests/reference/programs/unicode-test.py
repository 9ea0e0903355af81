import re

wanted = re.search(r'"(.*)"', task).group(1)
click('button', wanted)
