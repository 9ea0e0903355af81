import re

wanted = re.search(r'#([0-9a-fA-F]{6})', task).group(1)
click('input_text', 'col')
press_key('Control+a')
enter_text(wanted)
click('button', 'Submit')
