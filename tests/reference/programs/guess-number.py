# Halve the range 0-9 with each guess, reading the page's reply (higher or lower).
low, high = 0, 9
while low <= high:
    guess = (low + high) // 2
    click('input_number', '')
    press_key('Control+a')
    enter_text(str(guess))
    click('button', 'Submit')
    shown = [e['id'] for e in observation]
    if 'higher' in shown:
        low = guess + 1
    elif 'lower' in shown:
        high = guess - 1
