cells = [e['text'] for e in observation if e['tag'] == 'td']
table = dict(zip(cells[0::2], cells[1::2]))
labels = {e['id']: e['text'].rstrip(':') for e in observation if e['id'] in ('ll1', 'll2')}
for label, field in (('ll1', 'tt1'), ('ll2', 'tt2')):
    click('input_text', field)
    enter_text(table[labels[label]])
click('button', 'Submit')
