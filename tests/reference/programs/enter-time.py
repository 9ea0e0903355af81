import re

time = re.search(r'Enter (.*) as the time', task).group(1)
click('input_time', 'tt')
enter_text(time)
click('button', 'Submit')
