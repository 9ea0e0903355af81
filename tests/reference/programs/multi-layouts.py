import re

genre, director, year = re.findall(r'for (\S+) movies directed by (.+) from year (\d+)', task)[0]
wanted = {'genre': genre, 'director': director, 'year': year, 'date': year}
captions = []
for element in observation:
    found = re.search(r'genre|director|year|date', element['text'], re.I)
    if found and element['tag'] not in ('input_text', 't'):
        captions.append(found.group(0).lower())
fields = [element for element in observation if element['tag'] == 'input_text']
for caption, field in zip(captions, fields):
    click('input_text', f"[{field['ref']}]")
    enter_text(wanted[caption])
submit = [e for e in observation if e['text'] in ('Submit', 'Search', 'Go!')][-1]
click(submit['tag'], submit['text'])
