# Copy with the keyboard, so the text (trailing space included) arrives exactly as the page holds it.
click('textarea', 'to-copy')
press_key('Control+a')
press_key('Control+c')
click('input_text', 'answer-input')
press_key('Control+v')
click('button', 'Submit')
