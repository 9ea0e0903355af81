kinds = {'circle': 'Circle', 'rect': 'Rectangle', 'polygon': 'Triangle'}
figure = next(e for e in observation if e['tag'] in kinds or (e['tag'] == 'text' and e['color']))
if figure['tag'] == 'text':
    answer = 'Number' if figure['text'].isdigit() else 'Letter'
else:
    answer = kinds[figure['tag']]
click('button', answer)
