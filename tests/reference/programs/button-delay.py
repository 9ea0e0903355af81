import datetime
import re

# A click lands after its action has read the page, and the first click's action also reads
# the page again after it: so start the second click the wanted time after the first one
# started, timed on the program's own clock, rather than waiting that long after it ended.
seconds = int(re.search(r'wait (\d+) seconds', task).group(1))
start = datetime.datetime.now()
click('button', 'ONE')
left = seconds - (datetime.datetime.now() - start).total_seconds()
if left > 0:
    wait(min(left, 5))
click('button', 'TWO')
