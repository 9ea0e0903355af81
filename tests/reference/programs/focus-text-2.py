import re

position = int(re.search(r'(\d)(st|nd|rd|th) ', task).group(1))
boxes = [element for element in observation if element['tag'] == 'input_text']
click('input_text', boxes[position - 1]['id'])
