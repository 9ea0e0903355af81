import re

nth = int(re.search(r'(\d+)(?:st|nd|rd|th) paragraph', task).group(1))
paragraph = [e for e in observation if e['tag'] == 'p'][nth - 1]['text']
select_text(paragraph)
click('button', 'Submit')
