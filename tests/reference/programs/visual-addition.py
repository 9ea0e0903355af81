blocks = [e for e in observation if 'addition-block' in e['classes'].split()]
click('input_text', 'math-answer')
enter_text(str(len(blocks)))
click('button', 'Submit')
