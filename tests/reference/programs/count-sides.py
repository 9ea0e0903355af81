canvas = next(e for e in observation if e['tag'] == 'canvas')
click('button', str(len(canvas['points'])))
