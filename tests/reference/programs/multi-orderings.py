import re

# Each row is a caption (th) and its field; the rows come in any order, and the fields have
# no text or id, so a field is named by its [ref].
genre, director, year = re.search(r'Search for (.+) movies directed by (.+) from year (\d+)', task).groups()
wanted = {'Genre': genre, 'Director': director, 'Year': year}
for i, element in enumerate(observation):
    if element['tag'] == 'th' and element['text'] in wanted:
        field = next(e for e in observation[i:] if e['tag'] == 'input_text')
        click('input_text', f"[{field['ref']}]")
        enter_text(wanted[element['text']])
click('final', 'Submit')
