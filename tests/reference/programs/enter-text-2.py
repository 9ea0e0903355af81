import re

wanted = re.search(r'"(.*)"', task).group(1)
wanted = wanted.upper() if 'upper case' in task else wanted.lower()
click('input_text', '')
enter_text(wanted)
click('button', 'Submit')
