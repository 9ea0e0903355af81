ids = [element['id'] for element in observation]
start, end = ids.index('captcha'), ids.index('form')
captcha = ''.join(element['text'] for element in observation[start + 1:end])
click('input_text', 'tt')
enter_text(captcha)
click('button', 'Submit')
