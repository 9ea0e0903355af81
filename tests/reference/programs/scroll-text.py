import re

# The observation holds the whole text of the text area, scrolled or not.
text = next(e['value'] for e in observation if e['tag'] == 'textarea')
last = re.findall(r'[A-Za-z0-9]+', text)[-1]
click('input_text', 'answer-input')
enter_text(last)
click('button', 'Submit')
