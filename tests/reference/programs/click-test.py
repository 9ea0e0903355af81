click('button', '')
