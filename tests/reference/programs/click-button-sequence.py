import re

for name in re.findall(r'button (\w+)', task):
    click('button', name)
