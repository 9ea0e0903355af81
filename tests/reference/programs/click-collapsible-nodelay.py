header = next(e for e in observation if e['tag'] == 'h3')
click('h3', header['text'])
click('button', 'Submit')
