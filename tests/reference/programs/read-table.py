import re

key = re.search(r'value of (.*) into', task).group(1)
cells = [e['text'] for e in observation if e['tag'] == 'td']
value = cells[cells.index(key) + 1]
click('input_text', 'tt')
enter_text(value)
click('button', 'Submit')
