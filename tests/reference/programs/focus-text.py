click('input_text', '')
