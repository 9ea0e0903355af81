paragraph = next(e['text'] for e in observation if e['id'] == 'randomText')
select_text(paragraph)
click('button', 'Submit')
