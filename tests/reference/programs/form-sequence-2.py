import re

radio, number, box = re.search(r'the (\d)\w\w radio button and enter the number "(-?\d+)" into the (\d)\w\w textbox', task).groups()
radios = [e for e in observation if e['tag'] == 'input_radio']
click('input_radio', '[%d]' % radios[int(radio) - 1]['ref'])
click('input_text', 'input-' + box)
enter_text(number)
click('button', 'Submit')
