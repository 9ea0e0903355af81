import re

wanted = re.search(r'labeled "(.*)"', task).group(1)
click('tspan', '+')  # the spreader in the middle opens the wheel
click('tspan', wanted)
