import re

date = re.search(r'\d\d/\d\d/\d{4}', task).group(0)
click('input_date', '')
enter_text(date)
click('button', 'Submit')
