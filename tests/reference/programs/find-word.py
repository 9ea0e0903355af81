import re

position = int(re.search(r'(\d+)(st|nd|rd|th) word', task).group(1))
paragraph = next(e['text'] for e in observation if e['tag'] == 'p')
word = re.sub(r'[^a-zA-Z]', '', paragraph.split()[position - 1])
click('input_text', 'answer-input')
enter_text(word)
click('button', 'Submit')
