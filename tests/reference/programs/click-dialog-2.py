import re

wanted = re.search(r'"(.*)"', task).group(1)
if wanted == 'x':
    click('ui-dialog-titlebar-close', '')
else:
    click('button', wanted)
