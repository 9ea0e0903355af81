import re

# "the 2nd text area": the n-th textarea in document order; copy it with the keyboard so the
# text (trailing space included) arrives exactly as the page holds it.
nth = int(re.search(r'(\d+)(?:st|nd|rd|th)', task).group(1))
area = [e for e in observation if e['tag'] == 'textarea'][nth - 1]
click('textarea', area['id'])
press_key('Control+a')
press_key('Control+c')
click('input_text', 'answer-input')
press_key('Control+v')
click('button', 'Submit')
