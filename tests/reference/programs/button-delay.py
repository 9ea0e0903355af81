import re

seconds = int(re.search(r'wait (\d+) seconds', task).group(1))
click('button', 'ONE')
wait(seconds)
click('button', 'TWO')
