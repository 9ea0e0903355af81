import re

wanted = re.search(r'Tab #\d+', task).group(0)
click('a', wanted)
