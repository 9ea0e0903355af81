import re

wanted = re.search(r'"(.*)"', task).group(1)
click('input_text', '')
enter_text(wanted)
click('button', 'Submit')
